// The --fix grammar and its checks (fix.h).
#include "core/plan/fix.h"

#include <cctype>
#include <charconv>
#include <type_traits>

#include "core/plan/config.h"

namespace shardlab::plan {
namespace {

Status bad(std::string_view item, const std::string& expected) {
  return Status(StatusCode::kInvalidArgument,
                "--fix: at '" + std::string(item) + "': expected " + expected);
}

bool parse_int(std::string_view text, int64_t* out) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string str(int64_t v) { return std::to_string(v); }

Status invalid(std::string message) {
  return Status(StatusCode::kInvalidArgument, std::move(message));
}

}  // namespace

bool Fix::empty() const {
  return !tp && !pp && !dp && !ep && !vpp && !sequence_parallel && !zero && !schedule &&
         !microbatch_size && !microbatches && !recompute && !stage_layers;
}

Result<Fix> parse_fix(std::string_view text) {
  Fix fix;
  if (text.empty()) return fix;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view item = text.substr(pos, comma - pos);
    pos = comma + 1;
    if (item.empty()) {
      if (comma == text.size() && !text.empty()) break;
      return bad(item,
                 "key=value (tp, pp, dp, ep, vpp, sp, zero, schedule, mbs, microbatches, "
                 "recompute, layers)");
    }
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      return bad(item,
                 "key=value (tp, pp, dp, ep, vpp, sp, zero, schedule, mbs, microbatches, "
                 "recompute, layers)");
    }
    const std::string key = lower(item.substr(0, eq));
    const std::string_view value = item.substr(eq + 1);
    int64_t n = 0;
    const auto positive = [&](auto* slot, int64_t limit) -> Status {
      if (!parse_int(value, &n) || n < 1 || n > limit) {
        return bad(item, "a positive integer");
      }
      *slot = static_cast<std::remove_reference_t<decltype(**slot)>>(n);
      return Status::ok();
    };
    Status s;
    if (key == "tp") {
      s = positive(&fix.tp, 1 << 20);
    } else if (key == "pp") {
      s = positive(&fix.pp, 1 << 20);
    } else if (key == "dp") {
      s = positive(&fix.dp, 1 << 24);
    } else if (key == "ep") {
      s = positive(&fix.ep, 1 << 20);
    } else if (key == "vpp" || key == "v") {
      s = positive(&fix.vpp, 1 << 10);
    } else if (key == "mbs" || key == "microbatch_size") {
      s = positive(&fix.microbatch_size, int64_t{1} << 40);
    } else if (key == "microbatches" || key == "m") {
      s = positive(&fix.microbatches, int64_t{1} << 40);
    } else if (key == "zero") {
      if (!parse_int(value, &n) || n < 0 || n > 3) return bad(item, "0, 1, 2 or 3");
      fix.zero = static_cast<int32_t>(n);
    } else if (key == "sp") {
      const std::string v = lower(value);
      if (v == "on" || v == "true" || v == "1") {
        fix.sequence_parallel = true;
      } else if (v == "off" || v == "false" || v == "0") {
        fix.sequence_parallel = false;
      } else {
        return bad(item, "on or off");
      }
    } else if (key == "schedule") {
      std::string canonical;
      if (!find_plan_schedule(value, &canonical)) {
        return bad(item, "1f1b, interleaved, zb-h1, zb-h2, zbv, dualpipev or gpipe");
      }
      fix.schedule = canonical;
    } else if (key == "recompute") {
      Recompute r;
      if (!parse_recompute(value, &r)) return bad(item, "none, selective or full");
      fix.recompute = r;
    } else if (key == "layers" || key == "stages") {
      std::vector<int32_t> layers;
      size_t at = 0;
      while (at <= value.size()) {
        size_t slash = value.find('/', at);
        if (slash == std::string_view::npos) slash = value.size();
        if (!parse_int(value.substr(at, slash - at), &n) || n < 1 || n > (1 << 20)) {
          return bad(item, "layers per stage as positive integers separated by '/'");
        }
        layers.push_back(static_cast<int32_t>(n));
        at = slash + 1;
      }
      fix.stage_layers = layers;
    } else {
      return bad(item,
                 "one of the keys tp, pp, dp, ep, vpp, sp, zero, schedule, mbs, "
                 "microbatches, recompute, layers");
    }
    if (!s.is_ok()) return s;
    if (comma == text.size()) break;
  }
  return fix;
}

