// The plan lab's facade: the one header the CLI (`shardlab plan`), the wasm
// bindings and the tests include. It answers "how do I train this model on
// this cluster?": the tensor-parallel size t (with or without sequence
// parallelism), the pipeline size p with the layers of every stage and v
// model chunks per device, the schedule (the pipeline lab's GPipe, 1F1B,
// interleaved 1F1B, ZB-H1, ZB-H2, ZBV, DualPipeV), the data-parallel size d
// with its ZeRO stage, expert parallelism for MoE models, the micro-batch
// size and count, and activation recomputation, chosen jointly; with the
// plan's predicted step time, memory and throughput, a certified lower bound
// on the best step time under the cost model, and the gap between the two.
//
// Lifecycle:
//   ModelCosts costs = ModelCosts::create(model, cluster, training);  // model_costs.h
//   PlanResult result = plan_with_costs(&costs, cluster, training, fix, options, sink, stop);
//   if (!result.status.is_ok()) ...            // a bad --fix: one line, nothing planned
//   result.found;                              // some plan fits the GPUs' memory
//   result.best;                               // its StepResult (step_model.h), re-evaluated
//   result.lower_bound_s, result.gap, result.proven;
//   result.alternatives;                       // the why-not table
//   result.sizing;                             // smallest GPU count that fits, the sweep
//   plan_json(result);                         // the --json document (CLI and bindings)
// or step by step with PlanRun below (what the page's worker does between
// messages; plan_with_costs is a loop over it).
//
// What happens inside, one file each:
//   config.cpp      schedules, stage placement, rank layout (tp innermost, then dp, then
//                   pp across nodes, as Megatron orders ranks), the one-line plan checks;
//   stage_model.cpp a configuration's per-stage F/B/W, transfers, exposure and memory;
//   inflight.cpp    activations in flight per device from the schedule's own order;
//   step_model.cpp  the exact step time and memory of one plan (the independent evaluator:
//                   the pipeline lab's simulator and checker on the stages' times);
//   bound.cpp       the lower bounds (per split, and relaxed over all splits);
//   stage_dp.cpp    the layers of every stage, by DP over cut points;
//   search.cpp      the configurations in bound order (Planner);
//   fix.cpp         the --fix grammar;
//   report.cpp      alternatives, sizing, the JSON document;
//   model_costs.cpp the production costs (BlockCache, formulas, hierarchical collectives).
//
// Contract:
// - result.best is re-evaluated from scratch by evaluate() (step_model.h), with the
//   pipeline lab's checker on its timeline; the search's own timing of that plan must
//   agree to 1e-9 (kInternal otherwise), as every answer of the sharding solver is
//   re-checked by its evaluator.
// - lower_bound_s never exceeds the step time of any plan of the decision space
//   (search.h lists it) under the cost model; gap = (step - bound) / step; proven when
//   the gap is 0 (to 1e-9).
// - Deterministic: the same request gives the same result natively and in wasm, as long
//   as the time limit does not stop the search first (options.work_limit stops it by
//   work instead; nothing inside reads a clock but plan()'s time limit).
// - Never throws; bad input comes back as a Status with one line.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/plan/costs.h"
#include "core/plan/fix.h"
#include "core/plan/model.h"
#include "core/plan/search.h"
#include "core/plan/step_model.h"
#include "core/progress.h"
#include "core/status.h"

