// Large neighbourhood search (see plan/lns.h): Shaw's scheme (1998) with the
// planner's exact search as the repair step. Tying the kept ops by arcs in
// their device order keeps the restricted problem a PlanGraph, so the same
// search, bounds and symmetry rules apply inside; any schedule it finds is a
// schedule of the original graph, since the restriction only adds arcs and
// pins groups.
#include "core/pipeline/plan/lns.h"

#include <algorithm>

#include "core/pipeline/plan/search.h"

namespace shardlab::pipeline {

Result<PlanGraph> restrict_graph(const PlanGraph& graph, const PlanSchedule& schedule,
                                 const std::vector<char>& freed) {
  PlanGraph out;
  out.devices = graph.devices;
  out.mem_cap = graph.mem_cap;
  out.ops = graph.ops;
  out.arcs = graph.arcs;
  out.groups = graph.groups;
  const int32_t n = graph.num_ops();
  for (int32_t i = 0; i < n; ++i) {
    if (!freed[i]) out.groups[graph.ops[i].group].devices = {schedule.device[i]};
  }
  // A kept pair becomes its F running for the pair's length with the pair's
  // memory, then its B and W at no length (see plan/lns.h); the F waits for
  // the B's inputs too.
  for (int32_t f = 0; f < n; ++f) {
    if (freed[f] || !schedule.paired(f) || graph.ops[f].kind != PlanKind::kForward) continue;
    const int32_t b = schedule.partner[f];
    const int32_t w = graph.ops[b].weight;
    PlanOp& of = out.ops[f];
    PlanOp& ob = out.ops[b];
    PlanOp& ow = out.ops[w];
    of.duration = graph.pair_length(f, b);
    of.mem_peak += ob.mem_peak + ow.mem_peak;
    of.mem_net += ob.mem_net + ow.mem_net;
    ob.duration = ow.duration = 0;
    ob.mem_peak = ob.mem_net = ow.mem_peak = ow.mem_net = 0;
    of.kind = ob.kind = ow.kind = PlanKind::kOther;
    ob.weight = -1;
    for (int32_t k = graph.pred_begin[b]; k < graph.pred_begin[b + 1]; ++k) {
      const PlanArc& a = graph.arcs[graph.pred_arc[k]];
      out.arcs.push_back({a.from, f, a.delay});
    }
  }
  const auto orders = orders_of(graph, schedule);
  for (const auto& order : orders) {
    int32_t last = -1;
    for (int32_t i : order) {
      if (freed[i]) continue;
      if (last >= 0) out.arcs.push_back({last, i, 0});
      last = i;
    }
  }
  // A class keeps its rank rule only if the schedule already follows it.
  std::vector<int64_t> last_start(graph.classes, -1);
  std::vector<int32_t> last_rank(graph.classes, -1);
  std::vector<char> broken(graph.classes, 0);
  std::vector<int32_t> by_start(n);
  for (int32_t i = 0; i < n; ++i) by_start[i] = i;
  std::sort(by_start.begin(), by_start.end(), [&](int32_t a, int32_t b) {
    if (schedule.start[a] != schedule.start[b]) return schedule.start[a] < schedule.start[b];
    return graph.ops[a].sym_rank < graph.ops[b].sym_rank;
  });
  for (int32_t i : by_start) {
    const int32_t c = graph.ops[i].sym_class;
    if (c < 0) continue;
    if (graph.ops[i].sym_rank != last_rank[c] + 1) broken[c] = 1;
    last_rank[c] = graph.ops[i].sym_rank;
    last_start[c] = schedule.start[i];
  }
  for (PlanOp& op : out.ops) {
    if (op.sym_class >= 0 && broken[op.sym_class]) {
      op.sym_class = -1;
      op.sym_rank = 0;
    }
  }
  // Renumber the surviving classes densely.
  std::vector<int32_t> renumber(graph.classes, -1);
  int32_t classes = 0;
  for (PlanOp& op : out.ops) {
    if (op.sym_class < 0) continue;
    if (renumber[op.sym_class] < 0) renumber[op.sym_class] = classes++;
    op.sym_class = renumber[op.sym_class];
  }
  Status status = out.finalize();
  if (!status.is_ok()) return status;
  return out;
}

namespace {

// A critical chain of the schedule, from its first op to the one that ends
// last: each op starts when a predecessor's result arrives or when the op
// before it on its device ends (a random one of these where several are
// tight), so no op of the chain can start earlier while the others stay.
std::vector<int32_t> critical_chain(const PlanGraph& graph, const PlanSchedule& schedule,
                                    Rng* rng) {
  const int32_t n = graph.num_ops();
  std::vector<int64_t> end(n);
  int32_t last = 0;
  for (int32_t i = 0; i < n; ++i) {
    end[i] = end_of(graph, schedule, i);
    if (end[i] > end[last]) last = i;
  }
  std::vector<int32_t> before(n, -1);
  for (const auto& order : orders_of(graph, schedule)) {
    for (size_t k = 1; k < order.size(); ++k) before[order[k]] = order[k - 1];
  }
  std::vector<int32_t> chain{last}, tight;
  for (int32_t i = last; static_cast<int32_t>(chain.size()) <= n;) {
    tight.clear();
    const int32_t p = before[i];
    if (p >= 0 && end[p] == schedule.start[i]) tight.push_back(p);
    for (int32_t k = graph.pred_begin[i]; k < graph.pred_begin[i + 1]; ++k) {
      const PlanArc& a = graph.arcs[graph.pred_arc[k]];
      const int64_t delay = schedule.device[a.from] == schedule.device[i] ? 0 : a.delay;
      if (end[a.from] + delay == schedule.start[i]) tight.push_back(a.from);
    }
    if (tight.empty()) break;
    i = tight[tight.size() == 1 ? 0 : rng->below(static_cast<uint32_t>(tight.size()))];
    chain.push_back(i);
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

}  // namespace

std::vector<char> pick_neighbourhood(const PlanGraph& graph, const PlanSchedule& schedule,
                                     int32_t size, Rng* rng, int32_t* kind) {
  const int32_t n = graph.num_ops();
  std::vector<char> freed(n, 0);
  if (n == 0) return freed;
  size = std::max<int32_t>(2, std::min(size, n));
  *kind = static_cast<int32_t>(rng->below(graph.large_dag ? 5 : graph.any_free ? 4 : 3));
  const int64_t span = std::max<int64_t>(1, schedule.makespan);
  if (*kind == 0 || *kind == 1) {
    // A time window over all devices, or over a few neighbouring devices
    // (then wider, to hold about as many ops).
    int32_t lo = 0, hi = graph.devices - 1;
    int64_t width = std::max<int64_t>(1, span * size / n);
    if (*kind == 1 && graph.devices > 2) {
      const int32_t k = std::min<int32_t>(graph.devices, 2 + static_cast<int32_t>(rng->below(2)));
      lo = static_cast<int32_t>(rng->below(graph.devices - k + 1));
      hi = lo + k - 1;
      width = std::min<int64_t>(span, width * graph.devices / k);
    }
    const int64_t t0 = static_cast<int64_t>(
                           rng->below(static_cast<uint32_t>(std::min<int64_t>(span, 0x7fffffff)))) -
                       width / 2;
    for (int32_t i = 0; i < n; ++i) {
      const int32_t d = schedule.device[i];
      if (d >= lo && d <= hi && schedule.start[i] >= t0 && schedule.start[i] < t0 + width) {
        freed[i] = 1;
      }
    }
  } else if (*kind == 2) {
    // Whole micro-batches (ops of one rank in every class), two at a time.
    int32_t max_rank = 0;
    for (const PlanOp& op : graph.ops) max_rank = std::max(max_rank, op.sym_rank);
    const int32_t a = static_cast<int32_t>(rng->below(max_rank + 1));
    const int32_t b = std::min(max_rank, a + 1);
    int32_t count = 0;
    for (int32_t i = 0; i < n; ++i) {
      if (graph.ops[i].sym_rank == a || graph.ops[i].sym_rank == b) freed[i] = 1, ++count;
    }
    // Mostly whole micro-batches are too big: keep a random window of them.
    if (count > size) {
      const int64_t width = std::max<int64_t>(1, span * size / count);
      const int64_t t0 = static_cast<int64_t>(rng->below(
                             static_cast<uint32_t>(std::min<int64_t>(span, 0x7fffffff)))) -
                         width / 2;
      for (int32_t i = 0; i < n; ++i) {
        if (freed[i] && (schedule.start[i] < t0 || schedule.start[i] >= t0 + width)) freed[i] = 0;
      }
    }
  } else if (*kind == 4) {
    // Whole groups along a stretch of a critical chain (see critical_chain):
    // only those ops decide the makespan, and a freed group may move to the
    // device of its critical predecessor (no delay) or to an idle one.
    const std::vector<int32_t> chain = critical_chain(graph, schedule, rng);
    int32_t count = 0;
    const auto first = static_cast<int32_t>(rng->below(static_cast<uint32_t>(chain.size())));
    for (size_t k = first; k < chain.size() && count < size; ++k) {
      const int32_t g = graph.ops[chain[k]].group;
      for (int32_t j = graph.group_ops_begin[g]; j < graph.group_ops_begin[g + 1]; ++j) {
        if (!freed[graph.group_ops[j]]) freed[graph.group_ops[j]] = 1, ++count;
      }
    }
  } else {
    // Whole flexible groups, which may move to another device.
    int32_t count = 0;
    for (int32_t tries = 0; tries < 4 * graph.num_groups() && count < size; ++tries) {
      const int32_t g = static_cast<int32_t>(rng->below(graph.num_groups()));
      if (graph.fixed(g)) continue;
      for (int32_t k = graph.group_ops_begin[g]; k < graph.group_ops_begin[g + 1]; ++k) {
        if (!freed[graph.group_ops[k]]) freed[graph.group_ops[k]] = 1, ++count;
      }
    }
  }
  return freed;
}

bool lns_move(const PlanGraph& graph, const PlanSchedule& schedule,
              const std::vector<char>& freed_in, int64_t nodes, PlanSchedule* better,
              int64_t* nodes_used, int64_t upper) {
  *nodes_used = 1 + graph.num_ops() / 8;
  if (upper < 0) upper = schedule.makespan;
  // A pair is freed or kept whole.
  std::vector<char> freed = freed_in;
  if (!schedule.partner.empty()) {
    for (int32_t i = 0; i < graph.num_ops(); ++i) {
      if (!freed_in[i] || !schedule.paired(i)) continue;
      int32_t f = -1, b = -1;
      pair_members(graph, schedule, i, &f, &b);
      freed[f] = freed[b] = freed[graph.ops[b].weight] = 1;
    }
  }
  Result<PlanGraph> made = restrict_graph(graph, schedule, freed);
  if (!made.is_ok()) return false;
  const PlanGraph& restricted = made.value();
  SearchConfig config;
  config.table_entries = 1 << 16;
  config.cheap_bound = true;
  config.one_device_root = graph.large_dag;
  ScheduleSearch search(restricted, config);
  search.set_upper(upper);
  bool improved = false;
  while (!search.exhausted() && search.nodes() < nodes) {
    PlanSchedule found;
    if (!search.run(nodes - search.nodes(), &found)) continue;
    // Back to the full graph: kept pairs run whole again.
    PlanSchedule full = std::move(found);
    for (int32_t f = 0; f < graph.num_ops(); ++f) {
      if (freed[f] || !schedule.paired(f) || graph.ops[f].kind != PlanKind::kForward) continue;
      if (full.partner.empty()) full.partner.assign(graph.num_ops(), -1);
      const int32_t b = schedule.partner[f];
      const int32_t w = graph.ops[b].weight;
      full.start[b] = full.start[w] = full.start[f];
      full.partner[f] = b;
      full.partner[b] = f;
      full.partner[w] = f;
    }
    full.makespan = 0;
    for (int32_t i = 0; i < graph.num_ops(); ++i) {
      full.makespan = std::max(full.makespan, end_of(graph, full, i));
    }
    if (full.makespan < upper) {
      if (check_plan(graph, full).empty()) {
        *better = std::move(full);
        improved = true;
      }
    }
  }
  *nodes_used += search.nodes();
  return improved;
}

}  // namespace shardlab::pipeline
