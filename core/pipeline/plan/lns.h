// Large neighbourhood search for the planner: free a set of ops, keep every
// other op on its device and in its device order, and let the exact search
// (plan/search.h) improve the schedule inside. The neighbourhoods follow the
// shape of pipeline schedules: a time window over all devices, a window over
// a few neighbouring devices, whole micro-batches, whole placement groups
// (which may then move to another device), and on large DAGs the groups
// along a critical chain.
#pragma once

#include <cstdint>
#include <vector>

#include "core/pipeline/plan/graph.h"
#include "core/rng.h"

namespace shardlab::pipeline {

// The graph with the ops not marked in `freed` tied to the schedule: their
// groups keep their device, and consecutive kept ops of a device are joined
// by an arc. A kept overlapped pair (freed or kept whole) becomes its F
// lasting the pair's length and holding the pair's memory, followed by its B
// and W at length 0; the F also waits for the B's inputs, so every schedule
// of the restricted graph runs the pair as it was. Classes whose kept members the schedule runs out
// of rank order are dropped (their ops lose the symmetry rule).
Result<PlanGraph> restrict_graph(const PlanGraph& graph, const PlanSchedule& schedule,
                                 const std::vector<char>& freed);

// Chooses a neighbourhood of about `size` ops (kind picked by the rng).
std::vector<char> pick_neighbourhood(const PlanGraph& graph, const PlanSchedule& schedule,
                                     int32_t size, Rng* rng, int32_t* kind);

// One LNS move: restricts, searches at most `nodes` nodes for a schedule
// below `upper` (schedule.makespan when negative; above it, a schedule as
// long as this one may come back), and returns true with it in *better.
bool lns_move(const PlanGraph& graph, const PlanSchedule& schedule, const std::vector<char>& freed,
              int64_t nodes, PlanSchedule* better, int64_t* nodes_used, int64_t upper = -1);

}  // namespace shardlab::pipeline
