// Lower bounds on the makespan of a PlanGraph, at the root and at a partial
// schedule of the planner's search: one-machine relaxations per device with
// heads (critical paths through communication delays) and tails, the
// memory look-ahead on capped devices, the ramp before a device's first
// possible overlapped pair, and the load of flexible groups spread over the
// devices that may host them. Every bound here is a relaxation, so it never
// exceeds the optimum, with or without pairs.
#pragma once

#include <cstdint>
#include <vector>

#include "core/pipeline/plan/graph.h"

namespace shardlab::pipeline {

// One job of a one-machine relaxation.
struct MachineJob {
  int64_t head = 0;      // earliest start
  int64_t duration = 0;  // processing time
  int64_t tail = 0;      // time that must follow its end
};

// Jackson's preemptive schedule: the least max(end + tail) over preemptive
// one-machine schedules whose jobs start no earlier than their heads and no
// earlier than `available`. A lower bound on the same non-preemptive
// problem (Carlier 1982). Sorts `jobs` in place.
int64_t preemptive_bound(std::vector<MachineJob>* jobs, int64_t available);
// The same with a caller-provided heap buffer (no allocation).
int64_t preemptive_bound(std::vector<MachineJob>* jobs, int64_t available,
                         std::vector<std::pair<int64_t, int64_t>>* heap);

// What the search knows at a node; arrays indexed by op or device.
struct PartialState {
  const std::vector<int64_t>* start = nullptr;  // kUnset when not started
  const std::vector<int64_t>* end = nullptr;    // of started ops (a pair's end for its members)
  const std::vector<int32_t>* group_device = nullptr;  // -1 when not placed
  const std::vector<int64_t>* free_at = nullptr;       // per device
  const std::vector<int64_t>* mem_level = nullptr;     // per device
  int64_t now = 0;  // no op that has not started may start before now
};

// A lower bound on every completion of the partial state (the root when
// nothing has started). `scratch_*` are reused buffers.
struct BoundScratch {
  std::vector<int64_t> head;
  std::vector<MachineJob> jobs;
  std::vector<std::pair<int64_t, int64_t>> frees, heap;
  std::vector<MachineJob> raises;
  std::vector<int64_t> nets, durations;
  std::vector<std::pair<int64_t, int64_t>> items;  // the pair ramp's (full length, load)
};
int64_t partial_bound(const PlanGraph& graph, const PartialState& state, BoundScratch* scratch);

// The path bound of a regular graph (PlanGraph::regular, no pairs; 0
// otherwise): along a longest path of one micro-batch, any placement splits
// the path into segments of ops that share a device, and pays the delay of
// every arc between segments; the device of a segment runs that segment's
// ops of every micro-batch in turn. So the makespan is at least the path's
// length plus the cut delays plus the largest segment's work of the other
// micro-batches, minimised over segmentations by a dynamic program.
int64_t path_bound(const PlanGraph& graph);

// Per op: its work and that of its copies in the other micro-batches (the
// ops of its group and kind).
std::vector<int64_t> work_with_copies(const PlanGraph& graph);

// A longest path of ops (first to last) through the ops' durations and the
// arcs' delays: every delay, or only the least one no placement avoids
// (PlanGraph::min_delay). Ties go to the first predecessor; empty when the
// graph has no ops.
std::vector<int32_t> longest_path(const PlanGraph& graph, bool every_delay);

// The path bound's dynamic program along one path of ops (copies_work: per
// op, its work and that of its copies in the other micro-batches), with
// path[j] pinned to device placed[j] where that is >= 0 (empty: none).
int64_t path_segment_bound(const PlanGraph& graph, const std::vector<int32_t>& path,
                           const std::vector<int64_t>& copies_work,
                           const std::vector<int32_t>& placed = {});

// The window bound: for a set D of devices (the cluster or a group's
// allowed set) and the ops confined to D with head >= a and tail >= b,
// |D| (C - a - b) >= their load; the largest over D, a and b.
int64_t window_bound(const PlanGraph& graph);

// The root bound with nothing started (the largest of the above).
int64_t root_bound(const PlanGraph& graph);

}  // namespace shardlab::pipeline
