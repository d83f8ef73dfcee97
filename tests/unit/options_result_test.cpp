// The option table (parsing, ranges, schema) and solution text / result JSON
// round trips.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "core/progress_json.h"
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
  const nlohmann::ordered_json schema = options_schema();
  REQUIRE(schema.is_array());
  CHECK(schema[0]["name"] == "time_limit_s");
  CHECK(schema[0]["flag"] == "--time-limit");
  CHECK(schema[0]["min"] == 0);
  CHECK(schema[2]["name"] == "workers");
  CHECK(schema[2]["max"] == 64);
  const nlohmann::ordered_json settings = options_json(o);
  CHECK(settings["seed"] == 42);
  CHECK(settings.dump().find("\"time_limit_s\":2.5,") == 1);
}

TEST_CASE("options from JSON: positioned errors, unknown keys with a suggestion") {
  Options o;
  CHECK(options_from_json("options", R"({"seed": 3, "time_limit_s": 0.5})", &o).is_ok());
  CHECK(o.seed == 3);
  CHECK(o.time_limit_s == 0.5);
  CHECK(
      options_from_json("options", R"({"workers": 65})", &o).message() ==
      "options:1:13 (byte 12): at workers: expected an integer from 1 to 64, found the number 65");
  CHECK(options_from_json("options", R"({"seed": 1.5})", &o).message() ==
        "options:1:10 (byte 9): at seed: expected an integer from 0 to 9007199254740991, found "
        "the number 1.5");
  CHECK(options_from_json("options", R"({"time_limit_s": "2"})", &o).message() ==
        "options:1:18 (byte 17): at time_limit_s: expected a number from 0 to 10000000, found "
        "the string \"2\"");
  const std::string unknown = options_from_json("options", R"({"worker": 2})", &o).message();
  CHECK(unknown.find("options:1:2 (byte 1): ") == 0);
  CHECK(unknown.find("found the key \"worker\" (did you mean \"workers\"?)") != std::string::npos);
  CHECK(o.seed == 3);
}

TEST_CASE("counters: typed entries, groups, dotted lookup, JSON out and back in") {
  Counters inner;
  inner.add("core_nodes", 7).add("ratio", 0.5);
  Counters c;
  c.add("phase", "lagrangian").add("rounds", int64_t{12}).add("proven", false).add("group", inner);
  c.add_null("makespan");
  c.add("rounds", 13);  // replaces in place
  REQUIRE(c.entries().size() == 5);
  CHECK(c.entries()[1].name == "rounds");
  CHECK(c.find("rounds")->integer == 13);
  CHECK(c.find("group.ratio")->real == 0.5);
  CHECK(c.find("group.nothing") == nullptr);
  CHECK(c.find("phase.x") == nullptr);
  const std::string text = counters_to_json(c).dump();
  CHECK(
      text ==
      R"({"phase":"lagrangian","rounds":13,"proven":false,"group":{"core_nodes":7,"ratio":0.5},"makespan":null})");
  Result<json::Document> doc = json::Document::parse("c", text);
  REQUIRE(doc.is_ok());
  Result<Counters> back = counters_from_json(doc.value().root());
  REQUIRE(back.is_ok());
  CHECK(counters_to_json(back.value()).dump() == text);
  Result<json::Document> bad = json::Document::parse("c", R"({"a": [1]})");
  CHECK(counters_from_json(bad.value().root()).status().message() ==
        "c:1:7 (byte 6): at a: expected a number, a string, true, false, null or an object of "
        "counters, found an array of 1 item");
}

TEST_CASE("the progress record: gap, and the same JSON keys for every engine") {
  CHECK(relative_gap(false, 0, 0) == 1);
  CHECK(relative_gap(true, 100, 100) == 0);
  CHECK(relative_gap(true, 100, 120) == 0);
  CHECK(relative_gap(true, 100, 75) == 0.25);
  Progress p;
  p.elapsed_s = 2;
  p.found = true;
  p.incumbent = 80;
  p.bound = 60;
  p.counters.add("nodes", 5);
  CHECK(with_gap(p).gap == 0.25);
  CHECK(
      progress_to_json(p).dump() ==
      R"({"elapsed_s":2.0,"found":true,"incumbent":80.0,"bound":60.0,"gap":0.25,"finished":false,"counters":{"nodes":5}})");
}

TEST_CASE("result JSON of a page's run: positioned errors, never an abort") {
  const Problem p = test::example_problem();
  const std::vector<int32_t> plan = {0, 0, 2, 1, 0};
  const std::string run =
      R"({"file": "example.json", "sha256": "00", "options": {"seed": 3, "workers": 2},
          "wall_time_s": 1.5, "stats": {"rounds": 1}, "lower_bound": "445", "seconds": 1.2,
          "trace": [[0.1, 0, true, "495", "395"], [0.5, 1, true, 445, "445"]]})";
  Result<std::string> ok = result_json_of_run(p, plan, "run", run);
  REQUIRE(ok.is_ok());
  const nlohmann::json j = nlohmann::json::parse(ok.value());
  CHECK(j["cost"] == "445");
  CHECK(j["proven_optimal"] == true);
  CHECK(j["settings"]["seed"] == 3);
  CHECK(j["stats"]["rounds"] == 1);
  CHECK(j["trace"] == nlohmann::json::parse(R"([[0.1, "495", "395"], [0.5, "445", "445"]])"));
  CHECK(result_json_of_run(p, plan, "run", R"({"trace": [[0.1, 0, true, "4x5", "1"]]})")
            .status()
            .message() ==
        "run:1:27 (byte 26): at trace[0][3]: expected a decimal integer such as \"445\", found "
        "the string \"4x5\"");
  CHECK(result_json_of_run(p, plan, "run", R"({"trace": [[0.1, 0]]})").status().message() ==
        "run:1:12 (byte 11): at trace[0]: expected a row [seconds, engine, found, cost, bound], "
        "found a row of 2 entries");
  CHECK(result_json_of_run(p, plan, "run", R"({"options": {"seed": -1}})").status().code() ==
        StatusCode::kInvalidArgument);
  CHECK(result_json_of_run(p, plan, "run", "[").status().code() == StatusCode::kInvalidInput);
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
