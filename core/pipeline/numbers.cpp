// See numbers.h.
#include "core/pipeline/numbers.h"

#include <cmath>
#include <nlohmann/json.hpp>

namespace shardlab::pipeline {

std::string number_text(double value) {
  if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 1e15) {
    return std::to_string(static_cast<int64_t>(value));
  }
  return nlohmann::json(value).dump();
}

}  // namespace shardlab::pipeline
