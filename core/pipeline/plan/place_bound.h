// The placement bound for graphs with free groups (operator DAGs): a
// best-first branching over which device hosts each free group, every node
// bounded by the root bound of the graph with its placed groups pinned
// (plan/bound.h). The least bound over the open nodes bounds every
// placement, so the engine (plan/engine.cpp) raises its lower bound to it
// as the branching goes. It proves nothing about schedules; it never
// exceeds the optimum.
#pragma once

#include <cstdint>
#include <vector>

#include "core/pipeline/plan/graph.h"

namespace shardlab::pipeline {

class PlacementBound {
 public:
  // At most `max_open` open nodes are kept; the branching stops there.
  explicit PlacementBound(const PlanGraph& graph, int64_t max_open = int64_t{1} << 15);

  // Whether the graph has a group that may go on more than one device and no
  // overlapped pairs (the only graphs the branching is for).
  bool useful() const { return !order_.empty() && !graph_.any_pairs; }

  // Expands open nodes for about `work` search nodes (one evaluation of a
  // node costs one node per op). Children whose bound reaches `upper` (an
  // incumbent's makespan) are closed. Does nothing once done().
  void step(int64_t work, int64_t upper);
  // The least bound over the open and the closed nodes: no schedule, under
  // any placement, ends earlier. Ticks, on the graph's time grid.
  int64_t bound() const;
  // True when the bound cannot rise any more: the least open node places
  // every group, nothing is open, or the open nodes fill max_open.
  bool done() const { return done_; }
  int64_t evaluations() const { return evaluations_; }
  int64_t open() const { return static_cast<int64_t>(open_.size()); }

 private:
  struct Node {
    int64_t bound;
    int64_t id;                    // creation order: ties go to the older node
    std::vector<int32_t> devices;  // per free group in order_, -1 when not placed
  };
  int64_t evaluate(const std::vector<int32_t>& devices);
  void push(Node node);
  Node pop();

  const PlanGraph& graph_;
  std::vector<int32_t> order_;       // the free groups, by their first op in topological order
  std::vector<int32_t> twin_class_;  // per device: the least device interchangeable with it
  std::vector<char> fixed_used_;     // per device: hosts a group with one allowed device
  PlanGraph pinned_;                 // graph_ with placed groups pinned (reused buffer)
  std::vector<Node> open_;           // a binary heap on (bound, id)
  int64_t closed_min_;               // least bound of a node closed at an upper bound
  int64_t max_open_;
  int64_t next_id_ = 0;
  int64_t evaluations_ = 0;
  bool done_ = false;
};

}  // namespace shardlab::pipeline
