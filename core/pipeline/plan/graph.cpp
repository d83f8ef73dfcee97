// PlanGraph indexing and static bounds, the semi-active timing of per-device
// orders, and a from-scratch check of a planned schedule. The check here is
// the planner's own guard; schedules leaving the planner are checked again
// by the pipeline's independent checker.
#include "core/pipeline/plan/graph.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <tuple>

#include "core/pipeline/plan/slot_timing.h"

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

int64_t PlanGraph::pair_length(int32_t f, int32_t b) const {
  const int32_t n = num_ops();
  if (f < 0 || f >= n || b < 0 || b >= n) return -1;
  const PlanOp& of = ops[f];
  const PlanOp& ob = ops[b];
  if (of.kind != PlanKind::kForward || ob.kind != PlanKind::kBackward) return -1;
  const int32_t w = ob.weight;
  if (w < 0 || w >= n || w == f || pred_begin.empty()) return -1;
  if (pred_begin[w + 1] - pred_begin[w] != 1 || arcs[pred_arc[pred_begin[w]]].from != b) return -1;
  const PlanGroup& gf = groups[of.group];
  const PlanGroup& gb = groups[ob.group];
  if (gf.fb < 0 || gb.fb < 0) return -1;
  if (of.group != ob.group && !share_device(gf, gb)) return -1;
  const int64_t length = std::max(gf.fb, gb.fb);
  return length < of.duration + ob.duration + ops[w].duration ? length : -1;
}

int64_t end_of(const PlanGraph& g, const PlanSchedule& s, int32_t i) {
  if (!s.paired(i)) return s.start[i] + g.ops[i].duration;
  int32_t f = -1, b = -1;
  pair_members(g, s, i, &f, &b);
  return s.start[i] + g.pair_length(f, b);
}

void pair_members(const PlanGraph& g, const PlanSchedule& s, int32_t i, int32_t* f, int32_t* b) {
  switch (g.ops[i].kind) {
    case PlanKind::kForward:
      *f = i, *b = s.partner[i];
      break;
    case PlanKind::kBackward:
      *f = s.partner[i], *b = i;
      break;
    default:
      *f = s.partner[i], *b = s.partner[*f];
      break;
  }
}

bool mirror_symmetric(const PlanGraph& g, const PlanSchedule& s) {
  const int32_t n = g.num_ops();
  if (static_cast<int32_t>(g.mirror.size()) != n || static_cast<int32_t>(s.start.size()) != n) {
    return false;
  }
  for (int32_t i = 0; i < n; ++i) {
    const int32_t j = g.mirror[i];
    if (s.start[j] != s.start[i] || s.device[j] != g.devices - 1 - s.device[i]) return false;
    const int32_t p = s.paired(i) ? g.mirror[s.partner[i]] : -1;
    if ((s.paired(j) ? s.partner[j] : -1) != p) return false;
  }
  return true;
}

