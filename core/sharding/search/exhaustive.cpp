// Depth-first branch and bound over a small core (see exhaustive.h).
// Nodes are assigned in breadth-first order from the highest-degree node,
// so most edges reach an assigned neighbour early. The bound for the
// unassigned rest adds, per node, its cheapest strategy given the edges to
// nodes assigned before the current one, the cheapest row entry of each edge
// from the current node forward, and the cheapest entry of every edge among
// later nodes: each edge is counted once, so the sum never exceeds the cost
// of a completion. Memory is checked against "assigned usage plus every
// unassigned node at its lightest", which prunes partial plans that cannot
// fit.
#include "core/sharding/search/exhaustive.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/sharding/search/message_passing.h"

namespace shardlab {
namespace {

// Message-passing sweeps that tighten the costs before the search.
constexpr int32_t kReparametriseSweeps = 10;

class Exhaustive {
 public:
  Exhaustive(const CoreModel& core, int64_t max_nodes) : c_(core), max_nodes_(max_nodes) {
    const int32_t n = core.num_nodes();
    // Breadth-first order from the highest-degree node (ties: lower id).
    std::vector<uint8_t> seen(n, 0);
    std::vector<int32_t> by_degree(n);
    std::iota(by_degree.begin(), by_degree.end(), 0);
    std::sort(by_degree.begin(), by_degree.end(), [&](int32_t a, int32_t b) {
      const int32_t da = core.adj_begin[a + 1] - core.adj_begin[a];
      const int32_t db = core.adj_begin[b + 1] - core.adj_begin[b];
      return da != db ? da > db : a < b;
    });
    for (int32_t start : by_degree) {
      if (seen[start]) continue;
      seen[start] = 1;
      for (size_t head = order_.size(), end = (order_.push_back(start), order_.size());
           head < order_.size(); ++head) {
        (void)end;
        const int32_t x = order_[head];
        for (int32_t i = core.adj_begin[x]; i < core.adj_begin[x + 1]; ++i) {
          const int32_t y = core.other(core.adj_edge[i], x);
          if (!seen[y]) {
            seen[y] = 1;
            order_.push_back(y);
          }
        }
      }
    }
    position_.assign(n, 0);
    for (int32_t p = 0; p < n; ++p) position_[order_[p]] = p;
    // Cheapest entry per edge and per row of each end.
    const int32_t m = core.num_edges();
    row_min_.resize(2 * static_cast<size_t>(m));
    for (int32_t e = 0; e < m; ++e) {
      const int32_t rows = core.num_strategies(core.edge_u[e]);
      const int32_t cols = core.num_strategies(core.edge_v[e]);
      const int64_t* t = core.edge_costs(e);
      row_min_[2 * e].assign(rows, kForbidden);
      row_min_[2 * e + 1].assign(cols, kForbidden);
      for (int32_t a = 0; a < rows; ++a) {
        for (int32_t b = 0; b < cols; ++b) {
          const int64_t v = t[static_cast<int64_t>(a) * cols + b];
          row_min_[2 * e][a] = std::min(row_min_[2 * e][a], v);
          row_min_[2 * e + 1][b] = std::min(row_min_[2 * e + 1][b], v);
        }
      }
    }
    // Memory: load(t) = assigned usage + lightest usage of unassigned nodes.
    load_.assign(core.num_times(), 0);
    seg_min_.assign(core.num_terms(), 0);
    for (int32_t x = 0; x < n; ++x) {
      for (int32_t i = core.term_begin[x]; i < core.term_begin[x + 1]; ++i) {
        int64_t least = core.term_use(i, 0);
        for (int32_t s = 1; s < core.num_strategies(x); ++s)
          least = std::min(least, core.term_use(i, s));
        seg_min_[i] = least;
        for (int32_t t = core.term_lo[i]; t < core.term_hi[i]; ++t) load_[t] += least;
      }
    }
    plan_.assign(n, 0);
  }

