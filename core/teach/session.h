// One call from model text to explained optimum, shared by `shardlab teach`
// and the wasm bindings (teachSolve): read, generate, solve with the sharding
// portfolio (and, with forced strategies, once more without them for the
// comparison), prefer the least-memory plan among equals, explain.
#pragma once

#include <atomic>
#include <string>
#include <string_view>
#include <vector>

#include "core/json_doc.h"
#include "core/progress.h"
#include "core/sharding/options.h"
#include "core/status.h"
#include "core/teach/explain.h"
#include "core/teach/teach.h"

namespace shardlab::teach {

// Generate options from JSON: {"cost_model": "alpha-beta", "force": {"h":
// "b:x", ...}}; both keys optional. Errors in the house format.
Result<GenerateOptions> generate_options_from_json(const std::string& source,
                                                   const std::string& text);
// The same from an object inside a larger document; keys in `also` are
// allowed beside them (and left to the caller).
Result<GenerateOptions> generate_options_from_json(const json::JsonAt& root,
                                                   const std::vector<std::string_view>& also = {});

// Solver options for teaching instances: the defaults, with the exact branch
// and bound taking cores of up to 200 nodes (it has a node budget).
Options teach_solver_options();

struct Session {
  Generated gen;  // the instance explained (forced, when forcing)
  Explanation explanation;
  SolveSummary summary;
};

// kInvalidInput for a bad model, kInvalidArgument for a bad force; a
// Session whose summary.found is false when no plan fits. The sink gets the
// sharding portfolio's records (core/progress.h) with the counter "run"
// first: "free" (the unforced solve, when forcing) or "solve"; elapsed_s
// counts both. A sink answering kStop, or *interrupt, stops the solving:
// what was found so far is explained (summary.proven_optimal says whether
// it is the optimum).
Result<Session> solve_model(const ModelSpec& model, const GenerateOptions& options,
                            const Options& solver, const ProgressSink& sink = nullptr,
                            const Interrupt* interrupt = nullptr);

}  // namespace shardlab::teach
