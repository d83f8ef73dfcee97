// "list": a priority list schedule for any problem, the baseline for operator
// graphs and free placements where no published order exists. Units that may
// go on several devices are placed first, in index order, each on its least
// loaded allowed device (load = its total F + B + W over all micro-batches).
// Then an event simulation starts, whenever a device is idle, its
// highest-priority operation whose inputs have arrived: B before F before W
// (B is on the critical path and frees memory; W fills gaps), earlier
// micro-batches first; an F waits while it would push the device over its
// memory cap. HEFT and the exact planner (planner.h) do better; this is
// the schedule that always exists.
#include <algorithm>
#include <queue>
#include <set>
#include <tuple>
#include <vector>

#include "core/pipeline/schedules.h"

namespace shardlab::pipeline {

Result<Order> list_order(const Expansion& e) {
  const int32_t p = e.devices, n = e.num_ops();
  Order order;
  order.unit_device.assign(e.num_units(), 0);
  order.device_slots.assign(p, {});
  std::vector<int64_t> load(p, 0), unit_load(e.num_units(), 0), param(p, 0);
  for (const Op& op : e.ops) unit_load[op.unit] += op.duration;
  for (int32_t u = 0; u < e.num_units(); ++u) {
    const int32_t fixed = e.fixed_device(u);
    if (fixed >= 0) {
      order.unit_device[u] = fixed;
      load[fixed] += unit_load[u];
    }
  }
  for (int32_t u = 0; u < e.num_units(); ++u) {
    if (e.fixed_device(u) >= 0) continue;
    int32_t best = e.units[u].devices[0];
    for (int32_t d : e.units[u].devices) {
      if (load[d] < load[best]) best = d;
    }
    order.unit_device[u] = best;
    load[best] += unit_load[u];
  }
  for (int32_t u = 0; u < e.num_units(); ++u) param[order.unit_device[u]] += e.units[u].param;

  auto device_of = [&](int32_t op) { return order.unit_device[e.ops[op].unit]; };
  auto priority = [&](int32_t op) {
    static constexpr int kRank[3] = {1, 0, 2};  // F, B, W
    return std::make_tuple(kRank[static_cast<int>(e.ops[op].kind)], e.ops[op].microbatch, op);
  };
  using Key = std::tuple<int, int32_t, int32_t>;
  std::vector<int32_t> waiting(n, 0);
  std::vector<int64_t> ready(n, 0), end(n, -1);
  for (int32_t op = 0; op < n; ++op) waiting[op] = e.pred_begin[op + 1] - e.pred_begin[op];
  using Timed = std::pair<int64_t, int32_t>;
  std::vector<std::priority_queue<Timed, std::vector<Timed>, std::greater<>>> pending(p);
  std::vector<std::set<Key>> available(p);
  std::priority_queue<Timed, std::vector<Timed>, std::greater<>> running;  // (end, device)
  std::vector<int32_t> current(p, -1);
  std::vector<int64_t> memory(p, 0);
  for (int32_t op = 0; op < n; ++op) {
    if (waiting[op] == 0) pending[device_of(op)].push({0, op});
  }
  int64_t now = 0;
  int32_t done = 0;
  while (done < n) {
    while (!running.empty() && running.top().first <= now) {
      const int32_t d = running.top().second;
      running.pop();
      const int32_t op = current[d];
      current[d] = -1;
      ++done;
      memory[d] -= e.ops[op].release;
      for (int32_t i = e.succ_begin[op]; i < e.succ_begin[op + 1]; ++i) {
        const Arc& arc = e.arcs[e.succ_arcs[i]];
        const int32_t to = arc.to;
        const bool crosses = device_of(to) != d;
        ready[to] = std::max(ready[to], end[op] + (crosses ? arc.delay : 0));
        if (--waiting[to] == 0) pending[device_of(to)].push({ready[to], to});
      }
    }
    int64_t next = INT64_MAX;
    for (int32_t d = 0; d < p; ++d) {
      while (!pending[d].empty() && pending[d].top().first <= now) {
        available[d].insert(priority(pending[d].top().second));
        pending[d].pop();
      }
      if (current[d] < 0) {
        for (auto it = available[d].begin(); it != available[d].end(); ++it) {
          const int32_t op = std::get<2>(*it);
          const Op& o = e.ops[op];
          if (o.alloc > 0 && memory[d] + o.alloc + param[d] > e.mem_cap[d]) continue;
          available[d].erase(it);
          current[d] = op;
          memory[d] += o.alloc;
          end[op] = now + o.duration;
          running.push({end[op], d});
          order.device_slots[d].push_back({op, -1, SlotKind::kSingle});
          break;
        }
      }
      if (!pending[d].empty()) next = std::min(next, pending[d].top().first);
    }
    if (!running.empty()) next = std::min(next, running.top().first);
    if (next == INT64_MAX) {
      if (done < n) {
        return Status(StatusCode::kInvalidArgument,
                      "the list schedule stalls: every device waits for memory below its cap");
      }
      break;
    }
    now = std::max(now, next);
  }
  return order;
}

}  // namespace shardlab::pipeline
