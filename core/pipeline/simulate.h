// The exact event simulator of per-device operation orders, and the metrics
// of a timed schedule (makespan, both bubble metrics, peak memory).
//
// An Order fixes where every unit sits and, per device, the sequence of
// slots it runs. A slot is one operation; or a full backward (a B and its W
// as one block: the input gradient leaves only when the W is done, as in
// 1F1B without the zero-bubble split); or an overlapped F&B pair (an F and
// the full backward of another micro-batch run together on one device for
// Expansion::pair_duration, as in DualPipe). The simulator starts every
// slot as early as its device and its dependencies allow: start = max(end
// of the device's previous slot, for every predecessor of an op of the
// slot: its end + the arc's delay when the two units sit on different
// devices), and every op of the slot ends when the slot ends. With serial
// links (Expansion::serial_links) a result that crosses devices arrives at
// the end of its turn on the link instead: the sending device's results
// leave in the order its slots end (a slot's ops in slot_ops() order, each
// op's arcs in their index order), each transfer starting when its result
// is ready and the link's previous transfer has arrived, and holding the
// link for its delay. The result is exact (integer ticks).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/pipeline/model.h"
#include "core/status.h"

namespace shardlab::pipeline {

enum class SlotKind : uint8_t {
  kSingle,        // op alone
  kFullBackward,  // op is a B; its W runs in the same block
  kPair,          // op is an F, partner a B; partner's W runs in the block too
};

struct Slot {
  int32_t op = -1;
  int32_t partner = -1;  // kPair: the B overlapped with op
  SlotKind kind = SlotKind::kSingle;
  bool is_pair() const { return kind == SlotKind::kPair; }
};

// The operations of a slot in order: kSingle {op}, kFullBackward {B, W},
// kPair {F, B, W}. Returns how many (1 to 3).
int32_t slot_ops(const Expansion& expansion, const Slot& slot, int32_t out[3]);

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

// The name of a slot's kind in the schedule JSON and traces: "F", "B", "W"
// (single ops), "BW" (full backward), "FB" (pair).
const char* slot_kind_name(const Expansion& expansion, const Slot& slot);

// Duration of a slot: the op's, B + W for a full backward, the F&B time of a pair.
int64_t slot_duration(const Expansion& expansion, const Slot& slot);

// Simulates an order. Fails (kInvalidArgument) when the order does not run
// every operation exactly once on its unit's device, pairs anything but an F
// with a B (or fuses anything but a B with its W), or deadlocks (an op waits
// for one queued behind it); the message names the operations involved.
// When it deadlocks and `blocked` is given, (*blocked)[d] is the index of
// the slot device d waits at (its slot count when it had finished).
Result<Timeline> simulate(const Expansion& expansion, const Order& order,
                          std::vector<size_t>* blocked = nullptr);

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
