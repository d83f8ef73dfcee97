// The placement bound (see plan/place_bound.h). On operator DAGs with free
// placement the root relaxations each see one side of the trade that decides
// the makespan: the path and window bounds let free groups share a device
// whenever that saves a delay, and the one-machine relaxations see only the
// groups already placed. Pinning groups turns cut arcs into delays in the
// heads and tails and puts the pinned groups' work on their device's
// one-machine relaxation, so the root bound of a pinned graph is much
// nearer to that placement's optimum. Every placement completes exactly one
// node of the branching, so the least bound over a set of nodes that
// covers them all bounds the optimum: branch and bound used for its lower
// bound, as in best-first search (the bound rises as the least node is
// expanded). A child's bound is at least its parent's, since the parent's
// bound holds for all of its completions.
// The branching itself (and its rule for interchangeable devices) is
// plan/place_bound_branch.h's, shared with the path placement bound.
#include "core/pipeline/plan/place_bound.h"

#include <algorithm>

#include "core/pipeline/plan/bound.h"

namespace shardlab::pipeline {
namespace {

// Branching order: the groups on the longest paths first (the largest
// head + length + tail of an op), then by their first op in topological
// order. Placing critical groups first makes the bounds of the first
// levels rise: on the benchmark's 120-op DAG 5,000 evaluations raise the
// bound from 98 to 100.5 this way, and leave it at 98 in topological order.
std::vector<int32_t> branching_order(const PlanGraph& graph) {
  const int32_t n = graph.num_ops();
  std::vector<int32_t> position(n, 0);
  for (int32_t k = 0; k < n; ++k) position[graph.topo[k]] = k;
  struct Key {
    int64_t path;
    int32_t at, group;
  };
  std::vector<Key> keys;
  for (int32_t g = 0; g < graph.num_groups(); ++g) {
    if (graph.fixed(g)) continue;
    Key key{0, n, g};
    for (int32_t k = graph.group_ops_begin[g]; k < graph.group_ops_begin[g + 1]; ++k) {
      const int32_t i = graph.group_ops[k];
      key.at = std::min(key.at, position[i]);
      key.path = std::max(key.path, graph.head[i] + graph.min_len[i] + graph.tail[i]);
    }
    keys.push_back(key);
  }
  std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    return a.path != b.path ? a.path > b.path : a.at < b.at;
  });
  std::vector<int32_t> order;
  for (const Key& key : keys) order.push_back(key.group);
  return order;
}

}  // namespace

PlacementBound::PlacementBound(const PlanGraph& graph, int64_t max_open)
    : graph_(graph), pinned_(graph), branching_(graph, branching_order(graph), max_open) {
  if (!useful()) {
    branching_.stop();
    return;
  }
  branching_.start(evaluate(std::vector<int32_t>(branching_.order().size(), -1)));
}

int64_t PlacementBound::evaluate(const std::vector<int32_t>& devices) {
  ++evaluations_;
  const std::vector<int32_t>& order = branching_.order();
  for (size_t k = 0; k < order.size(); ++k) {
    const int32_t g = order[k];
    if (devices[k] >= 0) {
      pinned_.groups[g].devices.assign(1, devices[k]);
    } else {
      pinned_.groups[g].devices = graph_.groups[g].devices;
    }
  }
  // Pinning changes only the groups' devices; finalize() recomputes the
  // heads, tails and grid the bounds read.
  if (!pinned_.finalize().is_ok()) return kNoCap;
  return root_bound(pinned_);
}

void PlacementBound::step(int64_t work, int64_t upper) {
  // What one evaluation costs in search nodes, about (the path bound's
  // dynamic program grows with the square of the ops).
  const int64_t n = graph_.num_ops();
  branching_.step(work, upper, 1 + n * n / 256,
                  [this](const std::vector<int32_t>& devices) { return evaluate(devices); });
}

}  // namespace shardlab::pipeline
