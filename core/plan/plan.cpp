// The one-call plan (plan.h): the anytime loop over the Planner with a time
// limit, a work limit, a progress sink and an interrupt flag, then the
// re-evaluation of the winner from scratch and the report's side searches.
#include "core/plan/plan.h"

#include <chrono>
#include <cmath>

#include "core/plan/report.h"

namespace shardlab::plan {
namespace {

constexpr int64_t kStepWork = 256;

double gap_of(double best, double bound) {
  if (!(best < INFINITY) || best <= 0) return 1;
  return std::max(0.0, (best - bound) / best);
}

}  // namespace

PlanResult finish_plan(PlanCosts* costs, const Cluster& cluster, const Training& training,
                       const Fix& fix, const PlanOptions& options, Planner& planner) {
  PlanResult result;
  result.status = planner.status();
  result.model = costs->facts();
  result.cluster = cluster;
  result.training = training;
  result.fix = fix;
  result.counters = planner.counters();
  if (!result.status.is_ok()) return result;
  result.lower_bound_s = planner.lower_bound_s();
  result.proven = planner.proven();
  if (planner.has_best()) {
    // The independent evaluator, from scratch, with the pipeline lab's checker.
    Result<StepResult> again = evaluate(planner.best().plan, costs, cluster, training, {});
    if (!again.is_ok()) {
      result.status =
          Status(StatusCode::kInternal, "the step model rejects the search's best plan (" +
                                            plan_summary(planner.best().plan) +
                                            "): " + again.status().message());
      return result;
    }
    const double searched = planner.best_time_s();
    if (std::fabs(again.value().step_time_s - searched) > 1e-9 * searched) {
      result.status = Status(StatusCode::kInternal,
                             "the search timed " + plan_summary(planner.best().plan) + " at " +
                                 std::to_string(searched) + " s, the step model at " +
                                 std::to_string(again.value().step_time_s) + " s");
      return result;
    }
    result.found = true;
    result.best = std::move(again).value();
    result.gap = gap_of(result.best.step_time_s, result.lower_bound_s);
    if (result.proven) result.gap = 0;
  } else {
    const Planner::NeedsMemory needs = planner.least_memory();
    result.needs_bytes = needs.bytes;
    result.needs_plan = needs.plan;
  }
  if (options.alternatives && result.found) {
    result.alternatives = alternatives(costs, cluster, training, fix, options, result.best,
                                       planner.caches(), planner.timed());
  }
  if (options.sizing || options.sweep) {
    result.sizing = sizing(costs, cluster, training, fix, options, result, planner.caches());
  }
  return result;
}

PlanResult plan_with_costs(PlanCosts* costs, const Cluster& cluster, const Training& training,
                           const Fix& fix, const PlanOptions& options, const PlanSink& sink,
                           const std::atomic<bool>* interrupt) {
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&start] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  Planner planner(costs, cluster, training, fix, options.search);
  std::vector<PlanEvent> trace;
  bool stop = false;
  while (planner.status().is_ok() && !planner.finished() && !stop) {
    int64_t work = kStepWork;
    if (options.work_limit > 0) {
      work = std::min(work, options.work_limit - planner.counters().work);
      if (work <= 0) break;
    }
    const bool improved = planner.step(work);
    if (improved) {
      PlanEvent event;
      event.seconds = elapsed();
      event.found = planner.has_best();
      event.step_time_s = planner.has_best() ? planner.best_time_s() : 0;
      event.bound_s = planner.lower_bound_s();
      event.gap = gap_of(planner.best_time_s(), event.bound_s);
      event.counters = planner.counters();
      trace.push_back(event);
      if (sink && !sink(event)) stop = true;
    }
    if (interrupt && interrupt->load()) stop = true;
    if (options.work_limit <= 0 && elapsed() > options.time_limit_s) stop = true;
  }
  PlanResult result = finish_plan(costs, cluster, training, fix, options, planner);
  result.trace = std::move(trace);
  result.seconds = elapsed();
  return result;
}

}  // namespace shardlab::plan
