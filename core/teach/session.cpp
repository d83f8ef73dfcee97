// The model -> explanation path of session.h: generate, solve with the
// sharding portfolio (twice when strategies are forced, for the comparison),
// break ties toward less memory, explain. Used by the CLI and teachSolve.
#include "core/teach/session.h"

#include <chrono>

#include "core/json_doc.h"
#include "core/sharding/solver.h"

namespace shardlab::teach {

Result<GenerateOptions> generate_options_from_json(const std::string& source,
                                                   const std::string& text) {
  if (text.empty()) return GenerateOptions();
  Result<json::Document> doc = json::Document::parse(source, text);
  if (!doc.is_ok()) return doc.status();
  return generate_options_from_json(doc.value().root());
}

Result<GenerateOptions> generate_options_from_json(const json::JsonAt& root,
                                                   const std::vector<std::string_view>& also) {
  GenerateOptions options;
  std::vector<std::string_view> allowed = {"cost_model", "force"};
  allowed.insert(allowed.end(), also.begin(), also.end());
  Status s = root.only_keys(allowed);
  if (!s.is_ok()) return s;
  if (root.has("cost_model")) {
    Result<std::string> name = root["cost_model"].string();
    if (!name.is_ok()) return name.status();
    Result<CostModel> model = parse_cost_model(name.value());
    if (!model.is_ok()) {
      return root["cost_model"].error("one of \"alpha-beta\", \"bandwidth\", \"communication\"");
    }
    options.override_cost_model = true;
    options.cost_model = model.value();
  }
  if (root.has("force")) {
    const json::JsonAt force = root["force"];
    if (!(s = force.expect(json::Kind::kObject)).is_ok()) return s;
    const std::vector<std::string> keys = force.keys();
    for (size_t i = 0; i < keys.size(); ++i) {
      Result<std::string> strategy = force.member(i).string();
      if (!strategy.is_ok()) return strategy.status();
      options.forces.emplace_back(keys[i], strategy.value());
    }
  }
  return options;
}

Options teach_solver_options() {
  Options options;
  options.exact_max_nodes = 200;
  return options;
}

Result<Session> solve_model(const ModelSpec& model, const GenerateOptions& options,
                            const Options& solver, const ProgressSink& sink,
                            const Interrupt* interrupt) {
  using Clock = std::chrono::steady_clock;
  Session session;
  bool stopped = false;
  double offset_s = 0;  // solving time of the runs before this one
  // The portfolio's records, with the run named and the time counted on.
  auto relay = [&](const char* run) -> ProgressSink {
    if (!sink) return nullptr;
    return [&, run](const Progress& p) {
      Progress q = p;
      q.elapsed_s += offset_s;
      q.counters = Counters();
      q.counters.add("run", run).append(p.counters);
      const SinkReply reply = sink(q);
      if (reply == SinkReply::kStop) stopped = true;
      return reply;
    };
  };
  if (!options.forces.empty()) {
    GenerateOptions free_options = options;
    free_options.forces.clear();
    Result<Generated> free_gen = generate(model, free_options);
    if (!free_gen.is_ok()) return free_gen.status();
    const SolveResult free_run =
        solve(free_gen.value().problem, solver, solver.time_limit_s, relay("free"), interrupt);
    session.summary.has_unforced = free_run.best.found();
    session.summary.unforced_cost = free_run.best.cost;
    session.summary.unforced_bound = free_run.lower_bound;
    session.summary.unforced_proven = free_run.proven_optimal;
    offset_s = free_run.seconds;
  }
  Result<Generated> gen = generate(model, options);
  if (!gen.is_ok()) return gen.status();
  session.gen = std::move(gen).value();
  const auto started = Clock::now();
  // After a stop the forced run still builds its engines (presolve and the
  // exact search of small cores) and reports their first plan.
  const SolveResult run = solve(session.gen.problem, solver, stopped ? 0.0 : solver.time_limit_s,
                                relay("solve"), interrupt);
  session.summary.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  if (!run.best.found()) return session;
  session.summary.found = true;
  session.summary.cost = run.best.cost;
  session.summary.lower_bound = run.lower_bound;
  session.summary.proven_optimal = run.proven_optimal;
  Result<Explanation> x = explain(session.gen, prefer_less_memory(session.gen, run.best.solution));
  if (!x.is_ok()) return x.status();
  session.explanation = std::move(x).value();
  return session;
}

}  // namespace shardlab::teach
