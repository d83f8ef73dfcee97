// The option tables' shared code (options_table.h): lookups, range checks
// for CLI text and for JSON members, and the JSON views (values, schema).
#include "core/options_table.h"

#include <cmath>
#include <cstdlib>

namespace shardlab {

nlohmann::ordered_json option_number(double value) {
  if (value == std::floor(value) && std::fabs(value) < 9.1e15) return static_cast<int64_t>(value);
  return value;
}

OptionTable::OptionTable(std::string what, std::vector<OptionRow> rows)
    : what_(std::move(what)), rows_(std::move(rows)) {}

const OptionRow* OptionTable::find(std::string_view key) const {
  for (const OptionRow& row : rows_) {
    if (key == row.info.name || key == row.info.cli_flag) return &row;
  }
  return nullptr;
}

namespace {

std::string range_text(const OptionInfo& info) {
  return std::string(info.kind == OptionKind::kInt ? "an integer" : "a number") + " from " +
         option_number(info.min).dump() + " to " + option_number(info.max).dump();
}

bool in_range(const OptionInfo& info, double value) {
  return std::isfinite(value) && value >= info.min && value <= info.max &&
         (info.kind == OptionKind::kReal || value == std::floor(value));
}

}  // namespace

Status OptionTable::set_text(void* options, const std::string& key, const std::string& text) const {
  const OptionRow* row = find(key);
  if (row == nullptr)
    return Status(StatusCode::kInvalidArgument, "unknown " + what_ + " '" + key + "'");
  const std::string flag = "option --" + std::string(row->info.cli_flag);
  const std::string range = " (expected " + range_text(row->info) + ")";
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value)) {
    return Status(StatusCode::kInvalidArgument, flag + ": cannot read '" + text + "'" + range);
  }
  if (!in_range(row->info, value)) {
    return Status(StatusCode::kInvalidArgument, flag + ": " + text + " is out of range" + range);
  }
  row->set(options, value);
  return Status::ok();
}

Status OptionTable::read_json(void* options, const json::JsonAt& object,
                              const std::vector<std::string_view>& extra_keys,
                              const ExtraKey& extra) const {
  const Status s = read_members(options, object, extra_keys, extra);
  return s.is_ok() ? s : Status(StatusCode::kInvalidArgument, s.message());
}

Status OptionTable::read_members(void* options, const json::JsonAt& object,
                                 const std::vector<std::string_view>& extra_keys,
                                 const ExtraKey& extra) const {
  std::vector<std::string_view> allowed;
  for (const OptionRow& row : rows_) allowed.push_back(row.info.name);
  allowed.insert(allowed.end(), extra_keys.begin(), extra_keys.end());
  Status s = object.only_keys(allowed);
  if (!s.is_ok()) return s;
  const std::vector<std::string> keys = object.keys();
  for (size_t i = 0; i < keys.size(); ++i) {
    const json::JsonAt value = object.member(i);
    const OptionRow* row = nullptr;
    for (const OptionRow& r : rows_) {
      if (keys[i] == r.info.name) row = &r;
    }
    if (row == nullptr) {
      if (!extra) return value.error("one of the " + what_ + "s");
      if (!(s = extra(keys[i], value)).is_ok()) return s;
      continue;
    }
    const bool number = value.is(json::Kind::kNumber);
    if (!number || !in_range(row->info, value.value().number)) {
      return value.error(range_text(row->info));
    }
    row->set(options, value.value().number);
  }
  return Status::ok();
}

nlohmann::ordered_json OptionTable::to_json(const void* options) const {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const OptionRow& row : rows_) {
    const double v = row.get(options);
    if (row.info.kind == OptionKind::kInt) {
      j[row.info.name] = static_cast<int64_t>(v);
    } else {
      j[row.info.name] = v;
    }
  }
  return j;
}

nlohmann::ordered_json OptionTable::schema() const {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const OptionRow& row : rows_) {
    nlohmann::ordered_json r;
    r["name"] = row.info.name;
    r["kind"] = row.info.kind == OptionKind::kInt ? "int" : "real";
    r["default"] = option_number(row.info.default_value);
    r["min"] = option_number(row.info.min);
    r["max"] = option_number(row.info.max);
    r["flag"] = std::string("--") + row.info.cli_flag;
    r["help"] = row.info.help;
    rows.push_back(r);
  }
  return rows;
}

}  // namespace shardlab
