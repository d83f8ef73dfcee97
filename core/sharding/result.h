// Result files and solution text. The result JSON is shared by the CLI
// (--out) and the web page (download): instance name and SHA-256, cost as a
// decimal string, feasibility, peak, limit, the plan, settings, wall time,
// version, lower bound and the improvement trace. Solutions are read back
// from a result JSON or from text whose last non-empty line is [i, j, ...].
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/sharding/model.h"
#include "core/sharding/options.h"
#include "core/sharding/solver.h"
#include "core/status.h"

namespace shardlab {

struct RunInfo {
  std::string instance_file;  // as given by the user (may be empty)
  std::string sha256;         // of the instance bytes read
  Options options;
  double wall_time_s = 0;
  Counters counters;  // the engines' counters (written as "stats")
};

// The contest's output convention: "[0, 0, 2, 1, 0]".
std::string solution_line(const std::vector<int32_t>& solution);

// Builds the result JSON; the plan is re-evaluated from scratch here.
std::string result_json(const Problem& problem, const SolveResult& result, const RunInfo& run);

// The same document for a run made elsewhere (the page's workers): `plan`
// (empty when none was found) and the run record run_text, read with
// positioned errors that name `source`:
//   {"file", "sha256", "options": {...}, "wall_time_s", "stats": {counters},
//    "lower_bound": "445", "seconds",
//    "trace": [[seconds, engine, found, "cost" | null, "bound"], ...]}
// Every key is optional. Costs and bounds are decimal strings (they may
// pass 2^53) or integers.
Result<std::string> result_json_of_run(const Problem& problem, const std::vector<int32_t>& plan,
                                       const std::string& source, const std::string& run_text);

struct ParsedSolution {
  std::vector<int32_t> solution;
  std::string sha256;  // the instance hash recorded in a result JSON, if any
};

// Accepts a result JSON ({"solution": [...], ...}) or text whose last
// non-empty line is a JSON list of integers. source names it in errors.
Result<ParsedSolution> parse_solution_text(const std::string& source, const std::string& text);

}  // namespace shardlab
