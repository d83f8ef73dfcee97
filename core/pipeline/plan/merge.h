// The bi-level part of the planner (the upper level of arXiv 2503.09357's
// framework): operations are merged along chains and into small neighbours
// until the problem is small enough for the exact search; the merged plan is
// then expanded back (each merged op's members run back to back) and refined
// by the planner on the full problem.
#pragma once

#include <cstdint>
#include <vector>

#include "core/pipeline/plan/graph.h"

namespace shardlab::pipeline {

struct Merged {
  PlanGraph graph;                            // the coarse problem
  std::vector<std::vector<int32_t>> members;  // coarse op -> its fine ops, in run order
  std::vector<int32_t> fine_group_of;         // coarse group of each fine group
};

// Merges ops joined by an arc u -> v that can share a device (same group,
// fixed groups on one device, or free groups with a common device, which
// then become one group) when u has no other successor or v no other
// predecessor (so no other path joins them and no cycle appears), shortest
// pairs first, until at most `target_ops` remain or nothing merges. Every
// schedule of the coarse graph expands to a schedule of the fine one with
// the same makespan and the same memory profile.
Merged coarsen(const PlanGraph& graph, int32_t target_ops);

// The fine schedule of a coarse one.
PlanSchedule expand_merged(const PlanGraph& fine, const Merged& merged, const PlanSchedule& coarse);

}  // namespace shardlab::pipeline
