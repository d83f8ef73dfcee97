// The whole JavaScript-facing surface of ShardLab: one EMSCRIPTEN_BINDINGS
// block over the public core headers. Only numbers, strings and typed arrays
// cross it; 64-bit totals travel as decimal strings (they may pass 2^53).
//
// Call chain:
//   web/app.mjs (page) ── web/solver_client.mjs ── postMessage ──> web/worker.js
//     worker.js: Loader.feed()/finish()  ─┐          (one Engine per worker)
//                ModelImport (typed arrays)├─> bindings.cpp ─> core/sharding/io.h, model.h
//                Engine.step()/offer()    ─┘                   core/sharding/solver.h
//     worker.js: quickPlan() first, while the Engine is not built yet
//   web/app.mjs also holds its own Model for the views: evaluatePlan(),
//   usageProfile(), liveNodesAt(), resultJson() ─> core/sharding/evaluate.h, result.h
#include <emscripten/bind.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/sha256.h"
#include "core/sharding/evaluate.h"
#include "core/sharding/io.h"
#include "core/sharding/model.h"
#include "core/sharding/options.h"
#include "core/sharding/result.h"
#include "core/sharding/search/greedy.h"
#include "core/sharding/solver.h"
#include "core/version.h"
#include "wasm/model_fields.h"

namespace shardlab::web {
namespace {

using emscripten::typed_memory_view;
using emscripten::val;

// A JS-owned copy of native data (the view alone would dangle on growth).
template <typename T>
val copy_out(const char* array_type, const T* data, size_t count) {
  return val::global(array_type).new_(typed_memory_view(count, data));
}

std::vector<int32_t> plan_from(const val& plan) {
  return emscripten::convertJSArrayToNumberVector<int32_t>(plan);
}

Result<Options> options_from_json(const std::string& text) {
  Options options;
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return Status(StatusCode::kInvalidArgument, "options: expected a JSON object");
  }
  for (const auto& [key, value] : j.items()) {
    const std::string value_text = value.is_string() ? value.get<std::string>() : value.dump();
    const Status status = set_option(&options, key, value_text);
    if (!status.is_ok()) return status;
  }
  return options;
}

}  // namespace

// A finalized, immutable model; every view and engine shares it.
class Model {
 public:
  explicit Model(std::shared_ptr<const Problem> problem) : problem_(std::move(problem)) {}
  const Problem& problem() const { return *problem_; }
  std::shared_ptr<const Problem> shared() const { return problem_; }

  std::string name() const { return problem_->name; }
  int32_t num_nodes() const { return problem_->num_nodes(); }
  int32_t num_edges() const { return problem_->num_edges(); }
  int32_t num_matrices() const { return problem_->num_matrices(); }
  int32_t num_checkpoints() const { return problem_->num_checkpoints(); }
  double total_strategies() const { return static_cast<double>(problem_->total_strategies()); }
  int32_t max_strategies() const {
    int32_t k = 0;
    for (int32_t v = 0; v < problem_->num_nodes(); ++v)
      k = std::max(k, problem_->num_strategies(v));
    return k;
  }
  bool has_usage_limit() const { return problem_->has_usage_limit; }
  std::string usage_limit() const { return std::to_string(problem_->usage_limit); }
  double memory_bytes() const { return static_cast<double>(problem_->memory_bytes()); }
  double horizon_begin() const { return static_cast<double>(problem_->horizon_begin()); }
  double horizon_end() const { return static_cast<double>(problem_->horizon_end()); }
  std::string min_possible_peak() const {
    return std::to_string(shardlab::min_possible_peak(*problem_));
  }
  std::string digest() const { return model_digest(*problem_); }

  // Raw bytes of input field i, copied for a transfer to another worker.
  int32_t field_count() const { return static_cast<int32_t>(model_fields().size()); }
  std::string field_name(int32_t i) const { return model_fields().at(i).name; }
  val export_field(int32_t i) const {
    const FieldRef& f = model_fields().at(i);
    Problem& p = const_cast<Problem&>(*problem_);  // data() only
    return copy_out("Uint8Array", f.data(p), f.count(p) * f.element_bytes);
  }

