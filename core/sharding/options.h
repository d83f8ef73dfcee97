// Solver options, generated from options.def. set_option() parses and range-
// checks one value by name; options_schema_json() describes every option for
// the web page; options_to_json() records them in results.
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"

namespace shardlab {

enum class OptionKind { kInt, kReal };

template <OptionKind K>
struct OptionType {
  using type = double;
};
template <>
struct OptionType<OptionKind::kInt> {
  using type = int64_t;
};

struct Options {
#define SHARDLAB_OPTION(name, kind, def, lo, hi, flag, help) \
  typename OptionType<OptionKind::kind>::type name = def;
#include "core/sharding/options.def"
#undef SHARDLAB_OPTION
};

struct OptionInfo {
  const char* name;
  OptionKind kind;
  double default_value;
  double min;
  double max;
  const char* cli_flag;
  const char* help;
};

// All rows of options.def, in order; count in *size.
const OptionInfo* option_table(int* size);

// Sets one option from text ("2", "0.5"); the key is the option name or its
// CLI flag. Errors name the option and the accepted range.
Status set_option(Options* options, const std::string& key, const std::string& text);

std::string options_to_json(const Options& options);  // {"time_limit_s": 10, ...}
std::string options_schema_json();                    // [{"name": ..., ...}, ...]

}  // namespace shardlab
