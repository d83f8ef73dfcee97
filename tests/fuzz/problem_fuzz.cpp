// Fuzz target for the pipeline problem reader (core/pipeline/problem_json.h):
// any input ends in a Problem or a positioned Status, never a crash, a hang
// or a sanitizer report. A problem that is read must write back as JSON
// (every string valid UTF-8), and on a small problem without a memory cap
// every published schedule that applies must pass the independent checker.
// Built with libFuzzer by tests/fuzz/run.sh, or with driver.cpp for ctest.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/pipeline/pipeline.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace shardlab::pipeline;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  shardlab::Result<Problem> problem = read_problem_json("fuzz.json", text);
  if (!problem.is_ok()) {
    // Every refusal names the file first (one line, the house format).
    const std::string& message = problem.status().message();
    if (message.rfind("fuzz.json", 0) != 0 || message.find('\n') != std::string::npos) std::abort();
    return 0;
  }
  const Problem& p = problem.value();
  (void)problem_json(p);
  // Schedules only for small expansions (interleaved splits each share into
  // up to `chunks` stages), so that each input stays fast.
  const int64_t stages =
      p.form == Form::kOperators
          ? static_cast<int64_t>(p.operators.size())
          : std::max<int64_t>(int64_t{p.devices} * std::max(p.placement.chunks, 2),
                              2 * static_cast<int64_t>(p.stages.size()));
  if (3 * int64_t{p.microbatches} * stages > 3000) return 0;
  for (const ScheduleInfo& info : list_schedules(p)) {
    if (!info.applicable) continue;
    shardlab::Result<ScheduleResult> run = run_schedule(p, info.name);
    if (!run.is_ok()) {
      if (run.status().code() == shardlab::StatusCode::kInternal) std::abort();
      continue;
    }
    if (p.mem_cap.empty() && !run.value().check.valid) std::abort();
    (void)schedule_json(run.value());
  }
  return 0;
}
