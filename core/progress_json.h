// The progress record and its counters as JSON, for the edges that write
// JSON (the CLI's result and schedule files, the parity driver): written
// once there from the structs of core/progress.h, never re-parsed inside
// core. counters_from_json reads counters back from a page's run record
// through the positioned reader (errors say where, as every input's do).
#pragma once

#include <nlohmann/json.hpp>

#include "core/json_doc.h"
#include "core/progress.h"
#include "core/status.h"

namespace shardlab {

nlohmann::ordered_json counters_to_json(const Counters& counters);
Result<Counters> counters_from_json(const json::JsonAt& at);

// {"elapsed_s", "found", "incumbent" (null when not found), "bound", "gap",
// "finished", "counters": {...}}: the same keys the page's protocol uses
// (web/protocol.mjs, in camelCase there).
nlohmann::ordered_json progress_to_json(const Progress& progress);

}  // namespace shardlab
