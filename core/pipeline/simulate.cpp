// The event simulator (as-soon-as-possible timing of fixed per-device orders)
// and the metrics of a timeline. The simulator advances every device while
// its next slot's predecessors are timed; one sweep over the devices without
// progress is a deadlock.
#include "core/pipeline/simulate.h"

#include <algorithm>

namespace shardlab::pipeline {
namespace {

Status invalid(const std::string& message) { return Status(StatusCode::kInvalidArgument, message); }

}  // namespace

const char* slot_kind_name(const Expansion& e, const Slot& slot) {
  switch (slot.kind) {
    case SlotKind::kPair:
      return "FB";
    case SlotKind::kFullBackward:
      return "BW";
    case SlotKind::kSingle:
      break;
  }
  return kind_name(e.ops[slot.op].kind);
}

int64_t slot_duration(const Expansion& e, const Slot& slot) {
  switch (slot.kind) {
    case SlotKind::kPair:
      return e.pair_duration(slot.op, slot.partner);
    case SlotKind::kFullBackward: {
      const Op& b = e.ops[slot.op];
      return b.duration + e.ops[e.op_of(b.microbatch, b.unit, OpKind::kW)].duration;
    }
    case SlotKind::kSingle:
      break;
  }
  return e.ops[slot.op].duration;
}

int32_t slot_ops(const Expansion& e, const Slot& slot, int32_t out[3]) {
  out[0] = slot.op;
  if (slot.kind == SlotKind::kSingle) return 1;
  const int32_t b = slot.kind == SlotKind::kPair ? slot.partner : slot.op;
  const Op& op = e.ops[b];
  const int32_t w = e.op_of(op.microbatch, op.unit, OpKind::kW);
  if (slot.kind == SlotKind::kFullBackward) {
    out[1] = w;
    return 2;
  }
  out[1] = b;
  out[2] = w;
  return 3;
}

Result<Timeline> simulate(const Expansion& e, const Order& order, std::vector<size_t>* blocked) {
  const int32_t p = e.devices;
  const int32_t n = e.num_ops();
  if (static_cast<int32_t>(order.device_slots.size()) != p ||
      static_cast<int32_t>(order.unit_device.size()) != e.num_units()) {
    return invalid("the order covers " + std::to_string(order.device_slots.size()) +
                   " devices and " + std::to_string(order.unit_device.size()) +
                   " units; the problem has " + std::to_string(p) + " and " +
                   std::to_string(e.num_units()));
  }
  for (int32_t u = 0; u < e.num_units(); ++u) {
    const std::vector<int32_t>& allowed = e.units[u].devices;
    if (!std::binary_search(allowed.begin(), allowed.end(), order.unit_device[u])) {
      return invalid("unit " + std::to_string(u) + " is placed on device " +
                     std::to_string(order.unit_device[u]) + ", which it may not use");
    }
  }
  std::vector<int32_t> seen(n, 0);
  int32_t ops[3] = {-1, -1, -1};
  for (int32_t d = 0; d < p; ++d) {
    for (const Slot& slot : order.device_slots[d]) {
      for (int32_t op : {slot.op, slot.partner}) {
        if (op == slot.partner && !slot.is_pair()) break;
        if (op < 0 || op >= n) return invalid("the order names operation " + std::to_string(op));
      }
      if (slot.is_pair() &&
          (e.ops[slot.op].kind != OpKind::kF || e.ops[slot.partner].kind != OpKind::kB)) {
        return invalid("device " + std::to_string(d) + " pairs " + e.op_label(slot.op) + " with " +
                       e.op_label(slot.partner) + "; a pair is an F with a B");
      }
      if (slot.kind == SlotKind::kFullBackward && e.ops[slot.op].kind != OpKind::kB) {
        return invalid("device " + std::to_string(d) + " runs " + e.op_label(slot.op) +
                       " as a full backward; only a B can be one");
      }
      const int32_t count = slot_ops(e, slot, ops);
      for (int32_t i = 0; i < count; ++i) {
        if (order.unit_device[e.ops[ops[i]].unit] != d) {
          return invalid("device " + std::to_string(d) + " runs " + e.op_label(ops[i]) +
                         ", whose unit is on device " +
                         std::to_string(order.unit_device[e.ops[ops[i]].unit]));
        }
        ++seen[ops[i]];
      }
    }
  }
  for (int32_t op = 0; op < n; ++op) {
    if (seen[op] == 0) return invalid("the order never runs " + e.op_label(op));
    if (seen[op] > 1) {
      return invalid("the order runs " + e.op_label(op) + " " + std::to_string(seen[op]) +
                     " times");
    }
  }
  std::vector<int64_t> end(n, -1);
  // When each arc's result reaches its op (end + delay, or with serial links
  // the end of its turn on the link); -1 while not timed.
  std::vector<int64_t> arrival(e.arcs.size(), -1);
  std::vector<int64_t> link_free(e.serial_links ? static_cast<size_t>(p) * p : 0, 0);
  std::vector<size_t> next(p, 0);
  std::vector<int64_t> free_at(p, 0);
  Timeline timeline;
  timeline.unit_device = order.unit_device;
  std::vector<std::vector<TimedSlot>> per_device(p);
  // Earliest start of a slot from its ops' predecessors; -1 while one is not
  // timed yet. Inside a slot only the B -> W arc is allowed (the W runs in
  // the same block); any other arc between its ops can never be met.
  auto ready_time = [&](const Slot& slot, int32_t device) -> int64_t {
    int32_t members[3] = {-1, -1, -1};
    const int32_t count = slot_ops(e, slot, members);
    int64_t t = 0;
    for (int32_t k = 0; k < count; ++k) {
      const int32_t op = members[k];
      for (int32_t i = e.pred_begin[op]; i < e.pred_begin[op + 1]; ++i) {
        const Arc& arc = e.arcs[e.pred_arcs[i]];
        if (k == count - 1 && count > 1 && arc.from == members[count - 2]) continue;
        if (end[arc.from] < 0) return -1;
        const bool crosses = order.unit_device[e.ops[arc.from].unit] != device;
        t = std::max(t, crosses ? arrival[e.pred_arcs[i]] : end[arc.from]);
      }
    }
    return t;
  };
  size_t remaining = 0;
  for (int32_t d = 0; d < p; ++d) remaining += order.device_slots[d].size();
  while (remaining > 0) {
    bool progress = false;
    for (int32_t d = 0; d < p; ++d) {
      while (next[d] < order.device_slots[d].size()) {
        const Slot& slot = order.device_slots[d][next[d]];
        const int64_t t = ready_time(slot, d);
        if (t < 0) break;
        const int64_t start = std::max(t, free_at[d]);
        const int64_t finish = start + slot_duration(e, slot);
        const int32_t count = slot_ops(e, slot, ops);
        for (int32_t i = 0; i < count; ++i) end[ops[i]] = finish;
        // The slot's results leave in its ops' order; on a serial link each
        // waits for the one sent before it.
        for (int32_t i = 0; i < count; ++i) {
          for (int32_t k = e.succ_begin[ops[i]]; k < e.succ_begin[ops[i] + 1]; ++k) {
            const Arc& arc = e.arcs[e.succ_arcs[k]];
            const int32_t to = order.unit_device[e.ops[arc.to].unit];
            if (to == d) continue;
            int64_t at = finish + arc.delay;
            if (e.serial_links) {
              int64_t& link = link_free[static_cast<size_t>(d) * p + to];
              at = link = std::max(link, finish) + arc.delay;
            }
            arrival[e.succ_arcs[k]] = at;
          }
        }
        free_at[d] = finish;
        per_device[d].push_back({d, slot, start, finish});
        ++next[d];
        --remaining;
        progress = true;
      }
    }
    if (!progress) {
      if (blocked) *blocked = next;
      std::string message = "the order deadlocks:";
      int32_t shown = 0;
      for (int32_t d = 0; d < p && shown < 4; ++d) {
        if (next[d] >= order.device_slots[d].size()) continue;
        const Slot& slot = order.device_slots[d][next[d]];
        const int32_t count = slot_ops(e, slot, ops);
        std::string waits;
        for (int32_t k = 0; k < count && waits.empty(); ++k) {
          for (int32_t i = e.pred_begin[ops[k]]; i < e.pred_begin[ops[k] + 1]; ++i) {
            const int32_t from = e.arcs[e.pred_arcs[i]].from;
            if (end[from] < 0 && !(k == count - 1 && count > 1 && from == ops[count - 2])) {
              waits = e.op_label(from);
              break;
            }
          }
        }
        message += std::string(shown ? ";" : "") + " device " + std::to_string(d) + " waits at " +
                   e.op_label(slot.op) + (slot.is_pair() ? "&" + e.op_label(slot.partner) : "") +
                   " for " + waits;
        ++shown;
      }
      return invalid(message);
    }
  }
  for (int32_t d = 0; d < p; ++d) {
    timeline.slots.insert(timeline.slots.end(), per_device[d].begin(), per_device[d].end());
  }
  return timeline;
}

int64_t Metrics::global_total() const {
  int64_t total = 0;
  for (int64_t x : global_idle) total += x;
  return total;
}

int64_t Metrics::span_total() const {
  int64_t total = 0;
  for (int64_t x : span_idle) total += x;
  return total;
}

int64_t Metrics::total_busy() const {
  int64_t total = 0;
  for (int64_t x : busy) total += x;
  return total;
}

Metrics measure(const Expansion& e, const Timeline& timeline) {
  const int32_t p = e.devices;
  Metrics m;
  m.busy.assign(p, 0);
  m.global_idle.assign(p, 0);
  m.span_idle.assign(p, 0);
  m.peak_activation.assign(p, 0);
  m.peak_parameter.assign(p, 0);
  m.memory.assign(p, {});
  std::vector<int64_t> first(p, INT64_MAX), last(p, INT64_MIN);
  // Memory events per device: (time, releases first, delta).
  std::vector<std::vector<std::pair<std::pair<int64_t, int>, int64_t>>> events(p);
  for (const TimedSlot& s : timeline.slots) {
    m.makespan = std::max(m.makespan, s.end);
    m.busy[s.device] += s.end - s.start;
    first[s.device] = std::min(first[s.device], s.start);
    last[s.device] = std::max(last[s.device], s.end);
    int32_t ops[3] = {-1, -1, -1};
    const int32_t count = slot_ops(e, s.slot, ops);
    for (int32_t i = 0; i < count; ++i) {
      const Op& o = e.ops[ops[i]];
      if (o.alloc) events[s.device].push_back({{s.start, 1}, o.alloc});
      if (o.release) events[s.device].push_back({{s.end, 0}, -o.release});
    }
  }
  for (int32_t u = 0; u < e.num_units(); ++u) {
    m.peak_parameter[timeline.unit_device[u]] += e.units[u].param;
  }
  for (int32_t d = 0; d < p; ++d) {
    m.global_idle[d] = m.makespan - m.busy[d];
    m.span_idle[d] = first[d] <= last[d] ? last[d] - first[d] - m.busy[d] : 0;
    std::sort(events[d].begin(), events[d].end());
    MemoryProfile& profile = m.memory[d];
    profile.time.push_back(0);
    profile.activation.push_back(0);
    int64_t level = 0;
    for (const auto& [key, delta] : events[d]) {
      level += delta;
      m.peak_activation[d] = std::max(m.peak_activation[d], level);
      if (profile.time.back() == key.first) {
        profile.activation.back() = level;
      } else if (profile.activation.back() != level) {
        profile.time.push_back(key.first);
        profile.activation.push_back(level);
      }
    }
    // Merge steps that became equal after same-time updates.
    MemoryProfile merged;
    for (size_t i = 0; i < profile.time.size(); ++i) {
      if (!merged.time.empty() && merged.activation.back() == profile.activation[i]) continue;
      merged.time.push_back(profile.time[i]);
      merged.activation.push_back(profile.activation[i]);
    }
    profile = std::move(merged);
  }
  return m;
}

Order order_of(const Expansion& e, const Timeline& timeline) {
  Order order;
  order.unit_device = timeline.unit_device;
  order.device_slots.assign(e.devices, {});
  std::vector<TimedSlot> slots = timeline.slots;
  std::stable_sort(slots.begin(), slots.end(), [](const TimedSlot& a, const TimedSlot& b) {
    return a.device != b.device ? a.device < b.device : a.start < b.start;
  });
  for (const TimedSlot& s : slots) order.device_slots[s.device].push_back(s.slot);
  return order;
}

}  // namespace shardlab::pipeline
