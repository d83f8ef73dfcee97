// The plan lab's JavaScript surface (its own EMSCRIPTEN_BINDINGS block): a
// PlanSession holds the parsed model, cluster and training (text crosses the
// seam once, when a preset is named or a file is read), and PlanRun steps
// core/plan/plan.h's PlanRun (the CLI's loop) in the worker's time slices
// with the one progress record, and returns its result through the core's
// one serialiser (plan_json), with the exports and the winning plan's
// pipeline timeline. Results in the shape of wasm/result.h.
//
// Call chain:
//   web/plan/lab.mjs ── plan_client.mjs ── postMessage ──> web/plan/worker.js
//     worker.js: new PlanSession(); setModelPreset(name) | setModelText(text, source),
//                setClusterPreset(name) | setClusterText(text, source), setTraining(json)
//                when an input changes; run(optionsJson) -> PlanRun .step(work) / .finished() /
//                .searchTimeLimitS() / .stopSearch() / .timeUp() / .progress(s) / .snapshot() /
//                .finish(); layout(part, configJson)
//       ─> core/plan/inputs.h, model_costs.h, plan.h, exports.h; core/pipeline/pipeline.h
//   tests/wasm/plan.test.mjs compares finish()'s JSON with `parity_native cli plan ... --json`.
#include <emscripten/bind.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/json_doc.h"
#include "core/pipeline/pipeline.h"
#include "core/plan/exports.h"
#include "core/plan/formulas.h"
#include "core/plan/inputs.h"
#include "core/plan/model_costs.h"
#include "core/plan/plan.h"
#include "wasm/result.h"

namespace shardlab::plan::web {
namespace {

using emscripten::val;
using shardlab::web::failure;
using shardlab::web::ok;

val strings(const std::vector<std::string>& items) {
  val out = val::array();
  for (const std::string& item : items) out.call<void>("push", val(item));
  return out;
}

// What the pickers show of a model, from the parsed structs.
val describe_model(const ModelInput& input) {
  val out = val::object();
  if (input.kind == ModelInput::Kind::kEinsum) {
    const teach::ModelSpec& m = input.einsum;
    out.set("kind", std::string("einsum"));
    out.set("name", m.name);
    out.set("ops", static_cast<double>(m.ops.size()));
    return out;
  }
  const Transformer& t = input.transformer;
  out.set("kind", std::string("transformer"));
  out.set("name", t.name);
  out.set("family", t.family);
  out.set("layers", t.layers);
  out.set("hidden", static_cast<double>(t.hidden));
  out.set("heads", t.heads);
  out.set("kvHeads", t.kv_heads);
  out.set("experts", t.experts);
  out.set("vocab", static_cast<double>(t.vocab));
  out.set("parameters", static_cast<double>(parameter_counts(t).total));
  return out;
}

val describe_cluster(const Cluster& c) {
  val out = val::object();
  out.set("name", c.name);
  out.set("nodes", c.nodes);
  out.set("gpusPerNode", c.gpus_per_node);
  out.set("gpu", c.gpu_name);
  out.set("peakTflops", c.peak_tflops);
  out.set("memoryGB", c.memory_GB);
  out.set("intraGBps", c.intra_node.bandwidth_GBps);
  out.set("interGBps", c.inter_node.bandwidth_GBps);
  out.set("matmulEfficiency", c.matmul_efficiency);
  out.set("commEfficiency", c.comm_efficiency);
  return out;
}

// What a run asks for beyond the session's inputs, read with positions:
// {"time_limit_s", "work_limit", "alternatives", "sizing", "sweep"}.
Result<PlanOptions> run_options(const std::string& text) {
  PlanOptions options;
  if (text.empty()) return options;
  Result<json::Document> doc = json::Document::parse("options", text);
  if (!doc.is_ok()) return doc.status();
  const json::JsonAt root = doc.value().root();
  json::Errors errors;
  errors.add(root.expect(json::Kind::kObject));
  if (!errors.ok()) return errors.status();
  errors.add(root.only_keys({"time_limit_s", "work_limit", "alternatives", "sizing", "sweep"}));
  options.time_limit_s =
      errors.take(root.number_or("time_limit_s", options.time_limit_s, 1e-3, 1e7));
  options.work_limit =
      errors.take(root.integer_or("work_limit", 0, 0, std::numeric_limits<int64_t>::max() / 2));
  options.alternatives = errors.take(root.boolean_or("alternatives", true));
  options.sizing = errors.take(root.boolean_or("sizing", true));
  options.sweep = errors.take(root.boolean_or("sweep", false));
  if (!errors.ok()) return errors.status();
  return options;
}

}  // namespace

// One run on a session's inputs, stepped by the worker: core/plan/plan.h's
// PlanRun (the loop plan_with_costs runs for the CLI), whose every step is
// bounded in every phase (search, evaluation, each why-not row, each sizing
// point), so a STOP is served between two steps. JavaScript sees it as
// PlanRun. Held through a shared_ptr: Embind copies the object it returns.
class SteppedRun {
 public:
  SteppedRun(std::shared_ptr<ModelCosts> costs, const ModelInput& model, const Cluster& cluster,
             const Training& training, const Fix& fix, const PlanOptions& options)
      : costs_(std::move(costs)),
        model_(model),
        training_(training),
        search_limit_s_(search_time_limit_s(options)),
        run_(std::make_shared<PlanRun>(costs_.get(), cluster, training, fix, options)) {
    // Every step is one unit of its phase, with two long parts at most (a
    // block solve, a schedule order, a simulation: plan.h's yield; the rest
    // waits for the next step), so that the worker's loop, which calls
    // step() until its slice of time is over, gets back to its event loop,
    // and a STOP, in time. The answers are those of unbounded steps.
    run_->set_yield([] { return true; });
  }

