// Lower bounds for the planner (see plan/bound.h). The job-shop bound of
// Carlier and Pinson: relax every device to a one-machine problem with
// heads and tails and solve it preemptively (Jackson's rule), which is exact
// for the relaxation and takes O(n log n). Heads are recomputed at every
// node from what has started, through the arcs and their communication
// delays, so a device that waits on a long chain sees that chain.
//
// Overlapped pairs. A pair runs an F, a B and the B's W in less than their
// sum. The relaxation shares each pair's length out among its members as
// pieces run back to back inside it (PlanGraph::load: the F is charged what
// its best pair saves less), so every piece starts no earlier than its op
// could and ends no later than its op does; heads and tails use the least
// real lengths (PlanGraph::min_len). A device's pairs cannot start before
// both a pairable F and a pairable B can (time H): before H every op runs
// alone at full length. With T0 the time up to H, any schedule ends no
// earlier than H + (the device's remaining loads) - K, where K is the most
// load that full-length work of at most T0 can clear, a fractional knapsack
// (ops that gain nothing from pairs first). When no pair can form on a
// device any more, its ops are charged in full.
//
// The path bound (root only, operator graphs and other regular graphs
// without pairs). Whether two consecutive ops of a path share a device is
// the choice that trades delays against load: a run of ops on one device
// (a segment) pays no delays inside, but that device runs the segment for
// every micro-batch. Along a path of one micro-batch, the first op of a
// segment starts no earlier than the path before it (with the delays of
// its cuts), the device then runs the segment's ops of all micro-batches,
// and the micro-batch that ends the segment last still has the rest of the
// path to go. Minimising over segmentations (segments within one allowed
// device, no cut inside a group) gives a bound the one-machine relaxations
// miss when free operators can share a device only at the price of load.
//
// The window bound (root only; energetic reasoning on parallel machines,
// Baptiste, Le Pape and Nuijten 2001, in its simplest form). Take the ops
// whose allowed devices lie in a set D, whose heads are at least a and
// whose tails at least b. Each device of D runs its share of them inside
// [a, C - b], and a device of D that runs none still has C >= a + b (any of
// the ops needs that much). So |D| (C - a - b) is at least their load, for
// every a and b among the heads and tails, and for D the whole cluster or
// the allowed set of a group. It sees what the per-device relaxations miss
// when free operators spread: late work that only a few devices may take,
// or work that cannot start before a long head on any device. An operator's
// ops (its group) share one device, so with b the least tail of the set,
// C - a - b is also at least the largest group's load there and, as
// width + 1 groups fill width devices, the sum of the width-th and
// (width + 1)-th largest (a bin-packing bound, Martello and Toth 1990).
//
// Every bound is rounded up to the graph's time grid (PlanGraph::grid): the
// optimum is a multiple of it.
//
// Memory look-ahead: on a capped device the k-th of the remaining ops that
// raise memory cannot start before enough of the device's freeing ops have
// ended; with the frees' earliest ends sorted, that gives each of them a
// later head. The k-th earliest start among the raising ops is at least the
// k-th smallest head and at least the memory release, so the bumped heads
// are assigned in head order (the order statistics argument). Which op ends
// up k-th is not known, so the bumped jobs get the raising ops' durations
// longest first (the matching that least delays the later heads) and all
// the least tail of the raising ops. Only devices whose groups are all
// placed get the look-ahead and the pair ramp: a group placed later could
// bring frees, or earlier pairs.
#include "core/pipeline/plan/bound.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>

