// Number text for the pipeline lab's messages, tables and JSON: integral
// values print without a fraction ("4", not "4.0"), others in the shortest
// form that reads back to the same double (nlohmann's Grisu2, which the
// native build and the wasm build share, so outputs match byte for byte).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/pipeline/model.h"

namespace shardlab::pipeline {

std::string number_text(double value);
// The same rule for JSON output: integral values as JSON integers.
nlohmann::ordered_json json_number(double value);
// A problem's memory caps as JSON: null (none), one number (all equal) or
// one per device.
nlohmann::ordered_json caps_json(const std::vector<double>& caps);
inline std::string time_text(const Expansion& e, int64_t ticks) {
  return number_text(e.time_value(ticks));
}
inline std::string mem_text(const Expansion& e, int64_t ticks) {
  return number_text(e.mem_value(ticks));
}

}  // namespace shardlab::pipeline