  const Status& status() const { return run_->status(); }

  // One bounded step of the current phase (the worker loop's work argument is
  // not needed: PlanRun bounds its own steps); true when the main search's
  // incumbent or bound improved.
  bool step(double) { return run_->step(); }
  bool finished() const { return run_->finished(); }
  // As the CLI's loop: at searchTimeLimitS() (a share of the run's time
  // limit) the main search ends and the evaluation and the side searches go
  // on; at the time limit timeUp() ends them, the rows not done saying so.
  double search_limit_s() const { return search_limit_s_; }
  void stop_search() { run_->stop_search(); }
  void time_up() { run_->time_up(); }

  // The progress record (core/progress.h) with PlanRun's counters.
  val progress(double elapsed_s) const {
    return shardlab::web::progress_val(run_->progress(elapsed_s));
  }

  // The answer so far, as `shardlab plan --json` prints it (all of it when
  // the run finished), with what the page shows beside it: {json, megatron,
  // megatronNotes, torchtitan, timeline (schedule JSON, or null),
  // timelineError}. The exports are null for an einsum model. Without
  // with_timeline (a Stop: the answer is due at once) the timeline is not
  // simulated and timelineError says so: on a long pipeline its simulation
  // and JSON take seconds.
  val finish(bool with_timeline) { return answer(run_->finish(), with_timeline); }

  // Once the plan is evaluated (before the why-not rows and sizing end):
  // the answer so far in finish()'s shape, without the timeline (its
  // simulation waits for finish()); null before.
  val snapshot() const {
    if (!run_->evaluated()) return ok(val::null());
    return answer(run_->snapshot(), false);
  }

 private:
  val answer(const PlanResult& result, bool with_timeline) const {
    if (!result.status.is_ok()) return failure(result.status);
    val out = val::object();
    out.set("json", plan_json(result));
    out.set("megatron", val::null());
    out.set("megatronNotes", val::array());
    out.set("torchtitan", val::null());
    out.set("timeline", val::null());
    out.set("timelineError", val::null());
    if (!result.found) return ok(out);
    const Plan& plan = result.best.plan;
    if (model_.kind == ModelInput::Kind::kTransformer) {
      out.set("megatron", megatron_args(plan, training_, model_.transformer));
      out.set("megatronNotes", strings(megatron_notes(plan, training_, model_.transformer)));
      out.set("torchtitan", torchtitan_toml(plan, training_));
    }
    if (!with_timeline) {
      out.set("timelineError", std::string("The timeline is not drawn for a stopped run: press "
                                           "Plan to plan again."));
      return ok(out);
    }
    // The pipeline lab's own view of the winning plan: its schedule run on
    // the stages' times (microseconds) and memory (bytes).
    Result<pipeline::ScheduleResult> timeline =
        pipeline::run_schedule(result.best.timeline, plan.schedule);
    if (timeline.is_ok()) {
      out.set("timeline", pipeline::schedule_json(timeline.value()));
    } else {
      out.set("timelineError", timeline.status().message());
    }
    return ok(out);
  }