bool PlanGraph::mirror_valid() const {
  const int32_t n = num_ops();
  if (static_cast<int32_t>(mirror.size()) != n || n == 0) return false;
  for (int32_t d = 0; d < devices; ++d) {
    if (mem_cap[d] != mem_cap[devices - 1 - d]) return false;
  }
  // The groups and classes the ops' images fall in, one for each.
  std::vector<int32_t> group_to(num_groups(), -1), class_to(classes, -1);
  auto same_image = [](std::vector<int32_t>* to, int32_t from, int32_t image) {
    if (from < 0) return image < 0;
    if (image < 0) return false;
    int32_t& slot = (*to)[from];
    if (slot < 0) slot = image;
    return slot == image;
  };
  for (int32_t i = 0; i < n; ++i) {
    const int32_t j = mirror[i];
    if (j < 0 || j >= n || mirror[j] != i) return false;
    const PlanOp& a = ops[i];
    const PlanOp& b = ops[j];
    if (a.duration != b.duration || a.mem_peak != b.mem_peak || a.mem_net != b.mem_net ||
        a.kind != b.kind || a.sym_rank != b.sym_rank) {
      return false;
    }
    if ((a.weight < 0) != (b.weight < 0) || (a.weight >= 0 && mirror[a.weight] != b.weight)) {
      return false;
    }
    if (!same_image(&group_to, a.group, b.group) ||
        !same_image(&class_to, a.sym_class, b.sym_class)) {
      return false;
    }
  }
  for (int32_t gr = 0; gr < num_groups(); ++gr) {
    if (group_to[gr] < 0) continue;
    const PlanGroup& a = groups[gr];
    const PlanGroup& b = groups[group_to[gr]];
    std::vector<int32_t> reversed;
    for (int32_t d : a.devices) reversed.push_back(devices - 1 - d);
    std::sort(reversed.begin(), reversed.end());
    if (reversed != b.devices || a.mem_static != b.mem_static || a.fb != b.fb) return false;
  }
  using Key = std::tuple<int32_t, int32_t, int64_t>;
  std::vector<Key> own, image;
  for (const PlanArc& arc : arcs) {
    own.emplace_back(arc.from, arc.to, arc.delay);
    image.emplace_back(mirror[arc.from], mirror[arc.to], arc.delay);
  }
  std::sort(own.begin(), own.end());
  std::sort(image.begin(), image.end());
  return own == image;
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

// Which ops may pair, and the lengths the bounds may use (see graph.h and
// the top of plan/bound.cpp). A pair of length P holding F f, B b and W w
// is shared out as f' = min(f, P - b - w), b' = min(b, P - w - f'), w' =
// min(w, P - f' - b') (each at least 0), which sum to at most P and each
// start no earlier than the pair: a relaxation may run f', then b', then w'
// inside the pair and every piece ends no later than the real op. load[] is
// the least piece an op gets over its possible pairs (and alone, its
// duration); min_len[] the least real length (an F or B in a pair lasts
// P; a W's piece-based length is its load).
void PlanGraph::derive_pairs() {
  const int32_t n = num_ops();
  any_pairs = false;
  pairable.assign(n, 0);
  min_len.resize(n);
  load.resize(n);
  for (int32_t i = 0; i < n; ++i) min_len[i] = load[i] = ops[i].duration;
  // Per group: the longest F and the longest full backward of its ops that
  // could pair, which give the least pieces over the group's partners.
  const int32_t G = num_groups();
  std::vector<int64_t> max_f(G, -1), max_bw(G, -1);
  bool any_fb = false;
  for (const PlanGroup& g : groups) any_fb |= g.fb >= 0;
  if (!any_fb) return;
  auto full_backward = [&](int32_t b) {
    const int32_t w = ops[b].weight;
    if (w < 0 || w >= n || pred_begin[w + 1] - pred_begin[w] != 1 ||
        arcs[pred_arc[pred_begin[w]]].from != b) {
      return int64_t{-1};
    }
    return ops[b].duration + ops[w].duration;
  };
  for (int32_t i = 0; i < n; ++i) {
    const PlanOp& op = ops[i];
    if (groups[op.group].fb < 0) continue;
    if (op.kind == PlanKind::kForward) max_f[op.group] = std::max(max_f[op.group], op.duration);
    if (op.kind == PlanKind::kBackward) {
      max_bw[op.group] = std::max(max_bw[op.group], full_backward(i));
    }
  }
  // Partner groups: F groups and B groups with F&B times on a common device.
  std::vector<std::vector<int32_t>> partners(G);
  for (int32_t x = 0; x < G; ++x) {
    if (max_f[x] < 0) continue;
    for (int32_t y = 0; y < G; ++y) {
      if (max_bw[y] < 0 || (x != y && !share_device(groups[x], groups[y]))) continue;
      partners[x].push_back(y);
    }
  }
  for (int32_t i = 0; i < n; ++i) {
    const PlanOp& op = ops[i];
    if (op.kind == PlanKind::kForward && max_f[op.group] >= 0) {
      for (int32_t y : partners[op.group]) {
        const int64_t length = std::max(groups[op.group].fb, groups[y].fb);
        if (length >= op.duration + max_bw[y]) continue;  // no gain with any B of y
        pairable[i] = 1;
        min_len[i] = std::min(min_len[i], length);
        load[i] = std::min(load[i], std::max<int64_t>(0, length - max_bw[y]));
      }
    }
  }
  for (int32_t x = 0; x < G; ++x) {
    for (int32_t y : partners[x]) {
      const int64_t length = std::max(groups[x].fb, groups[y].fb);
      for (int32_t k = group_ops_begin[y]; k < group_ops_begin[y + 1]; ++k) {
        const int32_t b = group_ops[k];
        const int64_t bw = ops[b].kind == PlanKind::kBackward ? full_backward(b) : -1;
        if (bw < 0 || length >= max_f[x] + bw) continue;
        const int32_t w = ops[b].weight;
        pairable[b] = 1;
        any_pairs = true;
        // The largest F piece a partner of x can take leaves the least for b and w.
        const int64_t f_piece = std::min(max_f[x], std::max<int64_t>(0, length - bw));
        const int64_t b_piece =
            std::min(ops[b].duration, std::max<int64_t>(0, length - ops[w].duration - f_piece));
        const int64_t w_piece =
            std::min(ops[w].duration, std::max<int64_t>(0, length - f_piece - b_piece));
        min_len[b] = std::min(min_len[b], length);
        load[b] = std::min(load[b], b_piece);
        load[w] = std::min(load[w], w_piece);
      }
    }
  }
  // A W's length from its piece-based head (see graph.h).
  for (int32_t b = 0; b < n; ++b) {
    if (pairable[b] && ops[b].kind == PlanKind::kBackward)
      min_len[ops[b].weight] = load[ops[b].weight];
  }
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
  grid = 0;
  for (const PlanOp& op : ops) grid = std::gcd(grid, op.duration);
  for (const PlanArc& a : arcs) grid = std::gcd(grid, a.delay);
  for (const PlanGroup& group : groups) grid = std::gcd(grid, std::max<int64_t>(0, group.fb));
  if (grid <= 0) grid = 1;
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

  group_ops_begin.assign(num_groups() + 1, 0);
  for (const PlanOp& op : ops) ++group_ops_begin[op.group + 1];
  for (int32_t g = 0; g < num_groups(); ++g) group_ops_begin[g + 1] += group_ops_begin[g];
  group_ops.assign(n, 0);
  {
    std::vector<int32_t> at(group_ops_begin.begin(), group_ops_begin.end() - 1);
    for (int32_t i = 0; i < n; ++i) group_ops[at[ops[i].group]++] = i;
  }
  derive_pairs();
  any_free = false;
  for (int32_t g = 0; g < num_groups(); ++g) any_free |= !fixed(g);
  large_dag = any_free && !any_pairs && n >= kLargeDagOps;
  head.assign(n, 0);
  for (int32_t i : topo) {
    for (int32_t k = succ_begin[i]; k < succ_begin[i + 1]; ++k) {
      const PlanArc& a = arcs[succ_arc[k]];
      const int64_t after = inner(a) ? load[i] : min_len[i] + min_delay(a);
      head[a.to] = std::max(head[a.to], head[i] + after);
    }
  }
  tail.assign(n, 0);
  for (int32_t at = n - 1; at >= 0; --at) {
    const int32_t i = topo[at];
    for (int32_t k = succ_begin[i]; k < succ_begin[i + 1]; ++k) {
      const PlanArc& a = arcs[succ_arc[k]];
      if (inner(a)) continue;  // in a pair the W ends with its B
      tail[i] = std::max(tail[i], min_delay(a) + min_len[a.to] + tail[a.to]);
    }
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

namespace {

// The members of op i's slot (its pair's F, B, W, or i alone) and the
// slot's length; false when op i's pair is not one the graph allows.
bool slot_members(const PlanGraph& g, const std::vector<int32_t>& partner, int32_t i,
                  int32_t out[3], int32_t* count, int64_t* length) {
  const int32_t n = g.num_ops();
  if (partner.empty() || partner[i] < 0) {
    out[0] = i;
    *count = 1;
    *length = g.ops[i].duration;
    return true;
  }
  int32_t f = -1, b = -1;
  switch (g.ops[i].kind) {
    case PlanKind::kForward:
      f = i, b = partner[i];
      break;
    case PlanKind::kBackward:
      f = partner[i], b = i;
      break;
    default:
      f = partner[i];
      b = f >= 0 && f < n ? partner[f] : -1;
      break;
  }
  if (f < 0 || f >= n || b < 0 || b >= n) return false;
  const int64_t p = g.pair_length(f, b);
  if (p < 0) return false;
  const int32_t w = g.ops[b].weight;
  if (partner[f] != b || partner[b] != f || partner[w] != f) return false;
  out[0] = f, out[1] = b, out[2] = w;
  *count = 3;
  *length = p;
  return true;
}

}  // namespace

Result<PlanSchedule> time_orders(const PlanGraph& graph,
                                 const std::vector<std::vector<int32_t>>& orders,
                                 const std::vector<int32_t>& partner) {
  const int32_t n = graph.num_ops();
  auto fail = [](const std::string& message) {
    return Status(StatusCode::kInvalidInput, "orders: " + message);
  };
  PlanSchedule out;
  out.device.assign(n, -1);
  out.start.assign(n, kUnset);
  if (!partner.empty()) {
    if (static_cast<int32_t>(partner.size()) != n) return fail("the pairs do not cover the ops");
    out.partner = partner;
  }
  // Slots in device order (plan/slot_timing.h), with their members.
  struct Members {
    int32_t op[3] = {-1, -1, -1};
    int32_t count = 0;
  };
  std::vector<Members> members;
  SlotOrder t;
  t.slot_of.assign(n, -1);
  int32_t placed = 0;
  for (int32_t d = 0; d < static_cast<int32_t>(orders.size()); ++d) {
    int32_t last = -1;
    const std::vector<int32_t>& order = orders[d];
    for (size_t k = 0; k < order.size();) {
      const int32_t i = order[k];
      if (i < 0 || i >= n || out.device[i] >= 0)
        return fail("an op is missing, repeated or unknown");
      Members slot;
      int64_t length = 0;
      if (!slot_members(graph, partner, i, slot.op, &slot.count, &length)) {
        return fail("a pair the graph does not allow");
      }
      const int32_t s = static_cast<int32_t>(members.size());
      for (int32_t m = 0; m < slot.count; ++m) {
        const int32_t op = slot.op[m];
        if (k + m >= order.size() || order[k + m] != op || out.device[op] >= 0) {
          return fail("a pair's F, B and W are not consecutive");
        }
        out.device[op] = d;
        t.slot_of[op] = s;
        ++placed;
      }
      k += slot.count;
      if (last >= 0) t.next[last] = s;
      last = s;
      members.push_back(slot);
      t.device.push_back(d);
      t.next.push_back(-1);
      t.length.push_back(length);
    }
  }
  if (placed != n) return fail("an op is missing");
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
    if (level[d] > graph.mem_cap[d]) return fail("parameters exceed a memory cap");
  }
  // A slot is timed after the one before it on its device, so each device's
  // memory is followed in its order. (An arc between a pair's members other
  // than B -> W never clears: such a pair deadlocks.)
  bool over_cap = false;
  const int32_t done = time_slots(
      graph, &t,
      [&](int32_t s, int32_t m[3]) {
        std::copy(members[s].op, members[s].op + members[s].count, m);
        return members[s].count;
      },
      [&](int32_t s, int32_t d, int64_t end) {
        int64_t peak = 0, net = 0;
        for (int32_t m = 0; m < members[s].count; ++m) {
          const int32_t i = members[s].op[m];
          peak += graph.ops[i].mem_peak;
          net += graph.ops[i].mem_net;
          out.start[i] = t.ready[s];
        }
        if (level[d] + peak > graph.mem_cap[d]) {
          over_cap = true;
          return false;
        }
        level[d] += net;
        out.makespan = std::max(out.makespan, end);
        return true;
      });
  if (over_cap) return fail("memory above the cap");
  if (done != static_cast<int32_t>(members.size())) return fail("deadlock (a cycle)");
  return out;
}

std::vector<std::vector<int32_t>> orders_of(const PlanGraph& graph, const PlanSchedule& schedule) {
  // Ties (zero-duration ops) follow the topological order, so the orders
  // never contradict an arc; a pair sorts as its F, its members in order.
  const int32_t n = graph.num_ops();
  std::vector<int32_t> position(n);
  for (int32_t k = 0; k < n; ++k) position[graph.topo[k]] = k;
  std::vector<int32_t> key(n), rank(n, 0);
  for (int32_t i = 0; i < n; ++i) {
    key[i] = position[i];
    if (!schedule.paired(i)) continue;
    int32_t f = -1, b = -1;
    pair_members(graph, schedule, i, &f, &b);
    key[i] = position[f];
    rank[i] = i == f ? 0 : i == b ? 1 : 2;
  }
  std::vector<int64_t> end(n);
  for (int32_t i = 0; i < n; ++i) end[i] = end_of(graph, schedule, i);
  std::vector<std::vector<int32_t>> orders(graph.devices);
  for (int32_t i = 0; i < n; ++i) orders[schedule.device[i]].push_back(i);
  for (auto& order : orders) {
    std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      if (schedule.start[a] != schedule.start[b]) return schedule.start[a] < schedule.start[b];
      if (end[a] != end[b]) return end[a] < end[b];
      if (key[a] != key[b]) return key[a] < key[b];
      return rank[a] < rank[b];
    });
  }
  return orders;
}

