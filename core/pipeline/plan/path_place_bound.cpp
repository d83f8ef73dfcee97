// The path placement bound (see plan/path_place_bound.h). The path bound of
// plan/bound.cpp cuts a longest path into segments freely; a placement
// ties them: two ops of one group (an operator's forward and backward) sit
// on one device wherever they are on the path, so a cut in the forward half
// is paid again in the backward half, and a device that hosts several
// segments runs all of them. For a placement of the path's groups, let h_j
// and t_j be the path before and after its j-th op with the delays of the
// cut arcs. In a regular graph every micro-batch's copy of that op has the
// same path before and after it, so it starts no earlier than h_j and is
// followed by at least t_j; the copies run on one device. (Arcs stay within
// a micro-batch, so the path holds one copy of each operation at most, as
// the path bound assumes too.) A device's jobs
// (h_j, work of all copies, t_j), with its groups' other ops at the graph's
// own heads and tails, form a one-machine relaxation that Jackson's
// preemptive rule solves (Carlier 1982); the path with its cut delays is a
// bound too. A node with some groups placed counts a delay only where the
// placed devices force it, so its bound holds for every completion, and the
// least bound over the open nodes holds for every placement, as in the
// placement bound (best-first branch and bound used for its lower bound).
// Devices with the same cap, allowed by the same groups, are interchangeable
// when empty (the rule of plan/place_bound.cpp).
#include "core/pipeline/plan/path_place_bound.h"

#include <algorithm>
#include <map>