std::string fix_text(const Fix& fix) {
  std::string out;
  const auto add = [&out](const std::string& item) { out += (out.empty() ? "" : ",") + item; };
  if (fix.tp) add("tp=" + str(*fix.tp));
  if (fix.pp) add("pp=" + str(*fix.pp));
  if (fix.dp) add("dp=" + str(*fix.dp));
  if (fix.ep) add("ep=" + str(*fix.ep));
  if (fix.vpp) add("vpp=" + str(*fix.vpp));
  if (fix.sequence_parallel) add(std::string("sp=") + (*fix.sequence_parallel ? "on" : "off"));
  if (fix.zero) add("zero=" + str(*fix.zero));
  if (fix.schedule) add("schedule=" + *fix.schedule);
  if (fix.microbatch_size) add("mbs=" + str(*fix.microbatch_size));
  if (fix.microbatches) add("microbatches=" + str(*fix.microbatches));
  if (fix.recompute) add(std::string("recompute=") + recompute_name(*fix.recompute));
  if (fix.stage_layers) {
    std::string list;
    for (int32_t n : *fix.stage_layers) list += (list.empty() ? "" : "/") + str(n);
    add("layers=" + list);
  }
  return out;
}

bool fix_admits(const Fix& fix, const Plan& plan) {
  if (fix.tp && *fix.tp != plan.tp) return false;
  if (fix.pp && *fix.pp != plan.pp) return false;
  if (fix.dp && *fix.dp != plan.dp) return false;
  if (fix.ep && *fix.ep != plan.ep) return false;
  if (fix.vpp && *fix.vpp != plan.vpp) return false;
  if (fix.sequence_parallel && *fix.sequence_parallel != plan.sequence_parallel) return false;
  if (fix.zero && *fix.zero != plan.zero) return false;
  if (fix.schedule && *fix.schedule != plan.schedule) return false;
  if (fix.microbatch_size && *fix.microbatch_size != plan.microbatch_size) return false;
  if (fix.microbatches && *fix.microbatches != plan.microbatches) return false;
  if (fix.recompute && *fix.recompute != plan.recompute) return false;
  if (fix.stage_layers && !plan.stage_layers.empty() && *fix.stage_layers != plan.stage_layers) {
    return false;
  }
  return true;
}

