// The IOPDDL problem as flat arrays: nodes with strategies (cost, usage) held
// over a half-open interval [lo, hi), edges whose pairwise costs come from a
// shared pool of distinct row-major matrices, and an optional usage limit.
// Produced by the instance reader (io.h); read by evaluate, presolve, the
// solvers, the CLI and the wasm bindings. Nothing here allocates per node.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/sharding/types.h"
#include "core/status.h"

namespace shardlab {

struct Problem {
  std::string name;

  // Strategy s of node v is entry strategy_begin[v] + s of the two arrays.
  std::vector<int32_t> strategy_begin;  // num_nodes + 1 entries
  std::vector<Cost> strategy_cost;      // kForbidden marks a forbidden choice
  std::vector<Usage> strategy_usage;    // >= 0
  std::vector<Time> interval_lo;        // node v is live on [lo, hi)
  std::vector<Time> interval_hi;

  // Edge e joins edge_u[e] to edge_v[e]; choosing (a, b) costs
  // matrix_cost[matrix_begin[edge_matrix[e]] + a * K(edge_v[e]) + b].
  std::vector<int32_t> edge_u;
  std::vector<int32_t> edge_v;
  std::vector<int32_t> edge_matrix;
  std::vector<int64_t> matrix_begin;  // num_matrices + 1 entries
  std::vector<Cost> matrix_cost;      // each distinct matrix stored once

  bool has_usage_limit = false;
  Usage usage_limit = 0;

  // ---- derived by finalize(); never read from input ----
  // Incident edges of v: adj_edge[adj_begin[v] .. adj_begin[v + 1]).
  std::vector<int32_t> adj_begin;
  std::vector<int32_t> adj_edge;
  // Memory only changes at interval starts, so the peak is always attained at
  // one: checkpoint_time holds the distinct lo of non-empty intervals, sorted,
  // and node v covers checkpoints [checkpoint_lo[v], checkpoint_hi[v]).
  std::vector<Time> checkpoint_time;
  std::vector<int32_t> checkpoint_lo;
  std::vector<int32_t> checkpoint_hi;

  int32_t num_nodes() const { return static_cast<int32_t>(interval_lo.size()); }
  int32_t num_edges() const { return static_cast<int32_t>(edge_u.size()); }
  int32_t num_matrices() const { return static_cast<int32_t>(matrix_begin.size()) - 1; }
  int32_t num_checkpoints() const { return static_cast<int32_t>(checkpoint_time.size()); }
  int32_t num_strategies(int32_t v) const { return strategy_begin[v + 1] - strategy_begin[v]; }
  int64_t total_strategies() const { return static_cast<int64_t>(strategy_cost.size()); }
  Cost node_cost(int32_t v, int32_t s) const { return strategy_cost[strategy_begin[v] + s]; }
  Usage node_usage(int32_t v, int32_t s) const { return strategy_usage[strategy_begin[v] + s]; }
  const Cost* edge_costs(int32_t e) const {
    return matrix_cost.data() + matrix_begin[edge_matrix[e]];
  }
  Cost edge_cost(int32_t e, int32_t su, int32_t sv) const {
    return edge_costs(e)[static_cast<int64_t>(su) * num_strategies(edge_v[e]) + sv];
  }
  Time horizon_begin() const;  // smallest lo of a non-empty interval (or 0)
  Time horizon_end() const;    // largest hi (or 0)

  // Builds the derived arrays and checks the invariants the reader promises
  // (sizes agree, indices in range, usages non-negative, totals fit).
  // Programmatic builders (tests, teaching generators) call it too.
  Status finalize();

  // Bytes held by the arrays above: the "compact model" size.
  int64_t memory_bytes() const;
};

// Builder for tests and generators: node v gets costs/usages (same length).
// Incident edges of n nodes in CSR form, for Problem and CoreModel alike:
// the edges of v are adj_edge[adj_begin[v] .. adj_begin[v + 1]), in
// increasing edge order.
void build_incidence(int32_t n, const std::vector<int32_t>& edge_u,
                     const std::vector<int32_t>& edge_v, std::vector<int32_t>* adj_begin,
                     std::vector<int32_t>* adj_edge);

struct ProblemBuilder {
  Problem problem;
  int32_t add_node(Time lo, Time hi, const std::vector<Cost>& costs,
                   const std::vector<Usage>& usages);
  // costs is row-major |K(u)| x |K(v)|; identical matrices are stored once.
  void add_edge(int32_t u, int32_t v, const std::vector<Cost>& costs);
  void set_usage_limit(Usage limit);
  Result<Problem> build();
};

}  // namespace shardlab