namespace shardlab::plan {

struct PlanOptions {
  // The whole run: the main search, the evaluation, the why-not rows, sizing
  // and the sweep. The main search ends at search_share of it at the latest
  // (search_time_limit_s), so that the side phases have the rest; what they
  // have not done when it passes is reported as not evaluated (time_up()).
  double time_limit_s = 10;
  double search_share = 0.7;
  int64_t work_limit = 0;  // > 0: stop the main search after this much work (deterministic)
  SearchOptions search;
  bool alternatives = true;  // the why-not table
  bool sizing = true;        // the smallest GPU count that fits
  bool sweep = false;        // the best step time over a range of GPU counts
  // Work per alternative and per sizing point (deterministic budgets).
  int64_t side_work = 30000;
};

// A textbook alternative to the chosen plan, planned with its decisions pinned.
struct Alternative {
  std::string name;  // "pure data parallelism", "TP across nodes", ...
  std::string fix;   // what it pins, in --fix grammar
  bool applicable = true;
  std::string reason;  // why it does not apply (e.g. "the model has no experts")
  bool fits = false;
  bool proven = false;  // its search finished: the best plan with these pins
  double step_time_s = 0;
  double difference = 0;    // (its step - the plan's step) / the plan's step
  int64_t needs_bytes = 0;  // least worst-device memory when it does not fit
  Plan plan;                // its best plan (when it fits)
};

struct SizingPoint {
  int64_t gpus = 0;
  bool fits = false;
  double step_time_s = 0;  // sweep only
  int64_t needs_bytes = 0;
  Plan plan;
};
struct Sizing {
  int64_t smallest_gpus = 0;  // the smallest GPU count (whole nodes) where some plan fits; 0: none
  std::vector<SizingPoint> sweep;
  // Why sizing (or part of the sweep) was not done, e.g. "not evaluated
  // within the time limit"; empty when it was done (or not asked for).
  std::string reason;
};

// What the time limit leaves undone says this.
inline constexpr const char* kNotEvaluated = "not evaluated within the time limit";

// When the main search ends at the latest: search_share of the time limit.
double search_time_limit_s(const PlanOptions& options);

struct PlanResult {
  Status status;
  bool found = false;
  StepResult best;  // checked
  double lower_bound_s = 0, gap = 1;
  bool proven = false;
  // When nothing fits: the least worst-device memory of any plan, and that plan.
  int64_t needs_bytes = 0;
  Plan needs_plan;
  std::vector<Alternative> alternatives;
  Sizing sizing;
  SearchCounters counters;
  // The time limit ended the run before it was done (PlanRun::time_up()):
  // rows and sizing not done say kNotEvaluated.
  bool time_limit_reached = false;
  double seconds = 0;
  std::vector<Progress> trace;  // the first record and one per improvement (plan_with_costs)
  ModelFacts model;
  Cluster cluster;
  Training training;
  Fix fix;
};

// The plan lab's anytime run, one bounded step at a time: what the CLI's
// one-call loop and the page's worker both drive. The phases, in order:
//   "seed"          up to three textbook plans (Megatron's recipe) timed, one a step,
//                   so that an incumbent exists from the start;
//   "search"        the main search (Planner steps of 64 units of work);
//   "evaluate"      the best plan re-evaluated from scratch with the pipeline
//                   lab's checker (or, when nothing fits, the least memory);
//   "alternatives"  each why-not row's own pinned search, 64 units a step;
//   "sizing"        one candidate GPU count of the bisection a step;
//   "sweep"         (options.sweep) each GPU count's search, 64 units a step;
//   "done".
// Every step() is bounded (a few tens of ms on the Table 1 models), so a
// worker can stop between steps. Nothing inside reads a clock: the caller
// owns the time limit. It calls stop_search() at search_time_limit_s() (the
// side searches then run on their deterministic budgets, options.side_work)
// and time_up() at the time limit (the why-not rows and sizing not done are
// reported as kNotEvaluated), or stops stepping and calls finish() (a Stop:
// the rows not reached are left out).
//
//   PlanRun run(&costs, cluster, training, fix, options);
//   if (!run.status().is_ok()) ...                 // a bad --fix: one line
//   while (!run.finished() && !stop) {
//     if (run.step()) sink(run.progress(elapsed));  // an improvement
//     if (elapsed > limit) run.time_up();
//     else if (elapsed > search_time_limit_s(options)) run.stop_search();
//   }
//   PlanResult result = run.finish();
class PlanRun {
 public:
  // costs must outlive the run.
  PlanRun(PlanCosts* costs, const Cluster& cluster, const Training& training, const Fix& fix,
          const PlanOptions& options);
  ~PlanRun();
  PlanRun(const PlanRun&) = delete;
  PlanRun& operator=(const PlanRun&) = delete;