  std::shared_ptr<ModelCosts> costs_;  // outlives run_ (declared first)
  ModelInput model_;
  Training training_;
  double search_limit_s_ = 0;
  std::shared_ptr<PlanRun> run_;
};

class PlanSession {
 public:
  PlanSession() = default;

  static val model_presets() { return ok(strings(model_preset_names())); }
  static val cluster_presets() { return ok(strings(cluster_preset_names())); }

  val set_model_preset(const std::string& name) {
    Result<Transformer> preset = model_preset(name);
    if (!preset.is_ok()) return failure(preset.status());
    ModelInput input;
    input.transformer = std::move(preset).value();
    return set_model(std::move(input));
  }

  // A Hugging Face config.json or a teaching-lab einsum model; errors name `source`.
  val set_model_text(const std::string& text, const std::string& source) {
    Result<ModelInput> input = read_model_input(source, text);
    if (!input.is_ok()) return failure(input.status());
    return set_model(std::move(input).value());
  }

  val set_cluster_preset(const std::string& name) {
    Result<Cluster> preset = cluster_preset(name);
    if (!preset.is_ok()) return failure(preset.status());
    return set_cluster(std::move(preset).value());
  }

  val set_cluster_text(const std::string& text, const std::string& source) {
    Result<Cluster> cluster = read_cluster(source, text);
    if (!cluster.is_ok()) return failure(cluster.status());
    return set_cluster(std::move(cluster).value());
  }

  // {"gpus"?, "global_batch", "seq"?, "fix"?}: the CLI's --gpus, --global-batch,
  // --seq and --fix, read with positions; the fix's grammar is checked here,
  // its fit to the model and cluster when a run starts.
  val set_training(const std::string& text) {
    Result<json::Document> doc = json::Document::parse("training", text);
    if (!doc.is_ok()) return failure(doc.status());
    const json::JsonAt root = doc.value().root();
    json::Errors errors;
    errors.add(root.expect(json::Kind::kObject));
    if (!errors.ok()) return failure(errors.status());
    errors.add(root.only_keys({"gpus", "global_batch", "seq", "fix"}));
    const int64_t gpus = errors.take(root.integer_or("gpus", 0, 0, 1 << 24));
    Training training;
    training.global_batch = errors.take(root["global_batch"].integer(1, int64_t{1} << 40));
    training.seq = errors.take(root.integer_or("seq", training.seq, 1, int64_t{1} << 30));
    const std::string fix_text_in = errors.take(root.string_or("fix", ""));
    if (!errors.ok()) return failure(errors.status());
    Result<Fix> fix = parse_fix(fix_text_in);
    if (!fix.is_ok()) return failure(fix.status());
    gpus_ = gpus;
    training_ = training;
    fix_ = std::move(fix).value();
    has_training_ = true;
    costs_.reset();
    val out = val::object();
    out.set("fix", fix_text(fix_));
    return ok(out);
  }

  // A run on the inputs set so far (options: run_options above).
  val run(const std::string& options_json) {
    Result<PlanOptions> options = run_options(options_json);
    if (!options.is_ok()) return failure(options.status());
    Result<Cluster> cluster = sized_cluster();
    if (!cluster.is_ok()) return failure(cluster.status());
    Result<ModelCosts*> costs = model_costs(cluster.value());
    if (!costs.is_ok()) return failure(costs.status());
    SteppedRun run(costs_, model_, cluster.value(), training_, fix_, options.value());
    if (!run.status().is_ok()) return failure(run.status());
    return ok(val(std::move(run)));
  }

