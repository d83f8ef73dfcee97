// Placement search (see plan/place.h). In operator DAGs the makespan is
// mostly decided by where the groups go: two groups joined by an arc on
// different devices pay its delay, on one device they share its time. The
// chronological search decides a group's device when its first op starts,
// greedily; this local search revisits those choices with whole schedules
// as the judge. Moves follow the arcs (a group joins a neighbour's device),
// as in the clustering heuristics for scheduling with communication delays
// (Sarkar 1989; Yang and Gerasoulis' DSC, 1994), plus one random device.
#include "core/pipeline/plan/place.h"

#include <algorithm>

#include "core/pipeline/plan/search.h"

namespace shardlab::pipeline {

PlacementSearch::PlacementSearch(const PlanGraph& graph) : g_(graph), pinned_(graph) {
  neighbours_.assign(g_.num_groups(), {});
  for (const PlanArc& a : g_.arcs) {
    const int32_t x = g_.ops[a.from].group, y = g_.ops[a.to].group;
    if (x == y) continue;
    neighbours_[x].push_back(y);
    neighbours_[y].push_back(x);
  }
  for (int32_t gr = 0; gr < g_.num_groups(); ++gr) {
    auto& list = neighbours_[gr];
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    if (!g_.fixed(gr)) free_groups_.push_back(gr);
  }
}

PlanSchedule PlacementSearch::time_placement(const std::vector<int32_t>& placement,
                                             int64_t* nodes_used) {
  for (int32_t gr = 0; gr < g_.num_groups(); ++gr) pinned_.groups[gr].devices = {placement[gr]};
  // Pinning changes only the groups' devices, so the graph's other derived
  // data stay valid; finalize() recomputes the heads and tails the dive's
  // priorities read.
  if (!pinned_.finalize().is_ok()) return PlanSchedule();
  SearchConfig config;
  config.dominance = false;
  ScheduleSearch search(pinned_, config);
  PlanSchedule found;
  int64_t used = 0;
  const bool ok = search.dive(nullptr, 0.0, 0, &found, &used);
  *nodes_used += used;
  return ok ? found : PlanSchedule();
}

bool PlacementSearch::step(const PlanSchedule& incumbent, Rng* rng, PlanSchedule* found,
                           int64_t* nodes_used) {
  *nodes_used = 0;
  if (free_groups_.empty() || incumbent.empty()) return false;
  if (current_makespan_ < 0 || incumbent.makespan < adopted_) {
    // Start again from the incumbent's placement, judged like every move
    // by a dive (the incumbent itself may be better timed than a dive).
    current_.assign(g_.num_groups(), 0);
    for (int32_t i = 0; i < g_.num_ops(); ++i) current_[g_.ops[i].group] = incumbent.device[i];
    adopted_ = incumbent.makespan;
    const PlanSchedule s = time_placement(current_, nodes_used);
    current_makespan_ = s.empty() ? kNoCap : s.makespan;
  }
  const int32_t gr = free_groups_[rng->below(static_cast<uint32_t>(free_groups_.size()))];
  const std::vector<int32_t>& allowed = g_.groups[gr].devices;
  std::vector<int32_t> targets;
  for (int32_t other : neighbours_[gr]) {
    const int32_t d = current_[other];
    if (d != current_[gr] && std::binary_search(allowed.begin(), allowed.end(), d)) {
      targets.push_back(d);
    }
  }
  targets.push_back(allowed[rng->below(static_cast<uint32_t>(allowed.size()))]);
  std::sort(targets.begin(), targets.end());
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  const int32_t home = current_[gr];
  int32_t best_device = -1;
  PlanSchedule best;
  for (int32_t d : targets) {
    if (d == home) continue;
    current_[gr] = d;
    PlanSchedule s = time_placement(current_, nodes_used);
    if (!s.empty() && (best.empty() || s.makespan < best.makespan)) {
      best = std::move(s);
      best_device = d;
    }
  }
  current_[gr] = home;
  // Sideways moves keep the search moving on plateaus.
  if (best.empty() || best.makespan > current_makespan_) return false;
  current_[gr] = best_device;
  current_makespan_ = best.makespan;
  if (best.makespan >= incumbent.makespan || !check_plan(g_, best).empty()) return false;
  *found = std::move(best);
  return true;
}

}  // namespace shardlab::pipeline
