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
#include "core/pipeline/plan/place_bound_branch.h"

namespace shardlab::pipeline {

class PlacementBound {
 public:
  // At most `max_open` open nodes are kept; the branching stops there.
  explicit PlacementBound(const PlanGraph& graph, int64_t max_open = int64_t{1} << 15);

  // Whether the graph has a group that may go on more than one device and no
  // overlapped pairs (the only graphs the branching is for).
  bool useful() const { return !branching_.order().empty() && !graph_.any_pairs; }

  // Expands open nodes for about `work` search nodes (one evaluation of a
  // node costs one node per op). Children whose bound reaches `upper` (an
  // incumbent's makespan) are closed. Does nothing once done().
  void step(int64_t work, int64_t upper);
  // The least bound over the open and the closed nodes: no schedule, under
  // any placement, ends earlier. Ticks, on the graph's time grid.
  int64_t bound() const { return branching_.bound(); }
  // True when the bound cannot rise any more: the least open node places
  // every group, nothing is open, or the open nodes fill max_open.
  bool done() const { return branching_.done(); }
  int64_t evaluations() const { return evaluations_; }
  int64_t open() const { return branching_.open(); }

 private:
  int64_t evaluate(const std::vector<int32_t>& devices);

  const PlanGraph& graph_;
  PlanGraph pinned_;  // graph_ with placed groups pinned (reused buffer)
  PlacementBranching branching_;
  int64_t evaluations_ = 0;
};

}  // namespace shardlab::pipeline
