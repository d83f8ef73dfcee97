// The sharding lab's JavaScript surface (the pipeline and teaching labs have
// their own files beside it): one EMSCRIPTEN_BINDINGS block over the public
// core headers. Only numbers, strings, plain objects and typed arrays cross
// it; 64-bit totals travel as decimal strings (they may pass 2^53). Every
// call that can fail returns the one result shape of wasm/result.h.
//
// Call chain:
//   web/sharding/lab.mjs ── web/sharding/solver_client.mjs ── postMessage ──>
//     web/sharding/worker.js (one Engine per worker, in the shell of web/worker_shell.mjs):
//       Loader.feed()/finish() (web/files.mjs) ─┐
//       ModelImport (typed arrays)              ├─> core/sharding/io.h, model.h
//       Engine.create()/step()/progress()/offer()┘   core/sharding/solver.h
//       quickPlan() first, while the Engine is not built yet
//   web/sharding/model_view.mjs holds the page's own Model for the views:
//     evaluatePlan(), usageProfile(), liveNodesAt(), costShares(),
//     neighboursOf(), resultJson() ─> core/sharding/evaluate.h, inspect.h, result.h
#include <emscripten/bind.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/sha256.h"
#include "core/sharding/evaluate.h"
#include "core/sharding/inspect.h"
#include "core/sharding/io.h"
#include "core/sharding/model.h"
#include "core/sharding/options.h"
#include "core/sharding/result.h"
#include "core/sharding/search/greedy.h"
#include "core/sharding/solver.h"
#include "core/version.h"
#include "wasm/model_fields.h"
#include "wasm/result.h"