namespace shardlab::pipeline {

int64_t preemptive_bound(std::vector<MachineJob>* jobs, int64_t available) {
  std::vector<std::pair<int64_t, int64_t>> heap;
  return preemptive_bound(jobs, available, &heap);
}

int64_t preemptive_bound(std::vector<MachineJob>* jobs, int64_t available,
                         std::vector<std::pair<int64_t, int64_t>>* heap) {
  if (jobs->empty()) return available;
  std::sort(jobs->begin(), jobs->end(),
            [](const MachineJob& a, const MachineJob& b) { return a.head < b.head; });
  // Released work pooled by tail, largest tail last: (tail, work left).
  // Jobs with equal tails are interchangeable for max(end + tail), which
  // only sees the moment their pool runs dry, and pipelines have few
  // distinct tails per device, so the pools stay short.
  auto& pools = *heap;
  pools.clear();
  int64_t t = available;
  int64_t best = 0;
  size_t next = 0;
  const size_t n = jobs->size();
  while (next < n || !pools.empty()) {
    if (pools.empty()) t = std::max(t, (*jobs)[next].head);
    while (next < n && (*jobs)[next].head <= t) {
      const MachineJob& job = (*jobs)[next++];
      size_t at = pools.size();
      while (at > 0 && pools[at - 1].first > job.tail) --at;
      if (at > 0 && pools[at - 1].first == job.tail) {
        pools[at - 1].second += job.duration;
      } else {
        pools.insert(pools.begin() + at, {job.tail, job.duration});
      }
    }
    // Run the pool with the largest tail until it runs dry or the next release.
    auto& top = pools.back();
    const int64_t until = next < n ? (*jobs)[next].head : t + top.second;
    const int64_t run = std::min(top.second, std::max<int64_t>(0, until - t));
    t += run;
    top.second -= run;
    if (top.second == 0) {
      best = std::max(best, t + top.first);
      pools.pop_back();
    }
  }
  return std::max(best, t);
}

int64_t partial_bound(const PlanGraph& graph, const PartialState& state, BoundScratch* scratch) {
  const int32_t n = graph.num_ops();
  const auto& start = *state.start;
  const auto& end = *state.end;
  const auto& group_device = *state.group_device;
  std::vector<int64_t>& head = scratch->head;
  head.assign(n, 0);
  int64_t bound = state.now;
  // Heads through the arcs in topological order. The delay of an arc counts
  // when both ends are placed apart, or when their groups cannot meet. A W
  // that may still pair with its B gets its piece's head (see above).
  for (int32_t i : graph.topo) {
    const PlanOp& op = graph.ops[i];
    const int32_t di = group_device[op.group];
    if (start[i] != kUnset) {
      head[i] = start[i];
      bound = std::max(bound, end[i] + graph.tail[i]);
      continue;
    }
    int64_t h = state.now;
    if (di >= 0) h = std::max(h, (*state.free_at)[di]);
    for (int32_t k = graph.pred_begin[i]; k < graph.pred_begin[i + 1]; ++k) {
      const PlanArc& a = graph.arcs[graph.pred_arc[k]];
      const bool started = start[a.from] != kUnset;
      if (graph.inner(a)) {
        h = std::max(h, started ? end[a.from] : head[a.from] + graph.load[a.from]);
        continue;
      }
      const int32_t dj = group_device[graph.ops[a.from].group];
      int64_t delay;
      if (di >= 0 && dj >= 0) {
        delay = di == dj ? 0 : a.delay;
      } else if (di >= 0 || dj >= 0) {
        // One end placed: the other may join it only if its group allows.
        const int32_t placed = di >= 0 ? di : dj;
        const auto& other = graph.groups[di >= 0 ? graph.ops[a.from].group : op.group].devices;
        delay = std::binary_search(other.begin(), other.end(), placed) ? 0 : a.delay;
      } else {
        delay = graph.min_delay(a);
      }
      h = std::max(h, (started ? end[a.from] : head[a.from] + graph.min_len[a.from]) + delay);
    }
    head[i] = h;
    bound = std::max(bound, h + graph.min_len[i] + graph.tail[i]);
  }

  // One-machine relaxation per device over the placed ops not yet started.
  int64_t unplaced_work = 0;
  int64_t avail_sum = 0;
  std::vector<MachineJob>& jobs = scratch->jobs;
  for (int32_t d = 0; d < graph.devices; ++d) {
    jobs.clear();
    const int64_t avail = std::max(state.now, (*state.free_at)[d]);
    avail_sum += avail;
    int64_t raise_count = 0;
    int64_t raise_tail = 0;
    // Closed: no group still to place may come here.
    bool closed = true;
    for (int32_t g = 0; closed && g < graph.num_groups(); ++g) {
      if (group_device[g] >= 0) continue;
      const auto& allowed = graph.groups[g].devices;
      if (std::binary_search(allowed.begin(), allowed.end(), d)) closed = false;
    }
    const bool capped = closed && graph.mem_cap[d] < kNoCap;
    // Pairs still possible here: the earliest heads of a pairable F and B.
    int64_t first_f = kNoCap, first_b = kNoCap;
    if (graph.any_pairs) {
      for (int32_t g = 0; g < graph.num_groups(); ++g) {
        if (group_device[g] != d) continue;
        for (int32_t k = graph.group_ops_begin[g]; k < graph.group_ops_begin[g + 1]; ++k) {
          const int32_t i = graph.group_ops[k];
          if (start[i] != kUnset || !graph.pairable[i]) continue;
          if (graph.ops[i].kind == PlanKind::kForward) first_f = std::min(first_f, head[i]);
          if (graph.ops[i].kind == PlanKind::kBackward) first_b = std::min(first_b, head[i]);
        }
      }
    }
    const bool no_pairs = !graph.any_pairs || (closed && (first_f == kNoCap || first_b == kNoCap));
    auto load = [&](int32_t i) { return no_pairs ? graph.ops[i].duration : graph.load[i]; };
    int64_t remaining_load = 0;
    for (int32_t g = 0; g < graph.num_groups(); ++g) {
      if (group_device[g] != d) continue;
      for (int32_t k = graph.group_ops_begin[g]; k < graph.group_ops_begin[g + 1]; ++k) {
        const int32_t i = graph.group_ops[k];
        if (start[i] != kUnset) continue;
        jobs.push_back({head[i], load(i), graph.tail[i]});
        remaining_load += load(i);
        if (graph.ops[i].mem_net > 0) ++raise_count;
      }
    }
    if (jobs.empty()) continue;
    bound = std::max(bound, preemptive_bound(&jobs, avail, &scratch->heap));

    if (closed && !no_pairs) {
      // The pair ramp (see the top of this file).
      const int64_t ramp = std::max(first_f, first_b);
      const int64_t room = std::max<int64_t>(0, ramp - avail);
      auto& items = scratch->items;
      items.clear();
      for (int32_t g = 0; g < graph.num_groups(); ++g) {
        if (group_device[g] != d) continue;
        for (int32_t k = graph.group_ops_begin[g]; k < graph.group_ops_begin[g + 1]; ++k) {
          const int32_t i = graph.group_ops[k];
          if (start[i] != kUnset || head[i] >= ramp || graph.ops[i].duration == 0) continue;
          items.push_back({graph.ops[i].duration, graph.load[i]});
        }
      }
      // Best ratio load / length first (exact rational comparison).
      std::sort(items.begin(), items.end(), [](const auto& x, const auto& y) {
        return static_cast<__int128>(x.second) * y.first >
               static_cast<__int128>(y.second) * x.first;
      });
      int64_t left = room, cleared = 0;
      for (const auto& [length, value] : items) {
        if (left <= 0) break;
        if (length <= left) {
          cleared += value;
          left -= length;
        } else {
          cleared += static_cast<int64_t>(static_cast<__int128>(value) * left / length);
          if (static_cast<__int128>(value) * left % length != 0) ++cleared;  // round K up
          left = 0;
        }
      }
      bound = std::max(bound, std::max(ramp, avail) + remaining_load - cleared);
    }
    if (!capped || raise_count == 0) continue;

    // Memory look-ahead (see the top of this file). A raise is kept as
    // (head, duration, peak above its net in `tail`), its net in nets.
    auto& raises = scratch->raises;
    auto& frees = scratch->frees;  // (earliest end, amount freed)
    auto& nets = scratch->nets;
    auto& durations = scratch->durations;
    raises.clear();
    frees.clear();
    nets.clear();
    durations.clear();
    int64_t min_peak = kNoCap;
    raise_tail = kNoCap;
    for (int32_t g = 0; g < graph.num_groups(); ++g) {
      if (group_device[g] != d) continue;
      for (int32_t k = graph.group_ops_begin[g]; k < graph.group_ops_begin[g + 1]; ++k) {
        const int32_t i = graph.group_ops[k];
        if (start[i] != kUnset) continue;
        const PlanOp& op = graph.ops[i];
        if (op.mem_net > 0) {
          raises.push_back({head[i], load(i), 0});
          nets.push_back(op.mem_net);
          durations.push_back(load(i));
          min_peak = std::min(min_peak, op.mem_peak - op.mem_net);
          raise_tail = std::min(raise_tail, graph.tail[i]);
        } else if (op.mem_net < 0) {
          frees.push_back({head[i] + graph.min_len[i], -op.mem_net});
        }
      }
    }
    std::sort(frees.begin(), frees.end());
    std::sort(raises.begin(), raises.end(),
              [](const MachineJob& a, const MachineJob& b) { return a.head < b.head; });
    // Least memory the k-th raise needs: raises are taken smallest first.
    std::sort(nets.begin(), nets.end());
    std::sort(durations.rbegin(), durations.rend());
    const int64_t cap = graph.mem_cap[d];
    int64_t level = (*state.mem_level)[d];
    int64_t before = 0;  // sum of the k-1 smallest nets
    size_t freed_count = 0;
    int64_t freed = 0;
    int64_t release = avail;
    jobs.clear();
    bool stuck = false;
    for (size_t k = 0; k < raises.size(); ++k) {
      // The k-th raise (0-based) runs at level >= level + before - freed,
      // and needs room for its own net plus the least extra peak.
      const int64_t need = level + before + nets[k] + min_peak - cap;
      while (freed < need && freed_count < frees.size()) {
        freed += frees[freed_count].second;
        release = std::max(release, frees[freed_count].first);
        ++freed_count;
      }
      if (freed < need) {
        stuck = true;  // not enough frees left: infeasible below any bound
        break;
      }
      jobs.push_back({std::max(raises[k].head, release), durations[k], raise_tail});
      before += nets[k];
    }
    if (stuck) return kNoCap;
    for (int32_t g = 0; g < graph.num_groups(); ++g) {
      if (group_device[g] != d) continue;
      for (int32_t k = graph.group_ops_begin[g]; k < graph.group_ops_begin[g + 1]; ++k) {
        const int32_t i = graph.group_ops[k];
        if (start[i] != kUnset || graph.ops[i].mem_net > 0) continue;
        jobs.push_back({head[i], load(i), graph.tail[i]});
      }
    }
    bound = std::max(bound, preemptive_bound(&jobs, avail, &scratch->heap));
  }
  // Flexible groups not yet placed: all remaining work shares the devices.
  int64_t remaining = 0;
  for (int32_t i = 0; i < n; ++i) {
    if (start[i] == kUnset) remaining += graph.load[i];
    if (start[i] == kUnset && group_device[graph.ops[i].group] < 0) {
      unplaced_work += graph.load[i];
    }
  }
  if (unplaced_work > 0) {
    bound = std::max(bound, (avail_sum + remaining + graph.devices - 1) / graph.devices);
  }
  return graph.on_grid(bound);
}

// The path bound (see the top of this file) along one path of ops. A path
// op pinned to a device (placed[j] >= 0) may share a segment only with ops
// that may go there, and shares one with its neighbour on the same device
// (a cut there would charge a delay no schedule pays).
int64_t path_segment_bound(const PlanGraph& g, const std::vector<int32_t>& path,
                           const std::vector<int64_t>& copies_work,
                           const std::vector<int32_t>& placed) {
  const int32_t k = static_cast<int32_t>(path.size());
  if (k == 0) return 0;
  int64_t length = 0;
  std::vector<int64_t> extra(k), prefix_extra(k + 1, 0);
  for (int32_t j = 0; j < k; ++j) {
    length += g.ops[path[j]].duration;
    extra[j] = copies_work[path[j]] - g.ops[path[j]].duration;
    prefix_extra[j + 1] = prefix_extra[j] + extra[j];
  }
  // Boundary j (between path[j] and path[j + 1]): cut cost, or kNoCap when
  // the two ops share a group (always together).
  std::vector<int64_t> cut(k, kNoCap);
  for (int32_t j = 0; j + 1 < k; ++j) {
    const int32_t a = path[j], b = path[j + 1];
    if (g.ops[a].group == g.ops[b].group) continue;
    if (!placed.empty() && placed[j] >= 0 && placed[j] == placed[j + 1]) continue;
    int64_t delay = 0;
    for (int32_t e = g.succ_begin[a]; e < g.succ_begin[a + 1]; ++e) {
      const PlanArc& arc = g.arcs[g.succ_arc[e]];
      if (arc.to == b) delay = std::max(delay, arc.delay);
    }
    cut[j] = delay;
  }
  // first[j]: the earliest i such that path[i..j] can share one device.
  std::vector<int32_t> first(k);
  for (int32_t j = 0; j < k; ++j) {
    auto devices_of = [&](int32_t at) {
      return !placed.empty() && placed[at] >= 0 ? std::vector<int32_t>{placed[at]}
                                                : g.groups[g.ops[path[at]].group].devices;
    };
    std::vector<int32_t> common = devices_of(j);
    int32_t i = j;
    while (i > 0) {
      std::vector<int32_t> next;
      const std::vector<int32_t> more = devices_of(i - 1);
      std::set_intersection(common.begin(), common.end(), more.begin(), more.end(),
                            std::back_inserter(next));
      if (next.empty()) break;
      common = std::move(next);
      --i;
    }
    first[j] = i;
  }
  // Candidate largest extras: every segment's.
  std::vector<int64_t> candidates;
  for (int32_t j = 0; j < k; ++j) {
    for (int32_t i = first[j]; i <= j; ++i)
      candidates.push_back(prefix_extra[j + 1] - prefix_extra[i]);
  }
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  int64_t best = kNoCap;
  std::vector<int64_t> cost(k + 1);
  for (int64_t limit : candidates) {
    if (limit >= best) break;
    // cost[j + 1]: least cut cost covering path[0..j] with segments of
    // extra <= limit, the last ending at j.
    cost[0] = 0;
    for (int32_t j = 0; j < k; ++j) {
      int64_t c = kNoCap;
      for (int32_t i = j; i >= first[j]; --i) {
        if (prefix_extra[j + 1] - prefix_extra[i] > limit) break;
        if (i > 0 && cut[i - 1] == kNoCap) continue;
        const int64_t before = i == 0 ? 0 : cost[i] + cut[i - 1];
        if (i > 0 && cost[i] >= kNoCap) continue;
        c = std::min(c, before);
      }
      cost[j + 1] = c;
    }
    if (cost[k] < kNoCap) best = std::min(best, cost[k] + limit);
  }
  return best >= kNoCap ? 0 : length + best;
}

// The window bound (see the top of this file).
int64_t window_bound(const PlanGraph& g) {
  const int32_t n = g.num_ops();
  if (n == 0) return 0;
  std::vector<int64_t> head(n, 0);
  for (int32_t i : g.topo) {
    for (int32_t k = g.pred_begin[i]; k < g.pred_begin[i + 1]; ++k) {
      const PlanArc& a = g.arcs[g.pred_arc[k]];
      const int64_t via = g.inner(a) ? head[a.from] + g.load[a.from]
                                     : head[a.from] + g.min_len[a.from] + g.min_delay(a);
      head[i] = std::max(head[i], via);
    }
  }
  // The device sets: the cluster and every distinct allowed set.
  std::vector<std::vector<int32_t>> sets;
  std::vector<int32_t> all(g.devices);
  for (int32_t d = 0; d < g.devices; ++d) all[d] = d;
  sets.push_back(all);
  for (const PlanGroup& group : g.groups) sets.push_back(group.devices);
  std::sort(sets.begin(), sets.end());
  sets.erase(std::unique(sets.begin(), sets.end()), sets.end());
  struct Item {
    int64_t tail, load;
    int32_t group;
  };
  // At most this many head values a get the group packing (each costs a
  // pass over the set): a bound needs no exhaustive sweep.
  constexpr size_t kPackingHeads = 64;
  int64_t bound = 0;
  std::vector<int32_t> members, touched;
  std::vector<Item> by_tail;  // members with head >= a, by tail from the largest
  std::vector<int64_t> group_load(g.num_groups(), 0), loads;
  for (const auto& set : sets) {
    members.clear();
    for (int32_t i = 0; i < n; ++i) {
      const auto& allowed = g.groups[g.ops[i].group].devices;
      if (g.load[i] > 0 && std::includes(set.begin(), set.end(), allowed.begin(), allowed.end())) {
        members.push_back(i);
      }
    }
    if (members.empty()) continue;
    const int64_t width = static_cast<int64_t>(set.size());
    std::sort(members.begin(), members.end(),
              [&](int32_t x, int32_t y) { return head[x] > head[y]; });
    size_t distinct = 0;
    for (size_t k = 0; k < members.size(); ++k) {
      distinct += k == 0 || head[members[k]] != head[members[k - 1]];
    }
    const size_t stride = (distinct + kPackingHeads - 1) / kPackingHeads;
    by_tail.clear();
    size_t step = 0;
    for (size_t k = 0; k < members.size();) {
      // Heads from the latest down: the members with head >= a grow one head
      // value at a time; for each, every tail threshold b over them.
      const int64_t a = head[members[k]];
      while (k < members.size() && head[members[k]] == a) {
        const int32_t i = members[k++];
        const Item item{g.tail[i], g.load[i], g.ops[i].group};
        by_tail.insert(
            std::upper_bound(by_tail.begin(), by_tail.end(), item,
                             [](const Item& x, const Item& y) { return x.tail > y.tail; }),
            item);
      }
      const bool pack = step++ % stride == 0 || k == members.size();
      int64_t sum = 0;
      touched.clear();
      for (size_t t = 0; t < by_tail.size(); ++t) {
        sum += by_tail[t].load;
        if (pack) {
          if (group_load[by_tail[t].group] == 0) touched.push_back(by_tail[t].group);
          group_load[by_tail[t].group] += by_tail[t].load;
        }
        if (t + 1 < by_tail.size() && by_tail[t + 1].tail == by_tail[t].tail) continue;
        const int64_t b = by_tail[t].tail;
        bound = std::max(bound, a + b + (sum + width - 1) / width);
        if (!pack) continue;
        // Groups (see the top of this file).
        loads.clear();
        for (int32_t grp : touched) loads.push_back(group_load[grp]);
        const size_t top = std::min<size_t>(loads.size(), width + 1);
        std::partial_sort(loads.begin(), loads.begin() + top, loads.end(), std::greater<>());
        int64_t packed = loads[0];
        if (static_cast<int64_t>(loads.size()) > width) {
          packed = std::max(packed, loads[width - 1] + loads[width]);
        }
        bound = std::max(bound, a + b + packed);
      }
      for (int32_t grp : touched) group_load[grp] = 0;
    }
  }
  return bound;
}

int64_t path_bound(const PlanGraph& g) {
  if (!g.regular || g.any_pairs || g.num_ops() == 0) return 0;
  const std::vector<int64_t> copies_work = work_with_copies(g);
  // Two longest paths: through the delays that cannot vanish, and through every delay.
  return std::max(path_segment_bound(g, longest_path(g, false), copies_work),
                  path_segment_bound(g, longest_path(g, true), copies_work));
}

std::vector<int64_t> work_with_copies(const PlanGraph& g) {
  std::map<std::pair<int32_t, int32_t>, int64_t> by_role;
  for (const PlanOp& op : g.ops) by_role[{op.group, static_cast<int32_t>(op.kind)}] += op.duration;
  std::vector<int64_t> work(g.num_ops());
  for (int32_t i = 0; i < g.num_ops(); ++i) {
    work[i] = by_role[{g.ops[i].group, static_cast<int32_t>(g.ops[i].kind)}];
  }
  return work;
}

std::vector<int32_t> longest_path(const PlanGraph& g, bool every_delay) {
  const int32_t n = g.num_ops();
  if (n == 0) return {};
  std::vector<int64_t> longest(n, 0);
  std::vector<int32_t> from(n, -1);
  for (int32_t i : g.topo) {
    longest[i] += g.ops[i].duration;
    for (int32_t e = g.succ_begin[i]; e < g.succ_begin[i + 1]; ++e) {
      const PlanArc& a = g.arcs[g.succ_arc[e]];
      const int64_t via = longest[i] + (every_delay ? a.delay : g.min_delay(a));
      if (via > longest[a.to] || from[a.to] < 0) {
        if (via >= longest[a.to]) longest[a.to] = via, from[a.to] = i;
      }
    }
  }
  int32_t last = 0;
  for (int32_t i = 0; i < n; ++i) {
    if (longest[i] > longest[last]) last = i;
  }
  std::vector<int32_t> path;
  for (int32_t i = last; i >= 0; i = from[i]) path.push_back(i);
  std::reverse(path.begin(), path.end());
  return path;
}

int64_t root_bound(const PlanGraph& graph) {
  std::vector<int64_t> start(graph.num_ops(), kUnset);
  std::vector<int32_t> group_device(graph.num_groups(), -1);
  std::vector<int64_t> level(graph.devices, 0);
  for (int32_t g = 0; g < graph.num_groups(); ++g) {
    if (graph.fixed(g)) {
      group_device[g] = graph.groups[g].devices[0];
      level[group_device[g]] += graph.groups[g].mem_static;
    }
  }
  std::vector<int64_t> free_at(graph.devices, 0);
  PartialState state{&start, &start, &group_device, &free_at, &level, 0};
  BoundScratch scratch;
  return graph.on_grid(
      std::max({partial_bound(graph, state, &scratch), path_bound(graph), window_bound(graph)}));
}

}  // namespace shardlab::pipeline
