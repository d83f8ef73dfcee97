// The pipeline lab's JavaScript surface: the session class (pipeline_session.h)
// over core/pipeline/pipeline.h (generators, simulator, checker, closed
// forms, schedule JSON), problem_json.h and export.h. Errors in the one
// result shape (wasm/result.h); they name the problem by the source the page
// gives (the opened file's name, or "problem" for text typed in the page).
//
// Call chain:
//   web/pipeline/lab.mjs ── session_client.mjs ── postMessage ──> web/pipeline/worker.js
//     worker.js: PipelineSession.open(text, source) once per problem, then
//                schedules() / simulate(name) / compare() / check() / exportAs() /
//                importCsv() / planner() / emitLp() / mipStart() / scheduleFromMip()
//       ─> core/pipeline/pipeline.h, problem_json.h, export.h, planner.h
#include <emscripten/bind.h>

#include <string>

#include "core/pipeline/export.h"
#include "core/pipeline/pipeline.h"
#include "wasm/pipeline_planner.h"
#include "wasm/pipeline_session.h"
#include "wasm/result.h"

namespace shardlab::pipeline::web {

using emscripten::val;
using shardlab::web::failure;
using shardlab::web::ok;
using shardlab::web::result_of;

val PipelineSession::open(const std::string& text, const std::string& source) {
  return result_of(read_problem_json(source, text), [](Problem problem) {
    return val(PipelineSession(std::make_shared<const Problem>(std::move(problem))));
  });
}

val PipelineSession::from_flags(const std::string& flags_json) {
  return result_of(problem_from_flags_json("flags", flags_json), [](Problem problem) {
    return val(PipelineSession(std::make_shared<const Problem>(std::move(problem))));
  });
}

std::string PipelineSession::normalized() const { return problem_json(*problem_); }

val PipelineSession::schedules() const {
  val out = val::array();
  for (const ScheduleInfo& info : list_schedules(*problem_)) {
    val row = val::object();
    row.set("name", info.name);
    row.set("summary", info.summary);
    row.set("applicable", info.applicable);
    row.set("reason", info.reason);
    out.call<void>("push", row);
  }
  return ok(out);
}

// The schedule JSON of a named schedule (also when it breaks the memory cap:
// then "valid" is false and "violations" say where); an error when it does
// not apply, with the reason.
val PipelineSession::simulate(const std::string& name) const {
  return result_of(run_schedule(*problem_, name),
                   [](ScheduleResult s) { return val(schedule_json(s)); });
}

val PipelineSession::compare() const { return ok(val(compare_json(*problem_))); }

// A schedule JSON (from anywhere) re-timed from its ops and checked.
val PipelineSession::check(const std::string& schedule) const {
  return result_of(read_schedule_json(*problem_, "schedule", schedule),
                   [](ScheduleResult s) { return val(schedule_json(s)); });
}

// format: "chrome-trace" or "pytorch-csv".
val PipelineSession::export_as(const std::string& schedule, const std::string& format) const {
  if (format != "chrome-trace" && format != "pytorch-csv") {
    return failure(Status(StatusCode::kInvalidArgument,
                          "unknown export format '" + format + "' (chrome-trace, pytorch-csv)"));
  }
  Result<ScheduleResult> s = read_schedule_json(*problem_, "schedule", schedule);
  if (!s.is_ok()) return failure(s.status());
  if (format == "chrome-trace") return ok(val(chrome_trace_json(s.value())));
  return result_of(pytorch_csv(s.value()));
}

val PipelineSession::import_csv(const std::string& csv, const std::string& source) const {
  return result_of(read_pytorch_csv(*problem_, source, csv),
                   [](ScheduleResult s) { return val(schedule_json(s)); });
}

}  // namespace shardlab::pipeline::web

EMSCRIPTEN_BINDINGS(pipeline) {
  using shardlab::pipeline::web::PipelinePlanner;
  using shardlab::pipeline::web::PipelineSession;
  emscripten::class_<PipelineSession>("PipelineSession")
      .class_function("open", &PipelineSession::open)
      .class_function("fromFlags", &PipelineSession::from_flags)
      .function("normalized", &PipelineSession::normalized)
      .function("schedules", &PipelineSession::schedules)
      .function("simulate", &PipelineSession::simulate)
      .function("compare", &PipelineSession::compare)
      .function("check", &PipelineSession::check)
      .function("exportAs", &PipelineSession::export_as)
      .function("importCsv", &PipelineSession::import_csv)
      .function("planner", &PipelineSession::planner)
      .function("emitLp", &PipelineSession::emit_lp)
      .function("mipStart", &PipelineSession::mip_start)
      .function("scheduleFromMip", &PipelineSession::schedule_from_mip);
  emscripten::class_<PipelinePlanner>("PipelinePlanner")
      .function("step", &PipelinePlanner::step)
      .function("finished", &PipelinePlanner::finished)
      .function("progress", &PipelinePlanner::progress)
      .function("bestJson", &PipelinePlanner::best_json)
      .function("offer", &PipelinePlanner::offer);
  emscripten::function("pipelinePlanOptionsSchema",
                       &shardlab::pipeline::web::plan_options_schema_of);
}