namespace shardlab::web {
namespace {

using emscripten::typed_memory_view;
using emscripten::val;

std::vector<int32_t> plan_from(const val& plan) {
  return emscripten::convertJSArrayToNumberVector<int32_t>(plan);
}

Status no_field(int32_t i) {
  return Status(StatusCode::kInvalidArgument, "no model field " + std::to_string(i) +
                                                  " (there are " +
                                                  std::to_string(model_fields().size()) + ")");
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
  val field_name(int32_t i) const {
    if (i < 0 || i >= field_count()) return failure(no_field(i));
    return ok(val(std::string(model_fields()[i].name)));
  }
  val export_field(int32_t i) const {
    if (i < 0 || i >= field_count()) return failure(no_field(i));
    const FieldRef& f = model_fields()[i];
    Problem& p = const_cast<Problem&>(*problem_);  // data() only
    return ok(copy_out("Uint8Array", f.data(p), f.count(p) * f.element_bytes));
  }

  // Columns for the views, as doubles (Float64Array) or int32 (Int32Array).
  val column(const std::string& name) const {
    const Problem& p = *problem_;
    auto doubles = [](const auto& values) {
      std::vector<double> out(values.begin(), values.end());
      return ok(copy_out("Float64Array", out.data(), out.size()));
    };
    auto ints = [](const std::vector<int32_t>& values) {
      return ok(copy_out("Int32Array", values.data(), values.size()));
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
    return failure(Status(StatusCode::kInvalidArgument,
                          "no column '" + name +
                              "' (strategy_begin, strategy_cost, strategy_usage, interval_lo, "
                              "interval_hi, edge_u, edge_v, adj_begin, adj_edge)"));
  }

 private:
  std::shared_ptr<const Problem> problem_;
};

// Streaming load: JS writes each chunk into buffer(n), then calls feed(n);
// finish() gives the Model.
class Loader {
 public:
  explicit Loader(const std::string& source_name) : reader_(source_name) {}
  val buffer(int32_t size) {
    if (static_cast<int32_t>(buffer_.size()) < size) buffer_.resize(size);
    return val(typed_memory_view(static_cast<size_t>(size), buffer_.data()));
  }
  val feed(int32_t size) {
    if (size < 0 || size > static_cast<int32_t>(buffer_.size())) {
      return failure(Status(StatusCode::kInvalidArgument,
                            "feed(" + std::to_string(size) + "): more than the buffer holds"));
    }
    const Status status = reader_.feed(buffer_.data(), static_cast<size_t>(size));
    return status.is_ok() ? ok() : failure(status);
  }
  val finish() {
    std::vector<uint8_t>().swap(buffer_);
    return result_of(reader_.finish(), [](Problem problem) {
      return val(Model(std::make_shared<const Problem>(std::move(problem))));
    });
  }
  double bytes_fed() const { return static_cast<double>(reader_.bytes_fed()); }

 private:
  InstanceReader reader_;
  std::vector<uint8_t> buffer_;
};

// Rebuilds a model from the byte fields another worker exported: a memory
// copy and finalize(), never a second parse.
class ModelImport {
 public:
  val field(int32_t i, double byte_length) {
    if (i < 0 || i >= static_cast<int32_t>(model_fields().size())) return failure(no_field(i));
    const FieldRef& f = model_fields()[i];
    if (byte_length < 0 || std::fmod(byte_length, f.element_bytes) != 0) {
      return failure(Status(StatusCode::kInvalidArgument,
                            std::string("field ") + f.name + ": " + std::to_string(byte_length) +
                                " bytes is not a whole number of elements"));
    }
    f.resize(problem_, static_cast<size_t>(byte_length) / f.element_bytes);
    return ok(val(typed_memory_view(f.count(problem_) * f.element_bytes, f.data(problem_))));
  }
  // limit: the usage limit as a decimal string (it may pass 2^53).
  val finish(const std::string& name, bool has_limit, const std::string& limit) {
    problem_.name = name;
    problem_.has_usage_limit = has_limit;
    problem_.usage_limit = 0;
    if (has_limit) {
      Result<json::Document> doc = json::Document::parse("limit", "\"" + limit + "\"");
      Result<int64_t> value =
          doc.is_ok() ? json::decimal_integer(doc.value().root()) : Result<int64_t>(doc.status());
      if (!value.is_ok()) return failure(value.status());
      problem_.usage_limit = value.value();
    }
    const Status status = problem_.finalize();
    if (!status.is_ok()) return failure(status);
    return ok(val(Model(std::make_shared<const Problem>(std::move(problem_)))));
  }

 private:
  Problem problem_;
};

// Incremental SHA-256 of the bytes as stored (the .gz bytes for a .gz file).
class Hasher {
 public:
  val buffer(int32_t size) {
    if (static_cast<int32_t>(buffer_.size()) < size) buffer_.resize(size);
    return val(typed_memory_view(static_cast<size_t>(size), buffer_.data()));
  }
  void update(int32_t size) {
    hash_.update(buffer_.data(),
                 std::min<size_t>(static_cast<size_t>(std::max(0, size)), buffer_.size()));
  }
  std::string hex_digest() { return hash_.hex_digest(); }

 private:
  Sha256 hash_;
  std::vector<uint8_t> buffer_;
};

// One engine per worker; keeps its model alive (Engine holds a reference).
class EngineBox {
 public:
  EngineBox(std::shared_ptr<const Problem> problem, const Options& options, int32_t index)
      : problem_(std::move(problem)),
        engine_(std::make_unique<Engine>(*problem_, options, index)) {}

  // Engine.create(model, optionsJson, index): the options read as
  // options_from_json reads them (positioned errors).
  static val create(const Model& model, const std::string& options_json, int32_t index) {
    Options options;
    const Status status = options_from_json("options", options_json, &options);
    if (!status.is_ok()) return failure(status);
    return ok(val(EngineBox(model.shared(), options, index)));
  }

  bool step(double work) { return engine_->step(static_cast<int64_t>(work)); }
  // The worker's wall-clock limit (Engine::set_time_left): seconds from now.
  void set_time_left(double seconds) { engine_->set_time_left(seconds); }
  bool finished() const { return engine_->finished(); }
  // The progress record (core/progress.h) at elapsedS.
  val progress(double elapsed_s) const { return progress_val(progress_of(*engine_, elapsed_s)); }
  // The exact cost (null without a plan) and bound, as decimal strings.
  val exact() const {
    val out = val::object();
    out.set("cost",
            engine_->best().found() ? val(std::to_string(engine_->best().cost)) : val::null());
    out.set("bound", std::to_string(engine_->lower_bound()));
    return out;
  }
  val best_plan() const {
    if (!engine_->best().found()) {
      return failure(Status(StatusCode::kInvalidArgument, "the engine has no plan yet"));
    }
    const std::vector<int32_t>& plan = engine_->best().solution;
    return ok(copy_out("Int32Array", plan.data(), plan.size()));
  }
  // True when the plan became the incumbent (a worse or infeasible one is ignored).
  bool offer(const val& plan) { return engine_->offer(plan_from(plan)); }

 private:
  std::shared_ptr<const Problem> problem_;
  std::shared_ptr<Engine> engine_;  // shared: Embind copies the box into JS
};

namespace {

// {verdict, feasible, message, cost, peak, peakTime, forbidden}; a plan of
// the wrong shape is a verdict too (wrong_length, strategy_out_of_range).
val evaluate_plan(const Model& model, const val& plan) {
  const Evaluation e = evaluate(model.problem(), plan_from(plan));
  val out = val::object();
  out.set("verdict", std::string(verdict_name(e.verdict)));
  out.set("feasible", e.feasible());
  out.set("message", e.message);
  out.set("cost", to_decimal(e.cost));
  out.set("peak", to_decimal(e.peak_usage));
  out.set("peakTime", static_cast<double>(e.peak_time));
  out.set("forbidden", static_cast<double>(e.forbidden_count));
  return ok(out);
}

// Step function as one Float64Array: times first, then usages.
val profile_out(const UsageProfile& profile) {
  std::vector<double> out(profile.time.begin(), profile.time.end());
  out.insert(out.end(), profile.usage.begin(), profile.usage.end());
  return copy_out("Float64Array", out.data(), out.size());
}

val usage_profile_of(const Model& model, const val& plan_value) {
  const std::vector<int32_t> plan = plan_from(plan_value);
  const Status shape = check_plan_shape(model.problem(), plan);
  if (!shape.is_ok()) return failure(shape);
  return ok(profile_out(usage_profile(model.problem(), plan)));
}

val min_usage_profile_of(const Model& model) {
  return ok(profile_out(min_usage_profile(model.problem())));
}

val live_nodes_at_of(const Model& model, const val& plan, double t) {
  return result_of(
      live_nodes_at(model.problem(), plan_from(plan), static_cast<Time>(t)),
      [](std::vector<int32_t> live) { return copy_out("Int32Array", live.data(), live.size()); });
}

val cost_shares_of(const Model& model, const val& plan) {
  return result_of(cost_shares(model.problem(), plan_from(plan)), [](std::vector<double> shares) {
    return copy_out("Float64Array", shares.data(), shares.size());
  });
}

// [{node, cost}] for the edges of v under the plan.
val neighbours_of_node(const Model& model, const val& plan, int32_t v) {
  return result_of(neighbours_of(model.problem(), plan_from(plan), v),
                   [](std::vector<Neighbour> list) {
                     val out = val::array();
                     for (const Neighbour& n : list) {
                       val item = val::object();
                       item.set("node", n.node);
                       item.set("cost", static_cast<double>(n.edge_cost));
                       out.call<void>("push", item);
                     }
                     return out;
                   });
}

// A first feasible plan within a fraction of a second, for the screen while an
// Engine presolves: every node at its least usage (memory-feasible whenever
// any plan is), then greedy one-node descent until no forbidden entry is left
// and the plan fits the limit, or after about max_work strategy evaluations.
// The value is null when it found none; callers still check a plan with
// evaluatePlan().
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
  if (!state.feasible()) return ok(val::null());
  const std::vector<int32_t>& plan = state.solution();
  return ok(copy_out("Int32Array", plan.data(), plan.size()));
}

val to_val(const nlohmann::ordered_json& j) {
  return val::global("JSON").call<val>("parse", j.dump());
}

// The options as the engines will read them, every default filled in.
val check_options(const std::string& text) {
  Options options;
  const Status status = options_from_json("options", text, &options);
  if (!status.is_ok()) return failure(status);
  return ok(to_val(options_json(options)));
}

// The CLI's result JSON from the page's run (core/sharding/result.h's
// result_json_of_run: run record with its trace, positioned errors).
val result_json_of(const Model& model, const val& plan, const std::string& run_json) {
  return result_of(result_json_of_run(model.problem(), plan_from(plan), "run", run_json));
}

val solution_line_of(const val& plan) { return ok(val(solution_line(plan_from(plan)))); }

// Peak bytes the allocator ever took from the wasm heap (dlmalloc's
// max_footprint), and the bytes in use now.
val heap_peak_bytes() { return ok(val(static_cast<double>(mallinfo().usmblks))); }
val heap_used_bytes() { return ok(val(static_cast<double>(mallinfo().uordblks))); }

val version() { return ok(val(std::string(kVersion))); }

val options_schema_of() { return ok(to_val(options_schema())); }

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
      .function("bytesFed", &Loader::bytes_fed);

  class_<ModelImport>("ModelImport")
      .constructor<>()
      .function("field", &ModelImport::field)
      .function("finish", &ModelImport::finish);

  class_<Hasher>("Hasher")
      .constructor<>()
      .function("buffer", &Hasher::buffer)
      .function("update", &Hasher::update)
      .function("hexDigest", &Hasher::hex_digest);

  class_<EngineBox>("Engine")
      .class_function("create", &EngineBox::create)
      .function("step", &EngineBox::step)
      .function("setTimeLeft", &EngineBox::set_time_left)
      .function("finished", &EngineBox::finished)
      .function("progress", &EngineBox::progress)
      .function("exact", &EngineBox::exact)
      .function("bestPlan", &EngineBox::best_plan)
      .function("offer", &EngineBox::offer);

  function("evaluatePlan", &evaluate_plan);
  function("quickPlan", &quick_plan);
  function("usageProfile", &usage_profile_of);
  function("minUsageProfile", &min_usage_profile_of);
  function("liveNodesAt", &live_nodes_at_of);
  function("costShares", &cost_shares_of);
  function("neighboursOf", &neighbours_of_node);
  function("optionsSchema", &options_schema_of);
  function("checkOptions", &check_options);
  function("resultJson", &result_json_of);
  function("solutionLine", &solution_line_of);
  function("heapPeakBytes", &heap_peak_bytes);
  function("heapUsedBytes", &heap_used_bytes);
  function("version", &version);
}

}  // namespace shardlab::web
