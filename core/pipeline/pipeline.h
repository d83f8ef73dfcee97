// The pipeline lab's facade: the one header the CLI, the wasm bindings and
// the planner's callers include.
//
// Lifecycle:
//   Result<Problem> problem = read_problem_json(file, text);     // or uniform_problem(...)
//   Result<ScheduleResult> s = run_schedule(problem, "1F1B");    // generate + simulate + check
//   //   or: plan with the planner (core/pipeline/planner.h), then
//   //   evaluate_timeline(problem, expansion, timeline, "planned")
//   s.value().check.valid;                                       // independent check
//   schedule_json(s.value());                                    // the schedule JSON
//   chrome_trace_json(s.value()); pytorch_csv(s.value());        // exports (export.h)
//   read_pytorch_csv(problem, file, text);                       // import (export.h)
//
// Pieces, one file each: model.h (problem, placement, expansion),
// simulate.h (event simulator, metrics), generators.h (published orders),
// check.h (independent checker), closed_form.h (formulas and their
// assumptions), problem_json.h (the problem file format), export.h (Chrome
// trace, PyTorch pipelining CSV).
//
// Schedule JSON ("format": "shardlab-pipeline-schedule", "version": 1): see
// schedule_json() below and the README's pipeline section.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/pipeline/check.h"
#include "core/pipeline/closed_form.h"
#include "core/pipeline/generators.h"
#include "core/pipeline/model.h"
#include "core/pipeline/problem_json.h"
#include "core/pipeline/simulate.h"
#include "core/progress.h"
#include "core/status.h"

namespace shardlab::pipeline {

// A timed schedule with everything reported about it.
struct ScheduleResult {
  std::string name;  // "1F1B", ..., "planned", "mip", "imported"
  Problem problem;
  Expansion expansion;
  Timeline timeline;
  Metrics metrics;
  CheckReport check;
  std::optional<ClosedForm> closed;   // the published schedules' formulas
  std::optional<double> lower_bound;  // time units; from a planner
  std::optional<bool> optimal;
  std::optional<Counters> planner_counters;  // the planner's counters (written as "planner")
  std::optional<double> seconds;             // time the planner took
};

// Generates, simulates and checks a named schedule; fails with the reason
// when it does not apply.
Result<ScheduleResult> run_schedule(const Problem& problem, std::string_view name);

// Measures and checks a timeline found elsewhere (planner, MIP, import).
ScheduleResult evaluate_timeline(const Problem& problem, Expansion expansion, Timeline timeline,
                                 std::string name);

// The schedule JSON. indent < 0: one line.
std::string schedule_json(const ScheduleResult& schedule, int indent = -1);

// Every schedule on the problem, side by side, as a JSON array of
// {"name", "summary", "applicable", "reason"} and, when it applies,
// "makespan", "global_idle_max", "span_idle_max", "peak_activation_max",
// "peak_parameter_max", "devices", "valid", "violation" (the first, when
// invalid) and "closed_form": {"formula", "value", "metric", "holds",
// "matches"} (null for "list").
std::string compare_json(const Problem& problem);

// Reads a schedule JSON (as schedule_json() writes it, or edited by hand or
// by another tool) back onto the problem: the ops' devices, kinds,
// micro-batches, stages and times are taken, everything else is recomputed
// and checked. Errors name the file, position and JSON path.
Result<ScheduleResult> read_schedule_json(const Problem& problem, const std::string& source,
                                          std::string_view text);

}  // namespace shardlab::pipeline