  ExhaustiveResult run(const std::vector<int32_t>& incumbent) {
    ExhaustiveResult result;
    for (int32_t t = 0; t < c_.num_times(); ++t) {
      if (load_[t] > c_.capacity[t]) {
        result.complete = true;  // even the lightest plan does not fit
        return result;
      }
    }
    if (static_cast<int32_t>(incumbent.size()) == c_.num_nodes()) {
      const CoreEvaluation e = evaluate_core(c_, incumbent);
      if (e.feasible()) {
        best_cost_ = e.cost;
        best_plan_ = incumbent;
      }
    }
    aborted_ = false;
    search(0, 0);
    result.complete = !aborted_;
    result.found = !best_plan_.empty();
    result.plan = best_plan_;
    result.cost = best_cost_;
    result.nodes = nodes_;
    return result;
  }

 private:
  // Lower bound on the cost of nodes at positions > d and the edges that
  // are not yet fully assigned, given positions < d assigned (position d is
  // the node being branched on and is accounted for by the caller).
  int64_t bound_after(int32_t d) const {
    int64_t total = 0;
    for (int32_t p = d + 1; p < static_cast<int32_t>(order_.size()); ++p) {
      const int32_t y = order_[p];
      int64_t best = kForbidden;
      room_.clear();
      for (int32_t i = c_.term_begin[y]; i < c_.term_begin[y + 1]; ++i) {
        int64_t room = INT64_MAX;
        for (int32_t t = c_.term_lo[i]; t < c_.term_hi[i]; ++t) {
          room = std::min(room, c_.capacity[t] - load_[t]);
        }
        room_.push_back(room + seg_min_[i]);
      }
      for (int32_t s = 0; s < c_.num_strategies(y); ++s) {
        if (!fits_room(y, s)) continue;
        int64_t v = c_.node_cost(y, s);
        for (int32_t i = c_.adj_begin[y]; i < c_.adj_begin[y + 1] && v < kForbidden; ++i) {
          const int32_t e = c_.adj_edge[i];
          const int32_t z = c_.other(e, y);
          if (position_[z] < d) {
            v += c_.edge_cost_from(e, y, s, plan_[z]);
          } else if (position_[z] > p) {
            v += row_min_[2 * e + (c_.edge_u[e] == y ? 0 : 1)][s];
          }
        }
        best = std::min(best, v);
      }
      if (best >= kForbidden) return kForbidden;
      total += best;
    }
    return total;
  }

  // Whether strategy s of y fits the rooms computed for y's terms (its
  // usage on every term at most the capacity left with every other
  // unassigned node at its lightest).
  bool fits_room(int32_t y, int32_t s) const {
    for (int32_t i = c_.term_begin[y], j = 0; i < c_.term_begin[y + 1]; ++i, ++j) {
      if (c_.term_use(i, s) > room_[j]) return false;
    }
    return true;
  }

  bool assign_usage(int32_t x, int32_t s, int64_t sign) {
    bool fits = true;
    for (int32_t i = c_.term_begin[x]; i < c_.term_begin[x + 1]; ++i) {
      const int64_t delta = sign * (c_.term_use(i, s) - seg_min_[i]);
      for (int32_t t = c_.term_lo[i]; t < c_.term_hi[i]; ++t) {
        load_[t] += delta;
        fits = fits && load_[t] <= c_.capacity[t];
      }
    }
    return fits;
  }

  void search(int32_t d, int64_t cost) {
    if (aborted_) return;
    if (++nodes_ > max_nodes_) {
      aborted_ = true;
      return;
    }
    const int32_t n = static_cast<int32_t>(order_.size());
    if (d == n) {
      if (best_plan_.empty() || cost < best_cost_) {
        best_cost_ = cost;
        best_plan_ = plan_;
      }
      return;
    }
    const int32_t x = order_[d];
    const int32_t k = c_.num_strategies(x);
    const int64_t rest = bound_after(d);
    if (rest >= kForbidden) return;
    // Candidate values: own cost with assigned neighbours, plus the row
    // minima towards later neighbours (for the bound).
    std::vector<std::pair<int64_t, int32_t>> candidates;
    std::vector<int64_t> own(k, 0);
    for (int32_t s = 0; s < k; ++s) {
      int64_t v = c_.node_cost(x, s);
      int64_t forward = 0;
      for (int32_t i = c_.adj_begin[x]; i < c_.adj_begin[x + 1] && v < kForbidden; ++i) {
        const int32_t e = c_.adj_edge[i];
        const int32_t z = c_.other(e, x);
        if (position_[z] < d) {
          v += c_.edge_cost_from(e, x, s, plan_[z]);
        } else {
          forward += row_min_[2 * e + (c_.edge_u[e] == x ? 0 : 1)][s];
        }
      }
      if (v >= kForbidden || forward >= kForbidden) continue;
      own[s] = v;
      const int64_t bound = cost + v + forward + rest;
      if (!best_plan_.empty() && bound >= best_cost_) continue;
      candidates.push_back({v + forward, s});
    }
    std::sort(candidates.begin(), candidates.end());
    for (const auto& [key, s] : candidates) {
      if (!best_plan_.empty() && cost + key + rest >= best_cost_) break;
      plan_[x] = s;
      if (assign_usage(x, s, 1)) search(d + 1, cost + own[s]);
      assign_usage(x, s, -1);
      if (aborted_) return;
    }
  }

