// The independent checker (see check.h). Deliberately written apart from the
// simulator and measure(): its own slot decoding, its own duration and
// memory arithmetic, its own sweeps, so that a bug in one does not hide in
// the other.
#include "core/pipeline/check.h"

#include <algorithm>
#include <tuple>

#include "core/pipeline/numbers.h"

namespace shardlab::pipeline {
namespace {

class Reporter {
 public:
  explicit Reporter(CheckReport* report) : report_(*report) {}
  void add(const std::string& text, int32_t slot = -1) {
    if (report_.violation_count < CheckReport::kMaxViolations) {
      report_.violations.push_back(text);
      report_.violation_slots.push_back(slot);
    }
    ++report_.violation_count;
  }

 private:
  CheckReport& report_;
};

std::string span_text(const Expansion& e, int64_t start, int64_t end) {
  return "[" + time_text(e, start) + ", " + time_text(e, end) + ")";
}

}  // namespace

CheckReport check_schedule(const Expansion& e, const Timeline& timeline) {
  CheckReport report;
  Reporter violation(&report);
  const int32_t p = e.devices, n = e.num_ops();
  if (static_cast<int32_t>(timeline.unit_device.size()) != e.num_units()) {
    violation.add("the schedule places " + std::to_string(timeline.unit_device.size()) +
                  " units; the problem has " + std::to_string(e.num_units()));
    return report;
  }
  for (int32_t u = 0; u < e.num_units(); ++u) {
    const std::vector<int32_t>& allowed = e.units[u].devices;
    if (std::find(allowed.begin(), allowed.end(), timeline.unit_device[u]) == allowed.end()) {
      violation.add("unit " + std::to_string(u) + " sits on device " +
                    std::to_string(timeline.unit_device[u]) + ", which it may not use");
    }
  }
  if (report.violation_count > 0) return report;

  // Which slot runs each op; -1 none.
  const int32_t num_slots = static_cast<int32_t>(timeline.slots.size());
  std::vector<int32_t> slot_of(n, -1);
  // Serial links only: each slot's ops, in order (the order its results leave).
  std::vector<std::vector<int32_t>> slot_members(e.serial_links ? num_slots : 0);
  for (int32_t i = 0; i < num_slots; ++i) {
    const TimedSlot& s = timeline.slots[i];
    if (s.device < 0 || s.device >= p) {
      violation.add("slot " + std::to_string(i) + " names device " + std::to_string(s.device), i);
      continue;
    }
    std::vector<int32_t> members;
    const int32_t a = s.slot.op, b = s.slot.partner;
    if (a < 0 || a >= n || (s.slot.kind == SlotKind::kPair && (b < 0 || b >= n))) {
      violation.add("slot " + std::to_string(i) + " names an operation out of range", i);
      continue;
    }
    int64_t expected = 0;
    switch (s.slot.kind) {
      case SlotKind::kSingle:
        members = {a};
        expected = e.ops[a].duration;
        break;
      case SlotKind::kFullBackward: {
        if (e.ops[a].kind != OpKind::kB) {
          violation.add(e.op_label(a) + " is run as a full backward but is not a B", i);
          continue;
        }
        const int32_t w = e.op_of(e.ops[a].microbatch, e.ops[a].unit, OpKind::kW);
        members = {a, w};
        expected = e.ops[a].duration + e.ops[w].duration;
        break;
      }
      case SlotKind::kPair: {
        if (e.ops[a].kind != OpKind::kF || e.ops[b].kind != OpKind::kB) {
          violation.add("a pair joins " + e.op_label(a) + " and " + e.op_label(b) +
                        "; a pair is an F with a B");
          continue;
        }
        const int32_t w = e.op_of(e.ops[b].microbatch, e.ops[b].unit, OpKind::kW);
        members = {a, b, w};
        const Unit& uf = e.units[e.ops[a].unit];
        const Unit& ub = e.units[e.ops[b].unit];
        expected = uf.fb_given && ub.fb_given
                       ? std::max(uf.fb, ub.fb)
                       : e.ops[a].duration + e.ops[b].duration + e.ops[w].duration;
        break;
      }
    }
    if (s.end - s.start != expected) {
      violation.add(e.op_label(a) + " on device " + std::to_string(s.device) + " lasts " +
                        time_text(e, s.end - s.start) + " but takes " + time_text(e, expected),
                    i);
    }
    if (s.start < 0) violation.add(e.op_label(a) + " starts before 0", i);
    if (e.serial_links) slot_members[i] = members;
    for (int32_t op : members) {
      if (slot_of[op] >= 0) {
        violation.add(e.op_label(op) + " runs twice", i);
        continue;
      }
      slot_of[op] = i;
      const int32_t home = timeline.unit_device[e.ops[op].unit];
      if (home != s.device) {
        violation.add(e.op_label(op) + " runs on device " + std::to_string(s.device) +
                          " but its unit sits on device " + std::to_string(home),
                      i);
      }
    }
  }
  for (int32_t op = 0; op < n; ++op) {
    if (slot_of[op] < 0) violation.add(e.op_label(op) + " never runs");
  }
  if (report.violation_count > 0) return report;

  // Serial links: each device's results leave in the order its slots start
  // (a slot's members in order, each member's arcs in index order), one
  // transfer at a time per (sender, receiver), each ready at its slot's end.
  std::vector<int64_t>& arrival = report.arrival;
  if (e.serial_links) {
    arrival.assign(e.arcs.size(), 0);
    std::vector<std::vector<int32_t>> sent(p);
    for (int32_t i = 0; i < num_slots; ++i) sent[timeline.slots[i].device].push_back(i);
    std::vector<int64_t> link(static_cast<size_t>(p) * p, 0);
    for (int32_t d = 0; d < p; ++d) {
      std::stable_sort(sent[d].begin(), sent[d].end(), [&](int32_t x, int32_t y) {
        return timeline.slots[x].start < timeline.slots[y].start;
      });
      for (int32_t i : sent[d]) {
        for (int32_t op : slot_members[i]) {
          for (int32_t j = e.succ_begin[op]; j < e.succ_begin[op + 1]; ++j) {
            const int32_t k = e.succ_arcs[j];
            const Arc& arc = e.arcs[k];
            const int32_t to = timeline.unit_device[e.ops[arc.to].unit];
            if (to == d) {
              arrival[k] = timeline.slots[i].end;
              continue;
            }
            int64_t& free_at = link[static_cast<size_t>(d) * p + to];
            free_at = std::max(free_at, timeline.slots[i].end) + arc.delay;
            arrival[k] = free_at;
          }
        }
      }
    }
  }
  // Dependencies with delays.
  for (int32_t k = 0; k < static_cast<int32_t>(e.arcs.size()); ++k) {
    const Arc& arc = e.arcs[k];
    const TimedSlot& from = timeline.slots[slot_of[arc.from]];
    const TimedSlot& to = timeline.slots[slot_of[arc.to]];
    if (slot_of[arc.from] == slot_of[arc.to]) {
      if (e.ops[arc.from].kind == OpKind::kB && e.ops[arc.to].kind == OpKind::kW) continue;
      violation.add(
          e.op_label(arc.to) + " runs in the same block as its input " + e.op_label(arc.from),
          slot_of[arc.to]);
      continue;
    }
    const bool crosses =
        timeline.unit_device[e.ops[arc.from].unit] != timeline.unit_device[e.ops[arc.to].unit];
    const int64_t delay = crosses ? arc.delay : 0;
    const bool queued = crosses && e.serial_links && arrival[k] > from.end + delay;
    const int64_t arrives = queued ? arrival[k] : from.end + delay;
    if (to.start < arrives) {
      violation.add(
          e.op_label(arc.to) + " starts at " + time_text(e, to.start) + " but its input " +
              e.op_label(arc.from) + " ends at " + time_text(e, from.end) +
              (queued
                   ? " and, sent after the results before it on the link from device " +
                         std::to_string(timeline.unit_device[e.ops[arc.from].unit]) +
                         " to device " + std::to_string(timeline.unit_device[e.ops[arc.to].unit]) +
                         ", arrives at " + time_text(e, arrives)
               : delay > 0 ? " and needs " + time_text(e, delay) + " to arrive"
                           : ""),
          slot_of[arc.to]);
    }
  }

  // One slot at a time per device, and the metrics.
  std::vector<std::vector<int32_t>> by_device(p);
  for (int32_t i = 0; i < num_slots; ++i) by_device[timeline.slots[i].device].push_back(i);
  report.busy.assign(p, 0);
  report.global_idle.assign(p, 0);
  report.span_idle.assign(p, 0);
  report.peak_activation.assign(p, 0);
  report.peak_parameter.assign(p, 0);
  for (const TimedSlot& s : timeline.slots) report.makespan = std::max(report.makespan, s.end);
  for (int32_t u = 0; u < e.num_units(); ++u) {
    report.peak_parameter[timeline.unit_device[u]] += e.units[u].param;
  }
  std::vector<std::vector<std::tuple<int64_t, int, int64_t>>> events(p);
  for (int32_t op = 0; op < n; ++op) {
    const TimedSlot& s = timeline.slots[slot_of[op]];
    if (e.ops[op].alloc) events[s.device].emplace_back(s.start, 1, e.ops[op].alloc);
    if (e.ops[op].release) events[s.device].emplace_back(s.end, 0, e.ops[op].release);
  }
  for (int32_t d = 0; d < p; ++d) {
    std::vector<int32_t>& slots = by_device[d];
    std::sort(slots.begin(), slots.end(), [&](int32_t x, int32_t y) {
      const TimedSlot &a = timeline.slots[x], &b = timeline.slots[y];
      return a.start != b.start ? a.start < b.start : a.end < b.end;
    });
    for (size_t k = 0; k < slots.size(); ++k) {
      const TimedSlot& s = timeline.slots[slots[k]];
      report.busy[d] += s.end - s.start;
      if (k > 0) {
        const TimedSlot& prev = timeline.slots[slots[k - 1]];
        if (s.start < prev.end) {
          violation.add("device " + std::to_string(d) + " runs " + e.op_label(prev.slot.op) + " " +
                            span_text(e, prev.start, prev.end) + " and " + e.op_label(s.slot.op) +
                            " " + span_text(e, s.start, s.end) + " at the same time",
                        slots[k]);
        }
      }
    }
    report.global_idle[d] = report.makespan - report.busy[d];
    if (!slots.empty()) {
      int64_t last_end = 0;
      for (int32_t i : slots) last_end = std::max(last_end, timeline.slots[i].end);
      report.span_idle[d] = last_end - timeline.slots[slots.front()].start - report.busy[d];
    }
    // Memory: allocations at slot starts, releases at slot ends; at one
    // instant the releases come first.
    std::vector<std::tuple<int64_t, int, int64_t>>& at =
        events[d];  // (time, 0 release / 1 alloc, amount)
    std::sort(at.begin(), at.end());
    int64_t level = 0;
    bool reported = false;
    for (const auto& [time, is_alloc, amount] : at) {
      level += is_alloc ? amount : -amount;
      report.peak_activation[d] = std::max(report.peak_activation[d], level);
      if (level < 0 && !reported) {
        violation.add("device " + std::to_string(d) + " releases more memory than it holds at " +
                      time_text(e, time));
        reported = true;
      }
      const int64_t total = level + report.peak_parameter[d];
      if (e.mem_cap[d] != Expansion::kNoCap && total > e.mem_cap[d] && !reported) {
        violation.add("device " + std::to_string(d) + " holds " + mem_text(e, total) +
                      " (activations " + mem_text(e, level) + " + parameters " +
                      mem_text(e, report.peak_parameter[d]) + ") at time " + time_text(e, time) +
                      ", above its cap " + mem_text(e, e.mem_cap[d]));
        reported = true;
      }
    }
    if (e.mem_cap[d] != Expansion::kNoCap && report.peak_parameter[d] > e.mem_cap[d] && !reported) {
      violation.add("device " + std::to_string(d) + " holds parameters " +
                    mem_text(e, report.peak_parameter[d]) + ", above its cap " +
                    mem_text(e, e.mem_cap[d]));
    }
  }
  report.valid = report.violation_count == 0;
  return report;
}

}  // namespace shardlab::pipeline
