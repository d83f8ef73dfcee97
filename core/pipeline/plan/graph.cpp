// PlanGraph indexing and static bounds, the semi-active timing of per-device
// orders, and a from-scratch check of a planned schedule. The check here is
// the planner's own guard; schedules leaving the planner are checked again
// by the pipeline's independent checker.
#include "core/pipeline/plan/graph.h"

#include <algorithm>
#include <numeric>
#include <string>

namespace shardlab::pipeline {
namespace {

Status bad(const std::string& message) {
  return Status(StatusCode::kInvalidInput, "plan graph: " + message);
}

// CSR index of arcs by one endpoint.
void index_arcs(int32_t n, const std::vector<PlanArc>& arcs, bool by_to,
                std::vector<int32_t>* begin, std::vector<int32_t>* list) {
  begin->assign(n + 1, 0);
  for (const PlanArc& a : arcs) ++(*begin)[(by_to ? a.to : a.from) + 1];
  for (int32_t i = 0; i < n; ++i) (*begin)[i + 1] += (*begin)[i];
  list->assign(arcs.size(), 0);
  std::vector<int32_t> at(begin->begin(), begin->end() - 1);
  for (int32_t e = 0; e < static_cast<int32_t>(arcs.size()); ++e) {
    (*list)[at[by_to ? arcs[e].to : arcs[e].from]++] = e;
  }
}

bool share_device(const PlanGroup& a, const PlanGroup& b) {
  size_t i = 0, j = 0;
  while (i < a.devices.size() && j < b.devices.size()) {
    if (a.devices[i] == b.devices[j]) return true;
    if (a.devices[i] < b.devices[j])
      ++i;
    else
      ++j;
  }
  return false;
}

}  // namespace

int64_t PlanGraph::min_delay(const PlanArc& arc) const {
  const int32_t ga = ops[arc.from].group, gb = ops[arc.to].group;
  if (ga == gb) return 0;
  return share_device(groups[ga], groups[gb]) ? 0 : arc.delay;
}

std::vector<std::vector<int32_t>> PlanGraph::class_members() const {
  std::vector<std::vector<int32_t>> members(classes);
  for (int32_t i = 0; i < num_ops(); ++i) {
    const PlanOp& op = ops[i];
    if (op.sym_class < 0) continue;
    auto& m = members[op.sym_class];
    if (static_cast<int32_t>(m.size()) <= op.sym_rank) m.resize(op.sym_rank + 1, -1);
    m[op.sym_rank] = i;
  }
  return members;
}

Status PlanGraph::finalize() {
  const int32_t n = num_ops();
  if (devices <= 0) return bad("no devices");
  if (static_cast<int32_t>(mem_cap.size()) != devices) mem_cap.assign(devices, kNoCap);
  for (int32_t g = 0; g < num_groups(); ++g) {
    auto& d = groups[g].devices;
    std::sort(d.begin(), d.end());
    d.erase(std::unique(d.begin(), d.end()), d.end());
    if (d.empty()) return bad("group " + std::to_string(g) + " has no allowed device");
    if (d.front() < 0 || d.back() >= devices) {
      return bad("group " + std::to_string(g) + " names a device out of range");
    }
  }
  total_work = 0;
  classes = 0;
  for (int32_t i = 0; i < n; ++i) {
    const PlanOp& op = ops[i];
    if (op.group < 0 || op.group >= num_groups()) {
      return bad("op " + std::to_string(i) + " has no valid group");
    }
    if (op.duration < 0 || op.mem_peak < std::max<int64_t>(0, op.mem_net)) {
      return bad("op " + std::to_string(i) + " has a negative duration or a peak below its net");
    }
    total_work += op.duration;
    classes = std::max(classes, op.sym_class + 1);
  }
  for (const PlanArc& a : arcs) {
    if (a.from < 0 || a.from >= n || a.to < 0 || a.to >= n || a.from == a.to || a.delay < 0) {
      return bad("an arc joins ops out of range, an op to itself, or has a negative delay");
    }
  }
  index_arcs(n, arcs, true, &pred_begin, &pred_arc);
  index_arcs(n, arcs, false, &succ_begin, &succ_arc);

  // Kahn's algorithm, smallest index first so the order is canonical.
  std::vector<int32_t> indegree(n);
  for (int32_t i = 0; i < n; ++i) indegree[i] = pred_begin[i + 1] - pred_begin[i];
  topo.clear();
  topo.reserve(n);
  for (int32_t i = 0; i < n; ++i) {
    if (indegree[i] == 0) topo.push_back(i);
  }
  for (size_t at = 0; at < topo.size(); ++at) {
    const int32_t i = topo[at];
    for (int32_t k = succ_begin[i]; k < succ_begin[i + 1]; ++k) {
      if (--indegree[arcs[succ_arc[k]].to] == 0) topo.push_back(arcs[succ_arc[k]].to);
    }
  }
  if (static_cast<int32_t>(topo.size()) != n) return bad("the arcs contain a cycle");

  head.assign(n, 0);
  for (int32_t i : topo) {
    for (int32_t k = succ_begin[i]; k < succ_begin[i + 1]; ++k) {
      const PlanArc& a = arcs[succ_arc[k]];
      head[a.to] = std::max(head[a.to], head[i] + ops[i].duration + min_delay(a));
    }
  }
  tail.assign(n, 0);
  for (int32_t at = n - 1; at >= 0; --at) {
    const int32_t i = topo[at];
    for (int32_t k = succ_begin[i]; k < succ_begin[i + 1]; ++k) {
      const PlanArc& a = arcs[succ_arc[k]];
      tail[i] = std::max(tail[i], min_delay(a) + ops[a.to].duration + tail[a.to]);
    }
  }

  group_ops_begin.assign(num_groups() + 1, 0);
  for (const PlanOp& op : ops) ++group_ops_begin[op.group + 1];
  for (int32_t g = 0; g < num_groups(); ++g) group_ops_begin[g + 1] += group_ops_begin[g];
  group_ops.assign(n, 0);
  {
    std::vector<int32_t> at(group_ops_begin.begin(), group_ops_begin.end() - 1);
    for (int32_t i = 0; i < n; ++i) group_ops[at[ops[i].group]++] = i;
  }

  // Classes: one group each, ranks 0..size-1 without repeats.
  std::vector<int32_t> class_group(classes, -1), class_size(classes, 0);
  for (const PlanOp& op : ops) {
    if (op.sym_class < 0) continue;
    int32_t& g = class_group[op.sym_class];
    if (g >= 0 && g != op.group) {
      return bad("class " + std::to_string(op.sym_class) + " spans two groups");
    }
    g = op.group;
    ++class_size[op.sym_class];
  }
  std::vector<std::vector<char>> seen(classes);
  for (int32_t c = 0; c < classes; ++c) seen[c].assign(class_size[c], 0);
  for (const PlanOp& op : ops) {
    if (op.sym_class < 0) continue;
    if (op.sym_rank < 0 || op.sym_rank >= class_size[op.sym_class] ||
        seen[op.sym_class][op.sym_rank]) {
      return bad("class " + std::to_string(op.sym_class) + " has ranks other than 0..size-1");
    }
    seen[op.sym_class][op.sym_rank] = 1;
  }
  return Status::ok();
}

Result<PlanSchedule> time_orders(const PlanGraph& graph,
                                 const std::vector<std::vector<int32_t>>& orders) {
  const int32_t n = graph.num_ops();
  PlanSchedule out;
  out.device.assign(n, -1);
  out.start.assign(n, kUnset);
  // Each op waits for its arcs and for the op before it on its device.
  std::vector<int32_t> waiting(n, 0), next_on_device(n, -1);
  int32_t placed = 0;
  for (int32_t d = 0; d < static_cast<int32_t>(orders.size()); ++d) {
    for (size_t k = 0; k < orders[d].size(); ++k) {
      const int32_t i = orders[d][k];
      if (i < 0 || i >= n || out.device[i] >= 0) {
        return Status(StatusCode::kInvalidInput, "orders: an op is missing, repeated or unknown");
      }
      out.device[i] = d;
      ++placed;
      if (k + 1 < orders[d].size()) next_on_device[i] = orders[d][k + 1];
      if (k > 0) ++waiting[i];
    }
  }
  if (placed != n) return Status(StatusCode::kInvalidInput, "orders: an op is missing");
  for (int32_t i = 0; i < n; ++i) waiting[i] += graph.pred_begin[i + 1] - graph.pred_begin[i];
  std::vector<int64_t> ready(n, 0);
  std::vector<int32_t> queue;
  for (int32_t i = 0; i < n; ++i) {
    if (waiting[i] == 0) queue.push_back(i);
  }
  std::vector<int64_t> level(graph.devices, 0);
  std::vector<char> hosted(graph.num_groups(), 0);
  for (int32_t i = 0; i < n; ++i) {
    const int32_t g = graph.ops[i].group;
    if (!hosted[g]) {
      hosted[g] = 1;
      level[out.device[i]] += graph.groups[g].mem_static;
    }
  }
  for (int32_t d = 0; d < graph.devices; ++d) {
    if (level[d] > graph.mem_cap[d]) {
      return Status(StatusCode::kInvalidInput, "orders: parameters exceed a memory cap");
    }
  }
  int32_t done = 0;
  while (!queue.empty()) {
    const int32_t i = queue.back();
    queue.pop_back();
    ++done;
    const PlanOp& op = graph.ops[i];
    const int32_t d = out.device[i];
    out.start[i] = ready[i];
    if (level[d] + op.mem_peak > graph.mem_cap[d]) {
      return Status(StatusCode::kInvalidInput, "orders: memory above the cap");
    }
    level[d] += op.mem_net;
    const int64_t end = ready[i] + op.duration;
    out.makespan = std::max(out.makespan, end);
    for (int32_t k = graph.succ_begin[i]; k < graph.succ_begin[i + 1]; ++k) {
      const PlanArc& a = graph.arcs[graph.succ_arc[k]];
      const int64_t t = end + (out.device[a.to] == d ? 0 : a.delay);
      ready[a.to] = std::max(ready[a.to], t);
      if (--waiting[a.to] == 0) queue.push_back(a.to);
    }
    if (next_on_device[i] >= 0) {
      const int32_t j = next_on_device[i];
      ready[j] = std::max(ready[j], end);
      if (--waiting[j] == 0) queue.push_back(j);
    }
  }
  if (done != n) return Status(StatusCode::kInvalidInput, "orders: deadlock (a cycle)");
  return out;
}

std::vector<std::vector<int32_t>> orders_of(const PlanGraph& graph, const PlanSchedule& schedule) {
  // Ties (zero-duration ops) follow the topological order, so the orders
  // never contradict an arc.
  std::vector<int32_t> position(graph.num_ops());
  for (int32_t k = 0; k < graph.num_ops(); ++k) position[graph.topo[k]] = k;
  std::vector<std::vector<int32_t>> orders(graph.devices);
  for (int32_t i = 0; i < graph.num_ops(); ++i) orders[schedule.device[i]].push_back(i);
  for (auto& order : orders) {
    std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      const int64_t ea = schedule.start[a] + graph.ops[a].duration;
      const int64_t eb = schedule.start[b] + graph.ops[b].duration;
      if (schedule.start[a] != schedule.start[b]) return schedule.start[a] < schedule.start[b];
      if (ea != eb) return ea < eb;
      return position[a] < position[b];
    });
  }
  return orders;
}

