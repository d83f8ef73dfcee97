// The solver's option table: the rows of options.def bound to Options
// through the shared template (core/options_table.h).
#include "core/sharding/options.h"

namespace shardlab {

const OptionTable& option_table() {
  static const OptionTable table("option", {
#define SHARDLAB_OPTION(name, kind, def, lo, hi, flag, help) \
  SHARDLAB_OPTION_ROW(Options, name, kind, def, lo, hi, flag, help),
#include "core/sharding/options.def"
#undef SHARDLAB_OPTION
                                           });
  return table;
}

Status set_option(Options* options, const std::string& key, const std::string& text) {
  return option_table().set_text(options, key, text);
}

Status options_from_json(const json::JsonAt& object, Options* options) {
  return option_table().read_json(options, object);
}

Status options_from_json(const std::string& source, const std::string& text, Options* options) {
  Result<json::Document> doc = json::Document::parse(source, text);
  if (!doc.is_ok()) return Status(StatusCode::kInvalidArgument, doc.status().message());
  return options_from_json(doc.value().root(), options);
}

nlohmann::ordered_json options_json(const Options& options) {
  return option_table().to_json(&options);
}

nlohmann::ordered_json options_schema() { return option_table().schema(); }

}  // namespace shardlab
