// The planner's option table: the rows of options.def bound to
// PlannerOptions through the shared template (core/options_table.h), plus
// the two keys outside the table, "placement" and "chunks".
#include "core/pipeline/planner.h"

namespace shardlab::pipeline {
namespace {

const OptionTable& plan_table() {
  static const OptionTable table("planner option", {
#define SHARDLAB_PLAN_OPTION(name, kind, def, lo, hi, flag, help) \
  SHARDLAB_OPTION_ROW(PlannerOptions, name, kind, def, lo, hi, flag, help),
#include "core/pipeline/plan/options.def"
#undef SHARDLAB_PLAN_OPTION
                                                   });
  return table;
}

constexpr const char* kPlacements =
    "one of \"auto\", \"linear\", \"interleaved\", \"v-shape\", \"bidirectional\", \"free\"";

}  // namespace

Status set_plan_option(PlannerOptions* options, const std::string& key, const std::string& text) {
  if (key == "placement") {
    if (!parse_placement(text, &options->placement.kind)) {
      return Status(StatusCode::kInvalidArgument,
                    "option --placement: unknown placement '" + text + "'");
    }
    return Status::ok();
  }
  return plan_table().set_text(options, key, text);
}

Status plan_options_from_json(const json::JsonAt& object, PlannerOptions* options) {
  return plan_table().read_json(
      options, object, {"placement", "chunks"},
      [options](const std::string& key, const json::JsonAt& value) -> Status {
        if (key == "placement") {
          Result<std::string> name = value.string();
          if (!name.is_ok()) return value.error(kPlacements);
          if (!parse_placement(name.value(), &options->placement.kind)) {
            return value.error(kPlacements);
          }
          return Status::ok();
        }
        Result<int64_t> chunks = value.integer(1, 1000);
        if (!chunks.is_ok()) return chunks.status();
        options->placement.chunks = static_cast<int32_t>(chunks.value());
        return Status::ok();
      });
}

Status plan_options_from_json(const std::string& source, const std::string& text,
                              PlannerOptions* options) {
  Result<json::Document> doc = json::Document::parse(source, text);
  if (!doc.is_ok()) return Status(StatusCode::kInvalidArgument, doc.status().message());
  return plan_options_from_json(doc.value().root(), options);
}

nlohmann::ordered_json plan_options_json(const PlannerOptions& options) {
  nlohmann::ordered_json j = plan_table().to_json(&options);
  j["placement"] = placement_name(options.placement.kind);
  return j;
}

nlohmann::ordered_json plan_options_schema() { return plan_table().schema(); }

}  // namespace shardlab::pipeline
