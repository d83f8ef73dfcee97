// HEFT, the list scheduler of Topcuoglu, Hariri and Wu (2002), on the
// planner's view: ops by decreasing upward rank, each on the allowed device
// where it finishes earliest. Here a whole placement group goes where its
// first op goes (all micro-batches of a unit share the unit's weights).
// The planner's warm start for free placements, and the baseline of the
// random-DAG benchmark.
#pragma once

#include "core/pipeline/plan/graph.h"

namespace shardlab::pipeline {

// HEFT with insertion into idle gaps on devices without a memory cap, and
// appending on capped devices (where a device only takes an op whose peak
// fits above the level its earlier ops leave). Returns an empty schedule
// when some op fits on no device.
PlanSchedule heft(const PlanGraph& graph);

}  // namespace shardlab::pipeline
