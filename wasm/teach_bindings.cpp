// The teaching lab's JavaScript surface (its own EMSCRIPTEN_BINDINGS block):
// model text in; the generated instance, the explanation or the whole solve
// out, in the one result shape (wasm/result.h). The page has a worker of its
// own generate an instance here, solves the bytes with the sharding lab's
// SolverClient (the same workers as any instance), and comes back to that
// worker for the explanation.
//
// Call chain:
//   web/teach/lab.mjs ── teach() ── web/sharding/worker.js (OP.TEACH, its own worker)
//        ├── teachGenerate(model text) ──> core/teach/teach.h (generate,
//        │                                 instance_json, sidecar_json)
//        └── teachExplain(model text, request JSON) ──> core/teach/explain.h
//   web/teach/lab.mjs ── SolverClient ({kind: 'bytes'}) ── web/sharding/worker.js
//   tests/wasm/teach.test.mjs: teachSolve(model text, options JSON) ──> core/teach/session.h,
//        compared with `parity_native cli teach MODEL --json`
#include <emscripten/bind.h>

#include <string>
#include <vector>

#include "core/json_doc.h"
#include "core/teach/explain.h"
#include "core/teach/session.h"
#include "core/teach/teach.h"
#include "wasm/result.h"

namespace shardlab::teach {
namespace {

using emscripten::val;
using shardlab::web::failure;
using shardlab::web::ok;

template <typename T>
val array_of(const std::vector<T>& items) {
  val out = val::array();
  for (const T& item : items) out.call<void>("push", val(item));
  return out;
}

// {instance: contest JSON text, sidecar: its sidecar JSON text (both are
// files the page can save), nodes, edges, strategies, usage_limit (a decimal
// string, or null), model: {name, training, batch: letter, batch_size,
// batch_tensors: [[tensor, dimension], ...] (declared tensors carrying the
// batch letter, for the page's batch control), mesh: {shape, axes},
// device_memory_GB}}.
val teach_generate(const std::string& model_text, const std::string& source_name,
                   const std::string& options_json) {
  Result<ModelSpec> model = read_model(source_name, model_text);
  if (!model.is_ok()) return failure(model.status());
  Result<GenerateOptions> options = generate_options_from_json("options", options_json);
  if (!options.is_ok()) return failure(options.status());
  Result<Generated> gen = generate(model.value(), options.value());
  if (!gen.is_ok()) return failure(gen.status());
  const Problem& p = gen.value().problem;
  val out = val::object();
  out.set("instance", instance_json(gen.value()));
  out.set("sidecar", sidecar_json(gen.value()));
  out.set("nodes", p.num_nodes());
  out.set("edges", p.num_edges());
  out.set("strategies", static_cast<double>(p.total_strategies()));
  out.set("usage_limit", p.has_usage_limit ? val(std::to_string(p.usage_limit)) : val::null());
  const ModelSpec& m = model.value();
  val info = val::object();
  info.set("name", m.name);
  info.set("training", m.training);
  info.set("batch", m.batch ? std::string(1, m.batch) : std::string());
  double batch_size = 0;
  val carriers = val::array();
  for (const TensorSpec& t : m.tensors) {
    const size_t d = m.batch ? t.dims.find(m.batch) : std::string::npos;
    if (t.producer >= 0 || d == std::string::npos) continue;
    batch_size = static_cast<double>(t.shape[d]);
    val pair = val::array();
    pair.call<void>("push", val(t.name));
    pair.call<void>("push", val(static_cast<double>(d)));
    carriers.call<void>("push", pair);
  }
  info.set("batch_size", batch_size);
  info.set("batch_tensors", carriers);
  val mesh = val::object();
  std::vector<double> shape(m.mesh.shape.begin(), m.mesh.shape.end());
  mesh.set("shape", array_of(shape));
  mesh.set("axes", array_of(m.mesh.axes));
  info.set("mesh", mesh);
  info.set("device_memory_GB", m.mesh.has_memory ? val(m.mesh.device_memory_GB) : val::null());
  out.set("model", info);
  return ok(out);
}

// request: {"source": name, "options": {...as teachGenerate}, "plan": [...],
// "cost", "lower_bound" (decimal strings or integers), "seconds", and for a
// forced run "free": {"cost", "lower_bound"}}, read with positioned errors.
// The value is the CLI's --json document (text) for that plan (the
// least-memory plan among equals).
val teach_explain(const std::string& model_text, const std::string& request_json) {
  Result<json::Document> doc = json::Document::parse("request", request_json);
  if (!doc.is_ok()) return failure(doc.status());
  const json::JsonAt request = doc.value().root();
  Status s =
      request.only_keys({"source", "options", "plan", "cost", "lower_bound", "seconds", "free"});
  if (!s.is_ok()) return failure(s);
  json::Errors errors;
  const std::string source = errors.take(request.string_or("source", "model.json"));
  const json::JsonAt plan_at = request["plan"];
  errors.add(plan_at.expect(json::Kind::kArray));
  std::vector<int32_t> plan;
  for (size_t i = 0; errors.ok() && i < plan_at.size(); ++i) {
    plan.push_back(static_cast<int32_t>(errors.take(plan_at[i].integer(0, 1 << 30))));
  }
  SolveSummary summary;
  if (request.has("cost") && !request["cost"].is(json::Kind::kNull)) {
    summary.found = true;
    summary.cost = errors.take(json::decimal_integer(request["cost"]));
    if (request.has("lower_bound")) {
      summary.lower_bound = errors.take(json::decimal_integer(request["lower_bound"]));
    }
    summary.proven_optimal = summary.lower_bound >= summary.cost;
    summary.seconds = errors.take(request.number_or("seconds", 0, 0, 1e9));
  }
  if (request.has("free")) {
    const json::JsonAt free = request["free"];
    errors.add(free.only_keys({"key", "cost", "lower_bound"}));
    if (errors.ok()) {
      summary.has_unforced = true;
      summary.unforced_cost = errors.take(json::decimal_integer(free["cost"]));
      summary.unforced_bound = errors.take(json::decimal_integer(free["lower_bound"]));
      summary.unforced_proven = summary.unforced_bound >= summary.unforced_cost;
    }
  }
  GenerateOptions options;
  if (errors.ok() && request.has("options")) {
    options = errors.take(generate_options_from_json(request["options"]));
  }
  if (!errors.ok()) return failure(errors.status());
  Result<ModelSpec> model = read_model(source, model_text);
  if (!model.is_ok()) return failure(model.status());
  Result<Generated> gen = generate(model.value(), options);
  if (!gen.is_ok()) return failure(gen.status());
  if (static_cast<int32_t>(plan.size()) != gen.value().problem.num_nodes()) {
    return failure(plan_at.error(
        "a plan of " + std::to_string(gen.value().problem.num_nodes()) + " entries (one per node)",
        "a plan of " + std::to_string(plan.size())));
  }
  Result<Explanation> x = explain(gen.value(), prefer_less_memory(gen.value(), plan));
  if (!x.is_ok()) return failure(x.status());
  return ok(val(explanation_json(gen.value(), x.value(), summary)));
}

// Generate, solve (the portfolio, one thread here) and explain in one call:
// what `shardlab teach MODEL --json` prints (text). options_json as
// teachGenerate's plus "time_limit_s".
val teach_solve(const std::string& model_text, const std::string& options_json) {
  Result<ModelSpec> model = read_model("model.json", model_text);
  if (!model.is_ok()) return failure(model.status());
  Options solver = teach_solver_options();
  GenerateOptions options;
  if (!options_json.empty()) {
    Result<json::Document> doc = json::Document::parse("options", options_json);
    if (!doc.is_ok()) return failure(doc.status());
    const json::JsonAt root = doc.value().root();
    Result<GenerateOptions> read = generate_options_from_json(root, {"time_limit_s"});
    if (!read.is_ok()) return failure(read.status());
    options = std::move(read).value();
    Result<double> limit = root.number_or("time_limit_s", solver.time_limit_s, 0, 1e7);
    if (!limit.is_ok()) return failure(limit.status());
    solver.time_limit_s = limit.value();
  }
  Result<Session> session = solve_model(model.value(), options, solver);
  if (!session.is_ok()) return failure(session.status());
  if (!session.value().summary.found) {
    return failure(Status(StatusCode::kInvalidInput,
                          "no plan fits: the memory limit is too tight for every plan"));
  }
  return ok(val(
      explanation_json(session.value().gen, session.value().explanation, session.value().summary)));
}

}  // namespace
}  // namespace shardlab::teach

EMSCRIPTEN_BINDINGS(teach) {
  emscripten::function("teachGenerate", &shardlab::teach::teach_generate);
  emscripten::function("teachExplain", &shardlab::teach::teach_explain);
  emscripten::function("teachSolve", &shardlab::teach::teach_solve);
}
