// Questions the page's views ask about a plan, answered by the core so the
// views and the tests share one definition: which nodes are live at a time
// (largest usage first), each node's share of the cost, and what a node's
// edges cost. Every call first checks the plan's shape (one strategy in
// range per node) and says what is wrong; the wasm bindings (liveNodesAt,
// costShares, neighboursOf) only convert.
#pragma once

#include <cstdint>
#include <vector>

#include "core/sharding/model.h"
#include "core/status.h"

namespace shardlab {

// OK when the plan has one in-range strategy per node; else kInvalidArgument
// naming the first problem ("the plan has 4 entries, the instance 5 nodes").
Status check_plan_shape(const Problem& problem, const std::vector<int32_t>& plan);

// The nodes whose interval holds time t (lo <= t < hi), by usage under the
// plan, largest first (ties by index).
Result<std::vector<int32_t>> live_nodes_at(const Problem& problem, const std::vector<int32_t>& plan,
                                           Time t);

// Each node's own cost plus half of every incident edge's entry: the shares
// add up to the plan's cost (forbidden entries count as their 1e18).
Result<std::vector<double>> cost_shares(const Problem& problem, const std::vector<int32_t>& plan);

struct Neighbour {
  int32_t node = 0;
  Cost edge_cost = 0;  // the entry the plan pays on the edge between them
};
// v's neighbours in edge order, with the cost of each edge under the plan.
Result<std::vector<Neighbour>> neighbours_of(const Problem& problem,
                                             const std::vector<int32_t>& plan, int32_t v);

}  // namespace shardlab
