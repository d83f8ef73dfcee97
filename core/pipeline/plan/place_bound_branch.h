// The best-first branching over placements that both placement bounds run
// (plan/place_bound.h over every free group, plan/path_place_bound.h over
// the free groups of a longest path): nodes place a prefix of an order of
// groups, each bounded by the caller's evaluation; the least bound over the
// open and closed nodes holds for every placement.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/pipeline/plan/graph.h"

namespace shardlab::pipeline {

class PlacementBranching {
 public:
  // `order`: the groups to place, in branching order (none fixed). At most
  // `max_open` open nodes are kept; the branching stops there.
  PlacementBranching(const PlanGraph& graph, std::vector<int32_t> order, int64_t max_open);

  const std::vector<int32_t>& order() const { return order_; }
  // Opens the root (nothing placed) at `bound`.
  void start(int64_t bound);
  // Marks the bound final (nothing to branch on).
  void stop() { done_ = true; }

  // Expands the least open node while `work` lasts, each child costing
  // `cost`; `evaluate(devices)` bounds a node (per group of order(), its
  // device or -1). Children whose bound reaches `upper` are closed. A
  // child's bound is at least its parent's, since the parent's bound holds
  // for all of its completions.
  template <class Evaluate>
  void step(int64_t work, int64_t upper, int64_t cost, Evaluate&& evaluate);

  // The least bound over the open and closed nodes.
  int64_t bound() const;
  // True when the bound cannot rise: the least open node places every
  // group, nothing below `upper` is open, or the open nodes fill max_open.
  bool done() const { return done_; }
  int64_t open() const { return static_cast<int64_t>(open_.size()); }

 private:
  struct Node {
    int64_t bound;
    int64_t id;                    // creation order: ties go to the older node
    std::vector<int32_t> devices;  // per group in order_, -1 when not placed
  };
  void push(Node node);
  Node pop();

  const PlanGraph& graph_;
  std::vector<int32_t> order_;
  // Per device: the least device interchangeable with it (same cap, allowed
  // by the same groups; delays do not depend on which devices an arc joins),
  // so a group goes to an empty device only when it is the least empty one
  // of its class, as in the search's rule for empty twin devices.
  std::vector<int32_t> twin_class_;
  std::vector<char> fixed_used_;  // per device: hosts a group with one allowed device
  std::vector<Node> open_;        // a binary heap on (bound, id)
  int64_t closed_min_;            // least bound of a node closed at an upper bound
  int64_t max_open_;
  int64_t next_id_ = 0;
  bool done_ = false;
};

template <class Evaluate>
void PlacementBranching::step(int64_t work, int64_t upper, int64_t cost, Evaluate&& evaluate) {
  while (work > 0 && !done_) {
    if (open_.empty() || open_.front().bound >= upper ||
        static_cast<int64_t>(open_.size()) + graph_.devices > max_open_) {
      done_ = true;
      break;
    }
    Node node = pop();
    const auto depth = static_cast<size_t>(std::find(node.devices.begin(), node.devices.end(), -1) -
                                           node.devices.begin());
    if (depth == order_.size()) {
      // A complete placement at the least bound: the bound is final.
      push(std::move(node));
      done_ = true;
      break;
    }
    std::vector<char> used = fixed_used_;
    for (size_t k = 0; k < depth; ++k) used[node.devices[k]] = 1;
    std::vector<char> class_tried(graph_.devices, 0);
    for (int32_t d : graph_.groups[order_[depth]].devices) {
      if (!used[d]) {
        if (class_tried[twin_class_[d]]) continue;
        class_tried[twin_class_[d]] = 1;
      }
      Node child{0, next_id_++, node.devices};
      child.devices[depth] = d;
      child.bound = std::max(node.bound, evaluate(child.devices));
      work -= cost;
      if (child.bound >= upper) {
        closed_min_ = std::min(closed_min_, child.bound);
      } else {
        push(std::move(child));
      }
    }
  }
}

}  // namespace shardlab::pipeline
