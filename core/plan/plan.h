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
// Lifecycle (one call):
//   PlanRequest request;                       // model, cluster, training, --fix, options
//   PlanResult result = plan(request, sink, interrupt);
//   if (!result.status.is_ok()) ...            // a bad --fix: one line, nothing planned
//   result.found;                              // some plan fits the GPUs' memory
//   result.best;                               // its StepResult (step_model.h), re-evaluated
//   result.lower_bound_s, result.gap, result.proven;
//   result.alternatives;                       // the why-not table
//   result.sizing;                             // smallest GPU count that fits, the sweep
//   plan_json(result);                         // the --json document (CLI and bindings)
// or step by step, anytime (what the page's worker does between messages):
//   ModelCosts costs(model, cluster, training);           // model_costs.h (or any PlanCosts)
//   Planner planner(&costs, cluster, training, fix, {});  // enumerates lazily
//   if (!planner.status().is_ok()) ...                    // the fix's line
//   while (!planner.finished() && time remains) {
//     planner.step(work);                                 // deterministic units of work
//     planner.best(); planner.lower_bound_s();            // the anytime state
//   }
//   PlanResult result = finish_plan(&costs, cluster, training, fix, options, planner);
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
#include <string>
#include <vector>

#include "core/plan/costs.h"
#include "core/plan/fix.h"
#include "core/plan/model.h"
#include "core/plan/search.h"
#include "core/plan/step_model.h"
#include "core/status.h"

namespace shardlab::plan {

struct PlanOptions {
  double time_limit_s = 10;  // the main search; alternatives and sizing get their own share
  int64_t work_limit = 0;    // > 0: stop the main search after this much work (deterministic)
  SearchOptions search;
  bool alternatives = true;  // the why-not table
  bool sizing = true;        // the smallest GPU count that fits
  bool sweep = false;        // the best step time over a range of GPU counts
  // Work per alternative and per sizing point (deterministic budgets).
  int64_t side_work = 30000;
};

// One progress record per improvement, the same fields as every engine's.
struct PlanEvent {
  double seconds = 0;  // since plan() started
  bool found = false;  // a plan that fits is known
  double step_time_s = 0;
  double bound_s = 0;
  double gap = 0;  // (step - bound) / step; 1 while nothing is found
  SearchCounters counters;
};
// Return false to stop early (the best plan so far is still returned).
using PlanSink = std::function<bool(const PlanEvent&)>;

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
};

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
  double seconds = 0;
  std::vector<PlanEvent> trace;
  ModelFacts model;
  Cluster cluster;
  Training training;
  Fix fix;
};

// The whole answer from costs already built (tests, benchmarks, bindings).
PlanResult plan_with_costs(PlanCosts* costs, const Cluster& cluster, const Training& training,
                           const Fix& fix, const PlanOptions& options,
                           const PlanSink& sink = nullptr,
                           const std::atomic<bool>* interrupt = nullptr);

// Completes a result from a planner run elsewhere: re-evaluates the best plan,
// then alternatives and sizing as the options ask.
PlanResult finish_plan(PlanCosts* costs, const Cluster& cluster, const Training& training,
                       const Fix& fix, const PlanOptions& options, Planner& planner);

// The --json document: {"plan", "step_time_s", "tokens_per_s", "tflops_per_gpu", "mfu",
// "memory", "breakdown_s", "lower_bound_s", "gap", "proven", "alternatives", ...};
// README's plan-lab section lists every field. indent < 0: one line.
std::string plan_json(const PlanResult& result, int indent = 2);
// The CLI's text: the plan card, memory against the limit, the time
// breakdown, bound and gap, the why-not table and sizing.
std::string plan_text(const PlanResult& result);

}  // namespace shardlab::plan
