// The pipeline planner: the facade over everything under plan_*, heft,
// merge and mip. It finds schedules of a pipeline problem (model.h) with a
// short makespan under the memory caps, proves lower bounds on the
// makespan, and says when its schedule is optimal.
//
// Lifecycle:
//   Planner planner(problem, options);        // expands, warm-starts
//   if (!planner.status().is_ok()) ...        // e.g. a placement that does not fit
//   while (!planner.finished() && time remains) {
//     planner.step(work);                     // about `work` search nodes
//     planner.best(); planner.lower_bound();  // read the anytime state
//     planner.offer(timeline_from_elsewhere); // optional: import schedules
//   }
// or, in one call with a time limit and a progress sink, plan() below
// (what `shardlab pipeline --plan` and the page's worker use).
//
// What is solved: the expansion of the problem under its placement (the
// problem's own, else options' placement; when both are open, for stages,
// among the placements of the published schedules that fit the caps the
// one with the least lower bound, e.g. DualPipe's two copies; else linear
// for stages and free for operators; expansion() tells): every F, B and W of every micro-batch is
// an operation on the device of its unit (for free placements the planner also chooses the device
// of each unit), with the arcs and communication delays of model.h, one operation at a time per
// device, and memory (activations + parameters) within each device's cap at all times. The
// objective is the makespan, which also minimises the global bubble (devices x makespan - work). B
// and W are separate operations, so the planner is free to delay W (zero-bubble style). It does not
// use overlapped F&B pairs: a pair runs F, B and W in the F&B time, so it can only help when F&B <
// F + B + W; when F&B >= F + B + W (as in DualPipe's example) running the three in sequence is
// never worse, and the planner's optimum is the optimum with pairs too.
//
// Inside (one technique per file, under plan/): problem (model <-> the planner's
// flat view in ticks), bound (lower bounds), search (the
// chronological branch and bound, symmetry, dominance, dives), lns
// (large neighbourhood search), engine (the anytime portfolio), heft
// (list scheduling for free placements), merge (the bi-level coarsening),
// mip (the job-shop MIP as CPLEX-LP text, and back).
//
// Contract:
// - best() is empty or a timeline that check() (check.h) accepts: every
//   operation once, dependencies with delays, one operation at a time per
//   device, memory within the caps.
// - lower_bound() never exceeds the optimal makespan; when finished() and a
//   schedule exists, best()'s makespan equals lower_bound() (proven optimal).
// - Deterministic: the same problem, options and sequence of calls give the
//   same results natively and in wasm; nothing inside reads a clock except
//   plan()'s time limit, which only decides when to stop.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/json_doc.h"
#include "core/options_table.h"
#include "core/pipeline/model.h"
#include "core/pipeline/plan/mip.h"
#include "core/pipeline/simulate.h"
#include "core/progress.h"
#include "core/status.h"

namespace shardlab::pipeline {

struct PlannerOptions {
#define SHARDLAB_PLAN_OPTION SHARDLAB_OPTION_FIELD
#include "core/pipeline/plan/options.def"
#undef SHARDLAB_PLAN_OPTION
  // Used when the problem leaves its placement open (kAuto).
  Placement placement;
};

// The options (plan/options.cpp, through the shared option table of
// core/options_table.h). set_plan_option sets one by name or CLI flag from
// text; errors name the option and its range.
Status set_plan_option(PlannerOptions* options, const std::string& key, const std::string& text);
// Reads {"seed": 3, "time_limit_s": 2, "placement": "bidirectional",
// "chunks": 2, ...}: unknown keys and values out of range are refused with
// the position and path (the house format).
Status plan_options_from_json(const json::JsonAt& object, PlannerOptions* options);
Status plan_options_from_json(const std::string& source, const std::string& text,
                              PlannerOptions* options);
nlohmann::ordered_json plan_options_json(const PlannerOptions& options);
// [{"name", "kind", "default", "min", "max", "flag", "help"}]
nlohmann::ordered_json plan_options_schema();

class Planner {
 public:
  Planner(const Problem& problem, const PlannerOptions& options);
  ~Planner();
  Planner(const Planner&) = delete;
  Planner& operator=(const Planner&) = delete;

  // Not OK when the problem cannot be planned (invalid, or its placement
  // does not fit); then every other call is a no-op.
  const Status& status() const;
  const Expansion& expansion() const;

  // Runs about `work` search nodes. Returns true when the incumbent or the
  // lower bound improved.
  bool step(int64_t work);
  // True when there is nothing left to do: the incumbent is proven optimal,
  // no schedule exists, or (heft_only) HEFT's schedule is all that is asked.
  bool finished() const;
  // True when the incumbent is proven optimal or no schedule is proven to exist.
  bool proven() const;
  bool has_best() const;
  const Timeline& best() const;  // empty slots when none is known
  int64_t best_ticks() const;    // makespan of best() in ticks (-1 when none)
  double best_makespan() const;  // in the problem's time unit (-1 when none)
  int64_t lower_bound_ticks() const;
  double lower_bound() const;  // in the problem's time unit
  // Offers a timeline over expansion(); true when it became the incumbent.
  bool offer(const Timeline& timeline, const std::string& source = "offered");
  // Where the incumbent came from: a generator's name, "heft", "dive",
  // "prover", "search", "lns", "merged" or "offered".
  const std::string& best_source() const;
  // Counters for display: "phase", "ops", "nodes", ..., "best_source",
  // "proven", "makespan", "lower_bound", "placement", the groups "merged"
  // (bi-level) and "warm_start" ({schedule: makespan}).
  Counters counters() const;

  // MIP mode (mip.h) over expansion(): the LP text, with the incumbent's
  // makespan as horizon when there is one; the column values of a timeline
  // (a MIP start); and the timeline of a solver's column values.
  MipModel emit_lp() const;
  Result<std::map<std::string, double>> mip_start(const Timeline& timeline) const;
  Result<Timeline> schedule_from_mip(const std::map<std::string, double>& columns) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The progress record (core/progress.h) of a planner at elapsed_s: the
// best makespan, the bound, finished() and counters().
Progress progress_of(const Planner& planner, double elapsed_s);

// ---- the anytime loop behind `shardlab pipeline --plan` ---------------------

struct PlanResult {
  Status status;        // not OK when the problem cannot be planned
  Expansion expansion;  // what was planned (the placement may be the planner's choice)
  Timeline best;        // over `expansion`; empty slots when none was found (or none exists)
  bool found = false;
  double makespan = 0;
  double lower_bound = 0;
  bool optimal = false;
  bool infeasible = false;  // proven: no schedule within the memory caps
  std::string source;
  std::vector<Progress> trace;  // the first record and every improvement
  double seconds = 0;
  Counters counters;
};

// Plans for at most time_budget_s seconds (or until proven optimal, or
// options.work nodes when set). The sink gets the first record and one after
// every improvement (counters "best_source" names who found the incumbent).
// A sink answering kStop, or *interrupt set, stops within one step; the best
// schedule so far is still returned, over result.expansion.
PlanResult plan(const Problem& problem, const PlannerOptions& options, double time_budget_s,
                const ProgressSink& sink = nullptr, const Interrupt* interrupt = nullptr);

}  // namespace shardlab::pipeline
