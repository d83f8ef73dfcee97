// Options from the table in options.def: lookup, parsing, range checks and
// the JSON views shared by the CLI, the result writer and the wasm bindings.
#include "core/sharding/options.h"

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace shardlab {
namespace {

constexpr OptionInfo kTable[] = {
#define SHARDLAB_OPTION(name, kind, def, lo, hi, flag, help) \
  {#name, OptionKind::kind, static_cast<double>(def), lo, hi, flag, help},
#include "core/sharding/options.def"
#undef SHARDLAB_OPTION
};

void assign(Options* options, const std::string& name, double value) {
#define SHARDLAB_OPTION(oname, kind, def, lo, hi, flag, help) \
  if (name == #oname) options->oname = static_cast<decltype(options->oname)>(value);
#include "core/sharding/options.def"
#undef SHARDLAB_OPTION
}

std::string format_number(double value) {
  nlohmann::json j = value;
  if (value == std::floor(value) && std::fabs(value) < 9.1e15) j = static_cast<int64_t>(value);
  return j.dump();
}

}  // namespace

const OptionInfo* option_table(int* size) {
  *size = static_cast<int>(sizeof kTable / sizeof kTable[0]);
  return kTable;
}

Status set_option(Options* options, const std::string& key, const std::string& text) {
  for (const OptionInfo& info : kTable) {
    if (key != info.name && key != info.cli_flag) continue;
    const std::string range =
        " (expected " + std::string(info.kind == OptionKind::kInt ? "an integer" : "a number") +
        " from " + format_number(info.min) + " to " + format_number(info.max) + ")";
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value)) {
      return Status(StatusCode::kInvalidArgument, "option --" + std::string(info.cli_flag) +
                                                      ": cannot read '" + text + "'" + range);
    }
    if (value < info.min || value > info.max ||
        (info.kind == OptionKind::kInt && value != std::floor(value))) {
      return Status(StatusCode::kInvalidArgument, "option --" + std::string(info.cli_flag) + ": " +
                                                      text + " is out of range" + range);
    }
    assign(options, info.name, value);
    return Status::ok();
  }
  return Status(StatusCode::kInvalidArgument, "unknown option '" + key + "'");
}

std::string options_to_json(const Options& options) {
  nlohmann::ordered_json j;
#define SHARDLAB_OPTION(name, kind, def, lo, hi, flag, help) j[#name] = options.name;
#include "core/sharding/options.def"
#undef SHARDLAB_OPTION
  return j.dump();
}

std::string options_schema_json() {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const OptionInfo& info : kTable) {
    nlohmann::ordered_json row;
    row["name"] = info.name;
    row["kind"] = info.kind == OptionKind::kInt ? "int" : "real";
    row["default"] = nlohmann::json::parse(format_number(info.default_value));
    row["min"] = nlohmann::json::parse(format_number(info.min));
    row["max"] = nlohmann::json::parse(format_number(info.max));
    row["flag"] = std::string("--") + info.cli_flag;
    row["help"] = info.help;
    rows.push_back(row);
  }
  return rows.dump();
}

}  // namespace shardlab