Status check_fix(const Fix& fix, const ModelFacts& model, const Cluster& cluster,
                 const Training& training) {
  const int64_t gpus = cluster.gpus();
  // Sizes against the GPU count.
  if (fix.tp && fix.pp && fix.dp) {
    const int64_t product = int64_t{*fix.tp} * *fix.pp * *fix.dp;
    if (product != gpus) {
      return invalid("tp=" + str(*fix.tp) + " x pp=" + str(*fix.pp) + " x dp=" + str(*fix.dp) +
                     " = " + str(product) + " GPUs, the cluster has " + str(gpus));
    }
  }
  {
    int64_t product = 1;
    std::string names;
    for (const auto& [name, value] :
         {std::pair{"tp", fix.tp}, std::pair{"pp", fix.pp}, std::pair{"dp", fix.dp}}) {
      if (!value) continue;
      product *= *value;
      names += (names.empty() ? "" : " x ") + std::string(name) + "=" + str(*value);
    }
    if (gpus % product != 0) {
      return invalid(names + " = " + str(product) + " GPUs does not divide the cluster's " +
                     str(gpus));
    }
  }
  if (fix.tp && model.heads > 0 && model.heads % *fix.tp != 0) {
    return invalid("tp=" + str(*fix.tp) + " does not divide the " + str(model.heads) +
                   " attention heads");
  }
  if (fix.sequence_parallel && *fix.sequence_parallel && fix.tp && *fix.tp == 1) {
    return invalid("sp=on needs tp > 1");
  }
  if (fix.ep && *fix.ep > 1) {
    if (model.experts == 0)
      return invalid("ep=" + str(*fix.ep) + " needs a mixture-of-experts model");
    if (model.experts % *fix.ep != 0) {
      return invalid("ep=" + str(*fix.ep) + " does not divide the " + str(model.experts) +
                     " experts");
    }
    if (fix.dp && *fix.dp % *fix.ep != 0) {
      return invalid("ep=" + str(*fix.ep) + " does not divide dp=" + str(*fix.dp) +
                     " (expert parallelism is carved out of data parallelism)");
    }
  }
  // Schedule and chunks.
  if (fix.schedule) {
    const ScheduleShape shape = schedule_shape(*fix.schedule, fix.vpp.value_or(2));
    if (fix.vpp) {
      if (*fix.schedule == "Interleaved1F1B" && *fix.vpp < 2) {
        return invalid("the interleaved schedule needs vpp >= 2, found vpp=" + str(*fix.vpp));
      }
      if (shape.placement == pipeline::PlacementKind::kVShape && *fix.vpp != 2) {
        return invalid(*fix.schedule + " puts 2 chunks on each device (a V); vpp=" + str(*fix.vpp));
      }
      if (shape.placement == pipeline::PlacementKind::kLinear && *fix.vpp != 1) {
        return invalid(*fix.schedule + " runs one chunk per device; vpp=" + str(*fix.vpp) +
                       " needs the interleaved schedule");
      }
    }
  }
  const int32_t chunks_min = fix.vpp ? *fix.vpp
                             : fix.schedule && *fix.schedule != "Interleaved1F1B"
                                 ? schedule_shape(*fix.schedule, 1).chunks
                             : fix.schedule ? 2
                                            : 1;
  if (fix.pp && int64_t{*fix.pp} * chunks_min > model.layers) {
    if (chunks_min == 1) {
      return invalid("pp=" + str(*fix.pp) + " stages, the model has " + str(model.layers) +
                     " layers");
    }
    return invalid("pp=" + str(*fix.pp) + " x " + str(chunks_min) +
                   " chunks = " + str(int64_t{*fix.pp} * chunks_min) + " stages, the model has " +
                   str(model.layers) + " layers");
  }
  // The batch.
  const int64_t B = training.global_batch;
  int64_t batch_part = 1;
  std::string batch_names;
  for (const auto& [name, value] :
       {std::pair{"dp", fix.dp ? std::optional<int64_t>(*fix.dp) : std::nullopt},
        std::pair{"mbs", fix.microbatch_size}, std::pair{"microbatches", fix.microbatches}}) {
    if (!value) continue;
    batch_part *= *value;
    batch_names += (batch_names.empty() ? "" : " x ") + std::string(name) + "=" + str(*value);
  }
  if (fix.dp && fix.microbatch_size && fix.microbatches && batch_part != B) {
    return invalid(batch_names + " = " + str(batch_part) + " sequences, the global batch is " +
                   str(B));
  }
  if (B % batch_part != 0) {
    return invalid(batch_names + " = " + str(batch_part) +
                   " sequences does not divide the global batch of " + str(B));
  }
  if (fix.stage_layers) {
    int64_t sum = 0;
    for (int32_t n : *fix.stage_layers) sum += n;
    if (sum != model.layers) {
      return invalid("layers=... holds " + str(sum) + " layers, the model has " +
                     str(model.layers));
    }
  }
  if (fix.zero && *fix.zero > 0 && fix.dp && *fix.dp == 1) {
    return invalid("zero=" + str(*fix.zero) + " shards over data parallelism; dp=1 has none");
  }
  return Status::ok();
}

}  // namespace shardlab::plan
