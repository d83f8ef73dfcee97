// The planner's own view of a pipeline problem: a flat list of operations in
// integer ticks, precedence arcs with communication delays, placement groups
// and per-device memory caps. Filled from the problem's expansion (see
// plan/problem.cpp); read by every planner technique (search, HEFT, merging,
// local search, the MIP writer). Also a semi-active simulator of per-device
// orders, the one the planner's techniques share.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "core/status.h"

namespace shardlab::pipeline {

constexpr int64_t kNoCap = std::numeric_limits<int64_t>::max() / 4;
constexpr int64_t kUnset = -1;

// Operator DAGs with free groups, no overlapped pairs and at least this many
// ops are "large" (PlanGraph::large_dag): there the engine gives LNS the
// improver's work and half the dives' (plan/engine.cpp), and LNS also frees
// critical chains and its repairs skip the window bound at their root
// (plan/lns.cpp). 240: at 10 s the first two gained on the benchmark's DAGs
// of 258 to 300 ops and lost on those of 168 and 210 (README), so smaller
// graphs keep the plain policy.
constexpr int32_t kLargeDagOps = 240;

// Op kinds. They steer the heuristics and say which ops may form an
// overlapped F&B pair (see PlanGraph::pair_length); nothing else.
enum class PlanKind : int8_t { kForward, kBackward, kWeight, kOther };

struct PlanOp {
  int64_t duration = 0;  // ticks, >= 0
  // Memory while the op runs is the level before it plus mem_peak; once it
  // ends the level has changed by mem_net. mem_peak >= max(0, mem_net).
  int64_t mem_peak = 0;
  int64_t mem_net = 0;
  int32_t group = 0;  // placement group: all ops of a group run on one device
  // Interchangeable ops (the same operation of identical micro-batches):
  // ops of one class share a group, and a schedule may run them in rank
  // order (see "symmetry" in plan/search.cpp). -1: in no class.
  int32_t sym_class = -1;
  int32_t sym_rank = 0;
  PlanKind kind = PlanKind::kOther;
  int32_t origin = -1;  // index of the operation in the source expansion
  // kBackward: the weight-gradient op that completes its full backward (the
  // op an overlapped pair runs with it), -1 when none.
  int32_t weight = -1;
};

// to may start delay ticks after from ends when they run on different
// devices, and as soon as from ends on the same device.
struct PlanArc {
  int32_t from = 0;
  int32_t to = 0;
  int64_t delay = 0;
};

struct PlanGroup {
  std::vector<int32_t> devices;  // allowed devices, sorted, non-empty
  int64_t mem_static = 0;        // memory held by the device that hosts it (parameters)
  // F&B time of the group's ops in an overlapped pair, -1 when they never
  // pair. A pair is a forward of one group and a full backward (B and its
  // W) of another, or the same, on one device; it takes the larger F&B time
  // of the two groups.
  int64_t fb = -1;
};

struct PlanGraph {
  int32_t devices = 0;
  std::vector<int64_t> mem_cap;  // per device; kNoCap when unlimited
  std::vector<PlanOp> ops;
  std::vector<PlanArc> arcs;
  std::vector<PlanGroup> groups;
  // Regular: the ops of a group with the same kind are one operation of
  // identical micro-batches, each with the same predecessors and delays
  // (graphs of plan_graph_of; not merged or restricted ones). The path
  // bound relies on it.
  bool regular = false;
  // Mirror symmetry: mirror[i] is the op that plays op i's part when the
  // devices are taken in reverse order (device d as devices - 1 - d), in a
  // problem that looks the same that way (DualPipe's bidirectional
  // placement with as many micro-batches each way). Filled by
  // plan_graph_of; empty when the problem has no such symmetry. Read it
  // only through mirror_valid(), which checks that it maps the graph onto
  // itself.
  std::vector<int32_t> mirror;
  // Serial links: a device sends its results to another one transfer at a
  // time, first in first out in its slot order, each holding the link
  // (sender, receiver) for its delay (the simulator's rule, simulate.h).
  // Only time_slots (plan/slot_timing.h) reads it, so time_orders and the
  // order search time on the links; every other technique, and every bound,
  // plans on parallel links, a relaxation. plan_graph_of leaves it false:
  // the planner sets it on a copy for its link-aware order search.
  bool serial_links = false;

