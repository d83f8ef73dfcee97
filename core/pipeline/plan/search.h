// The planner's exact search: depth-first branch and bound over schedules,
// built chronologically (every semi-active schedule is reachable, each
// through one path), with the bounds of plan/bound.h, symmetry breaking for
// identical micro-batches and for identical empty devices, and a table of
// dominated states. Also runs randomised dives (greedy descents with noisy
// priorities, no backtracking) that the planner uses as list scheduling.
//
// Lifecycle:
//   ScheduleSearch search(graph, config);
//   search.set_upper(incumbent_makespan);  // look only for strictly better
//   while (!search.exhausted()) search.run(nodes, &found);
//   search.dive(rng, noise, &found);        // any time: one greedy descent
//
// Contract: every schedule reported passes check_plan(); when exhausted()
// turns true, no schedule below the last upper bound exists (so the
// incumbent is optimal). Nodes are the unit of work; nothing reads a clock.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/pipeline/plan/graph.h"
#include "core/rng.h"

namespace shardlab::pipeline {

struct SearchConfig {
  bool symmetry = true;             // rank order within classes, identical empty devices
  bool dominance = true;            // prune states dominated by a state seen before
  int64_t table_entries = 1 << 20;  // most states the dominance table keeps
  // Child order of the depth-first search: a priority rule (0 critical
  // path, 1 free memory first on a half-full device, 2 oldest micro-batch
  // first) plus `noise` times a seeded uniform draw scaled by the op's tail.
  int32_t rule = 0;
  double noise = 0.0;
  uint64_t seed = 1;
  // Bounds at branching nodes: the full bounds of plan/bound.h, or (cheap)
  // only the ends and tails of started and ready ops and each device's
  // remaining load, kept up to date as ops start (neighbourhood searches,
  // where most ops are tied and nodes must be cheap).
  bool cheap_bound = false;
  // The root bound: the full one (plan/bound.h), or only the one-device
  // relaxations of the cheap bound. The window bound's sweep over every head
  // was 52% of the CPU of an LNS-heavy run on the benchmark's 258-op DAG;
  // LNS repairs on large DAGs (kLargeDagOps) set this.
  bool one_device_root = false;
};

class ScheduleSearch {
 public:
  ScheduleSearch(const PlanGraph& graph, const SearchConfig& config);
  ~ScheduleSearch();
  ScheduleSearch(const ScheduleSearch&) = delete;
  ScheduleSearch& operator=(const ScheduleSearch&) = delete;

  // Only schedules with a makespan below `upper` are reported from now on.
  void set_upper(int64_t upper);
  int64_t upper() const;

  // Expands up to `nodes` nodes of the depth-first search. When a schedule
  // below the upper bound is found it is stored in *found, the upper bound
  // drops to its makespan and run() returns true (the search continues from
  // there on the next call).
  bool run(int64_t nodes, PlanSchedule* found);
  // True when the depth-first search has visited the whole tree.
  bool exhausted() const;
  // The least bound over the open part of the tree (the root bound until
  // the root's children are expanded). Never above the optimum while the
  // upper bound is above the optimum.
  int64_t open_bound() const;
  int64_t root_bound() const;
  int64_t nodes() const;
  int64_t pruned_by_bound() const;
  int64_t pruned_by_dominance() const;

  // One greedy descent from the root, children ordered by priority plus
  // `noise` times a uniform draw (0: the plain priority rule). Returns true
  // and fills *found when it ends below the upper bound (which then drops);
  // costs about one node per op. Does not disturb the depth-first search.
  bool dive(Rng* rng, double noise, int32_t rule, PlanSchedule* found, int64_t* nodes_used);
  // Whether the last dive scheduled every op (false: it hit a dead end).
  bool dive_completed() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace shardlab::pipeline
