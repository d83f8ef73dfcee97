// Number text for the pipeline lab's messages, tables and JSON: integral
// values print without a fraction ("4", not "4.0"), others in the shortest
// form that reads back to the same double (nlohmann's Grisu2, which the
// native build and the wasm build share, so outputs match byte for byte).
#pragma once

#include <cstdint>
#include <string>

#include "core/pipeline/model.h"

namespace shardlab::pipeline {

std::string number_text(double value);
inline std::string time_text(const Expansion& e, int64_t ticks) {
  return number_text(e.time_value(ticks));
}
inline std::string mem_text(const Expansion& e, int64_t ticks) {
  return number_text(e.mem_value(ticks));
}

}  // namespace shardlab::pipeline
