// The pipeline lab's session: a problem parsed once (from the problem text
// the page read or typed, or from the CLI's flags), on which every call runs
// (list, simulate, compare, check, export, import, the planner and the MIP)
// without reading the problem again. One lives in the pipeline worker
// (web/pipeline/worker.js); text crosses only when a file is read or
// written (a schedule or CSV imported, a trace or CSV exported, LP text
// for HiGHS). Defined in pipeline_bindings.cpp (problem calls) and
// pipeline_planner_bindings.cpp (planner and MIP calls); results in the
// shape of wasm/result.h.
#pragma once

#include <emscripten/val.h>

#include <map>
#include <memory>
#include <string>

#include "core/pipeline/model.h"
#include "core/pipeline/planner.h"

namespace shardlab::pipeline::web {

class PipelineSession {
 public:
  explicit PipelineSession(std::shared_ptr<const Problem> problem) : problem_(std::move(problem)) {}

  // PipelineSession.open(text, source) / .fromFlags(flagsJson): a session
  // or the reader's positioned error naming `source` ("flags").
  static emscripten::val open(const std::string& text, const std::string& source);
  static emscripten::val from_flags(const std::string& flags_json);

  const Problem& problem() const { return *problem_; }
  std::shared_ptr<const Problem> shared() const { return problem_; }

  std::string normalized() const;     // the problem JSON, defaults written out
  emscripten::val schedules() const;  // [{name, summary, applicable, reason}]
  emscripten::val simulate(const std::string& name) const;   // schedule JSON text
  emscripten::val compare() const;                           // compare JSON text
  emscripten::val check(const std::string& schedule) const;  // a schedule file, re-timed
  emscripten::val export_as(const std::string& schedule, const std::string& format) const;
  emscripten::val import_csv(const std::string& csv, const std::string& source) const;

  // Planner and MIP (pipeline_planner_bindings.cpp); options as JSON text
  // (core/pipeline/plan/options.def, "placement", "chunks").
  emscripten::val planner(const std::string& options_json) const;
  emscripten::val emit_lp(const std::string& options_json);
  emscripten::val mip_start(const std::string& options_json, const std::string& schedule);
  emscripten::val schedule_from_mip(const std::string& options_json, const std::string& solution);

 private:
  // The planner behind the MIP calls, kept for the options it was built with
  // (each MIP incumbent maps back through it).
  Result<const Planner*> mip_planner(const std::string& options_json);

  std::shared_ptr<const Problem> problem_;
  std::shared_ptr<Planner> mip_;
  std::string mip_options_;
};

}  // namespace shardlab::pipeline::web
