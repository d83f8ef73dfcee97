// The pipeline lab's JavaScript surface (schedules, checks, exports; the planner's is in
// pipeline_planner_bindings.cpp): JSON text in and out, errors as
// {"error": "message"}. Each function reads the problem JSON afresh (they
// are cheap next to what they compute), so the page holds no C++ objects.
//
// Call chain:
//   web/pipeline/lab.mjs ── postMessage ──> web/pipeline/worker.js
//     worker.js: pipelineSchedules / pipelineSimulate / pipelineCompare /
//                pipelineCheck / pipelineExport / pipelineImportCsv /
//                pipelineNormalize / pipelineProblemFromFlags
//       ─> core/pipeline/pipeline.h (generators, simulator, checker,
//          closed forms, schedule JSON), problem_json.h, export.h
#include <emscripten/bind.h>

#include <nlohmann/json.hpp>
#include <string>

#include "core/pipeline/export.h"
#include "core/pipeline/pipeline.h"

namespace shardlab::pipeline::web {
namespace {

// Errors name the problem "problem" (and the other texts by their role), as
// the page has no file names for text typed into its editor.
constexpr const char* kProblemSource = "problem";

std::string error_json(const std::string& message) {
  return nlohmann::json{{"error", message}}.dump();
}

// [{"name", "summary", "applicable", "reason"}].
std::string pipeline_schedules(const std::string& problem_text) {
  Result<Problem> problem = read_problem_json(kProblemSource, problem_text);
  if (!problem.is_ok()) return error_json(problem.status().message());
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const ScheduleInfo& info : list_schedules(problem.value())) {
    out.push_back({{"name", info.name},
                   {"summary", info.summary},
                   {"applicable", info.applicable},
                   {"reason", info.reason}});
  }
  return out.dump();
}

// The schedule JSON of a named schedule (also when it breaks the memory cap:
// then "valid" is false and "violations" say where).
std::string pipeline_simulate(const std::string& problem_text, const std::string& name) {
  Result<Problem> problem = read_problem_json(kProblemSource, problem_text);
  if (!problem.is_ok()) return error_json(problem.status().message());
  Result<ScheduleResult> s = run_schedule(problem.value(), name);
  if (!s.is_ok()) return error_json(s.status().message());
  return schedule_json(s.value());
}

std::string pipeline_compare(const std::string& problem_text) {
  Result<Problem> problem = read_problem_json(kProblemSource, problem_text);
  if (!problem.is_ok()) return error_json(problem.status().message());
  return compare_json(problem.value());
}

// A schedule JSON (from anywhere) re-timed from its ops and checked.
std::string pipeline_check(const std::string& problem_text, const std::string& schedule) {
  Result<Problem> problem = read_problem_json(kProblemSource, problem_text);
  if (!problem.is_ok()) return error_json(problem.status().message());
  Result<ScheduleResult> s = read_schedule_json(problem.value(), "schedule", schedule);
  if (!s.is_ok()) return error_json(s.status().message());
  return schedule_json(s.value());
}

// format: "chrome-trace" or "pytorch-csv".
std::string pipeline_export(const std::string& problem_text, const std::string& schedule,
                            const std::string& format) {
  Result<Problem> problem = read_problem_json(kProblemSource, problem_text);
  if (!problem.is_ok()) return error_json(problem.status().message());
  Result<ScheduleResult> s = read_schedule_json(problem.value(), "schedule", schedule);
  if (!s.is_ok()) return error_json(s.status().message());
  if (format == "chrome-trace") return chrome_trace_json(s.value());
  if (format == "pytorch-csv") {
    Result<std::string> csv = pytorch_csv(s.value());
    return csv.is_ok() ? csv.value() : error_json(csv.status().message());
  }
  return error_json("unknown export format '" + format + "' (chrome-trace, pytorch-csv)");
}

std::string pipeline_import_csv(const std::string& problem_text, const std::string& csv,
                                const std::string& source_name) {
  Result<Problem> problem = read_problem_json(kProblemSource, problem_text);
  if (!problem.is_ok()) return error_json(problem.status().message());
  Result<ScheduleResult> s = read_pytorch_csv(problem.value(), source_name, csv);
  if (!s.is_ok()) return error_json(s.status().message());
  return schedule_json(s.value());
}

// The problem with every default written out; errors name `source_name`
// (the page passes the opened file's name) exactly as the CLI would.
std::string pipeline_normalize(const std::string& problem_text, const std::string& source_name) {
  Result<Problem> problem = read_problem_json(source_name, problem_text);
  if (!problem.is_ok()) return error_json(problem.status().message());
  return problem_json(problem.value());
}

// The CLI's flags as JSON ({"stages": 4, "microbatches": 8, "F": 1, ...})
// to the problem the CLI builds from them, as problem JSON.
std::string pipeline_problem_from_flags(const std::string& flags_json) {
  Result<Problem> problem = problem_from_flags_json("flags", flags_json);
  if (!problem.is_ok()) return error_json(problem.status().message());
  return problem_json(problem.value());
}

}  // namespace

EMSCRIPTEN_BINDINGS(pipeline) {
  emscripten::function("pipelineSchedules", &pipeline_schedules);
  emscripten::function("pipelineSimulate", &pipeline_simulate);
  emscripten::function("pipelineCompare", &pipeline_compare);
  emscripten::function("pipelineCheck", &pipeline_check);
  emscripten::function("pipelineExport", &pipeline_export);
  emscripten::function("pipelineImportCsv", &pipeline_import_csv);
  emscripten::function("pipelineNormalize", &pipeline_normalize);
  emscripten::function("pipelineProblemFromFlags", &pipeline_problem_from_flags);
}

}  // namespace shardlab::pipeline::web
