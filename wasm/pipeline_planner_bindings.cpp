// The pipeline planner's JavaScript surface: PipelinePlanner (pipeline_planner.h)
// and the session's planner and MIP calls (pipeline_session.h), over
// core/pipeline/planner.h and plan/mip.h. Results in the shape of
// wasm/result.h; options and MIP solutions are read by the positioned JSON
// reader (core/json_doc.h).
//
// Call chain:
//   web/pipeline/lab.mjs ── planner_client.mjs ── postMessage ──> web/pipeline/worker.js
//     worker.js: session.planner(optionsJson) .step(work) / .progress(s) / .bestJson() / .offer()
//                  ─> core/pipeline/planner.h ─> plan/engine, plan/search, ...
//     worker.js: session.emitLp() -> HiGHS (web/pipeline/highs_worker.js, npm highs) ->
//                session.scheduleFromMip(); session.mipStart() warm-starts HiGHS
//                  ─> core/pipeline/plan/mip.h
#include <string>

#include "core/json_doc.h"
#include "core/pipeline/pipeline.h"
#include "wasm/pipeline_planner.h"
#include "wasm/pipeline_session.h"
#include "wasm/result.h"

namespace shardlab::pipeline::web {

using emscripten::val;
using shardlab::web::failure;
using shardlab::web::ok;
using shardlab::web::result_of;

namespace {

Result<PlannerOptions> options_of(const std::string& options_json) {
  PlannerOptions options;
  if (options_json.empty()) return options;
  const Status status = plan_options_from_json("options", options_json, &options);
  if (!status.is_ok()) return status;
  return options;
}

}  // namespace

bool PipelinePlanner::step(double work) { return planner_->step(static_cast<int64_t>(work)); }
bool PipelinePlanner::finished() const { return planner_->finished(); }

val PipelinePlanner::progress(double elapsed_s) const {
  return shardlab::web::progress_val(progress_of(*planner_, elapsed_s));
}

val PipelinePlanner::best_json() const {
  if (!planner_->has_best()) {
    return failure(Status(StatusCode::kInvalidArgument, "the planner has no schedule yet"));
  }
  ScheduleResult r =
      evaluate_timeline(*problem_, planner_->expansion(), planner_->best(), "planned");
  r.lower_bound = planner_->lower_bound();
  r.optimal = planner_->proven();
  return ok(val(schedule_json(r)));
}

val PipelinePlanner::offer(const std::string& schedule) {
  Result<ScheduleResult> s = read_schedule_json(*problem_, "offered", schedule);
  if (!s.is_ok()) return failure(s.status());
  return ok(val(planner_->offer(s.value().timeline, s.value().name)));
}

val PipelineSession::planner(const std::string& options_json) const {
  Result<PlannerOptions> options = options_of(options_json);
  if (!options.is_ok()) return failure(options.status());
  auto planner = std::make_shared<Planner>(*problem_, options.value());
  if (!planner->status().is_ok()) return failure(planner->status());
  return ok(val(PipelinePlanner(problem_, std::move(planner))));
}

Result<const Planner*> PipelineSession::mip_planner(const std::string& options_json) {
  if (mip_ && options_json == mip_options_) return static_cast<const Planner*>(mip_.get());
  Result<PlannerOptions> options = options_of(options_json);
  if (!options.is_ok()) return options.status();
  auto planner = std::make_shared<Planner>(*problem_, options.value());
  if (!planner->status().is_ok()) return planner->status();
  mip_ = std::move(planner);
  mip_options_ = options_json;
  return static_cast<const Planner*>(mip_.get());
}

val PipelineSession::emit_lp(const std::string& options_json) {
  Result<const Planner*> planner = mip_planner(options_json);
  if (!planner.is_ok()) return failure(planner.status());
  return ok(val(planner.value()->emit_lp().lp));
}

// {columns: {name: value}}: a schedule's values as a MIP start.
val PipelineSession::mip_start(const std::string& options_json, const std::string& schedule) {
  Result<const Planner*> planner = mip_planner(options_json);
  if (!planner.is_ok()) return failure(planner.status());
  Result<ScheduleResult> s = read_schedule_json(*problem_, "schedule", schedule);
  if (!s.is_ok()) return failure(s.status());
  Result<std::map<std::string, double>> columns = planner.value()->mip_start(s.value().timeline);
  if (!columns.is_ok()) return failure(columns.status());
  val values = val::object();
  for (const auto& [name, value] : columns.value()) values.set(name, value);
  val out = val::object();
  out.set("columns", values);
  return ok(out);
}

// solution: {"name": value, ...}, or HiGHS's {"Columns": {"name": {"Primal": v}}};
// members of other shapes are ignored (HiGHS writes more than values).
val PipelineSession::schedule_from_mip(const std::string& options_json,
                                       const std::string& solution) {
  Result<const Planner*> planner = mip_planner(options_json);
  if (!planner.is_ok()) return failure(planner.status());
  Result<json::Document> doc = json::Document::parse("MIP solution", solution);
  if (!doc.is_ok()) return failure(doc.status());
  const json::JsonAt root = doc.value().root();
  const Status object = root.expect(json::Kind::kObject);
  if (!object.is_ok()) return failure(object);
  const json::JsonAt cols = root.has("Columns") ? root["Columns"] : root;
  const Status cols_object = cols.expect(json::Kind::kObject);
  if (!cols_object.is_ok()) return failure(cols_object);
  std::map<std::string, double> values;
  const std::vector<std::string> names = cols.keys();
  for (size_t i = 0; i < names.size(); ++i) {
    const json::JsonAt v = cols.member(i);
    if (v.is(json::Kind::kNumber)) {
      values[names[i]] = v.value().number;
    } else if (v.is(json::Kind::kObject) && v["Primal"].is(json::Kind::kNumber)) {
      values[names[i]] = v["Primal"].value().number;
    }
  }
  Result<Timeline> t = planner.value()->schedule_from_mip(values);
  if (!t.is_ok()) return failure(t.status());
  return ok(val(
      schedule_json(evaluate_timeline(*problem_, planner.value()->expansion(), t.value(), "mip"))));
}

val plan_options_schema_of() {
  return ok(val::global("JSON").call<val>("parse", plan_options_schema().dump()));
}

}  // namespace shardlab::pipeline::web
