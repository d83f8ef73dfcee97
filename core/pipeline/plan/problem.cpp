// Conversions between the pipeline model and the planner's view (see
// plan/problem.h).
#include "core/pipeline/plan/problem.h"

#include <algorithm>

namespace shardlab::pipeline {

Result<PlanGraph> plan_graph_of(const Expansion& e) {
  PlanGraph g;
  g.devices = e.devices;
  g.regular = true;
  g.mem_cap.assign(e.devices, kNoCap);
  for (int32_t d = 0; d < e.devices && d < static_cast<int32_t>(e.mem_cap.size()); ++d) {
    if (e.mem_cap[d] != Expansion::kNoCap) g.mem_cap[d] = e.mem_cap[d];
  }
  // Only units whose F&B time the problem gives may pair (as in
  // Expansion::pair_duration: otherwise a pair takes F + B + W and gains nothing).
  for (const Unit& u : e.units) g.groups.push_back({u.devices, u.param, u.fb_given ? u.fb : -1});
  // Ranks: micro-batches in index order among those passing each unit.
  const bool chain = [&] {
    if (e.form == Form::kStages) return true;
    for (int32_t i = 0; i < e.num_ops(); ++i) {
      if (e.ops[i].kind != OpKind::kF) continue;
      int32_t fin = 0, fout = 0;
      for (int32_t k = e.pred_begin[i]; k < e.pred_begin[i + 1]; ++k) {
        fin += e.ops[e.arcs[e.pred_arcs[k]].from].kind == OpKind::kF;
      }
      for (int32_t k = e.succ_begin[i]; k < e.succ_begin[i + 1]; ++k) {
        fout += e.ops[e.arcs[e.succ_arcs[k]].to].kind == OpKind::kF;
      }
      if (fin > 1 || fout > 1) return false;
    }
    return true;
  }();
  int32_t source_unit = -1;
  if (!chain) {
    for (int32_t i = 0; i < e.num_ops() && source_unit < 0; ++i) {
      if (e.ops[i].kind == OpKind::kF && e.pred_begin[i] == e.pred_begin[i + 1]) {
        source_unit = e.ops[i].unit;
      }
    }
  }
  std::vector<int32_t> next_rank(static_cast<size_t>(e.num_units()) * 3, 0);
  g.ops.resize(e.num_ops());
  for (int32_t k = 0; k < e.microbatches; ++k) {
    for (int32_t u = 0; u < e.num_units(); ++u) {
      for (int32_t kind = 0; kind < 3; ++kind) {
        const int32_t i = e.op_of(k, u, static_cast<OpKind>(kind));
        if (i < 0) continue;
        const Op& op = e.ops[i];
        PlanOp& p = g.ops[i];
        p.duration = op.duration;
        p.mem_peak = op.alloc;
        p.mem_net = op.alloc - op.release;
        p.group = op.unit;
        p.kind = kind == 0   ? PlanKind::kForward
                 : kind == 1 ? PlanKind::kBackward
                             : PlanKind::kWeight;
        p.origin = i;
        if (kind == 1) p.weight = e.op_of(k, u, OpKind::kW);
        if (chain || (u == source_unit && kind == 0)) {
          const int32_t c = u * 3 + kind;
          p.sym_class = c;
          p.sym_rank = next_rank[c]++;
        }
      }
    }
  }
  // Dense class numbers.
  std::vector<int32_t> renumber(next_rank.size(), -1);
  int32_t classes = 0;
  for (PlanOp& p : g.ops) {
    if (p.sym_class < 0) continue;
    if (renumber[p.sym_class] < 0) renumber[p.sym_class] = classes++;
    p.sym_class = renumber[p.sym_class];
  }
  for (const Arc& a : e.arcs) g.arcs.push_back({a.from, a.to, a.delay});
  Status status = g.finalize();
  if (!status.is_ok()) return status;
  // The mirror image on the bidirectional placement: micro-batch k of one
  // copy plays the part of micro-batch k of the other, at the same stage.
  if (e.form == Form::kStages && e.placement == PlacementKind::kBidirectional && e.copies == 2 &&
      static_cast<int32_t>(e.microbatch_copy.size()) == e.microbatches) {
    std::vector<std::vector<int32_t>> of_copy(2);
    std::vector<int32_t> index(e.microbatches, 0);
    for (int32_t k = 0; k < e.microbatches; ++k) {
      auto& list = of_copy[e.microbatch_copy[k] == 0 ? 0 : 1];
      index[k] = static_cast<int32_t>(list.size());
      list.push_back(k);
    }
    if (of_copy[0].size() == of_copy[1].size()) {
      g.mirror.assign(e.num_ops(), -1);
      for (int32_t i = 0; i < e.num_ops(); ++i) {
        const Op& op = e.ops[i];
        const int32_t copy = op.unit / e.stages, stage = op.unit % e.stages;
        if (copy > 1) break;
        const int32_t k = of_copy[1 - copy][index[op.microbatch]];
        g.mirror[i] = e.op_of(k, e.unit_at(1 - copy, stage), op.kind);
      }
      if (!g.mirror_valid()) g.mirror.clear();
    }
  }
  return g;
}

Timeline timeline_of(const Expansion& e, const PlanGraph& g, const PlanSchedule& s) {
  Timeline t;
  t.unit_device.assign(e.num_units(), 0);
  for (int32_t u = 0; u < e.num_units(); ++u) t.unit_device[u] = e.units[u].devices.front();
  for (int32_t i = 0; i < e.num_ops(); ++i) t.unit_device[e.ops[i].unit] = s.device[i];
  std::vector<int32_t> ids;
  for (int32_t i = 0; i < e.num_ops(); ++i) {
    // A pair is one slot, named by its F.
    if (!s.paired(i) || e.ops[i].kind == OpKind::kF) ids.push_back(i);
  }
  std::vector<int64_t> end(e.num_ops());
  for (int32_t i : ids) end[i] = end_of(g, s, i);
  std::sort(ids.begin(), ids.end(), [&](int32_t a, int32_t b) {
    if (s.device[a] != s.device[b]) return s.device[a] < s.device[b];
    if (s.start[a] != s.start[b]) return s.start[a] < s.start[b];
    if (end[a] != end[b]) return end[a] < end[b];
    return a < b;
  });
  for (int32_t i : ids) {
    TimedSlot slot;
    slot.device = s.device[i];
    slot.slot.op = i;
    if (s.paired(i)) {
      slot.slot.partner = s.partner[i];
      slot.slot.kind = SlotKind::kPair;
    }
    slot.start = s.start[i];
    slot.end = end[i];
    t.slots.push_back(slot);
  }
  return t;
}

Result<PlanSchedule> plan_schedule_of(const Expansion& e, const PlanGraph& g, const Timeline& t,
                                      bool keep_pairs) {
  const int32_t n = e.num_ops();
  PlanSchedule s;
  s.device.assign(n, -1);
  s.start.assign(n, kUnset);
  if (static_cast<int32_t>(t.unit_device.size()) != e.num_units()) {
    return Status(StatusCode::kInvalidInput, "schedule: unit placement size differs");
  }
  bool exact = true;
  auto put = [&](int32_t op, int32_t device, int64_t start) {
    if (op < 0 || op >= n || s.start[op] != kUnset) return false;
    s.device[op] = device;
    s.start[op] = start;
    return true;
  };
  for (const TimedSlot& ts : t.slots) {
    int32_t ops[3];
    const int32_t count = slot_ops(e, ts.slot, ops);
    if (keep_pairs && ts.slot.is_pair() && g.pair_length(ts.slot.op, ts.slot.partner) >= 0 &&
        g.pair_length(ts.slot.op, ts.slot.partner) == ts.end - ts.start) {
      // A pair the planner can express stays a pair.
      if (s.partner.empty()) s.partner.assign(n, -1);
      for (int32_t k = 0; k < count; ++k) {
        if (!put(ops[k], ts.device, ts.start)) {
          return Status(StatusCode::kInvalidInput, "schedule: an op is repeated or unknown");
        }
      }
      s.partner[ops[0]] = ops[1];
      s.partner[ops[1]] = ops[0];
      s.partner[ops[2]] = ops[0];
      continue;
    }
    // Any other block (a full backward, or a pair that gains nothing) runs
    // its ops one after the other from the block's start.
    int64_t at = ts.start;
    for (int32_t k = 0; k < count; ++k) {
      if (!put(ops[k], ts.device, at)) {
        return Status(StatusCode::kInvalidInput, "schedule: an op is repeated or unknown");
      }
      at += e.ops[ops[k]].duration;
    }
    if (at > ts.end) exact = false;
  }
  for (int32_t i = 0; i < n; ++i) {
    if (s.start[i] == kUnset) {
      return Status(StatusCode::kInvalidInput, "schedule: op " + e.op_label(i) + " is missing");
    }
  }
  for (int32_t i = 0; i < n; ++i) s.makespan = std::max(s.makespan, end_of(g, s, i));
  if (exact && check_plan(g, s).empty()) return s;
  // Re-time the device orders (pairs kept) as early as they allow.
  return time_orders(g, orders_of(g, s), s.partner);
}

}  // namespace shardlab::pipeline
