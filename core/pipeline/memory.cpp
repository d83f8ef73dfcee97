// The transformer-layer memory count of memory.h and the --transformer
// flag's text.
#include "core/pipeline/memory.h"

#include <cmath>
#include <cstdlib>
#include <vector>

namespace shardlab::pipeline {

double layer_activation_bytes(const TransformerSpec& t) {
  const double sbh = t.seq * t.micro_batch * t.hidden;
  return (34 * sbh + 5 * t.heads * t.seq * t.seq * t.micro_batch) / t.tensor_parallel;
}

double layer_keep_bytes(const TransformerSpec& t) {
  return 32 * t.seq * t.micro_batch * t.hidden / t.tensor_parallel;
}

double layer_static_bytes(const TransformerSpec& t) {
  return (12 * t.hidden * t.hidden + 13 * t.hidden) / t.tensor_parallel * t.bytes_per_param;
}

void apply_transformer(const TransformerSpec& t, StageSpec* share) {
  share->act = t.layers * layer_activation_bytes(t);
  share->keep = t.layers * layer_keep_bytes(t);
  share->param = t.layers * layer_static_bytes(t);
}

Result<TransformerSpec> parse_transformer(std::string_view text) {
  TransformerSpec t;
  bool seen_h = false, seen_s = false, seen_a = false;
  auto bad = [&](const std::string& why) {
    return Status(StatusCode::kInvalidArgument, "--transformer: " + why);
  };
  size_t at = 0;
  while (at <= text.size()) {
    size_t end = text.find(',', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view item = text.substr(at, end - at);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return bad("expected KEY=VALUE items (h, s, b, a, t, layers, bytes_per_param), got '" +
                 std::string(item) + "'");
    }
    const std::string key(item.substr(0, eq)), value(item.substr(eq + 1));
    char* stop = nullptr;
    const double v = std::strtod(value.c_str(), &stop);
    if (value.empty() || stop != value.c_str() + value.size() || !std::isfinite(v) || v <= 0 ||
        v > 1e7) {
      return bad(key + " needs a number above 0 and at most 1e7, got '" + value + "'");
    }
    const bool whole = v == std::floor(v);
    if (key == "h") {
      t.hidden = v;
      seen_h = true;
    } else if (key == "s") {
      t.seq = v;
      seen_s = true;
    } else if (key == "b") {
      t.micro_batch = v;
    } else if (key == "a") {
      t.heads = v;
      seen_a = true;
    } else if (key == "t") {
      t.tensor_parallel = v;
    } else if (key == "layers") {
      t.layers = v;
    } else if (key == "bytes_per_param") {
      t.bytes_per_param = v;
    } else {
      return bad("unknown key '" + key + "' (h, s, b, a, t, layers, bytes_per_param)");
    }
    if (!whole && key != "layers" && key != "bytes_per_param") {
      return bad(key + " needs a whole number, got '" + value + "'");
    }
    at = end + 1;
  }
  if (!seen_h || !seen_s || !seen_a) return bad("h, s and a are required, e.g. h=4096,s=2048,a=32");
  return t;
}

}  // namespace shardlab::pipeline
