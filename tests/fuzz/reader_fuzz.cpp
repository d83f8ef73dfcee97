// libFuzzer target for the streaming reader: the first input byte picks the
// chunk size, the rest is fed as an instance. Any input must end in a model
// or a Status, never a crash, a hang or a sanitizer report; a second read in
// other chunks must give the same message. Build and run: tests/fuzz/run.sh.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/sharding/evaluate.h"
#include "core/sharding/io.h"

namespace {

std::string read_all(const uint8_t* data, size_t size, size_t chunk, bool* ok) {
  shardlab::InstanceReader reader("fuzz.json");
  for (size_t at = 0; at < size; at += chunk) {
    const shardlab::Status status = reader.feed(data + at, std::min(chunk, size - at));
    if (!status.is_ok()) {
      *ok = false;
      return status.message();
    }
  }
  shardlab::Result<shardlab::Problem> problem = reader.finish();
  *ok = problem.is_ok();
  if (!problem.is_ok()) return problem.status().message();
  // A model that loads must evaluate its least-usage plan without trouble.
  const shardlab::Problem& p = problem.value();
  std::vector<int32_t> plan(p.num_nodes(), 0);
  (void)shardlab::evaluate(p, plan);
  shardlab::IncrementalEvaluator inc(p, plan);
  (void)inc.peak();
  return "";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t chunk = 1 + data[0] % 97;
  bool ok_a = false;
  bool ok_b = false;
  const std::string a = read_all(data + 1, size - 1, chunk, &ok_a);
  const std::string b = read_all(data + 1, size - 1, size, &ok_b);
  if (a != b || ok_a != ok_b) std::abort();  // chunking changed the outcome
  return 0;
}
