// Fuzz target for the teaching model reader (core/teach/model.h): any input
// ends in a model or a positioned Status, never a crash, a hang or a
// sanitizer report. A model that is read must generate its instance without
// an internal error or an overflow (every cost below the instance's
// "forbidden" value), and the instance and its sidecar must write as JSON.
// Built with libFuzzer by tests/fuzz/run.sh, or with driver.cpp for ctest.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/teach/teach.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace shardlab;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Result<teach::ModelSpec> model = teach::read_model("fuzz.json", text);
  if (!model.is_ok()) {
    const std::string& message = model.status().message();
    if (message.rfind("fuzz.json", 0) != 0 || message.find('\n') != std::string::npos) std::abort();
    return 0;
  }
  // Keep each input fast: the generator's work grows with ops and mesh axes.
  if (model.value().ops.size() > 40 || model.value().mesh.devices() > 4096) return 0;
  Result<teach::Generated> gen = teach::generate(model.value());
  if (!gen.is_ok()) {
    // A model the reader accepted must generate: anything else is a reader gap.
    std::abort();
  }
  const Problem& p = gen.value().problem;
  for (Cost c : p.strategy_cost) {
    if (c < 0 || c > kForbidden) std::abort();
  }
  (void)teach::instance_json(gen.value());
  (void)teach::sidecar_json(gen.value());
  return 0;
}
