// The pipeline planner as the page's worker drives it: a Planner built by
// PipelineSession::planner() over the session's problem, stepped in time
// slices by web/worker_loop.mjs, reporting the one progress record
// (core/progress.h). Defined in pipeline_planner_bindings.cpp.
#pragma once

#include <emscripten/val.h>

#include <memory>
#include <string>

#include "core/pipeline/model.h"
#include "core/pipeline/planner.h"

namespace shardlab::pipeline::web {

class PipelinePlanner {
 public:
  PipelinePlanner(std::shared_ptr<const Problem> problem, std::shared_ptr<Planner> planner)
      : problem_(std::move(problem)), planner_(std::move(planner)) {}

  bool step(double work);  // true when the schedule or the bound improved
  bool finished() const;
  emscripten::val progress(double elapsed_s) const;  // the record at elapsedS
  emscripten::val best_json() const;                 // the best schedule JSON text
  // A schedule JSON from elsewhere (a link, IndexedDB, the MIP): {ok, value:
  // true when it became the incumbent}, or why it cannot be read.
  emscripten::val offer(const std::string& schedule);

 private:
  std::shared_ptr<const Problem> problem_;
  std::shared_ptr<Planner> planner_;
};

emscripten::val plan_options_schema_of();

}  // namespace shardlab::pipeline::web
