// The teaching lab's JavaScript surface (its own EMSCRIPTEN_BINDINGS block):
// JSON text in, JSON text out. The page generates an instance here, solves
// the bytes with the sharding lab's SolverClient (the same workers as any
// instance), and comes back for the explanation of the plan.
//
// Call chain:
//   web/teach/lab.mjs ── teachGenerate(model text) ──> core/teach/teach.h (generate,
//        │                                              instance_json, sidecar_json)
//        ├── web/sharding/solver_client.mjs ({kind: 'bytes'}) ── web/sharding/worker.js
//        └── teachExplain(model text, plan JSON) ──> core/teach/explain.h
//   tests/wasm/teach.test.mjs: teachSolve(model text, options JSON) ──> core/teach/session.h,
//        compared with `parity_native cli teach MODEL --json`
#include <emscripten/bind.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/json_doc.h"
#include "core/teach/explain.h"
#include "core/teach/session.h"
#include "core/teach/teach.h"

namespace shardlab::teach {
namespace {

std::string error_json(const Status& status) {
  return nlohmann::json{{"error", status.message()}}.dump();
}

// {"instance": contest JSON text, "sidecar": {...}, "nodes", "edges",
// "strategies", "usage_limit", "model": {"name", "batch": letter, "batch_size",
// "batch_tensors": [[tensor, dimension], ...] (declared tensors carrying the
// batch letter, for the page's batch control), "mesh": {"shape", "axes"},
// "device_memory_GB"}} or {"error": "FILE:LINE:COL ..."}.
std::string teach_generate(const std::string& model_text, const std::string& source_name,
                           const std::string& options_json) {
  Result<ModelSpec> model = read_model(source_name, model_text);
  if (!model.is_ok()) return error_json(model.status());
  Result<GenerateOptions> options = generate_options_from_json("options", options_json);
  if (!options.is_ok()) return error_json(options.status());
  Result<Generated> gen = generate(model.value(), options.value());
  if (!gen.is_ok()) return error_json(gen.status());
  const Problem& p = gen.value().problem;
  nlohmann::ordered_json out;
  out["instance"] = instance_json(gen.value());
  out["sidecar"] = nlohmann::ordered_json::parse(sidecar_json(gen.value()));
  out["nodes"] = p.num_nodes();
  out["edges"] = p.num_edges();
  out["strategies"] = p.total_strategies();
  out["usage_limit"] =
      p.has_usage_limit ? nlohmann::json(std::to_string(p.usage_limit)) : nlohmann::json(nullptr);
  const ModelSpec& m = model.value();
  nlohmann::ordered_json info;
  info["name"] = m.name;
  info["training"] = m.training;
  info["batch"] = m.batch ? std::string(1, m.batch) : std::string();
  int64_t batch_size = 0;
  nlohmann::ordered_json carriers = nlohmann::ordered_json::array();
  for (const TensorSpec& t : m.tensors) {
    const size_t d = m.batch ? t.dims.find(m.batch) : std::string::npos;
    if (t.producer >= 0 || d == std::string::npos) continue;
    batch_size = t.shape[d];
    carriers.push_back({t.name, d});
  }
  info["batch_size"] = batch_size;
  info["batch_tensors"] = std::move(carriers);
  info["mesh"] = {{"shape", m.mesh.shape}, {"axes", m.mesh.axes}};
  info["device_memory_GB"] =
      m.mesh.has_memory ? nlohmann::json(m.mesh.device_memory_GB) : nlohmann::json(nullptr);
  out["model"] = std::move(info);
  return out.dump();
}

// planJson: {"source": name, "options": {...as teachGenerate}, "plan": [...],
// "cost", "lower_bound" (decimal strings or numbers), "seconds", and for a
// forced run "free": {"cost", "lower_bound", "proven"}}. Returns the CLI's
// --json document for that plan (the least-memory plan among equals).
std::string teach_explain(const std::string& model_text, const std::string& plan_json) {
  const nlohmann::json request = nlohmann::json::parse(plan_json, nullptr, false);
  if (request.is_discarded() || !request.is_object() || !request.contains("plan") ||
      !request["plan"].is_array()) {
    return error_json(
        Status(StatusCode::kInvalidArgument, "teachExplain: expected {\"plan\": [...], ...}"));
  }
  const std::string source = request.contains("source") && request["source"].is_string()
                                 ? request["source"].get<std::string>()
                                 : "model.json";
  Result<ModelSpec> model = read_model(source, model_text);
  if (!model.is_ok()) return error_json(model.status());
  const std::string options_text = request.contains("options") ? request["options"].dump() : "";
  Result<GenerateOptions> options = generate_options_from_json("options", options_text);
  if (!options.is_ok()) return error_json(options.status());
  Result<Generated> gen = generate(model.value(), options.value());
  if (!gen.is_ok()) return error_json(gen.status());
  std::vector<int32_t> plan;
  for (const auto& v : request["plan"]) {
    if (!v.is_number_integer()) {
      return error_json(Status(StatusCode::kInvalidArgument, "teachExplain: a plan of integers"));
    }
    plan.push_back(static_cast<int32_t>(v.get<int64_t>()));
  }
  if (static_cast<int32_t>(plan.size()) != gen.value().problem.num_nodes()) {
    return error_json(Status(StatusCode::kInvalidArgument,
                             "teachExplain: the plan has " + std::to_string(plan.size()) +
                                 " entries but the instance has " +
                                 std::to_string(gen.value().problem.num_nodes()) + " nodes"));
  }
  Result<Explanation> x = explain(gen.value(), prefer_less_memory(gen.value(), plan));
  if (!x.is_ok()) return error_json(x.status());
  // Costs arrive as decimal strings (the solver client's) or numbers; anything
  // else reads as 0 (the module is built without exceptions).
  auto integer = [](const nlohmann::json& v) -> int64_t {
    if (v.is_number_integer()) return v.get<int64_t>();
    if (!v.is_string()) return 0;
    int64_t out = 0;
    for (char c : v.get<std::string>()) {
      if (c < '0' || c > '9') return 0;
      out = out * 10 + (c - '0');
    }
    return out;
  };
  SolveSummary summary;
  if (request.contains("cost") && !request["cost"].is_null()) {
    summary.found = true;
    summary.cost = integer(request["cost"]);
    summary.lower_bound = request.contains("lower_bound") ? integer(request["lower_bound"]) : 0;
    summary.proven_optimal = summary.lower_bound >= summary.cost;
    if (request.contains("seconds") && request["seconds"].is_number()) {
      summary.seconds = request["seconds"].get<double>();
    }
  }
  if (request.contains("free") && request["free"].is_object() && request["free"].contains("cost") &&
      request["free"].contains("lower_bound")) {
    const nlohmann::json& free = request["free"];
    summary.has_unforced = true;
    summary.unforced_cost = integer(free["cost"]);
    summary.unforced_bound = integer(free["lower_bound"]);
    summary.unforced_proven = summary.unforced_bound >= summary.unforced_cost;
  }
  return explanation_json(gen.value(), x.value(), summary);
}

// Generate, solve (the portfolio, one thread here) and explain in one call:
// what `shardlab teach MODEL --json` prints. optionsJson as teachGenerate's
// plus "time_limit_s".
std::string teach_solve(const std::string& model_text, const std::string& options_json) {
  Result<ModelSpec> model = read_model("model.json", model_text);
  if (!model.is_ok()) return error_json(model.status());
  nlohmann::json request =
      nlohmann::json::parse(options_json.empty() ? "{}" : options_json, nullptr, false);
  if (request.is_discarded() || !request.is_object()) {
    return error_json(
        Status(StatusCode::kInvalidArgument, "teachSolve: options must be an object"));
  }
  Options solver = teach_solver_options();
  if (request.contains("time_limit_s")) {
    if (request["time_limit_s"].is_number()) solver.time_limit_s = request["time_limit_s"];
    request.erase("time_limit_s");
  }
  Result<GenerateOptions> options = generate_options_from_json("options", request.dump());
  if (!options.is_ok()) return error_json(options.status());
  Result<Session> session = solve_model(model.value(), options.value(), solver);
  if (!session.is_ok()) return error_json(session.status());
  if (!session.value().summary.found) {
    return error_json(Status(StatusCode::kInvalidInput,
                             "no plan fits: the memory limit is too tight for every plan"));
  }
  return explanation_json(session.value().gen, session.value().explanation,
                          session.value().summary);
}

}  // namespace
}  // namespace shardlab::teach

EMSCRIPTEN_BINDINGS(teach) {
  emscripten::function("teachGenerate", &shardlab::teach::teach_generate);
  emscripten::function("teachExplain", &shardlab::teach::teach_explain);
  emscripten::function("teachSolve", &shardlab::teach::teach_solve);
}
