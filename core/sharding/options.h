// Solver options, generated from options.def through the shared option
// table (core/options_table.h): set_option() parses and range-checks one CLI
// value by name, options_from_json() reads the page's options object with
// positioned errors, options_json() records them in results and
// options_schema() describes every row for the page's controls.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "core/json_doc.h"
#include "core/options_table.h"
#include "core/status.h"

namespace shardlab {

struct Options {
#define SHARDLAB_OPTION SHARDLAB_OPTION_FIELD
#include "core/sharding/options.def"
#undef SHARDLAB_OPTION
};

// The rows of options.def, in order.
const OptionTable& option_table();

// Sets one option from text ("2", "0.5"); the key is the option name or its
// CLI flag. Errors name the option and the accepted range.
Status set_option(Options* options, const std::string& key, const std::string& text);

// Reads {"seed": 3, "time_limit_s": 2, ...} (every key optional, unknown
// keys refused) into *options; errors say where ("options:1:10 (byte 9): at
// seed: expected an integer from 0 to ..., found the number -1").
Status options_from_json(const json::JsonAt& object, Options* options);
Status options_from_json(const std::string& source, const std::string& text, Options* options);

nlohmann::ordered_json options_json(const Options& options);  // {"time_limit_s": 10, ...}
nlohmann::ordered_json options_schema();                      // [{"name": ..., ...}, ...]

}  // namespace shardlab
