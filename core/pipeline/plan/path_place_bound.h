// The path placement bound for operator DAGs (regular graphs with free
// groups and no pairs): a best-first branching over the devices of the
// groups on a longest path of one micro-batch, each node bounded from that
// path alone, in a few operations per path op. It is the path bound of
// plan/bound.h with the segments tied to devices: the engine
// (plan/engine.cpp) raises its lower bound to bound() as it steps this
// beside the placement bound (plan/place_bound.h). It never exceeds the
// optimum.
#pragma once

#include <cstdint>
#include <vector>

#include "core/pipeline/plan/bound.h"
#include "core/pipeline/plan/graph.h"
#include "core/pipeline/plan/place_bound_branch.h"

namespace shardlab::pipeline {

class PathPlacementBound {
 public:
  // At most `max_open` open nodes are kept; the branching stops there.
  explicit PathPlacementBound(const PlanGraph& graph, int64_t max_open = int64_t{1} << 16);

  // Whether the graph is regular, has no pairs and a free group on the path.
  bool useful() const { return useful_; }
  // Expands open nodes for about `work` search nodes (an evaluation costs
  // one node and one more per 64 path ops). Children whose bound reaches `upper` are
  // closed. Does nothing once done().
  void step(int64_t work, int64_t upper);
  // The least bound over the open and closed nodes, on the graph's grid: no
  // schedule under any placement ends earlier.
  int64_t bound() const { return branching_.bound(); }
  bool done() const { return branching_.done(); }
  int64_t evaluations() const { return evaluations_; }

 private:
  int64_t evaluate(const std::vector<int32_t>& devices);

  const PlanGraph& graph_;
  bool useful_ = false;
  std::vector<int32_t> path_;          // ops of a longest path of one micro-batch
  PlacementBranching branching_;       // over the free groups on the path, by first appearance
  std::vector<int64_t> copies_work_;   // per path op: work of it and its copies
  std::vector<int64_t> copies_by_op_;  // the same per op of the graph
  std::vector<int32_t> placed_;        // per path op: its device in a node, or -1
  std::vector<int32_t> slot_;          // per path op: its group's index in the order, -1 fixed
  std::vector<int32_t> fixed_device_;  // per path op: its fixed group's device, else -1
  // Per group of the order, then per device for the fixed groups on the
  // path there: their ops not on the path and not copies of path ops, as
  // jobs with the graph's heads and tails (they hold under every placement).
  std::vector<std::vector<MachineJob>> other_jobs_;
  std::vector<MachineJob> jobs_;
  std::vector<std::pair<int64_t, int64_t>> heap_;
  std::vector<int64_t> head_, tail_;
  int64_t evaluations_ = 0;
};

}  // namespace shardlab::pipeline
