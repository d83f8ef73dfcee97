// Exact presolve: turns a Problem into a smaller CoreModel that every search
// technique and the lower bound work on, and expands core plans back into
// plans of the original problem. Used by the Engine (core/solver.cpp) and the
// presolve tests; nothing here depends on the search.
//
// Reductions (each one exact, see presolve.cpp for the arguments):
//   - forbidden strategies and strategies with no allowed partner on an edge;
//   - merging along functional edges (one allowed partner per strategy, which
//     includes the contest's "identity" edges): the merged node carries the
//     usage of every original node it absorbed, so it has several intervals;
//   - normalising usage to "above the node's minimum" and dropping the times
//     where even the largest usages fit, which makes many nodes memory-free;
//   - eliminating memory-free nodes of degree 0, 1 and 2 (leaf and series
//     elimination, as in bucket elimination);
//   - dominated strategies (never cheaper, never lighter);
//   - strategies that cannot fit even when every other live node takes its
//     lightest strategy (bounds propagation on the per-time knapsacks);
//   - compressing time to the checkpoints that no other checkpoint dominates.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/progress.h"
#include "core/sharding/model.h"
#include "core/status.h"

namespace shardlab {

// The reduced instance. Node X has K(X) strategies; choosing s costs
// unary[strategy_begin[X] + s] (always finite). Edges are pairwise tables as
// in Problem (row-major K(u) x K(v), kForbidden allowed), each distinct table
// stored once. Memory: node X has terms term_begin[X] .. term_begin[X + 1),
// sorted by time and pairwise disjoint; term i adds
// term_usage[term_usage_begin[i] + s] (>= 0) to every core time in
// [term_lo[i], term_hi[i]). A core plan x is feasible when no chosen edge
// entry is forbidden and usage(t) <= capacity[t] at every core time t.
//
// Exactness contract (tested): for every core plan x with no forbidden entry,
//   evaluate(problem, expand(x)).cost == core_cost(x) + constant, and
//   expand(x) is within the usage limit iff x is within every capacity.
struct CoreModel {
  std::vector<int32_t> strategy_begin;  // num_nodes + 1
  std::vector<int64_t> unary;
  std::vector<int32_t> edge_u;
  std::vector<int32_t> edge_v;
  std::vector<int32_t> edge_matrix;
  std::vector<int64_t> matrix_begin;  // num_matrices + 1
  std::vector<int64_t> matrix_cost;
  std::vector<int32_t> adj_begin;  // incident edges, CSR
  std::vector<int32_t> adj_edge;
  std::vector<int32_t> term_begin;  // num_nodes + 1
  std::vector<int32_t> term_lo;
  std::vector<int32_t> term_hi;
  std::vector<int64_t> term_usage_begin;
  std::vector<int64_t> term_usage;
  std::vector<int64_t> capacity;  // per core time
  int64_t constant = 0;           // cost of everything eliminated as constant

