// Placement search for graphs with free groups (operator DAGs, free
// placements): a local search over which device hosts each free group,
// each placement timed by a greedy dive of the planner's search
// (plan/search.h) with the groups pinned. The engine (plan/engine.h) runs it
// beside its other techniques; it only proposes schedules, it proves nothing.
#pragma once

#include <cstdint>
#include <vector>

#include "core/pipeline/plan/graph.h"
#include "core/rng.h"

namespace shardlab::pipeline {

class PlacementSearch {
 public:
  explicit PlacementSearch(const PlanGraph& graph);

  // Whether the graph has a group that may go on more than one device.
  bool useful() const { return !free_groups_.empty(); }

  // One move from the current placement (the incumbent's, whenever the
  // incumbent is better): a free group goes to the device of a neighbouring
  // group or to another device it allows, and the best of these placements,
  // timed by a dive, is kept when it is no worse. Returns true with a
  // schedule shorter than incumbent.makespan in *found.
  bool step(const PlanSchedule& incumbent, Rng* rng, PlanSchedule* found, int64_t* nodes_used);

 private:
  // A dive with every group on `placement`; empty when it dead-ends.
  PlanSchedule time_placement(const std::vector<int32_t>& placement, int64_t* nodes_used);

  const PlanGraph& g_;
  std::vector<int32_t> free_groups_;
  std::vector<std::vector<int32_t>> neighbours_;  // per group: groups joined to it by an arc
  std::vector<int32_t> current_;                  // device per group
  int64_t current_makespan_ = -1;                 // of current_, by a dive
  int64_t adopted_ = -1;  // the incumbent's makespan when current_ was taken from it
  PlanGraph pinned_;      // g_ with groups pinned (reused buffer)
};

}  // namespace shardlab::pipeline
