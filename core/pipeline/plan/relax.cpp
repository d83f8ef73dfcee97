// The device-subset relaxation (see plan/relax.h): builds the relaxed
// PlanGraph for the engine's coupled provers (plan/engine.cpp) and picks
// the device pairs they search.
//
// Why it helps: the one-machine bounds of plan/bound.cpp see each device
// alone, with heads and tails that assume every other device is free. Two
// neighbouring ranks of a pipeline feed each other: each pair on one waits
// for a result of the other, and a delay that is not a multiple of the op
// lengths leaves a gap at every exchange. Searching the two ranks together,
// with everything else relaxed to chains of fixed length, proves what
// neither proves alone (4 ranks, 8 micro-batches, F&B 2, comm 0.25, cap 5:
// 22.5 where the root bound is 22). It does not reach far: on DualPipe's
// example at 8 ranks the relaxation of ranks 3 and 4 has a schedule at the
// one-device bound (53.5 with F&B 2, comm 0.25), since the dropped ranks
// it relaxes to chains are what holds the middle ones back.
#include "core/pipeline/plan/relax.h"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

#include "core/pipeline/plan/bound.h"

namespace shardlab::pipeline {
namespace {

constexpr int64_t kNone = std::numeric_limits<int64_t>::min();

}  // namespace

bool relax_to_devices(const PlanGraph& g, const std::vector<int32_t>& keep, PlanGraph* out) {
  const int32_t n = g.num_ops();
  if (keep.empty() || static_cast<int32_t>(keep.size()) >= g.devices || g.any_free) return false;
  auto device_of = [&](int32_t i) { return g.groups[g.ops[i].group].devices[0]; };
  std::vector<int32_t> new_device(g.devices, -1);
  for (size_t k = 0; k < keep.size(); ++k) new_device[keep[k]] = static_cast<int32_t>(k);
  auto kept = [&](int32_t i) { return new_device[device_of(i)] >= 0; };
  // The delay of an arc under the fixed placement.
  auto delay = [&](const PlanArc& a) { return device_of(a.from) == device_of(a.to) ? 0 : a.delay; };

  PlanGraph r;
  const int32_t kept_devices = static_cast<int32_t>(keep.size());
  r.devices = kept_devices + 2;  // + the source's and the sink's; relays add more
  for (int32_t d : keep) r.mem_cap.push_back(g.mem_cap[d]);
  std::vector<int32_t> new_group(g.num_groups(), -1);
  for (int32_t grp = 0; grp < g.num_groups(); ++grp) {
    const int32_t d = new_device[g.groups[grp].devices[0]];
    if (d < 0) continue;
    new_group[grp] = r.num_groups();
    PlanGroup copy = g.groups[grp];
    copy.devices = {d};
    r.groups.push_back(copy);
  }
  std::vector<int32_t> new_op(n, -1);
  std::map<int32_t, int32_t> new_class;
  for (int32_t i = 0; i < n; ++i) {
    if (!kept(i)) continue;
    new_op[i] = r.num_ops();
    PlanOp op = g.ops[i];
    op.group = new_group[op.group];
    if (op.sym_class >= 0) {
      op.sym_class =
          new_class.emplace(op.sym_class, static_cast<int32_t>(new_class.size())).first->second;
    }
    r.ops.push_back(op);
  }
  for (PlanOp& op : r.ops) {
    if (op.weight >= 0) op.weight = new_op[op.weight];
  }
  int32_t next_class = static_cast<int32_t>(new_class.size());
  auto extra_op = [&](int32_t device, int32_t sym_class, int32_t rank) {
    PlanGroup group;
    group.devices = {device};
    int32_t grp = -1;
    // One group per extra device.
    for (int32_t k = 0; k < r.num_groups(); ++k) {
      if (r.groups[k].devices[0] == device) grp = k;
    }
    if (grp < 0) {
      grp = r.num_groups();
      r.groups.push_back(group);
    }
    PlanOp op;
    op.group = grp;
    op.sym_class = sym_class;
    op.sym_rank = rank;
    r.ops.push_back(op);
    return r.num_ops() - 1;
  };
  const int32_t source = extra_op(kept_devices, -1, 0);
  const int32_t sink = extra_op(kept_devices + 1, -1, 0);

  // Chains through dropped ops only: from the start of time (release) and
  // to the end (tail), at their least lengths.
  std::vector<int64_t> release(n, 0), tail(n, 0);
  for (int32_t i : g.topo) {
    if (kept(i)) continue;
    for (int32_t k = g.pred_begin[i]; k < g.pred_begin[i + 1]; ++k) {
      const PlanArc& a = g.arcs[g.pred_arc[k]];
      if (kept(a.from) || g.inner(a)) continue;
      release[i] = std::max(release[i], release[a.from] + g.min_len[a.from] + delay(a));
    }
  }
  for (int32_t at = n - 1; at >= 0; --at) {
    const int32_t i = g.topo[at];
    if (kept(i)) continue;
    int64_t after = 0;
    for (int32_t k = g.succ_begin[i]; k < g.succ_begin[i + 1]; ++k) {
      const PlanArc& a = g.arcs[g.succ_arc[k]];
      if (kept(a.to) || g.inner(a)) continue;
      after = std::max(after, delay(a) + tail[a.to]);
    }
    tail[i] = g.min_len[i] + after;
  }
  std::vector<int32_t> position(n);
  for (int32_t at = 0; at < n; ++at) position[g.topo[at]] = at;
  std::map<std::pair<int32_t, int32_t>, int32_t> relay_class;  // (u class, v class) -> class
  std::map<int32_t, int32_t> class_device, class_count;
  std::vector<int64_t> reach(n, kNone);
  std::vector<int32_t> touched;
  for (int32_t u : g.topo) {
    if (!kept(u)) continue;
    int64_t in = 0, out_tail = 0;
    for (int32_t k = g.pred_begin[u]; k < g.pred_begin[u + 1]; ++k) {
      const PlanArc& a = g.arcs[g.pred_arc[k]];
      if (g.inner(a)) {
        if (kept(a.from)) r.arcs.push_back({new_op[a.from], new_op[u], a.delay});
        continue;
      }
      if (kept(a.from)) {
        r.arcs.push_back({new_op[a.from], new_op[u], delay(a)});
      } else {
        in = std::max(in, release[a.from] + g.min_len[a.from] + delay(a));
      }
    }
    if (in > 0) r.arcs.push_back({source, new_op[u], in});
    // Chains from u through dropped ops: to the end, and to kept ops.
    touched.clear();
    std::map<int32_t, int64_t> to_kept;
    for (int32_t k = g.succ_begin[u]; k < g.succ_begin[u + 1]; ++k) {
      const PlanArc& a = g.arcs[g.succ_arc[k]];
      if (kept(a.to) || g.inner(a)) continue;
      out_tail = std::max(out_tail, delay(a) + tail[a.to]);
      if (reach[a.to] == kNone) touched.push_back(a.to);
      reach[a.to] = std::max(reach[a.to], delay(a));
    }
    std::sort(touched.begin(), touched.end(),
              [&](int32_t x, int32_t y) { return position[x] < position[y]; });
    for (size_t t = 0; t < touched.size(); ++t) {
      const int32_t x = touched[t];
      for (int32_t k = g.succ_begin[x]; k < g.succ_begin[x + 1]; ++k) {
        const PlanArc& a = g.arcs[g.succ_arc[k]];
        if (g.inner(a)) continue;
        const int64_t via = reach[x] + g.min_len[x] + delay(a);
        if (kept(a.to)) {
          auto [it, fresh] = to_kept.emplace(a.to, via);
          if (!fresh) it->second = std::max(it->second, via);
          continue;
        }
        if (reach[a.to] == kNone) {
          // Insert keeping topological order (touched[t+1..] stays sorted).
          const auto at = std::upper_bound(
              touched.begin() + static_cast<std::ptrdiff_t>(t) + 1, touched.end(), a.to,
              [&](int32_t p, int32_t q) { return position[p] < position[q]; });
          touched.insert(at, a.to);
        }
        reach[a.to] = std::max(reach[a.to], via);
      }
    }
    for (int32_t x : touched) reach[x] = kNone;
    if (out_tail > 0) r.arcs.push_back({new_op[u], sink, out_tail});
    for (const auto& [v, length] : to_kept) {
      if (device_of(v) != device_of(u)) {
        r.arcs.push_back({new_op[u], new_op[v], length});
        continue;
      }
      // Same device: through a relay on a device of its own class.
      const int32_t cu = g.ops[u].sym_class, cv = g.ops[v].sym_class;
      int32_t cls = -1, rank = 0;
      int32_t device;
      if (cu >= 0 && cv >= 0) {
        auto [it, fresh] = relay_class.emplace(std::make_pair(cu, cv), next_class);
        if (fresh) {
          ++next_class;
          class_device[it->second] = r.devices++;
        }
        cls = it->second;
        rank = class_count[cls]++;
        device = class_device[cls];
      } else {
        device = r.devices++;
      }
      const int32_t z = extra_op(device, cls, rank);
      r.arcs.push_back({new_op[u], z, length});
      r.arcs.push_back({z, new_op[v], 0});
    }
  }
  // Relay ranks follow u's rank (the class's members were met in topological
  // order, which need not be rank order).
  {
    std::map<int32_t, std::vector<std::pair<int32_t, int32_t>>>
        members;  // class -> (u rank, relay)
    for (const PlanArc& a : r.arcs) {
      const PlanOp& z = r.ops[a.to];
      if (a.to <= sink || z.sym_class < 0 || a.from >= source) continue;
      if (r.ops[a.from].sym_class < 0) continue;
      members[z.sym_class].push_back({r.ops[a.from].sym_rank, a.to});
    }
    for (auto& [cls, list] : members) {
      std::sort(list.begin(), list.end());
      for (size_t k = 0; k < list.size(); ++k)
        r.ops[list[k].second].sym_rank = static_cast<int32_t>(k);
    }
  }
  r.mem_cap.resize(r.devices, kNoCap);
  if (!r.finalize().is_ok()) return false;
  *out = std::move(r);
  return true;
}

std::vector<std::vector<int32_t>> coupled_devices(const PlanGraph& g) {
  if (g.devices < 3 || g.devices > 16 || g.any_free) return {};
  std::vector<std::vector<char>> joined(g.devices, std::vector<char>(g.devices, 0));
  for (const PlanArc& a : g.arcs) {
    const int32_t x = g.groups[g.ops[a.from].group].devices[0];
    const int32_t y = g.groups[g.ops[a.to].group].devices[0];
    joined[x][y] = joined[y][x] = 1;
  }
  std::vector<std::vector<int32_t>> best;
  int64_t best_bound = -1;
  for (int32_t x = 0; x < g.devices; ++x) {
    for (int32_t y = x + 1; y < g.devices; ++y) {
      if (!joined[x][y]) continue;
      PlanGraph r;
      if (!relax_to_devices(g, {x, y}, &r)) continue;
      const int64_t b = root_bound(r);
      if (b > best_bound) {
        best_bound = b;
        best.clear();
      }
      if (b == best_bound && best.size() < 4) best.push_back({x, y});
    }
  }
  return best;
}

}  // namespace shardlab::pipeline