  // Columns for the views, as doubles (Float64Array) or int32 (Int32Array).
  val column(const std::string& name) const {
    const Problem& p = *problem_;
    auto doubles = [](const auto& values) {
      std::vector<double> out(values.begin(), values.end());
      return copy_out("Float64Array", out.data(), out.size());
    };
    auto ints = [](const std::vector<int32_t>& values) {
      return copy_out("Int32Array", values.data(), values.size());
    };
    if (name == "strategy_begin") return ints(p.strategy_begin);
    if (name == "strategy_cost") return doubles(p.strategy_cost);
    if (name == "strategy_usage") return doubles(p.strategy_usage);
    if (name == "interval_lo") return doubles(p.interval_lo);
    if (name == "interval_hi") return doubles(p.interval_hi);
    if (name == "edge_u") return ints(p.edge_u);
    if (name == "edge_v") return ints(p.edge_v);
    if (name == "adj_begin") return ints(p.adj_begin);
    if (name == "adj_edge") return ints(p.adj_edge);
    return val::null();
  }

 private:
  std::shared_ptr<const Problem> problem_;
};

// Streaming load: JS writes each chunk into buffer(n), then calls feed(n).
class Loader {
 public:
  explicit Loader(const std::string& source_name) : reader_(source_name) {}
  val buffer(int32_t size) {
    if (static_cast<int32_t>(buffer_.size()) < size) buffer_.resize(size);
    return val(typed_memory_view(static_cast<size_t>(size), buffer_.data()));
  }
  // "" when fine, else the core's one-line message.
  std::string feed(int32_t size) {
    const Status status = reader_.feed(buffer_.data(), static_cast<size_t>(size));
    return status.is_ok() ? "" : status.message();
  }
  std::string finish() {
    std::vector<uint8_t>().swap(buffer_);
    Result<Problem> result = reader_.finish();
    if (!result.is_ok()) return result.status().message();
    model_ = std::make_shared<const Problem>(std::move(result).value());
    return "";
  }
  Model model() const { return Model(model_); }
  double bytes_fed() const { return static_cast<double>(reader_.bytes_fed()); }

 private:
  InstanceReader reader_;
  std::vector<uint8_t> buffer_;
  std::shared_ptr<const Problem> model_;
};

// Rebuilds a model from the byte fields another worker exported: a memory
// copy and finalize(), never a second parse.
class ModelImport {
 public:
  val field(int32_t i, double byte_length) {
    const FieldRef& f = model_fields().at(i);
    f.resize(problem_, static_cast<size_t>(byte_length) / f.element_bytes);
    return val(typed_memory_view(f.count(problem_) * f.element_bytes, f.data(problem_)));
  }
  std::string finish(const std::string& name, bool has_limit, const std::string& limit) {
    problem_.name = name;
    problem_.has_usage_limit = has_limit;
    problem_.usage_limit = has_limit ? std::stoll(limit) : 0;
    const Status status = problem_.finalize();
    if (!status.is_ok()) return status.message();
    model_ = std::make_shared<const Problem>(std::move(problem_));
    return "";
  }
  Model model() const { return Model(model_); }

 private:
  Problem problem_;
  std::shared_ptr<const Problem> model_;
};

// Incremental SHA-256 of the bytes as stored (the .gz bytes for a .gz file).
class Hasher {
 public:
  val buffer(int32_t size) {
    if (static_cast<int32_t>(buffer_.size()) < size) buffer_.resize(size);
    return val(typed_memory_view(static_cast<size_t>(size), buffer_.data()));
  }
  void update(int32_t size) { hash_.update(buffer_.data(), static_cast<size_t>(size)); }
  std::string hex_digest() { return hash_.hex_digest(); }

