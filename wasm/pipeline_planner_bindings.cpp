// The pipeline planner's JavaScript surface (the planner and its MIP;
// wasm/pipeline_bindings.cpp holds the rest): JSON text in and out, errors as
// {"error": "message"}.
//
// Call chain:
//   web/pipeline/lab.mjs ── postMessage ──> web/pipeline/worker.js
//     worker.js: new PipelinePlanner(problemJson, optionsJson)
//                .step(work) / .bestJson() / .lowerBound() / .statsJson() / .offer()
//                  ─> core/pipeline/planner.h ─> plan/engine, plan/search, ...
//   web/pipeline/highs_worker.js: pipelineEmitLp() -> HiGHS (npm highs) ->
//     pipelineScheduleFromMip(); pipelineMipStart() warm-starts HiGHS
//                  ─> core/pipeline/plan/mip.h
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "core/pipeline/pipeline.h"
#include "core/pipeline/planner.h"

namespace shardlab::pipeline::web {
namespace {

std::string error_json(const std::string& message) {
  return nlohmann::json{{"error", message}}.dump();
}

struct Inputs {
  Status status;
  Problem problem;
  PlannerOptions options;
};

Inputs read_inputs(const std::string& problem_json, const std::string& options_json) {
  Inputs in;
  Result<Problem> problem = read_problem_json("problem", problem_json);
  if (!problem.is_ok()) {
    in.status = problem.status();
    return in;
  }
  in.problem = std::move(problem).value();
  if (!options_json.empty()) in.status = plan_options_from_json(options_json, &in.options);
  return in;
}

}  // namespace

class PipelinePlanner {
 public:
  PipelinePlanner(const std::string& problem_json, const std::string& options_json)
      : in_(read_inputs(problem_json, options_json)), started_ms_(emscripten_get_now()) {
    if (!in_.status.is_ok()) return;
    planner_ = std::make_unique<Planner>(in_.problem, in_.options);
    if (!planner_->status().is_ok()) in_.status = planner_->status();
  }

  // "" when the problem and options were accepted.
  std::string error() const { return in_.status.is_ok() ? "" : in_.status.message(); }
  bool step(double work) { return ok() && planner_->step(static_cast<int64_t>(work)); }
  bool finished() const { return !ok() || planner_->finished(); }
  double lower_bound() const { return ok() ? planner_->lower_bound() : 0; }
  double best_makespan() const { return ok() ? planner_->best_makespan() : -1; }

  std::string best_json() const {
    if (!ok()) return error_json(in_.status.message());
    if (!planner_->has_best()) return "";
    ScheduleResult r =
        evaluate_timeline(in_.problem, planner_->expansion(), planner_->best(), "planned");
    r.lower_bound = planner_->lower_bound();
    r.optimal = planner_->proven();
    return schedule_json(r);
  }

  std::string stats_json() const {
    if (!ok()) return error_json(in_.status.message());
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(planner_->stats_json());
    j["seconds"] = (emscripten_get_now() - started_ms_) / 1000.0;
    return j.dump();
  }

  bool offer(const std::string& schedule_json_text) {
    if (!ok()) return false;
    Result<ScheduleResult> s = read_schedule_json(in_.problem, "offered", schedule_json_text);
    return s.is_ok() && planner_->offer(s.value().timeline, s.value().name);
  }

 private:
  bool ok() const { return in_.status.is_ok() && planner_; }
  Inputs in_;
  std::unique_ptr<Planner> planner_;
  double started_ms_;
};

std::string pipeline_emit_lp(const std::string& problem_json, const std::string& options_json) {
  Inputs in = read_inputs(problem_json, options_json);
  if (!in.status.is_ok()) return error_json(in.status.message());
  Planner planner(in.problem, in.options);
  if (!planner.status().is_ok()) return error_json(planner.status().message());
  return planner.emit_lp().lp;
}

std::string pipeline_mip_start(const std::string& problem_json, const std::string& options_json,
                               const std::string& schedule_json_text) {
  Inputs in = read_inputs(problem_json, options_json);
  if (!in.status.is_ok()) return error_json(in.status.message());
  Planner planner(in.problem, in.options);
  if (!planner.status().is_ok()) return error_json(planner.status().message());
  Result<ScheduleResult> s = read_schedule_json(in.problem, "schedule", schedule_json_text);
  if (!s.is_ok()) return error_json(s.status().message());
  Result<std::map<std::string, double>> columns = planner.mip_start(s.value().timeline);
  if (!columns.is_ok()) return error_json(columns.status().message());
  nlohmann::ordered_json j;
  j["columns"] = columns.value();
  return j.dump();
}

// solution_json: {"name": value, ...}, or HiGHS's {"Columns": {"name": {"Primal": v}}}.
std::string pipeline_schedule_from_mip(const std::string& problem_json,
                                       const std::string& options_json,
                                       const std::string& solution_json) {
  Inputs in = read_inputs(problem_json, options_json);
  if (!in.status.is_ok()) return error_json(in.status.message());
  const nlohmann::json j = nlohmann::json::parse(solution_json, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return error_json("MIP solution: expected a JSON object");
  const nlohmann::json& cols = j.contains("Columns") ? j["Columns"] : j;
  std::map<std::string, double> values;
  for (auto it = cols.begin(); it != cols.end(); ++it) {
    if (it.value().is_number()) {
      values[it.key()] = it.value().get<double>();
    } else if (it.value().is_object() && it.value().contains("Primal") &&
               it.value()["Primal"].is_number()) {
      values[it.key()] = it.value()["Primal"].get<double>();
    }
  }
  Planner planner(in.problem, in.options);
  if (!planner.status().is_ok()) return error_json(planner.status().message());
  Result<Timeline> t = planner.schedule_from_mip(values);
  if (!t.is_ok()) return error_json(t.status().message());
  ScheduleResult r = evaluate_timeline(in.problem, planner.expansion(), t.value(), "mip");
  return schedule_json(r);
}

std::string pipeline_plan_options_schema() { return plan_options_schema_json(); }

EMSCRIPTEN_BINDINGS(pipeline_planner) {
  emscripten::class_<PipelinePlanner>("PipelinePlanner")
      .constructor<std::string, std::string>()
      .function("error", &PipelinePlanner::error)
      .function("step", &PipelinePlanner::step)
      .function("finished", &PipelinePlanner::finished)
      .function("lowerBound", &PipelinePlanner::lower_bound)
      .function("bestMakespan", &PipelinePlanner::best_makespan)
      .function("bestJson", &PipelinePlanner::best_json)
      .function("statsJson", &PipelinePlanner::stats_json)
      .function("offer", &PipelinePlanner::offer);
  emscripten::function("pipelineEmitLp", &pipeline_emit_lp);
  emscripten::function("pipelineMipStart", &pipeline_mip_start);
  emscripten::function("pipelineScheduleFromMip", &pipeline_schedule_from_mip);
  emscripten::function("pipelinePlanOptionsSchema", &pipeline_plan_options_schema);
}

}  // namespace shardlab::pipeline::web
