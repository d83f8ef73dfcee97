// The page's plan views in the core (inspect.h): live nodes at a time, cost
// shares and a node's neighbours, each behind one shape check.
#include "core/sharding/inspect.h"

#include <algorithm>
#include <string>

namespace shardlab {

Status check_plan_shape(const Problem& problem, const std::vector<int32_t>& plan) {
  if (static_cast<int64_t>(plan.size()) != problem.num_nodes()) {
    return Status(StatusCode::kInvalidArgument, "the plan has " + std::to_string(plan.size()) +
                                                    " entries, the instance " +
                                                    std::to_string(problem.num_nodes()) + " nodes");
  }
  for (int32_t v = 0; v < problem.num_nodes(); ++v) {
    if (plan[v] < 0 || plan[v] >= problem.num_strategies(v)) {
      return Status(StatusCode::kInvalidArgument,
                    "node " + std::to_string(v) + " has no strategy " + std::to_string(plan[v]) +
                        " (it has " + std::to_string(problem.num_strategies(v)) + ")");
    }
  }
  return Status::ok();
}

Result<std::vector<int32_t>> live_nodes_at(const Problem& problem, const std::vector<int32_t>& plan,
                                           Time t) {
  const Status shape = check_plan_shape(problem, plan);
  if (!shape.is_ok()) return shape;
  std::vector<int32_t> live;
  for (int32_t v = 0; v < problem.num_nodes(); ++v) {
    if (problem.interval_lo[v] <= t && t < problem.interval_hi[v]) live.push_back(v);
  }
  std::sort(live.begin(), live.end(), [&](int32_t a, int32_t b) {
    const Usage ua = problem.node_usage(a, plan[a]);
    const Usage ub = problem.node_usage(b, plan[b]);
    return ua != ub ? ua > ub : a < b;
  });
  return live;
}

Result<std::vector<double>> cost_shares(const Problem& problem, const std::vector<int32_t>& plan) {
  const Status shape = check_plan_shape(problem, plan);
  if (!shape.is_ok()) return shape;
  std::vector<double> share(problem.num_nodes(), 0.0);
  for (int32_t v = 0; v < problem.num_nodes(); ++v) {
    share[v] = static_cast<double>(problem.node_cost(v, plan[v]));
  }
  for (int32_t e = 0; e < problem.num_edges(); ++e) {
    const int32_t u = problem.edge_u[e], w = problem.edge_v[e];
    const double c = static_cast<double>(problem.edge_cost(e, plan[u], plan[w]));
    share[u] += c / 2;
    share[w] += c / 2;
  }
  return share;
}

Result<std::vector<Neighbour>> neighbours_of(const Problem& problem,
                                             const std::vector<int32_t>& plan, int32_t v) {
  const Status shape = check_plan_shape(problem, plan);
  if (!shape.is_ok()) return shape;
  if (v < 0 || v >= problem.num_nodes()) {
    return Status(StatusCode::kInvalidArgument, "no node " + std::to_string(v) +
                                                    " (the instance has " +
                                                    std::to_string(problem.num_nodes()) + ")");
  }
  std::vector<Neighbour> out;
  for (int32_t i = problem.adj_begin[v]; i < problem.adj_begin[v + 1]; ++i) {
    const int32_t e = problem.adj_edge[i];
    const int32_t u = problem.edge_u[e], w = problem.edge_v[e];
    out.push_back({u == v ? w : u, problem.edge_cost(e, plan[u], plan[w])});
  }
  return out;
}

}  // namespace shardlab