  const CoreModel& c_;
  int64_t max_nodes_;
  std::vector<int32_t> order_;
  std::vector<int32_t> position_;
  std::vector<std::vector<int64_t>> row_min_;
  std::vector<int64_t> load_;
  std::vector<int64_t> seg_min_;
  mutable std::vector<int64_t> room_;  // per term of the node being bounded
  std::vector<int32_t> plan_;
  std::vector<int32_t> best_plan_;
  int64_t best_cost_ = 0;
  int64_t nodes_ = 0;
  bool aborted_ = false;
};

// A copy of the core with its costs moved by a few sweeps of message
// passing: unary'(x, s) = unary + m(e, side)(s) and edge'(a, b) = edge -
// m(e, 0)(a) - m(e, 1)(b) for integer messages (the floors of the double
// ones), so every plan keeps exactly its total while the per-node minima
// that the bound adds up carry most of the edge costs (a message-passing
// counterpart of soft arc consistency). Each edge gets its own matrix.
CoreModel reparametrised(const CoreModel& core) {
  CoreModel out = core;
  if (core.num_edges() == 0) return out;
  MessagePassing mp(core);
  mp.set_unary(std::vector<double>(core.unary.begin(), core.unary.end()));
  mp.run(kReparametriseSweeps);
  const std::vector<double>& m = mp.messages();
  // Messages as integers; huge ones (rows that are all forbidden) stay 0.
  auto message = [&](int64_t i) {
    const double v = std::floor(m[i]);
    return std::abs(v) < 1e15 ? static_cast<int64_t>(v) : int64_t{0};
  };
  out.matrix_begin.assign(1, 0);
  out.matrix_cost.clear();
  for (int32_t e = 0; e < core.num_edges(); ++e) {
    const int32_t u = core.edge_u[e];
    const int32_t v = core.edge_v[e];
    const int32_t rows = core.num_strategies(u);
    const int32_t cols = core.num_strategies(v);
    const int64_t mu = mp.message_begin(e, 0);
    const int64_t mv = mp.message_begin(e, 1);
    const int64_t* table = core.edge_costs(e);
    for (int32_t a = 0; a < rows; ++a) {
      for (int32_t b = 0; b < cols; ++b) {
        const int64_t c = table[static_cast<int64_t>(a) * cols + b];
        out.matrix_cost.push_back(c >= kForbidden ? kForbidden
                                                  : c - message(mu + a) - message(mv + b));
      }
    }
    out.edge_matrix[e] = e;
    out.matrix_begin.push_back(static_cast<int64_t>(out.matrix_cost.size()));
    for (int32_t a = 0; a < rows; ++a) out.unary[core.strategy_begin[u] + a] += message(mu + a);
    for (int32_t b = 0; b < cols; ++b) out.unary[core.strategy_begin[v] + b] += message(mv + b);
  }
  return out;
}

}  // namespace

ExhaustiveResult solve_exhaustively(const CoreModel& core, int64_t max_nodes,
                                    const std::vector<int32_t>& incumbent) {
  if (core.num_nodes() == 0) {
    ExhaustiveResult result;
    result.complete = true;
    result.found = true;
    for (int32_t t = 0; t < core.num_times(); ++t) {
      if (core.capacity[t] < 0) result.found = false;
    }
    return result;
  }
  const CoreModel tightened = reparametrised(core);
  Exhaustive search(tightened, max_nodes);
  ExhaustiveResult result = search.run(incumbent);
  if (result.found) result.cost = evaluate_core(core, result.plan).cost;
  return result;
}

}  // namespace shardlab