  // The teaching lab's explanation (its report JSON) of one part's layout:
  // part "layer" | "embedding" | "head"; config {"tp", "sp", "ep",
  // "microbatch_size", "recompute"} as a plan's.
  val layout(const std::string& part_name, const std::string& config_json) {
    BlockPart part = BlockPart::kLayer;
    if (part_name == "embedding") {
      part = BlockPart::kEmbedding;
    } else if (part_name == "head") {
      part = BlockPart::kHead;
    } else if (part_name != "layer") {
      return failure(Status(
          StatusCode::kInvalidArgument,
          "layout: expected the part layer, embedding or head, found \"" + part_name + "\""));
    }
    Result<json::Document> doc = json::Document::parse("layout", config_json);
    if (!doc.is_ok()) return failure(doc.status());
    const json::JsonAt root = doc.value().root();
    json::Errors errors;
    errors.add(root.expect(json::Kind::kObject));
    if (!errors.ok()) return failure(errors.status());
    errors.add(root.only_keys({"tp", "sp", "ep", "microbatch_size", "recompute", "lean"}));
    PartConfig config;
    config.tp = static_cast<int32_t>(errors.take(root.integer_or("tp", 1, 1, 1 << 20)));
    config.sequence_parallel = errors.take(root.boolean_or("sp", false));
    config.lean = errors.take(root.boolean_or("lean", false));
    config.ep = static_cast<int32_t>(errors.take(root.integer_or("ep", 1, 1, 1 << 20)));
    config.microbatch = errors.take(root.integer_or("microbatch_size", 1, 1, int64_t{1} << 30));
    const std::string recompute = errors.take(root.string_or("recompute", "none"));
    if (!errors.ok()) return failure(errors.status());
    if (!parse_recompute(recompute, &config.recompute)) {
      return failure(root["recompute"].error("none, selective or full", "\"" + recompute + "\""));
    }
    Result<Cluster> cluster = sized_cluster();
    if (!cluster.is_ok()) return failure(cluster.status());
    Result<ModelCosts*> costs = model_costs(cluster.value());
    if (!costs.is_ok()) return failure(costs.status());
    Result<PartCosts> priced = costs.value()->part(part, config);
    if (!priced.is_ok()) return failure(priced.status());
    return ok(val(costs.value()->report_json(part, config)));
  }

 private:
  val set_model(ModelInput input) {
    model_ = std::move(input);
    has_model_ = true;
    costs_.reset();
    return ok(describe_model(model_));
  }

  val set_cluster(Cluster cluster) {
    cluster_ = std::move(cluster);
    has_cluster_ = true;
    costs_.reset();
    return ok(describe_cluster(cluster_));
  }

  Result<Cluster> sized_cluster() const {
    if (!has_model_ || !has_cluster_ || !has_training_) {
      return Status(StatusCode::kInvalidArgument, std::string("plan: no ") +
                                                      (!has_model_     ? "model"
                                                       : !has_cluster_ ? "cluster"
                                                                       : "training") +
                                                      " is set");
    }
    Cluster cluster = cluster_;
    if (gpus_ > 0) {
      const Status status = set_gpu_count(&cluster, gpus_);
      if (!status.is_ok()) return status;
    }
    return cluster;
  }

  // The costs of the current inputs, built once and shared by the runs and
  // the layout views (their block solves are memoised inside).
  Result<ModelCosts*> model_costs(const Cluster& cluster) {
    if (!costs_) {
      Result<std::unique_ptr<ModelCosts>> made = ModelCosts::create(model_, cluster, training_);
      if (!made.is_ok()) return made.status();
      costs_ = std::shared_ptr<ModelCosts>(std::move(made).value());
    }
    return costs_.get();
  }

  ModelInput model_;
  Cluster cluster_;
  Training training_;
  Fix fix_;
  int64_t gpus_ = 0;
  bool has_model_ = false, has_cluster_ = false, has_training_ = false;
  std::shared_ptr<ModelCosts> costs_;
};

}  // namespace shardlab::plan::web

EMSCRIPTEN_BINDINGS(plan) {
  using shardlab::plan::web::PlanSession;
  using shardlab::plan::web::SteppedRun;
  emscripten::class_<PlanSession>("PlanSession")
      .constructor<>()
      .class_function("modelPresets", &PlanSession::model_presets)
      .class_function("clusterPresets", &PlanSession::cluster_presets)
      .function("setModelPreset", &PlanSession::set_model_preset)
      .function("setModelText", &PlanSession::set_model_text)
      .function("setClusterPreset", &PlanSession::set_cluster_preset)
      .function("setClusterText", &PlanSession::set_cluster_text)
      .function("setTraining", &PlanSession::set_training)
      .function("run", &PlanSession::run)
      .function("layout", &PlanSession::layout);
  emscripten::class_<SteppedRun>("PlanRun")
      .function("step", &SteppedRun::step)
      .function("finished", &SteppedRun::finished)
      .function("searchTimeLimitS", &SteppedRun::search_limit_s)
      .function("stopSearch", &SteppedRun::stop_search)
      .function("timeUp", &SteppedRun::time_up)
      .function("progress", &SteppedRun::progress)
      .function("snapshot", &SteppedRun::snapshot)
      .function("finish", &SteppedRun::finish);
}
