// See numbers.h.
#include "core/pipeline/numbers.h"

#include <algorithm>
#include <cmath>

namespace shardlab::pipeline {

std::string number_text(double value) {
  if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 1e15) {
    return std::to_string(static_cast<int64_t>(value));
  }
  return nlohmann::json(value).dump();
}

nlohmann::ordered_json json_number(double value) {
  if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 9e15) {
    return static_cast<int64_t>(value);
  }
  return value;
}

nlohmann::ordered_json caps_json(const std::vector<double>& caps) {
  if (caps.empty()) return nullptr;
  if (std::all_of(caps.begin(), caps.end(), [&](double c) { return c == caps[0]; })) {
    return json_number(caps[0]);
  }
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (double c : caps) out.push_back(json_number(c));
  return out;
}

}  // namespace shardlab::pipeline
