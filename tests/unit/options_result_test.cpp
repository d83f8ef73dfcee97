// The option table (parsing, ranges, schema) and solution text / result JSON
// round trips.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "core/sharding/options.h"
#include "core/sharding/result.h"
#include "helpers.h"

namespace shardlab {
namespace {

TEST_CASE("options: names, flags, ranges and the schema") {
  Options o;
  CHECK(o.time_limit_s == 10.0);
  CHECK(set_option(&o, "time-limit", "2.5").is_ok());
  CHECK(o.time_limit_s == 2.5);
  CHECK(set_option(&o, "seed", "42").is_ok());
  CHECK(o.seed == 42);
  CHECK(set_option(&o, "workers", "1.5").message() ==
        "option --workers: 1.5 is out of range (expected an integer from 1 to 64)");
  CHECK(set_option(&o, "workers", "").message() ==
        "option --workers: cannot read '' (expected an integer from 1 to 64)");
  CHECK(set_option(&o, "colour", "red").message() == "unknown option 'colour'");
  const nlohmann::json schema = nlohmann::json::parse(options_schema_json());
  REQUIRE(schema.is_array());
  CHECK(schema[0]["name"] == "time_limit_s");
  CHECK(schema[0]["flag"] == "--time-limit");
  const nlohmann::json settings = nlohmann::json::parse(options_to_json(o));
  CHECK(settings["seed"] == 42);
}

TEST_CASE("solution text: last non-empty line, or a result JSON") {
  Result<ParsedSolution> a = parse_solution_text("s.txt", "# progress\n[0, 1, 2]\n\n");
  REQUIRE(a.is_ok());
  CHECK(a.value().solution == std::vector<int32_t>{0, 1, 2});
  Result<ParsedSolution> b =
      parse_solution_text("r.json", "{\"solution\": [3, 4], \"instance\": {\"sha256\": \"ab\"}}");
  REQUIRE(b.is_ok());
  CHECK(b.value().solution == std::vector<int32_t>{3, 4});
  CHECK(b.value().sha256 == "ab");
  CHECK(parse_solution_text("e.txt", "\n \n").status().message() ==
        "e.txt: expected a solution, found an empty file");
  CHECK(parse_solution_text("x.txt", "[0, \"a\"]").status().message() ==
        "x.txt: line 1: entry 1: expected a strategy index, found \"a\"");
  CHECK(parse_solution_text("r.json", "{\"cost\": 1}").status().message() ==
        "r.json: expected the key \"solution\" in the result JSON");
}

TEST_CASE("result JSON records the re-evaluated plan") {
  const Problem p = test::example_problem();
  SolveResult result;
  result.best.solution = {0, 0, 2, 1, 0};
  result.best.cost = 445;
  result.lower_bound = 445;
  result.proven_optimal = true;
  result.trace.push_back({0.5, 0, true, 445, 445});
  RunInfo run;
  run.sha256 = "00";
  const nlohmann::json j = nlohmann::json::parse(result_json(p, result, run));
  CHECK(j["cost"] == "445");
  CHECK(j["feasible"] == true);
  CHECK(j["peak_usage"] == "50");
  CHECK(j["lower_bound"] == "445");
  CHECK(j["trace"][0][1] == "445");
  CHECK(j["solution"].size() == 5);
  CHECK(solution_line(result.best.solution) == "[0, 0, 2, 1, 0]");
  const Result<ParsedSolution> back = parse_solution_text("r.json", result_json(p, result, run));
  REQUIRE(back.is_ok());
  CHECK(back.value().solution == result.best.solution);
}

}  // namespace
}  // namespace shardlab
