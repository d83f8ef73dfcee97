// The plan lab's search: every configuration of the decision space, bounded
// and refined in bound order (A*-like), with a certified lower bound on the
// best step time. See plan.h for the lifecycle and the contract.
//
// Levels of a configuration (every decision but the layers of each stage):
//   0  enumerated, bounded by relaxation_bound_s() (bound.h: closed form over all splits);
//   1  its split chosen by the stage DP (stage_dp.h), bounded by the DP's value (the least
//      bound over its splits that fit in memory), or dropped when no split fits;
//   2  that split timed exactly by the step model (step_model.h, the pipeline lab's
//      simulator); the configuration then stays with its DP bound as its residual.
// The queue pops the least bound; a configuration whose bound reaches the incumbent is
// never refined (nothing below it can beat the incumbent). The lower bound is the least
// of the incumbent, the queue's head and the residuals below the incumbent; the search is
// finished when the queue's head reaches the incumbent, proven when the bound equals it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/plan/costs.h"
#include "core/plan/fix.h"
#include "core/plan/inflight.h"
#include "core/plan/model.h"
#include "core/plan/step_model.h"
#include "core/status.h"

namespace shardlab::plan {

struct SearchOptions {
  int64_t max_microbatch_size = 16;  // micro-batch sizes tried: divisors of B / d up to this
  int32_t max_vpp = 8;               // interleaved chunks per device tried: 2 .. this
};

struct SearchCounters {
  int64_t configurations = 0;  // enumerated
  int64_t split_solves = 0;    // stage DPs run (levels 0 and 1)
  int64_t orders = 0;          // schedule orders generated for in-flight counts (inflight.h)
  int64_t simulations = 0;     // step-model timelines run (distinct problems)
  int64_t timed = 0;           // configurations timed exactly (level 2)
  int64_t pruned_memory = 0;   // dropped: no split fits
  int64_t pruned_bound = 0;    // left in the queue at or above the incumbent
  int64_t rejected = 0;        // the costs or the schedule cannot run them
  int64_t lean = 0;            // retried with memory-lean layouts (the fastest did not fit)
  int64_t work = 0;            // the deterministic work counter step() spends
};

// A plan the search has timed exactly (its split included).
struct TimedPlan {
  Plan plan;
  double step_time_s = 0;
};

// What searches of one model on one kind of cluster can share: schedule
// orders' in-flight counts and simulated timelines (both keyed by their
// whole input, so sharing changes no answer, only the work).
struct SearchCaches {
  InflightCache profiles;
  SimCache sims;
};

class Planner {
 public:
  // The costs (and caches, when given) must outlive the planner. status()
  // is not OK when the fix cannot be satisfied (check_fix's line).
  Planner(PlanCosts* costs, const Cluster& cluster, const Training& training, const Fix& fix,
          const SearchOptions& options, SearchCaches* caches = nullptr);
  ~Planner();
  Planner(const Planner&) = delete;
  Planner& operator=(const Planner&) = delete;

  const Status& status() const;
  // Spends about `work` units (a configuration bounded: 1; a DP: its cells
  // / 1000; a simulation: its operations / 1000). True when the incumbent
  // or the bound improved. `yield`, when given, is asked after every unit
  // (one configuration bounded or one queue entry refined) and ends the step
  // early when it says true; it is also asked inside a unit before each of
  // its long parts (a piece of a block's solve, a schedule order's
  // generation, a simulation: long_parts()) once the step has run one: true
  // then puts the unit off to the next step, undone (what its finished
  // parts computed stays memoised, and a solve resumes at its next piece).
  // So a step with a yield that says true runs one long part, two at most
  // (an order and the DP's first simulation), wherever it starts. The units
  // run, and so every answer, are those of a step without it: only where
  // steps end moves.
  bool step(int64_t work, const std::function<bool()>& yield = nullptr);
  // Long parts run so far by this planner and every search sharing its
  // costs and caches: pieces of block solves (PlanCosts::solve_pieces),
  // schedule orders generated and timelines simulated (SearchCaches).
  int64_t long_parts() const;
  bool finished() const;
  bool proven() const;
  bool has_best() const;
  const StepResult& best() const;  // the incumbent's evaluation (timeline unchecked)
  double best_time_s() const;      // +inf when none
  double lower_bound_s() const;    // on every plan's step time in the decision space
  const SearchCounters& counters() const;
  // The least worst-device memory of any configuration (and its plan),
  // computed on demand, best first by least_memory_bytes() (bound.h). With
  // stop_below > 0 only whether some plan needs at most that much is asked:
  // the answer is the first plan found that does (not the least; the
  // candidates are checked cheapest schedule order first), or any false.
  struct NeedsMemory {
    int64_t bytes = 0;
    Plan plan;
    bool any = false;  // some configuration exists at all (stop_below > 0: one fits in it)
  };
  NeedsMemory least_memory(int64_t stop_below = 0);
  // The same in slices of about `work` units (a configuration's memory
  // bound: 1; its DP: layers x stages / 64), true when done; the answer is
  // then least_memory_result(). One hunt per planner (stop_below fixed by
  // the first call).
  // `yield` as in step(): asked before each configuration once the call has
  // run a long part; true ends the call (the hunt resumes where it was).
  bool least_memory_step(int64_t stop_below, int64_t work,
                         const std::function<bool()>& yield = nullptr);
  const NeedsMemory& least_memory_result() const;
  // The first reason a configuration was rejected (for "no plan" messages).
  const std::string& first_rejection() const;
  // The caches it uses (its own, or those it was given).
  SearchCaches* caches();
  // Every plan timed so far that fits, in the order timed.
  const std::vector<TimedPlan>& timed() const;
  // Times a plan of this cluster (its split given, or without stage_layers
  // the DP's split) and keeps it as the incumbent when it satisfies the fix
  // and beats the incumbent; true then. Another search's plans seed this one
  // (alternatives start from the main search's plans that satisfy their pins).
  // With a yield (as in step()), the offer is put off, undone, before a
  // long part once it has run one: deferred() then says so, and the same
  // offer is to be made again.
  bool offer(const Plan& plan, const std::function<bool()>& yield = nullptr);
  // The last step() or offer() put a unit off (the yield said true inside it).
  bool deferred() const;

 private:
  struct Impl;
  struct MemoryHunt;
  std::unique_ptr<Impl> impl_;
  std::unique_ptr<MemoryHunt> hunt_;
};

}  // namespace shardlab::plan
