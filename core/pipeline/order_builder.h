// A small helper the generators share: an Order under construction on a
// fixed placement, with per-device queues of deferred W's (zero-bubble
// schedules run a B now and its W later, oldest first). Internal to
// core/pipeline/.
#pragma once

#include <deque>
#include <vector>

#include "core/pipeline/model.h"
#include "core/pipeline/simulate.h"

namespace shardlab::pipeline {

// The op of micro-batch mb at stage `stage` of a one-copy chain.
inline int32_t chain_op(const Expansion& e, int32_t mb, int32_t stage, OpKind kind) {
  return e.op_of(mb, e.unit_at(0, stage), kind);
}

class OrderBuilder {
 public:
  // Units keep their fixed device (every unit of a generator's placement has one).
  explicit OrderBuilder(const Expansion& e) : e_(e), pending_w_(e.devices) {
    order_.unit_device.resize(e.num_units());
    for (int32_t u = 0; u < e.num_units(); ++u) order_.unit_device[u] = e.units[u].devices[0];
    order_.device_slots.assign(e.devices, {});
  }

  const Expansion& expansion() const { return e_; }
  int32_t device_of(int32_t op) const { return order_.unit_device[e_.ops[op].unit]; }

  void run(int32_t op) {
    order_.device_slots[device_of(op)].push_back({op, -1, SlotKind::kSingle});
  }
  // B and its W as one block (a full backward: the gradient leaves after W).
  void full_backward(int32_t b) {
    order_.device_slots[device_of(b)].push_back({b, -1, SlotKind::kFullBackward});
  }
  // B now, its W queued on the device (zero-bubble split).
  void split_backward(int32_t b) {
    run(b);
    pending_w_[device_of(b)].push_back(w_of(b));
  }
  // The oldest queued W of a device; false when none is queued.
  bool run_oldest_w(int32_t device) {
    if (pending_w_[device].empty()) return false;
    run(pending_w_[device].front());
    pending_w_[device].pop_front();
    return true;
  }
  void flush_w(int32_t device) {
    while (run_oldest_w(device)) {
    }
  }
  size_t pending_w(int32_t device) const { return pending_w_[device].size(); }
  // F overlapped with another micro-batch's full backward (B and its W).
  void pair(int32_t f, int32_t b) {
    order_.device_slots[device_of(f)].push_back({f, b, SlotKind::kPair});
  }

  int32_t w_of(int32_t b) const {
    const Op& op = e_.ops[b];
    return e_.op_of(op.microbatch, op.unit, OpKind::kW);
  }

  Order take() { return std::move(order_); }

 private:
  const Expansion& e_;
  Order order_;
  std::vector<std::deque<int32_t>> pending_w_;
};

}  // namespace shardlab::pipeline
