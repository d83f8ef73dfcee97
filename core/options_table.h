// The one X-macro template behind every option table (core/sharding/options.def,
// core/pipeline/plan/options.def): each .def row
//   ROW(name, kind, default, min, max, cli_flag, help)
// becomes a field of the options struct (SHARDLAB_OPTION_FIELD) and a row of
// an OptionTable (SHARDLAB_OPTION_ROW), which parses CLI text, reads a JSON
// object through the positioned reader (core/json_doc.h), writes the values
// back and describes every row as the schema the page builds its controls
// from. Used by core/sharding/options.cpp and core/pipeline/plan/options.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/json_doc.h"
#include "core/status.h"

namespace shardlab {

enum class OptionKind { kInt, kReal };

template <OptionKind K>
using option_value_t = std::conditional_t<K == OptionKind::kInt, int64_t, double>;

struct OptionInfo {
  const char* name;
  OptionKind kind;
  double default_value;
  double min;
  double max;
  const char* cli_flag;
  const char* help;
};

// One row bound to its member of the options struct (type-erased, so one
// table implementation serves every struct).
struct OptionRow {
  OptionInfo info;
  void (*set)(void* options, double value);
  double (*get)(const void* options);
};

// A field of the struct: `option_value_t<kind> name = default;`.
#define SHARDLAB_OPTION_FIELD(name, kind, def, lo, hi, flag, help) \
  ::shardlab::option_value_t<::shardlab::OptionKind::kind> name = def;

// A row of the table over `Struct`'s member `name`.
#define SHARDLAB_OPTION_ROW(Struct, name, kind, def, lo, hi, flag, help)                       \
  ::shardlab::OptionRow {                                                                      \
    {#name, ::shardlab::OptionKind::kind, static_cast<double>(def), lo, hi, flag, help},       \
        [](void* o, double v) {                                                                \
          static_cast<Struct*>(o)->name =                                                      \
              static_cast<::shardlab::option_value_t<::shardlab::OptionKind::kind>>(v);        \
        },                                                                                     \
        [](const void* o) { return static_cast<double>(static_cast<const Struct*>(o)->name); } \
  }

class OptionTable {
 public:
  // `what` names the table in messages about unknown keys ("option",
  // "planner option").
  OptionTable(std::string what, std::vector<OptionRow> rows);

  const std::vector<OptionRow>& rows() const { return rows_; }
  // The row of a name or a CLI flag, or null.
  const OptionRow* find(std::string_view key) const;

  // One value from command-line text ("2", "0.5"); errors name the flag and
  // the accepted range: "option --workers: 1.5 is out of range (expected an
  // integer from 1 to 64)".
  Status set_text(void* options, const std::string& key, const std::string& text) const;

  // Every member of a JSON object ({"seed": 3, ...}), each in its row's
  // range; errors in the house format, with the position and the key's
  // path, under the code kInvalidArgument (options are arguments). Keys
  // outside the table go to `extra` (with their names listed in
  // `extra_keys`, for the "one of the keys" message), or are refused.
  using ExtraKey = std::function<Status(const std::string& key, const json::JsonAt& value)>;
  Status read_json(void* options, const json::JsonAt& object,
                   const std::vector<std::string_view>& extra_keys = {},
                   const ExtraKey& extra = nullptr) const;

  // {"name": value, ...} in table order (integers as integers).
  nlohmann::ordered_json to_json(const void* options) const;
  // [{"name", "kind": "int" | "real", "default", "min", "max", "flag", "help"}].
  nlohmann::ordered_json schema() const;

 private:
  Status read_members(void* options, const json::JsonAt& object,
                      const std::vector<std::string_view>& extra_keys, const ExtraKey& extra) const;
  std::string what_;
  std::vector<OptionRow> rows_;
};

// A number as JSON: integral values below 2^53 as integers ("10", not "10.0").
nlohmann::ordered_json option_number(double value);

}  // namespace shardlab