  int32_t num_nodes() const { return static_cast<int32_t>(strategy_begin.size()) - 1; }
  int32_t num_edges() const { return static_cast<int32_t>(edge_u.size()); }
  int32_t num_times() const { return static_cast<int32_t>(capacity.size()); }
  int32_t num_terms() const { return static_cast<int32_t>(term_lo.size()); }
  int32_t num_strategies(int32_t x) const { return strategy_begin[x + 1] - strategy_begin[x]; }
  int64_t node_cost(int32_t x, int32_t s) const { return unary[strategy_begin[x] + s]; }
  const int64_t* edge_costs(int32_t e) const {
    return matrix_cost.data() + matrix_begin[edge_matrix[e]];
  }
  int64_t edge_cost(int32_t e, int32_t su, int32_t sv) const {
    return edge_costs(e)[static_cast<int64_t>(su) * num_strategies(edge_v[e]) + sv];
  }
  int64_t term_use(int32_t term, int32_t s) const { return term_usage[term_usage_begin[term] + s]; }
  // The other end of edge e seen from x.
  int32_t other(int32_t e, int32_t x) const { return edge_u[e] == x ? edge_v[e] : edge_u[e]; }
  // Entry of edge e with x at strategy sx and the other end at so.
  int64_t edge_cost_from(int32_t e, int32_t x, int32_t sx, int32_t so) const {
    return edge_u[e] == x ? edge_cost(e, sx, so) : edge_cost(e, so, sx);
  }
  int64_t memory_bytes() const;
};

// Cost of a core plan (finite part) and the number of forbidden entries.
struct CoreEvaluation {
  int64_t cost = 0;
  int64_t forbidden = 0;
  int64_t worst_excess = 0;  // max over times of usage - capacity (<= 0: fits)
  bool feasible() const { return forbidden == 0 && worst_excess <= 0; }
};
CoreEvaluation evaluate_core(const CoreModel& core, const std::vector<int32_t>& plan);

struct PresolveOptions {
  // Work caps (entry visits) that keep presolve near-linear on big instances.
  int64_t dominance_work_per_node = 4'000'000;
  int64_t series_work = 20'000'000;  // K(x) * K(y) * K(z) per elimination
  int64_t series_table = 1'000'000;  // K(y) * K(z) entries per new table
};

struct PresolveStats {
  int32_t original_nodes = 0;
  int32_t original_edges = 0;
  int32_t original_times = 0;
  int32_t merged = 0;             // nodes merged along functional edges
  int32_t eliminated = 0;         // memory-free nodes eliminated
  int64_t removed_forbidden = 0;  // strategies removed as forbidden/unsupported
  int64_t removed_dominated = 0;  // strategies removed as dominated
  int64_t removed_memory = 0;     // strategies that cannot fit in memory
  int32_t core_nodes = 0;
  int32_t core_edges = 0;
  int32_t core_times = 0;
  int32_t memory_nodes = 0;  // core nodes with at least one usage term
  int64_t core_strategies = 0;
  Counters counters() const;  // for the engine's counters
};

// The presolved instance: the core plus what is needed to map plans back.
class Presolved {
 public:
  const CoreModel& core() const { return core_; }
  const PresolveStats& stats() const { return stats_; }
  // True when presolve proved that no plan is feasible.
  bool infeasible() const { return infeasible_; }

  // The original plan for a core plan (exact, see CoreModel's contract).
  std::vector<int32_t> expand(const std::vector<int32_t>& core_plan) const;
  // A core plan whose expansion agrees with `plan` wherever it can: exact
  // for plans that expand() produced, a warm start for any other plan.
  std::vector<int32_t> restrict_plan(const std::vector<int32_t>& plan) const;

 private:
  friend class PresolveRun;
  CoreModel core_;
  PresolveStats stats_;
  bool infeasible_ = false;
  int32_t num_original_ = 0;
  int32_t num_work_ = 0;
  // Core node X is working node core_work_[X]; its strategy s is the working
  // node's stable strategy core_stable_[strategy_begin[X] + s].
  std::vector<int32_t> core_work_;
  std::vector<int32_t> core_stable_;
  // Replayed in reverse by expand(): each record sets one working node's
  // stable strategy from already-known ones.
  enum class RecordKind : uint8_t { kMerge, kLeaf, kSeries, kConstant };
  struct Record {
    RecordKind kind;
    int32_t target;
    int32_t from_a;  // kMerge/kLeaf/kSeries: the node the choice depends on
    int32_t from_b;  // kSeries: the second one
    int64_t data;    // offset into record_data_
    int32_t rows;    // stable space sizes of from_a / from_b
    int32_t cols;
    int32_t width;  // kSeries: columns of the argmin table
  };
  std::vector<Record> records_;
  std::vector<int32_t> record_data_;
  // restrict_plan(): the original nodes merged into core node X are
  // core_member_node_[core_member_begin_[X] ..), and member i maps core
  // strategy s to original strategy core_member_map_[core_member_map_begin_[i] + s].
  std::vector<int32_t> core_member_begin_;
  std::vector<int32_t> core_member_node_;
  std::vector<int64_t> core_member_map_begin_;
  std::vector<int32_t> core_member_map_;
};

// Runs every reduction to a fixed point. Fails only on malformed input.
Result<Presolved> presolve(const Problem& problem, const PresolveOptions& options = {});

}  // namespace shardlab
