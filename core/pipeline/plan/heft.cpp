// HEFT (see heft.h). Upward ranks use the mean communication delay over the
// placements an arc's groups allow: zero for a group with itself, the arc's
// delay between fixed groups on different devices, and otherwise the delay
// times the share of device pairs that differ.
#include "core/pipeline/plan/heft.h"

#include <algorithm>

namespace shardlab::pipeline {

PlanSchedule heft(const PlanGraph& g) {
  const int32_t n = g.num_ops();
  auto mean_delay = [&](const PlanArc& a) -> double {
    const PlanGroup& ga = g.groups[g.ops[a.from].group];
    const PlanGroup& gb = g.groups[g.ops[a.to].group];
    if (g.ops[a.from].group == g.ops[a.to].group) return 0.0;
    int64_t pairs = 0, apart = 0;
    for (int32_t x : ga.devices) {
      for (int32_t y : gb.devices) {
        ++pairs;
        apart += x != y;
      }
    }
    return static_cast<double>(a.delay) * static_cast<double>(apart) / static_cast<double>(pairs);
  };
  std::vector<double> rank(n, 0.0);
  for (int32_t at = n - 1; at >= 0; --at) {
    const int32_t i = g.topo[at];
    double best = 0.0;
    for (int32_t k = g.succ_begin[i]; k < g.succ_begin[i + 1]; ++k) {
      const PlanArc& a = g.arcs[g.succ_arc[k]];
      best = std::max(best, mean_delay(a) + rank[a.to]);
    }
    rank[i] = static_cast<double>(g.ops[i].duration) + best;
  }
  std::vector<int32_t> position(n), order(g.topo);
  for (int32_t k = 0; k < n; ++k) position[g.topo[k]] = k;
  // Decreasing rank, ties in topological order: a predecessor always comes
  // first (its rank is at least its successor's).
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    if (rank[a] != rank[b]) return rank[a] > rank[b];
    return position[a] < position[b];
  });

  PlanSchedule s;
  s.device.assign(n, -1);
  s.start.assign(n, kUnset);
  std::vector<int32_t> group_device(g.num_groups(), -1);
  // Busy intervals per device, sorted by start.
  std::vector<std::vector<std::pair<int64_t, int64_t>>> busy(g.devices);
  std::vector<int64_t> level(g.devices, 0), last_end(g.devices, 0);
  for (int32_t gr = 0; gr < g.num_groups(); ++gr) {
    if (g.fixed(gr)) {
      group_device[gr] = g.groups[gr].devices[0];
      level[group_device[gr]] += g.groups[gr].mem_static;
    }
  }
  for (int32_t i : order) {
    const PlanOp& op = g.ops[i];
    const int32_t gd = group_device[op.group];
    int32_t best_d = -1;
    int64_t best_start = 0, best_end = kNoCap;
    const std::vector<int32_t> one{gd};
    for (int32_t d : gd >= 0 ? one : g.groups[op.group].devices) {
      const int64_t extra = gd >= 0 ? 0 : g.groups[op.group].mem_static;
      const bool capped = g.mem_cap[d] < kNoCap;
      if (capped && level[d] + extra + op.mem_peak > g.mem_cap[d]) continue;
      int64_t ready = 0;
      for (int32_t k = g.pred_begin[i]; k < g.pred_begin[i + 1]; ++k) {
        const PlanArc& a = g.arcs[g.pred_arc[k]];
        const int64_t end = s.start[a.from] + g.ops[a.from].duration;
        ready = std::max(ready, end + (s.device[a.from] == d ? 0 : a.delay));
      }
      int64_t start = std::max(ready, last_end[d]);
      if (!capped) {
        // Insertion: the first idle gap after `ready` that holds the op.
        int64_t t = ready;
        start = -1;
        for (const auto& [b0, b1] : busy[d]) {
          if (b1 <= t) continue;
          if (b0 >= t + op.duration) break;
          t = std::max(t, b1);
        }
        start = t;
      }
      const int64_t end = start + op.duration;
      if (end < best_end) best_end = end, best_start = start, best_d = d;
    }
    if (best_d < 0) return PlanSchedule();
    if (gd < 0) {
      group_device[op.group] = best_d;
      level[best_d] += g.groups[op.group].mem_static;
    }
    s.device[i] = best_d;
    s.start[i] = best_start;
    level[best_d] += op.mem_net;
    last_end[best_d] = std::max(last_end[best_d], best_end);
    auto& b = busy[best_d];
    b.insert(std::upper_bound(b.begin(), b.end(), std::make_pair(best_start, best_end)),
             {best_start, best_end});
    s.makespan = std::max(s.makespan, best_end);
  }
  return s;
}

}  // namespace shardlab::pipeline