 private:
  Sha256 hash_;
  std::vector<uint8_t> buffer_;
};

// One engine per worker; keeps its model alive (Engine holds a reference).
class EngineBox {
 public:
  EngineBox(const Model& model, const std::string& options_json, int32_t index)
      : problem_(model.shared()) {
    Result<Options> options = options_from_json(options_json);
    if (!options.is_ok()) {
      error_ = options.status().message();
      return;
    }
    engine_ = std::make_unique<Engine>(*problem_, options.value(), index);
  }
  std::string error() const { return error_; }
  bool step(double work) { return engine_ && engine_->step(static_cast<int64_t>(work)); }
  bool finished() const { return !engine_ || engine_->finished(); }
  bool has_best() const { return engine_ && engine_->best().found(); }
  std::string best_cost() const { return has_best() ? std::to_string(engine_->best().cost) : ""; }
  val best_plan() const {
    const std::vector<int32_t>& plan = engine_->best().solution;
    return copy_out("Int32Array", plan.data(), plan.size());
  }
  std::string lower_bound() const { return engine_ ? std::to_string(engine_->lower_bound()) : "0"; }
  bool offer(const val& plan) { return engine_ && engine_->offer(plan_from(plan)); }
  std::string stats() const { return engine_ ? engine_->stats_json() : "{}"; }

 private:
  std::shared_ptr<const Problem> problem_;
  std::unique_ptr<Engine> engine_;
  std::string error_;
};

