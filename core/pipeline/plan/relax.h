// The device-subset relaxation behind the planner's coupled bound: the
// problem on a few devices only, with every other device's ops dropped and
// their chains kept as release times, tails and delays. Built from a
// PlanGraph with a fixed placement; the engine (plan/engine.cpp) searches it
// with its own prover, and whatever that proves bounds the whole problem.
#pragma once

#include <cstdint>
#include <vector>

#include "core/pipeline/plan/graph.h"

namespace shardlab::pipeline {

// The relaxation of `graph` to `keep` (sorted device indexes, at least one,
// fewer than graph.devices), or false when the graph has a free group or the
// result would not finalize. The kept devices keep their ops, pairs, caps
// and the arcs among them. A chain through dropped ops becomes, at its
// least length (min_len and the delays of the fixed placement):
//   - a release time: an arc from one zero-length source op;
//   - a tail: an arc into one zero-length sink op;
//   - between two kept ops, an arc through a zero-length relay op (an arc's
//     delay vanishes between ops on one device, a chain's does not).
// The source, the sink and the relays run on one extra device without a
// cap. Every schedule of `graph`, cut down to the kept devices and with
// those zero-length ops placed at their earliest, is a schedule of the
// relaxation with no larger makespan, so any lower bound on the relaxation
// is one on `graph` (the resources of the dropped devices are what is
// relaxed). Arcs of the dropped ops into a W's pair (inner arcs) are left
// out, which only relaxes further.
bool relax_to_devices(const PlanGraph& graph, const std::vector<int32_t>& keep, PlanGraph* out);

// The kept sets the engine tries: the pairs of devices joined by an arc
// whose relaxations have the largest root bound, at most four (the lowest
// indexes first). Which of them proves most is only known by searching.
// Empty when the placement is not fixed or there are fewer than three
// devices (or more than 16: a pair's relaxation then drops most of the
// problem).
std::vector<std::vector<int32_t>> coupled_devices(const PlanGraph& graph);

}  // namespace shardlab::pipeline
