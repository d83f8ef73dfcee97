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

int64_t slot_duration(const Expansion& e, const Slot& slot) {
  return slot.is_pair() ? e.pair_duration(slot.op, slot.partner) : e.ops[slot.op].duration;
}

Result<Timeline> simulate(const Expansion& e, const Order& order) {
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
  for (int32_t d = 0; d < p; ++d) {
    for (const Slot& slot : order.device_slots[d]) {
      const int32_t slot_ops[2] = {slot.op, slot.partner};
      for (int i = 0; i < (slot.is_pair() ? 2 : 1); ++i) {
        const int32_t op = slot_ops[i];
        if (op < 0 || op >= n) return invalid("the order names operation " + std::to_string(op));
        if (order.unit_device[e.ops[op].unit] != d) {
          return invalid("device " + std::to_string(d) + " runs " + e.op_label(op) +
                         ", whose unit is on device " +
                         std::to_string(order.unit_device[e.ops[op].unit]));
        }
        ++seen[op];
      }
      if (slot.is_pair() &&
          (e.ops[slot.op].kind != OpKind::kF || e.ops[slot.partner].kind != OpKind::kB)) {
        return invalid("device " + std::to_string(d) + " pairs " + e.op_label(slot.op) + " with " +
                       e.op_label(slot.partner) + "; a pair is an F with a B");
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
  std::vector<size_t> next(p, 0);
  std::vector<int64_t> free_at(p, 0);
  Timeline timeline;
  timeline.unit_device = order.unit_device;
  std::vector<std::vector<TimedSlot>> per_device(p);
  // Earliest start of one op of a slot from its predecessors; -1 if one is
  // not timed yet.
  auto ready_time = [&](int32_t op, int32_t device, int32_t partner) -> int64_t {
    int64_t t = 0;
    for (int32_t i = e.pred_begin[op]; i < e.pred_begin[op + 1]; ++i) {
      const Arc& arc = e.arcs[e.pred_arcs[i]];
      if (arc.from == partner) return -1;  // a pair cannot contain its own dependency
      if (end[arc.from] < 0) return -1;
      const bool crosses = order.unit_device[e.ops[arc.from].unit] != device;
      t = std::max(t, end[arc.from] + (crosses ? arc.delay : 0));
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
        int64_t t = ready_time(slot.op, d, slot.partner);
        if (t < 0) break;
        if (slot.is_pair()) {
          const int64_t t2 = ready_time(slot.partner, d, slot.op);
          if (t2 < 0) break;
          t = std::max(t, t2);
        }
        const int64_t start = std::max(t, free_at[d]);
        const int64_t finish = start + slot_duration(e, slot);
        end[slot.op] = finish;
        if (slot.is_pair()) end[slot.partner] = finish;
        free_at[d] = finish;
        per_device[d].push_back({d, slot, start, finish});
        ++next[d];
        --remaining;
        progress = true;
      }
    }
    if (!progress) {
      std::string message = "the order deadlocks:";
      int32_t shown = 0;
      for (int32_t d = 0; d < p && shown < 4; ++d) {
        if (next[d] >= order.device_slots[d].size()) continue;
        const Slot& slot = order.device_slots[d][next[d]];
        std::string waits;
        for (int32_t op : {slot.op, slot.partner}) {
          if (op < 0) continue;
          for (int32_t i = e.pred_begin[op]; i < e.pred_begin[op + 1]; ++i) {
            const int32_t from = e.arcs[e.pred_arcs[i]].from;
            if (end[from] < 0) {
              waits = e.op_label(from);
              break;
            }
          }
          if (!waits.empty()) break;
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
    for (int32_t op : {s.slot.op, s.slot.partner}) {
      if (op < 0) continue;
      const Op& o = e.ops[op];
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