std::string check_plan(const PlanGraph& graph, const PlanSchedule& schedule) {
  const int32_t n = graph.num_ops();
  if (static_cast<int32_t>(schedule.start.size()) != n ||
      static_cast<int32_t>(schedule.device.size()) != n ||
      (!schedule.partner.empty() && static_cast<int32_t>(schedule.partner.size()) != n)) {
    return "schedule size differs from the graph";
  }
  std::vector<int32_t> group_device(graph.num_groups(), -1);
  int64_t makespan = 0;
  int32_t members[3];
  int32_t count = 0;
  int64_t length = 0;
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
    if (!slot_members(graph, schedule.partner, i, members, &count, &length)) {
      return "op " + std::to_string(i) + " is in a pair the graph does not allow";
    }
    for (int32_t m = 1; m < count; ++m) {
      if (schedule.start[members[m]] != schedule.start[members[0]] ||
          schedule.device[members[m]] != schedule.device[members[0]]) {
        return "the pair of op " + std::to_string(members[0]) + " is split";
      }
    }
    makespan = std::max(makespan, schedule.start[i] + length);
  }
  if (makespan != schedule.makespan) return "makespan differs from the last end";
  for (const PlanArc& a : graph.arcs) {
    if (graph.inner(a) && schedule.paired(a.from) && schedule.paired(a.to)) continue;
    const int64_t need = end_of(graph, schedule, a.from) +
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
    const std::vector<int32_t>& order = orders[d];
    for (size_t k = 0; k < order.size(); k += count) {
      slot_members(graph, schedule.partner, order[k], members, &count, &length);
      int64_t peak = 0, net = 0;
      for (int32_t m = 0; m < count; ++m) {
        if (k + m >= order.size() || order[k + m] != members[m]) {
          return "the pair of op " + std::to_string(members[0]) + " is split";
        }
        peak += graph.ops[members[m]].mem_peak;
        net += graph.ops[members[m]].mem_net;
      }
      const int32_t i = members[0];
      if (schedule.start[i] < free_at && length > 0) {
        return "op " + std::to_string(i) + " overlaps another op on device " + std::to_string(d);
      }
      if (level + peak > graph.mem_cap[d]) {
        return "memory above the cap on device " + std::to_string(d) + " at op " +
               std::to_string(i);
      }
      level += net;
      free_at = std::max(free_at, schedule.start[i] + length);
    }
  }
  return "";
}

}  // namespace shardlab::pipeline
