// Fuzz target for the schedule JSON reader (read_schedule_json in
// core/pipeline/pipeline.h): the first byte picks one of three problems (a
// uniform p 2 m 2 chain, a p 4 m 8 chain with F&B pairs, an operator
// graph), the rest is the schedule. Any input ends in a checked schedule or
// a positioned Status, never a crash, a hang or a sanitizer report; a
// schedule that is read must write back as JSON.
// Built with libFuzzer by tests/fuzz/run.sh, or with driver.cpp for ctest.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "core/pipeline/pipeline.h"

namespace {

const std::vector<shardlab::pipeline::Problem>& problems() {
  using namespace shardlab::pipeline;
  static const std::vector<Problem> all = [] {
    std::vector<Problem> out;
    for (const char* text :
         {R"({"devices": 2, "microbatches": 2})",
          R"({"devices": 4, "microbatches": 8, "F": 1, "B": 1, "W": 1, "FB": 3, "mem_cap": 6})",
          R"({"devices": 2, "microbatches": 2, "operators": [{"name": "a", "devices": [0]},
              {"name": "b"}, {"name": "c", "devices": [1]}], "edges": [["a", "b"], ["b", "c"]]})"}) {
      out.push_back(read_problem_json("problem.json", text).value());
    }
    return out;
  }();
  return all;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace shardlab::pipeline;
  if (size == 0) return 0;
  const Problem& problem = problems()[data[0] % problems().size()];
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  shardlab::Result<ScheduleResult> read = read_schedule_json(problem, "fuzz.json", text);
  if (!read.is_ok()) {
    const std::string& message = read.status().message();
    if (message.rfind("fuzz.json", 0) != 0 || message.find('\n') != std::string::npos) std::abort();
    if (read.status().code() == shardlab::StatusCode::kInternal) std::abort();
    return 0;
  }
  (void)schedule_json(read.value());
  return 0;
}
