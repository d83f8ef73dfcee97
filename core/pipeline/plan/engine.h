// The planner's engine over a PlanGraph (ticks, no problem types): the
// anytime portfolio behind Planner (planner.h). It holds the incumbent and
// the proven lower bound and splits each step's work between
//   - a prover: depth-first search for a schedule no longer than the bound,
//     whose exhaustion raises the bound by one tick (destructive bounding),
//     restarted with the next child-order rule after a growing node budget;
//   - an improver: depth-first search below the incumbent, whose exhaustion
//     proves the incumbent optimal;
//   - randomised dives (list scheduling with noisy priorities);
//   - large neighbourhood search: some ops are freed, the others keep their
//     device and order, and the search improves the incumbent inside
//     (plan/lns.cpp);
//   - with a fixed placement, late acceptance hill climbing on the device
//     orders with memory as a constraint (plan/order_search.h);
//   - with pairs and delays, provers on two-device relaxations (plan/relax.h)
//     whose bounds hold here;
//   - with free groups and no pairs, branchings over placements whose
//     least open bounds hold here: of the groups on a longest path, each
//     node bounded from that path (plan/path_place_bound.h), then of every
//     free group, each node bounded by the root bound (plan/place_bound.h).
// Warm starts come through offer() (generated schedules, HEFT, a merged
// plan refined).
//
// Contract: best() always passes check_plan(); lower_bound() never exceeds
// the optimum; the same graph, options and calls give the same results on
// every platform (work is counted in search nodes, never in time).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/pipeline/plan/graph.h"
#include "core/progress.h"

namespace shardlab::pipeline {

struct EngineConfig {
  uint64_t seed = 1;
  bool symmetry = true;
  bool dominance = true;
  int64_t table_entries = 1 << 20;
  double prover_share = 0.35;
  double improver_share = 0.15;
  double dive_share = 0.2;       // the rest goes to large neighbourhood search
  int64_t restart_nodes = 2000;  // first prover budget; grows by half per restart
  bool initial_dives = true;     // one greedy dive per rule in the constructor
  // Share of the work for the coupled bound (plan/relax.h: two devices
  // searched together, the others relaxed) on graphs with pairs that gain
  // and delays, on top of the step's work while a coupled prover is open
  // and within its budget (so at most four budgets in all); 0 turns it off.
  double coupled_share = 0.25;
  int64_t coupled_budget = 100000;  // search nodes per coupled prover
  // Share of the work for the placement bounds (plan/path_place_bound.h,
  // then plan/place_bound.h) on graphs with free groups and no pairs, on
  // top of the step's work like the coupled bound's, until their bounds are
  // final; 0 turns them off.
  double placement_bound_share = 0.25;
  // Share of the work for local search on device orders (plan/order_search.h)
  // on graphs with a fixed placement, on top of the step's work like the
  // coupled bound's (its own random stream, so the other techniques do the
  // same as without it); 0 turns it off. On graphs with a mirror
  // (PlanGraph::mirror) every other restart of it keeps the mirror symmetry.
  double order_share = 0.3;
};

class PlanEngine {
 public:
  PlanEngine(PlanGraph graph, const EngineConfig& config);
  ~PlanEngine();
  PlanEngine(const PlanEngine&) = delete;
  PlanEngine& operator=(const PlanEngine&) = delete;

  const PlanGraph& graph() const;
  // About `work` search nodes. Returns true when the incumbent or the bound
  // improved.
  bool step(int64_t work);
  bool finished() const;             // optimal, or no schedule exists
  const PlanSchedule& best() const;  // empty until one is known
  int64_t lower_bound() const;
  // Returns true when the schedule passes check_plan() and is better than
  // the incumbent (it then becomes the incumbent).
  bool offer(const PlanSchedule& schedule, const char* source);
  const std::string& best_source() const;  // who found the incumbent
  Counters counters() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace shardlab::pipeline
