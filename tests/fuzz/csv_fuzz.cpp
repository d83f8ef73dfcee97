// libFuzzer target for the PyTorch schedule CSV reader (core/pipeline/
// export.h): the first two input bytes pick the problem (devices 1..8,
// micro-batches 1..16, the format asked for), the rest is the CSV. Any input
// must end in a schedule or a one-line Status naming the file, never a crash,
// a hang or a sanitizer report; a CSV that reads must write back in both
// forms and read again to the same makespan. Build and run:
// tests/fuzz/run.sh csv SECONDS.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "core/pipeline/export.h"
#include "core/pipeline/pipeline.h"

namespace {

using namespace shardlab::pipeline;

void require(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  Problem problem = uniform_problem(1 + data[0] % 8, 1 + data[1] % 16, StageSpec{});
  problem.placement.chunks = 2;
  std::optional<CsvFormat> format;
  if ((data[0] >> 3) % 3 == 1) format = CsvFormat::kComputeOnly;
  if ((data[0] >> 3) % 3 == 2) format = CsvFormat::kComputeComms;
  const std::string_view text(reinterpret_cast<const char*>(data) + 2, size - 2);
  shardlab::Result<ScheduleResult> read = read_pytorch_csv(problem, "fuzz.csv", text, format);
  if (!read.is_ok()) {
    const std::string& message = read.status().message();
    require(message.rfind("fuzz.csv", 0) == 0);
    require(message.find('\n') == std::string::npos);
    return 0;
  }
  const ScheduleResult& s = read.value();
  require(s.check.valid);
  for (CsvFormat out : {CsvFormat::kComputeOnly, CsvFormat::kComputeComms}) {
    shardlab::Result<std::string> csv = pytorch_csv(s, out);
    require(csv.is_ok());
    shardlab::Result<ScheduleResult> again =
        read_pytorch_csv(s.problem, "again.csv", csv.value(), out);
    require(again.is_ok());
    require(again.value().metrics.makespan == s.metrics.makespan);
  }
  return 0;
}
