// The argument grammar every subcommand of `shardlab` shares (commands.h):
// `--key=value` or `--key value`, flags without values, `--` to end the
// options, positional words in order.
#include <algorithm>

#include "core/cli/commands.h"
#include "core/json_doc.h"

namespace shardlab::cli {
namespace {

Status invalid(const std::string& message) { return Status(StatusCode::kInvalidArgument, message); }

}  // namespace

void ArgParser::flag(const std::string& name, bool* out) { specs_.push_back({name, out, {}, {}}); }

void ArgParser::option(const std::string& name, std::optional<std::string>* out) {
  specs_.push_back({name, nullptr, out, nullptr});
}

void ArgParser::repeated(const std::string& name, std::vector<std::string>* out) {
  specs_.push_back({name, nullptr, nullptr, out});
}

void ArgParser::others(std::vector<std::pair<std::string, std::string>>* out) { others_ = out; }

Status ArgParser::parse(const std::vector<std::string>& args,
                        std::vector<std::string>* positional) const {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      positional->insert(positional->end(), args.begin() + static_cast<ptrdiff_t>(i) + 1,
                         args.end());
      break;
    }
    if (arg.size() <= 2 || arg.compare(0, 2, "--") != 0) {
      positional->push_back(arg);
      continue;
    }
    std::string name = arg.substr(2);
    std::string value;
    const size_t eq = name.find('=');
    const bool inline_value = eq != std::string::npos;
    if (inline_value) {
      value = name.substr(eq + 1);
      name.resize(eq);
    }
    const auto spec =
        std::find_if(specs_.begin(), specs_.end(), [&](const Spec& s) { return s.name == name; });
    if (spec != specs_.end() && spec->flag) {
      if (inline_value) return invalid("--" + name + " takes no value (found " + arg + ")");
      *spec->flag = true;
      continue;
    }
    if (spec == specs_.end() && !others_) {
      std::string near;
      size_t best = 3;
      for (const Spec& s : specs_) {
        const size_t d = json::edit_distance(name, s.name);
        if (d < best) {
          best = d;
          near = s.name;
        }
      }
      return invalid("unknown option --" + name +
                     (near.empty() ? "" : " (did you mean --" + near + "?)"));
    }
    if (!inline_value) {
      if (i + 1 >= args.size() || args[i + 1].compare(0, 2, "--") == 0) {
        return invalid("--" + name + " needs a value" +
                       (i + 1 < args.size() ? " (found " + args[i + 1] + ")" : ""));
      }
      value = args[++i];
    }
    if (spec == specs_.end()) {
      others_->emplace_back(name, value);
      continue;
    }
    if (spec->values) {
      spec->values->push_back(value);
      continue;
    }
    if (spec->value->has_value()) return invalid("--" + name + " is given twice");
    *spec->value = value;
  }
  return Status::ok();
}

}  // namespace shardlab::cli
