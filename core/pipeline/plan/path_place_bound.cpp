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
// The branching is the placement bound's (plan/place_bound_branch.h).
#include "core/pipeline/plan/path_place_bound.h"

#include <algorithm>

namespace shardlab::pipeline {
namespace {

bool usable(const PlanGraph& g) { return g.regular && !g.any_pairs && g.num_ops() > 0; }

// The free groups on the path, by first appearance.
std::vector<int32_t> free_groups_on(const PlanGraph& g, const std::vector<int32_t>& path) {
  std::vector<int32_t> order;
  std::vector<char> seen(g.num_groups(), 0);
  for (int32_t i : path) {
    const int32_t grp = g.ops[i].group;
    if (g.fixed(grp) || seen[grp]) continue;
    seen[grp] = 1;
    order.push_back(grp);
  }
  return order;
}

}  // namespace

// The path is a longest one through the delays that no placement avoids
// (the path bound's first variant; its second, through every delay, gave
// the same or less on the benchmark's DAGs).
PathPlacementBound::PathPlacementBound(const PlanGraph& graph, int64_t max_open)
    : graph_(graph),
      path_(usable(graph) ? longest_path(graph, false) : std::vector<int32_t>()),
      branching_(graph, free_groups_on(graph, path_), max_open) {
  const PlanGraph& g = graph_;
  const std::vector<int32_t>& order = branching_.order();
  useful_ = !order.empty();
  if (!useful_) {
    branching_.stop();
    return;
  }
  copies_by_op_ = work_with_copies(g);
  std::vector<int32_t> group_slot(g.num_groups(), -1);
  for (size_t s = 0; s < order.size(); ++s) group_slot[order[s]] = static_cast<int32_t>(s);
  for (int32_t i : path_) {
    const int32_t grp = g.ops[i].group;
    copies_work_.push_back(copies_by_op_[i]);
    slot_.push_back(group_slot[grp]);
    fixed_device_.push_back(g.fixed(grp) ? g.groups[grp].devices[0] : -1);
  }
  // The groups' other ops (kinds that are not on the path in that group).
  other_jobs_.assign(order.size() + g.devices, {});
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
                                                  : order.size() + g.groups[grp].devices[0]];
    for (int32_t k = g.group_ops_begin[grp]; k < g.group_ops_begin[grp + 1]; ++k) {
      const int32_t o = g.group_ops[k];
      if (g.ops[o].duration == 0 || on_path(g.ops[o].kind)) continue;
      jobs.push_back({g.head[o], g.ops[o].duration, g.tail[o]});
    }
  }
  branching_.start(evaluate(std::vector<int32_t>(order.size(), -1)));
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
    for (size_t s = 0; s < branching_.order().size(); ++s) {
      if (devices[s] != d) continue;
      jobs_.insert(jobs_.end(), other_jobs_[s].begin(), other_jobs_[s].end());
    }
    const auto& fixed = other_jobs_[branching_.order().size() + d];
    jobs_.insert(jobs_.end(), fixed.begin(), fixed.end());
    bound = std::max(bound, preemptive_bound(&jobs_, 0, &heap_));
  }
  return g.on_grid(bound);
}

void PathPlacementBound::step(int64_t work, int64_t upper) {
  // What an evaluation costs in search nodes, about: natively 7 to 30
  // microseconds on the benchmark's DAGs (path of 60 to 150 ops, 4 to 8
  // devices), where a search node takes about 10.
  branching_.step(work, upper, 1 + static_cast<int64_t>(path_.size()) / 64,
                  [this](const std::vector<int32_t>& devices) { return evaluate(devices); });
}

}  // namespace shardlab::pipeline