std::string check_plan(const PlanGraph& graph, const PlanSchedule& schedule) {
  const int32_t n = graph.num_ops();
  if (static_cast<int32_t>(schedule.start.size()) != n ||
      static_cast<int32_t>(schedule.device.size()) != n) {
    return "schedule size differs from the graph";
  }
  std::vector<int32_t> group_device(graph.num_groups(), -1);
  int64_t makespan = 0;
  for (int32_t i = 0; i < n; ++i) {
    const int32_t d = schedule.device[i];
    const int32_t g = graph.ops[i].group;
    const auto& allowed = graph.groups[g].devices;
    if (schedule.start[i] < 0) return "op " + std::to_string(i) + " starts before 0";
    if (!std::binary_search(allowed.begin(), allowed.end(), d)) {
      return "op " + std::to_string(i) + " is on a device its group does not allow";
    }
    if (group_device[g] >= 0 && group_device[g] != d) {
      return "group " + std::to_string(g) + " is split over two devices";
    }
    group_device[g] = d;
    makespan = std::max(makespan, schedule.start[i] + graph.ops[i].duration);
  }
  if (makespan != schedule.makespan) return "makespan differs from the last end";
  for (const PlanArc& a : graph.arcs) {
    const int64_t need = schedule.start[a.from] + graph.ops[a.from].duration +
                         (schedule.device[a.from] == schedule.device[a.to] ? 0 : a.delay);
    if (schedule.start[a.to] < need) {
      return "op " + std::to_string(a.to) + " starts before op " + std::to_string(a.from) +
             "'s result arrives";
    }
  }
  const auto orders = orders_of(graph, schedule);
  for (int32_t d = 0; d < graph.devices; ++d) {
    int64_t level = 0;
    for (int32_t g = 0; g < graph.num_groups(); ++g) {
      if (group_device[g] == d) level += graph.groups[g].mem_static;
    }
    int64_t free_at = 0;
    for (int32_t i : orders[d]) {
      const PlanOp& op = graph.ops[i];
      if (schedule.start[i] < free_at && op.duration > 0) {
        return "op " + std::to_string(i) + " overlaps another op on device " + std::to_string(d);
      }
      if (level + op.mem_peak > graph.mem_cap[d]) {
        return "memory above the cap on device " + std::to_string(d) + " at op " +
               std::to_string(i);
      }
      level += op.mem_net;
      free_at = std::max(free_at, schedule.start[i] + op.duration);
    }
  }
  return "";
}

}  // namespace shardlab::pipeline