  // ---- derived by finalize() ----
  // Overlapped pairs. A pair (F f, B b and b's W) starts all three together
  // and ends all three after pair_length(f, b); the planner forms one only
  // where that is shorter than running them in sequence (pairable[] marks the
  // ops that may take part). In a pair the W does not wait for the B, so
  // the arc b -> weight(b) is "inner" for a pairable b.
  bool any_pairs = false;
  // Some group may run on more than one device.
  bool any_free = false;
  // any_free, no pairs and at least kLargeDagOps ops (see there).
  bool large_dag = false;
  std::vector<char> pairable;  // per op: an F or B with at least one partner
  // Bounds with pairs (see plan/bound.cpp): least time from an op's start to
  // its end (a pair may end sooner than the op alone), and the device time
  // a relaxation may charge it (each pair's length shared out as F, then B,
  // then W, so an F is charged what its best pair saves less).
  std::vector<int64_t> min_len;
  std::vector<int64_t> load;
  std::vector<int32_t> pred_begin, pred_arc;  // arcs into op i: pred_arc[pred_begin[i]..)
  std::vector<int32_t> succ_begin, succ_arc;  // arcs out of op i
  std::vector<int32_t> topo;                  // a topological order of the ops
  std::vector<int64_t> head;  // earliest start ignoring devices (delays counted when forced)
  std::vector<int64_t> tail;  // least time from an op's end to the makespan
  std::vector<int32_t> group_ops_begin, group_ops;  // the ops of group g
  int32_t classes = 0;                              // number of sym classes
  int64_t total_work = 0;
  // The time grid: the gcd of every duration, delay and F&B time (1 when
  // all are 0). A semi-active schedule starts every op at a sum of these,
  // and some optimal schedule is semi-active (shift every op left, keeping
  // the device orders and which frees precede which raises), so the optimum
  // is a multiple of grid and a lower bound may be rounded up to one.
  int64_t grid = 1;
  // The least multiple of grid at or above t (t itself from kNoCap up).
  int64_t on_grid(int64_t t) const {
    if (t >= kNoCap || grid <= 1) return t;
    const int64_t r = t % grid;
    return r == 0 ? t : r > 0 ? t + grid - r : t - r;
  }

  int32_t num_ops() const { return static_cast<int32_t>(ops.size()); }
  int32_t num_groups() const { return static_cast<int32_t>(groups.size()); }
  bool fixed(int32_t group) const { return groups[group].devices.size() == 1; }
  // The delay an arc costs at least, over every placement its groups allow.
  int64_t min_delay(const PlanArc& arc) const;
  // Length of the pair of F op f and B op b (with b's W), or -1 when they
  // may not pair: the kinds, both groups' F&B times, a common device, a W
  // whose only predecessor is b, and a gain over f + b + W in sequence.
  int64_t pair_length(int32_t f, int32_t b) const;
  // Whether arc a is b -> weight(b) of a pairable b (a pair runs both ends together).
  bool inner(const PlanArc& arc) const {
    return any_pairs && pairable[arc.from] && ops[arc.from].weight == arc.to;
  }

  // Whether `mirror` maps the graph onto itself: an involution on the ops
  // that keeps durations, memory, kinds, ranks and full backwards, sends
  // each group to one whose devices, memory and F&B time are the mirror
  // image of its own, keeps every device's cap on its mirror device, and
  // sends the arcs onto the arcs with their delays. False when it is empty.
  bool mirror_valid() const;

  // The ops of every class by rank: class_members()[c][r].
  std::vector<std::vector<int32_t>> class_members() const;

  // Indexes the arcs, checks the graph (acyclic, groups and devices in
  // range, classes within one group with ranks 0..n-1 whose members are
  // not ordered against rank by an arc), and computes head/tail. Returns
  // kInvalidInput with a message naming the op or group otherwise.
  Status finalize();

 private:
  void derive_pairs();
};

// A complete schedule of a PlanGraph: the device and start of every op, and
// its overlapped pairs. partner[f] = b and partner[b] = f for a pair of F f
// and B b, partner[w] = f for b's W; -1 for an op that runs alone. Empty
// when nothing is paired.
struct PlanSchedule {
  std::vector<int32_t> device;
  std::vector<int64_t> start;
  std::vector<int32_t> partner;
  int64_t makespan = 0;
  bool empty() const { return start.empty(); }
  bool paired(int32_t op) const { return !partner.empty() && partner[op] >= 0; }
};

// When op i ends in schedule s (a paired op ends with its pair).
int64_t end_of(const PlanGraph& graph, const PlanSchedule& s, int32_t i);
// The F and the B of the pair op i runs in (i itself for an F or a B).
void pair_members(const PlanGraph& graph, const PlanSchedule& s, int32_t i, int32_t* f, int32_t* b);

// Whether s is its own mirror image (PlanGraph::mirror, which must be
// valid): op mirror[i] runs on the mirror device of op i's, at the same
// start, in the mirror image of op i's pair.
bool mirror_symmetric(const PlanGraph& graph, const PlanSchedule& s);

// Semi-active timing of per-device orders: every op (or pair) starts as
// soon as its device has finished the one before it and its predecessors'
// results have arrived. orders[d] lists the ops of device d; every op
// appears once and the devices must respect the groups. `partner` (as in
// PlanSchedule, may be empty) pairs ops, which must then be consecutive in
// their device's order (F, B, W). Fails (kInvalidInput) on a cycle between
// the orders and the arcs, on a pair the graph does not allow, or on memory
// above a cap.
Result<PlanSchedule> time_orders(const PlanGraph& graph,
                                 const std::vector<std::vector<int32_t>>& orders,
                                 const std::vector<int32_t>& partner = {});

// Per-device orders of a schedule (ops sorted by start, ties by end then id;
// a pair's F, B and W consecutive).
std::vector<std::vector<int32_t>> orders_of(const PlanGraph& graph, const PlanSchedule& schedule);

// Checks a schedule against the graph from scratch: placement, pairs, arcs
// with delays, one op (or pair) at a time per device, memory caps (a pair
// takes all its members' memory at its start and frees it at its end).
// Empty message when valid.
std::string check_plan(const PlanGraph& graph, const PlanSchedule& schedule);

}  // namespace shardlab::pipeline
