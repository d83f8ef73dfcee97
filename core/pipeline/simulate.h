// The exact event simulator of per-device operation orders, and the metrics
// of a timed schedule (makespan, both bubble metrics, peak memory).
//
// An Order fixes where every unit sits and, per device, the sequence of
// slots it runs; a slot is one operation or an overlapped F&B pair (an F and
// a B of the same device run together for Expansion::pair_duration). The
// simulator starts every slot as early as its device and its dependencies
// allow: start = max(end of the device's previous slot, for every
// predecessor of either op: its end + the arc's delay when the two units sit
// on different devices). The result is exact (integer ticks).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/pipeline/model.h"
#include "core/status.h"

namespace shardlab::pipeline {

struct Slot {
  int32_t op = -1;       // the operation (the F of a pair)
  int32_t partner = -1;  // the B overlapped with it, or -1
  bool is_pair() const { return partner >= 0; }
};

struct Order {
  std::vector<int32_t> unit_device;             // device of every unit
  std::vector<std::vector<Slot>> device_slots;  // per device, in execution order
};

struct TimedSlot {
  int32_t device = 0;
  Slot slot;
  int64_t start = 0, end = 0;  // ticks
};

// A timed schedule: what the simulator produces, what the planner and the
// importers produce, and what the checker verifies.
struct Timeline {
  std::vector<int32_t> unit_device;
  std::vector<TimedSlot> slots;  // device by device, each device's slots by start time
};

// Duration of a slot: the op's, or the pair's F&B time.
int64_t slot_duration(const Expansion& expansion, const Slot& slot);

// Simulates an order. Fails (kInvalidArgument) when the order does not run
// every operation exactly once on its unit's device, pairs anything but an F
// with a B, or deadlocks (an op waits for one queued behind it); the message
// names the operations involved.
Result<Timeline> simulate(const Expansion& expansion, const Order& order);

// Activation memory on one device as a step function: activation[i] holds on
// [time[i], time[i + 1]); the last step holds until the end (it is 0 when
// every W has run). F allocates at its start, B and W release at their end;
// at equal times releases come first.
struct MemoryProfile {
  std::vector<int64_t> time;
  std::vector<int64_t> activation;
};

struct Metrics {
  int64_t makespan = 0;
  std::vector<int64_t> busy;             // per device: total slot time
  std::vector<int64_t> global_idle;      // makespan - busy
  std::vector<int64_t> span_idle;        // last end - first start - busy (0 for an idle device)
  std::vector<int64_t> peak_activation;  // max of the memory profile
  std::vector<int64_t> peak_parameter;   // parameter memory of the units placed there
  std::vector<MemoryProfile> memory;
  int64_t global_total() const;
  int64_t span_total() const;
  int64_t total_busy() const;
};

// The metrics of a timeline (no validity check; see check.h for that).
Metrics measure(const Expansion& expansion, const Timeline& timeline);

// Builds the order a timeline follows (slots per device by start), e.g. to
// re-simulate an imported or planned schedule.
Order order_of(const Expansion& expansion, const Timeline& timeline);

}  // namespace shardlab::pipeline