namespace shardlab::pipeline {
namespace {

constexpr auto kAfter = [](const auto& a, const auto& b) {
  return a.bound != b.bound ? a.bound > b.bound : a.id > b.id;
};

}  // namespace

PathPlacementBound::PathPlacementBound(const PlanGraph& graph, int64_t max_open)
    : graph_(graph), closed_min_(kNoCap), max_open_(std::max<int64_t>(1, max_open)) {
  const PlanGraph& g = graph_;
  const int32_t n = g.num_ops();
  if (!g.regular || g.any_pairs || n == 0) {
    done_ = true;
    return;
  }
  // A longest path through the delays that no placement avoids (the path
  // bound's first variant; its second, through every delay, gave the same
  // or less on the benchmark's DAGs).
  std::vector<int64_t> longest(n, 0);
  std::vector<int32_t> from(n, -1);
  for (int32_t i : g.topo) {
    longest[i] += g.ops[i].duration;
    for (int32_t e = g.succ_begin[i]; e < g.succ_begin[i + 1]; ++e) {
      const PlanArc& a = g.arcs[g.succ_arc[e]];
      const int64_t via = longest[i] + g.min_delay(a);
      if (via > longest[a.to]) longest[a.to] = via, from[a.to] = i;
    }
  }
  int32_t last = 0;
  for (int32_t i = 0; i < n; ++i) {
    if (longest[i] > longest[last]) last = i;
  }
  for (int32_t i = last; i >= 0; i = from[i]) path_.push_back(i);
  std::reverse(path_.begin(), path_.end());
  std::map<std::pair<int32_t, int32_t>, int64_t> by_role;
  for (const PlanOp& op : g.ops) by_role[{op.group, static_cast<int32_t>(op.kind)}] += op.duration;
  copies_by_op_.resize(n);
  for (int32_t i = 0; i < n; ++i) {
    copies_by_op_[i] = by_role[{g.ops[i].group, static_cast<int32_t>(g.ops[i].kind)}];
  }
  std::vector<int32_t> group_slot(g.num_groups(), -1);
  for (int32_t i : path_) {
    const int32_t grp = g.ops[i].group;
    copies_work_.push_back(by_role[{grp, static_cast<int32_t>(g.ops[i].kind)}]);
    if (g.fixed(grp)) {
      slot_.push_back(-1);
      fixed_device_.push_back(g.groups[grp].devices[0]);
      continue;
    }
    if (group_slot[grp] < 0) {
      group_slot[grp] = static_cast<int32_t>(order_.size());
      order_.push_back(grp);
    }
    slot_.push_back(group_slot[grp]);
    fixed_device_.push_back(-1);
  }
  // The groups' other ops (kinds that are not on the path in that group).
  other_jobs_.assign(order_.size() + g.devices, {});
  std::vector<char> seen(g.num_groups(), 0);
  for (int32_t i : path_) {
    const int32_t grp = g.ops[i].group;
    if (seen[grp]) continue;
    seen[grp] = 1;
    auto on_path = [&](PlanKind kind) {
      for (int32_t p : path_) {
        if (g.ops[p].group == grp && g.ops[p].kind == kind) return true;
      }
      return false;
    };
    auto& jobs = other_jobs_[group_slot[grp] >= 0 ? group_slot[grp]
                                                  : order_.size() + g.groups[grp].devices[0]];
    for (int32_t k = g.group_ops_begin[grp]; k < g.group_ops_begin[grp + 1]; ++k) {
      const int32_t o = g.group_ops[k];
      if (g.ops[o].duration == 0 || on_path(g.ops[o].kind)) continue;
      jobs.push_back({g.head[o], g.ops[o].duration, g.tail[o]});
    }
  }
  fixed_used_.assign(g.devices, 0);
  for (int32_t grp = 0; grp < g.num_groups(); ++grp) {
    if (g.fixed(grp)) fixed_used_[g.groups[grp].devices[0]] = 1;
  }
  twin_class_.assign(g.devices, 0);
  for (int32_t d = 0; d < g.devices; ++d) {
    twin_class_[d] = d;
    for (int32_t e = 0; e < d; ++e) {
      bool same = g.mem_cap[d] == g.mem_cap[e];
      for (int32_t grp = 0; same && grp < g.num_groups(); ++grp) {
        const auto& allowed = g.groups[grp].devices;
        same = std::binary_search(allowed.begin(), allowed.end(), d) ==
               std::binary_search(allowed.begin(), allowed.end(), e);
      }
      if (same) {
        twin_class_[d] = twin_class_[e];
        break;
      }
    }
  }
  useful_ = !order_.empty();
  if (!useful_) {
    done_ = true;
    return;
  }
  std::vector<int32_t> none(order_.size(), -1);
  const int64_t root = evaluate(none);
  open_.push_back({root, next_id_++, std::move(none)});
}

int64_t PathPlacementBound::evaluate(const std::vector<int32_t>& devices) {
  ++evaluations_;
  const PlanGraph& g = graph_;
  const auto k = static_cast<int32_t>(path_.size());
  auto device_of = [&](int32_t j) { return slot_[j] < 0 ? fixed_device_[j] : devices[slot_[j]]; };
  // The delay paid between path ops j and j + 1 under this partial placement.
  auto cut = [&](int32_t j) -> int64_t {
    const int32_t a = path_[j], b = path_[j + 1];
    if (g.ops[a].group == g.ops[b].group) return 0;
    int64_t delay = 0, least = 0;
    for (int32_t e = g.succ_begin[a]; e < g.succ_begin[a + 1]; ++e) {
      const PlanArc& arc = g.arcs[g.succ_arc[e]];
      if (arc.to != b) continue;
      delay = std::max(delay, arc.delay);
      least = std::max(least, g.min_delay(arc));
    }
    const int32_t da = device_of(j), db = device_of(j + 1);
    if (da >= 0 && db >= 0) return da == db ? 0 : delay;
    if (da >= 0 || db >= 0) {
      const int32_t placed = da >= 0 ? da : db;
      const auto& other = g.groups[g.ops[da >= 0 ? b : a].group].devices;
      return std::binary_search(other.begin(), other.end(), placed) ? 0 : delay;
    }
    return least;
  };
  head_.assign(k, 0);
  tail_.assign(k, 0);
  head_[0] = g.head[path_[0]];
  for (int32_t j = 0; j + 1 < k; ++j) {
    head_[j + 1] = std::max(g.head[path_[j + 1]], head_[j] + g.ops[path_[j]].duration + cut(j));
  }
  tail_[k - 1] = g.tail[path_[k - 1]];
  for (int32_t j = k - 2; j >= 0; --j) {
    tail_[j] = std::max(g.tail[path_[j]], tail_[j + 1] + g.ops[path_[j + 1]].duration + cut(j));
  }
  int64_t bound = head_[k - 1] + g.ops[path_[k - 1]].duration + tail_[k - 1];
  // The path bound's segments, within this placement.
  placed_.resize(k);
  for (int32_t j = 0; j < k; ++j) placed_[j] = device_of(j);
  bound = std::max(bound, path_segment_bound(g, path_, copies_by_op_, placed_));
  for (int32_t d = 0; d < g.devices; ++d) {
    jobs_.clear();
    for (int32_t j = 0; j < k; ++j) {
      if (device_of(j) == d) jobs_.push_back({head_[j], copies_work_[j], tail_[j]});
    }
    if (jobs_.empty()) continue;
    for (size_t s = 0; s < order_.size(); ++s) {
      if (devices[s] != d) continue;
      jobs_.insert(jobs_.end(), other_jobs_[s].begin(), other_jobs_[s].end());
    }
    const auto& fixed = other_jobs_[order_.size() + d];
    jobs_.insert(jobs_.end(), fixed.begin(), fixed.end());
    bound = std::max(bound, preemptive_bound(&jobs_, 0, &heap_));
  }
  return g.on_grid(bound);
}

void PathPlacementBound::step(int64_t work, int64_t upper) {
  // What an evaluation costs in search nodes, about: natively 7 to 30
  // microseconds on the benchmark's DAGs (path of 60 to 150 ops, 4 to 8
  // devices), where a search node takes about 10.
  const int64_t cost = 1 + static_cast<int64_t>(path_.size()) / 64;
  while (work > 0 && !done_) {
    if (open_.empty() || open_.front().bound >= upper ||
        static_cast<int64_t>(open_.size()) + graph_.devices > max_open_) {
      done_ = true;
      break;
    }
    std::pop_heap(open_.begin(), open_.end(), kAfter);
    Node node = std::move(open_.back());
    open_.pop_back();
    const auto depth = static_cast<size_t>(std::find(node.devices.begin(), node.devices.end(), -1) -
                                           node.devices.begin());
    if (depth == order_.size()) {
      // Every path group placed at the least bound: the bound is final.
      open_.push_back(std::move(node));
      std::push_heap(open_.begin(), open_.end(), kAfter);
      done_ = true;
      break;
    }
    std::vector<char> used = fixed_used_;
    for (size_t s = 0; s < depth; ++s) used[node.devices[s]] = 1;
    std::vector<char> class_tried(graph_.devices, 0);
    for (int32_t d : graph_.groups[order_[depth]].devices) {
      if (!used[d]) {
        if (class_tried[twin_class_[d]]) continue;
        class_tried[twin_class_[d]] = 1;
      }
      Node child{0, next_id_++, node.devices};
      child.devices[depth] = d;
      child.bound = std::max(node.bound, evaluate(child.devices));
      work -= cost;
      if (child.bound >= upper) {
        closed_min_ = std::min(closed_min_, child.bound);
      } else {
        open_.push_back(std::move(child));
        std::push_heap(open_.begin(), open_.end(), kAfter);
      }
    }
  }
}

int64_t PathPlacementBound::bound() const {
  const int64_t open = open_.empty() ? kNoCap : open_.front().bound;
  return std::min(open, closed_min_);
}

}  // namespace shardlab::pipeline
