// Region cores and their exact solution (see region_exact.h).
#include "core/sharding/search/region_exact.h"

#include "core/sharding/search/exhaustive.h"

namespace shardlab {

RegionCore region_core(const CoreState& state, const std::vector<int32_t>& nodes) {
  const CoreModel& c = state.core();
  const int32_t n = static_cast<int32_t>(nodes.size());
  std::vector<int32_t> local(c.num_nodes(), -1);
  for (int32_t i = 0; i < n; ++i) local[nodes[i]] = i;
  RegionCore r;
  CoreModel& s = r.core;
  r.strategies.assign(n, {});
  r.incumbent.assign(n, 0);
  s.strategy_begin.assign(1, 0);
  for (int32_t i = 0; i < n; ++i) {
    const int32_t x = nodes[i];
    for (int32_t k = 0; k < c.num_strategies(x); ++k) {
      int64_t cost = c.node_cost(x, k);
      for (int32_t a = c.adj_begin[x]; a < c.adj_begin[x + 1] && cost < kForbidden; ++a) {
        const int32_t e = c.adj_edge[a];
        const int32_t y = c.other(e, x);
        if (local[y] >= 0) continue;
        const int64_t edge = c.edge_cost_from(e, x, k, state.at(y));
        cost = edge >= kForbidden ? kForbidden : cost + edge;
      }
      if (cost >= kForbidden) continue;
      if (k == state.at(x)) r.incumbent[i] = static_cast<int32_t>(r.strategies[i].size());
      r.strategies[i].push_back(k);
      s.unary.push_back(cost);
    }
    s.strategy_begin.push_back(static_cast<int32_t>(s.unary.size()));
  }
  // Edges inside the region, each with its table restricted to the kept
  // strategies.
  s.matrix_begin.assign(1, 0);
  for (int32_t e = 0; e < c.num_edges(); ++e) {
    const int32_t u = local[c.edge_u[e]];
    const int32_t v = local[c.edge_v[e]];
    if (u < 0 || v < 0) continue;
    s.edge_matrix.push_back(static_cast<int32_t>(s.edge_u.size()));
    s.edge_u.push_back(u);
    s.edge_v.push_back(v);
    for (int32_t a : r.strategies[u]) {
      for (int32_t b : r.strategies[v]) s.matrix_cost.push_back(c.edge_cost(e, a, b));
    }
    s.matrix_begin.push_back(static_cast<int64_t>(s.matrix_cost.size()));
  }
  build_incidence(n, s.edge_u, s.edge_v, &s.adj_begin, &s.adj_edge);
  // Memory: the region's terms as they are; the capacity left by the fixed
  // nodes is the room at each time plus the region's own current usage.
  s.capacity.resize(c.num_times());
  for (int32_t t = 0; t < c.num_times(); ++t) s.capacity[t] = -state.excess_tree().at(t);
  s.term_begin.assign(1, 0);
  s.term_usage_begin.assign(1, 0);
  for (int32_t i = 0; i < n; ++i) {
    const int32_t x = nodes[i];
    for (int32_t j = c.term_begin[x]; j < c.term_begin[x + 1]; ++j) {
      s.term_lo.push_back(c.term_lo[j]);
      s.term_hi.push_back(c.term_hi[j]);
      for (int32_t k : r.strategies[i]) s.term_usage.push_back(c.term_use(j, k));
      s.term_usage_begin.push_back(static_cast<int64_t>(s.term_usage.size()));
      const int64_t own = c.term_use(j, state.at(x));
      for (int32_t t = c.term_lo[j]; t < c.term_hi[j]; ++t) s.capacity[t] += own;
    }
    s.term_begin.push_back(static_cast<int32_t>(s.term_lo.size()));
  }
  return r;
}

bool improve_region_exactly(CoreState* state, const std::vector<int32_t>& nodes,
                            int64_t max_search_nodes, int64_t* work) {
  const RegionCore r = region_core(*state, nodes);
  const int64_t entries = static_cast<int64_t>(r.core.unary.size() + r.core.matrix_cost.size());
  const ExhaustiveResult exact = solve_exhaustively(r.core, max_search_nodes, r.incumbent);
  // Building and tightening the region core, then per search node about
  // one pass over the region's strategies.
  *work -= 12 * entries + exact.nodes * static_cast<int64_t>(r.core.unary.size());
  if (!exact.found) return false;
  const int64_t before = evaluate_core(r.core, r.incumbent).cost;
  if (exact.cost >= before) return false;
  for (size_t i = 0; i < nodes.size(); ++i) {
    state->set(nodes[i], r.strategies[i][exact.plan[i]]);
  }
  return true;
}

}  // namespace shardlab