  // Not OK when the fix cannot be satisfied (then finished() at once), or
  // when the re-evaluation disagrees with the search (kInternal).
  const Status& status() const;
  // One bounded slice of the current phase; true when the main search's
  // incumbent or bound improved (the moments a progress record is due).
  bool step();
  bool finished() const;
  // Asked after every unit of every search of the run (the main search,
  // the why-not rows, sizing, the seeds' offers: search.h Planner::step)
  // and, once a step has run a long part (a piece of a block's solve: its
  // model generated, its engine built, one engine step, its price; a
  // schedule order; a simulation), before the next: true ends the step early (a caller's slice
  // of time is over, or an interrupt is set), the unit about to run its
  // second long part put off, undone, to the next step. With a yield that
  // always says true, no step runs more than two long parts (the page's
  // worker; the evaluation runs one a step anyway). The units run are the
  // same with or without it: only where steps end moves.
  void set_yield(std::function<bool()> yield);
  // Ends the main search now (the caller's time limit); the next step()
  // starts the evaluation. Options.work_limit ends it by work instead.
  void stop_search();
  // The whole run's time limit passed: the main search ends (as
  // stop_search()), and so does the run once the best plan is evaluated
  // (finish() evaluates it when the run stopped before): the why-not rows
  // not done (the one running keeps the best plan its search timed, if any)
  // and sizing say kNotEvaluated.
  void time_up();
  // The record every engine reports (core/progress.h): incumbent = the best
  // step time in seconds, bound = the certified lower bound, finished = the
  // whole run is done; counters "phase", the search's counters,
  // "long_parts" (pieces of block solves, orders and simulations of the
  // whole run so far), "step_long_parts" (the most any one step has run), and
  // "alternatives_done" / "alternatives" during the why-not searches.
  Progress progress(double elapsed_s) const;
  // True once the main search's best plan has been re-evaluated (the
  // "evaluate" phase is over): snapshot() then holds the plan.
  bool evaluated() const;
  // A copy of the result so far without finishing the run: the evaluated
  // plan with its bound and gap, and the why-not rows and sizing done so far
  // (what the page shows while the side searches go on). Before the
  // evaluation: found is false.
  PlanResult snapshot() const;
  // The result so far: the main search's best plan re-evaluated (done here
  // when the run stopped before the evaluation), the alternatives and
  // sizing completed so far. Call once.
  PlanResult finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The whole answer from costs already built (tests, benchmarks, the CLI): a
// loop over PlanRun with options.time_limit_s on the whole run (unless
// options.work_limit: then no clock is read), the sink called with the first record, each
// improvement and the last; the sink's kStop or *interrupt ends the run
// within one step (the best plan so far is still returned, re-evaluated).
PlanResult plan_with_costs(PlanCosts* costs, const Cluster& cluster, const Training& training,
                           const Fix& fix, const PlanOptions& options,
                           const ProgressSink& sink = nullptr,
                           const Interrupt* interrupt = nullptr);

// The --json document: {"plan", "step_time_s", "tokens_per_s", "tflops_per_gpu", "mfu",
// "memory", "breakdown_s", "lower_bound_s", "gap", "proven", "alternatives", ...};
// README's plan-lab section lists every field. indent < 0: one line.
std::string plan_json(const PlanResult& result, int indent = 2);
// The CLI's text: the plan card, memory against the limit, the time
// breakdown, bound and gap, the why-not table and sizing.
std::string plan_text(const PlanResult& result);

}  // namespace shardlab::plan
