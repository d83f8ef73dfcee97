// Shared by the teaching lab's unit tests: read a model (file or text),
// generate its instance, solve it with one engine (the exact branch and
// bound takes teaching-sized cores outright), explain the plan, and read the
// explanation's JSON back. Deterministic natively and in wasm.
#pragma once

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/sharding/evaluate.h"
#include "core/sharding/options.h"
#include "core/sharding/solver.h"
#include "core/teach/explain.h"
#include "core/teach/teach.h"
#include "helpers.h"

namespace shardlab::test {

struct TeachRun {
  teach::Generated gen;
  std::vector<int32_t> plan;
  int64_t cost = -1;
  int64_t bound = 0;
  nlohmann::json json;  // explanation_json, parsed
};

inline teach::ModelSpec teach_model(const std::string& name, const std::string& text) {
  Result<teach::ModelSpec> model = teach::read_model(name, text);
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  return std::move(model).value();
}

inline std::string teach_example_text(const std::string& relative) {
  return read_bytes(source_path("examples/teach/" + relative));
}

inline TeachRun teach_solve(const teach::ModelSpec& model,
                            const teach::GenerateOptions& options = {}) {
  TeachRun run;
  Result<teach::Generated> gen = teach::generate(model, options);
  REQUIRE_MESSAGE(gen.is_ok(), gen.status().message());
  run.gen = std::move(gen).value();
  Options solver;
  solver.exact_max_nodes = 200;
  Engine engine(run.gen.problem, solver, 0);
  for (int i = 0; i < 400 && !engine.finished(); ++i) engine.step(2000);
  REQUIRE(engine.best().found());
  run.cost = engine.best().cost;
  run.bound = engine.lower_bound();
  run.plan = teach::prefer_less_memory(run.gen, engine.best().solution);
  Result<teach::Explanation> x = teach::explain(run.gen, run.plan);
  REQUIRE_MESSAGE(x.is_ok(), x.status().message());
  // The explanation adds up to the instance's own cost of the plan.
  const Evaluation check = evaluate(run.gen.problem, run.plan);
  REQUIRE(check.feasible());
  CHECK(check.cost == x.value().total_ns);
  CHECK(static_cast<int64_t>(check.cost) == run.cost);
  teach::SolveSummary summary;
  summary.found = true;
  summary.cost = run.cost;
  summary.lower_bound = run.bound;
  summary.proven_optimal = run.bound >= run.cost;
  run.json = nlohmann::json::parse(teach::explanation_json(run.gen, x.value(), summary));
  return run;
}

inline TeachRun teach_solve_file(const std::string& relative) {
  return teach_solve(teach_model(relative, teach_example_text(relative)));
}

// Collectives of the plan, as "kind axis pass on" lines, for exact checks.
inline std::vector<std::string> teach_collectives(const TeachRun& run) {
  std::vector<std::string> out;
  for (const auto& c : run.json["collectives"]) {
    out.push_back(c["kind"].get<std::string>() + " " + c["axis"].dump() + " " +
                  c["pass"].get<std::string>() + " " + c["on"].get<std::string>());
  }
  return out;
}

}  // namespace shardlab::test