namespace {

// {"verdict", "feasible", "message", "cost", "peak", "peakTime", "forbidden"}
std::string evaluate_plan(const Model& model, const val& plan) {
  const Evaluation e = evaluate(model.problem(), plan_from(plan));
  nlohmann::ordered_json j;
  j["verdict"] = verdict_name(e.verdict);
  j["feasible"] = e.feasible();
  j["message"] = e.message;
  j["cost"] = to_decimal(e.cost);
  j["peak"] = to_decimal(e.peak_usage);
  j["peakTime"] = e.peak_time;
  j["forbidden"] = e.forbidden_count;
  return j.dump();
}

// Step function as one Float64Array: times first, then usages.
val profile_out(const UsageProfile& profile) {
  std::vector<double> out(profile.time.begin(), profile.time.end());
  out.insert(out.end(), profile.usage.begin(), profile.usage.end());
  return copy_out("Float64Array", out.data(), out.size());
}

val usage_profile_of(const Model& model, const val& plan) {
  return profile_out(usage_profile(model.problem(), plan_from(plan)));
}

val min_usage_profile_of(const Model& model) {
  return profile_out(min_usage_profile(model.problem()));
}

// Nodes live at time t under the plan, largest usage first (ties by index).
val live_nodes_at(const Model& model, const val& plan_value, double t) {
  const Problem& p = model.problem();
  const std::vector<int32_t> plan = plan_from(plan_value);
  std::vector<int32_t> live;
  for (int32_t v = 0; v < p.num_nodes(); ++v) {
    if (p.interval_lo[v] <= t && t < p.interval_hi[v]) live.push_back(v);
  }
  std::sort(live.begin(), live.end(), [&](int32_t a, int32_t b) {
    const Usage ua = p.node_usage(a, plan[a]);
    const Usage ub = p.node_usage(b, plan[b]);
    return ua != ub ? ua > ub : a < b;
  });
  return copy_out("Int32Array", live.data(), live.size());
}

// Each node's share of the plan's cost: its own cost plus half of every
// incident edge's entry (the shares add up to the total).
val cost_shares(const Model& model, const val& plan_value) {
  const Problem& p = model.problem();
  const std::vector<int32_t> plan = plan_from(plan_value);
  std::vector<double> share(p.num_nodes(), 0.0);
  for (int32_t v = 0; v < p.num_nodes(); ++v)
    share[v] = static_cast<double>(p.node_cost(v, plan[v]));
  for (int32_t e = 0; e < p.num_edges(); ++e) {
    const double c = static_cast<double>(p.edge_cost(e, plan[p.edge_u[e]], plan[p.edge_v[e]]));
    share[p.edge_u[e]] += c / 2;
    share[p.edge_v[e]] += c / 2;
  }
  return copy_out("Float64Array", share.data(), share.size());
}

// The neighbours of v under the plan: [neighbour, edge cost paid] pairs.
val neighbours_of(const Model& model, const val& plan_value, int32_t v) {
  const Problem& p = model.problem();
  const std::vector<int32_t> plan = plan_from(plan_value);
  std::vector<double> out;
  for (int32_t i = p.adj_begin[v]; i < p.adj_begin[v + 1]; ++i) {
    const int32_t e = p.adj_edge[i];
    const int32_t other = p.edge_u[e] == v ? p.edge_v[e] : p.edge_u[e];
    out.push_back(other);
    out.push_back(static_cast<double>(p.edge_cost(e, plan[p.edge_u[e]], plan[p.edge_v[e]])));
  }
  return copy_out("Float64Array", out.data(), out.size());
}

// A first feasible plan within a fraction of a second, for the screen while an
// Engine presolves: every node at its least usage (memory-feasible whenever
// any plan is), then greedy one-node descent until no forbidden entry is left
// and the plan fits the limit, or after about max_work strategy evaluations.
// Empty when it found none; callers still check it with evaluatePlan().
val quick_plan(const Model& model, double seed, double max_work) {
  const Problem& p = model.problem();
  IncrementalEvaluator state(p, min_usage_assignment(p));
  GreedyDescent descent(p, static_cast<uint64_t>(seed));
  const int64_t budget = static_cast<int64_t>(max_work);
  constexpr int64_t kChunk = 1 << 15;  // evaluations between feasibility checks
  int64_t done = 0;
  while (!state.feasible() && !descent.converged() && done < budget) {
    descent.run(&state, std::min(kChunk, budget - done), &done);
  }
  if (!state.feasible()) return val::global("Int32Array").new_(0);
  const std::vector<int32_t>& plan = state.solution();
  return copy_out("Int32Array", plan.data(), plan.size());
}

std::string check_options(const std::string& options_json) {
  Result<Options> options = options_from_json(options_json);
  return options.is_ok() ? "" : options.status().message();
}

// The CLI's result JSON from the page's run. run_json: {"file", "sha256",
// "options": {...}, "wall_time_s", "stats": {...}, "lower_bound": "..",
// "seconds"}; trace_json: [[seconds, engine, found, "cost", "bound"], ...].
std::string result_json_of(const Model& model, const val& plan_value, const std::string& run_json,
                           const std::string& trace_json) {
  const nlohmann::json run = nlohmann::json::parse(run_json, nullptr, false);
  const nlohmann::json trace = nlohmann::json::parse(trace_json, nullptr, false);
  if (run.is_discarded() || !run.is_object() || trace.is_discarded() || !trace.is_array()) {
    return "";
  }
  SolveResult result;
  const std::vector<int32_t> plan = plan_from(plan_value);
  if (!plan.empty()) {
    const Evaluation e = evaluate(model.problem(), plan);
    if (e.feasible()) {
      result.best.solution = plan;
      result.best.cost = static_cast<int64_t>(e.cost);
    }
  }
  result.lower_bound = std::stoll(run.value("lower_bound", std::string("0")));
  result.proven_optimal = result.best.found() && result.lower_bound >= result.best.cost;
  for (const nlohmann::json& row : trace) {
    SolveEvent event;
    event.seconds = row.at(0).get<double>();
    event.engine = row.at(1).get<int32_t>();
    event.found = row.at(2).get<bool>();
    event.cost = event.found ? std::stoll(row.at(3).get<std::string>()) : 0;
    event.bound = std::stoll(row.at(4).get<std::string>());
    result.trace.push_back(event);
  }
  result.seconds = run.value("seconds", 0.0);
  RunInfo info;
  info.instance_file = run.value("file", std::string());
  info.sha256 = run.value("sha256", std::string());
  if (run.contains("options")) {
    Result<Options> options = options_from_json(run["options"].dump());
    if (options.is_ok()) info.options = options.value();
  }
  info.wall_time_s = run.value("wall_time_s", 0.0);
  info.stats_json = run.contains("stats") ? run["stats"].dump() : "{}";
  result.stats_json = info.stats_json;
  return result_json(model.problem(), result, info);
}

std::string solution_line_of(const val& plan) { return solution_line(plan_from(plan)); }

// Peak bytes the allocator ever took from the wasm heap (dlmalloc's
// max_footprint), and the bytes in use now.
double heap_peak_bytes() { return static_cast<double>(mallinfo().usmblks); }
double heap_used_bytes() { return static_cast<double>(mallinfo().uordblks); }

std::string version() { return kVersion; }

}  // namespace

EMSCRIPTEN_BINDINGS(shardlab) {
  using emscripten::class_;
  using emscripten::function;

  class_<Model>("Model")
      .function("name", &Model::name)
      .function("numNodes", &Model::num_nodes)
      .function("numEdges", &Model::num_edges)
      .function("numMatrices", &Model::num_matrices)
      .function("numCheckpoints", &Model::num_checkpoints)
      .function("totalStrategies", &Model::total_strategies)
      .function("maxStrategies", &Model::max_strategies)
      .function("hasUsageLimit", &Model::has_usage_limit)
      .function("usageLimit", &Model::usage_limit)
      .function("memoryBytes", &Model::memory_bytes)
      .function("horizonBegin", &Model::horizon_begin)
      .function("horizonEnd", &Model::horizon_end)
      .function("minPossiblePeak", &Model::min_possible_peak)
      .function("digest", &Model::digest)
      .function("fieldCount", &Model::field_count)
      .function("fieldName", &Model::field_name)
      .function("exportField", &Model::export_field)
      .function("column", &Model::column);

  class_<Loader>("Loader")
      .constructor<std::string>()
      .function("buffer", &Loader::buffer)
      .function("feed", &Loader::feed)
      .function("finish", &Loader::finish)
      .function("model", &Loader::model)
      .function("bytesFed", &Loader::bytes_fed);

  class_<ModelImport>("ModelImport")
      .constructor<>()
      .function("field", &ModelImport::field)
      .function("finish", &ModelImport::finish)
      .function("model", &ModelImport::model);

  class_<Hasher>("Hasher")
      .constructor<>()
      .function("buffer", &Hasher::buffer)
      .function("update", &Hasher::update)
      .function("hexDigest", &Hasher::hex_digest);

  class_<EngineBox>("Engine")
      .constructor<const Model&, std::string, int32_t>()
      .function("error", &EngineBox::error)
      .function("step", &EngineBox::step)
      .function("finished", &EngineBox::finished)
      .function("hasBest", &EngineBox::has_best)
      .function("bestCost", &EngineBox::best_cost)
      .function("bestPlan", &EngineBox::best_plan)
      .function("lowerBound", &EngineBox::lower_bound)
      .function("offer", &EngineBox::offer)
      .function("stats", &EngineBox::stats);

  function("evaluatePlan", &evaluate_plan);
  function("quickPlan", &quick_plan);
  function("usageProfile", &usage_profile_of);
  function("minUsageProfile", &min_usage_profile_of);
  function("liveNodesAt", &live_nodes_at);
  function("costShares", &cost_shares);
  function("neighboursOf", &neighbours_of);
  function("optionsSchema", &options_schema_json);
  function("checkOptions", &check_options);
  function("resultJson", &result_json_of);
  function("solutionLine", &solution_line_of);
  function("heapPeakBytes", &heap_peak_bytes);
  function("heapUsedBytes", &heap_used_bytes);
  function("version", &version);
}

}  // namespace shardlab::web
