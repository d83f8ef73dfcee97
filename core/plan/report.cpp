// Alternatives, sizing and the JSON document (report.h, plan.h).
#include "core/plan/report.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/pipeline/numbers.h"
#include "core/pipeline/problem_json.h"
#include "core/plan/config.h"

namespace shardlab::plan {
namespace {

using nlohmann::ordered_json;
using pipeline::json_number;

// user + pins, or nullopt naming the user's pin it contradicts.
std::optional<Fix> merge(const Fix& user, const Fix& pins, std::string* conflict) {
  Fix out = user;
  bool clash = false;
  const auto take = [&](auto& slot, const auto& pin, const char* name) {
    if (!pin) return;
    if (slot && *slot != *pin) {
      clash = true;
      if (conflict->empty()) *conflict = std::string("--fix pins ") + name;
    }
    slot = pin;
  };
  take(out.tp, pins.tp, "tp");
  take(out.pp, pins.pp, "pp");
  take(out.dp, pins.dp, "dp");
  take(out.ep, pins.ep, "ep");
  take(out.vpp, pins.vpp, "vpp");
  take(out.sequence_parallel, pins.sequence_parallel, "sp");
  take(out.zero, pins.zero, "zero");
  take(out.schedule, pins.schedule, "schedule");
  take(out.microbatch_size, pins.microbatch_size, "mbs");
  take(out.microbatches, pins.microbatches, "microbatches");
  take(out.recompute, pins.recompute, "recompute");
  if (clash) return std::nullopt;
  // A pinned pipeline size or schedule makes pinned layers meaningless.
  if (pins.pp || pins.schedule || pins.vpp || pins.tp) out.stage_layers.reset();
  return out;
}

ordered_json plan_object(const Plan& p) {
  ordered_json o;
  o["tp"] = p.tp;
  o["pp"] = p.pp;
  o["dp"] = p.dp;
  o["ep"] = p.ep;
  o["vpp"] = p.vpp;
  o["schedule"] = p.schedule;
  o["microbatch_size"] = p.microbatch_size;
  o["microbatches"] = p.microbatches;
  o["recompute"] = recompute_name(p.recompute);
  o["sequence_parallel"] = p.sequence_parallel;
  o["zero"] = p.zero;
  o["lean_layout"] = p.lean_layout;
  o["stages"] = p.stage_layers;
  return o;
}

}  // namespace

std::string gigabytes(int64_t bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%.1f GB", static_cast<double>(bytes) / 1e9);
  return text;
}

PinnedSearch::PinnedSearch(PlanCosts* costs, const Cluster& cluster, const Training& training,
                           const Fix& fix, const PlanOptions& options, SearchCaches* caches,
                           const std::vector<TimedPlan>* seeds, const Plan* near)
    : planner_(costs, cluster, training, fix, options.search, caches), budget_(options.side_work) {
  if (!planner_.status().is_ok()) {
    done_ = true;
    return;
  }
  if (near) offers_.push_back(*near);
  // The best plan another search timed that satisfies the pins starts it.
  if (seeds) {
    const TimedPlan* seed = nullptr;
    for (const TimedPlan& t : *seeds) {
      if (fix_admits(fix, t.plan) && (!seed || t.step_time_s < seed->step_time_s)) seed = &t;
    }
    if (seed) offers_.push_back(seed->plan);
  }
}

bool PinnedSearch::step(const std::function<bool()>& yield) {
  if (done_) return true;
  if (next_offer_ < offers_.size()) {
    planner_.offer(offers_[next_offer_], yield);
    if (!planner_.deferred()) ++next_offer_;  // else made again
    return false;
  }
  if (!planner_.finished() && planner_.counters().work < budget_) {
    planner_.step(std::min<int64_t>(64, budget_ - planner_.counters().work), yield);
    return false;
  }
  // Finished without a plan: what the least-memory plan would need.
  if (planner_.finished() && !planner_.has_best()) {
    if (!planner_.least_memory_step(0, 512, yield)) return false;
    needs_bytes_ = planner_.least_memory_result().bytes;
  }
  done_ = true;
  return true;
}

Pinned PinnedSearch::result() const {
  Pinned out;
  if (!planner_.status().is_ok()) return out;
  out.finished = planner_.finished();
  out.found = planner_.has_best();
  out.timed = planner_.timed();
  if (out.found) out.best = planner_.best();
  out.needs_bytes = needs_bytes_;
  return out;
}

std::vector<AlternativeSpec> alternative_specs(const ModelFacts& facts, const Cluster& cluster,
                                               const Plan& b) {
  const int32_t g = cluster.gpus_per_node;
  std::vector<AlternativeSpec> out;
  const auto add = [&](const std::string& name, const Fix& pins, const std::string& why) {
    out.push_back({name, pins, why});
  };
  Fix pins;
  if (!(b.tp == 1 && b.pp == 1 && b.zero == 0)) {
    pins = Fix{};
    pins.tp = 1;
    pins.pp = 1;
    pins.zero = 0;
    add("pure data parallelism", pins, "");
  }
  if (!(b.tp == 1 && b.pp == 1 && b.zero == 3)) {
    pins = Fix{};
    pins.tp = 1;
    pins.pp = 1;
    pins.zero = 3;
    add("ZeRO-3 (FSDP)", pins, cluster.gpus() > 1 ? "" : "one GPU has no data parallelism");
  }
  if (b.tp <= g) {
    pins = Fix{};
    pins.tp = 2 * g;
    std::string why;
    if (cluster.nodes < 2)
      why = "the cluster has one node";
    else if (facts.heads % (2 * g) != 0)
      why = "tp=" + std::to_string(2 * g) + " does not divide the " + std::to_string(facts.heads) +
            " heads";
    add("TP across nodes (tp=" + std::to_string(2 * g) + ")", pins, why);
  }
  {
    pins = Fix{};
    pins.pp = 2 * b.pp;
    add("more stages (pp=" + std::to_string(2 * b.pp) + ")", pins,
        2 * int64_t{b.pp} > facts.layers
            ? "the model has " + std::to_string(facts.layers) + " layers"
            : "");
  }
  if (b.pp > 1) {
    pins = Fix{};
    pins.pp = b.pp / 2;
    add("fewer stages (pp=" + std::to_string(b.pp / 2) + ")", pins, "");
  }
  for (Recompute rc : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
    if (rc == b.recompute) continue;
    pins = Fix{};
    pins.recompute = rc;
    const std::string name = rc == Recompute::kNone        ? "no recomputation"
                             : rc == Recompute::kSelective ? "selective recomputation"
                                                           : "full recomputation";
    add(name, pins, "");
  }
  if (b.pp > 1) {
    if (b.schedule != "1F1B") {
      pins = Fix{};
      pins.schedule = "1F1B";
      add("1F1B instead of " + b.schedule, pins, "");
    }
    if (b.schedule != "Interleaved1F1B") {
      pins = Fix{};
      pins.schedule = "Interleaved1F1B";
      add("interleaved 1F1B instead of " + b.schedule, pins, "");
    }
  }
  if (b.sequence_parallel) {
    pins = Fix{};
    pins.sequence_parallel = false;
    add("no sequence parallelism", pins, "");
  }
  if (b.dp > 1) {
    pins = Fix{};
    pins.zero = b.zero == 0 ? 1 : 0;
    add(b.zero == 0 ? "ZeRO-1 (distributed optimizer)" : "no ZeRO", pins, "");
  }
  return out;
}

std::optional<Fix> prepare_alternative(const AlternativeSpec& spec, const Fix& user,
                                       const ModelFacts& facts, const Cluster& cluster,
                                       const Training& training, Alternative* row) {
  *row = Alternative{};
  row->name = spec.name;
  row->fix = fix_text(spec.pins);
  if (!spec.not_applicable.empty()) {
    row->applicable = false;
    row->reason = spec.not_applicable;
    return std::nullopt;
  }
  std::string conflict;
  std::optional<Fix> merged = merge(user, spec.pins, &conflict);
  if (!merged) {
    row->applicable = false;
    row->reason = conflict;
    return std::nullopt;
  }
  const Status valid = check_fix(*merged, facts, cluster, training);
  if (!valid.is_ok()) {
    row->applicable = false;
    row->reason = valid.message();
    return std::nullopt;
  }
  return merged;
}

std::optional<Plan> with_pins(const Plan& plan, const Fix& fix, int64_t gpus, int64_t batch) {
  Plan p = plan;
  p.stage_layers.clear();
  if (fix.tp) p.tp = *fix.tp;
  if (fix.pp) p.pp = *fix.pp;
  if (fix.ep) p.ep = *fix.ep;
  if (fix.sequence_parallel) p.sequence_parallel = *fix.sequence_parallel;
  if (fix.zero) p.zero = *fix.zero;
  if (fix.microbatch_size) p.microbatch_size = *fix.microbatch_size;
  if (fix.recompute) p.recompute = *fix.recompute;
  if (fix.schedule) {
    p.schedule = *fix.schedule;
    const ScheduleShape shape = schedule_shape(p.schedule, 2);
    p.vpp = p.schedule == "Interleaved1F1B" ? std::max(2, plan.vpp) : shape.chunks;
  }
  if (fix.vpp) p.vpp = *fix.vpp;
  if (p.tp == 1) p.sequence_parallel = false;
  if (gpus % (int64_t{p.tp} * p.pp) != 0) return std::nullopt;
  p.dp = fix.dp ? *fix.dp : static_cast<int32_t>(gpus / (int64_t{p.tp} * p.pp));
  if (p.dp == 1) p.zero = 0;
  if (batch % (int64_t{p.dp} * p.microbatch_size) != 0) return std::nullopt;
  p.microbatches = batch / (int64_t{p.dp} * p.microbatch_size);
  if (fix.microbatches && *fix.microbatches != p.microbatches) return std::nullopt;
  if (fix.stage_layers) p.stage_layers = *fix.stage_layers;
  return p;
}

void complete_alternative(const Pinned& run, const StepResult& best, Alternative* a) {
  if (run.found) {
    a->fits = true;
    a->proven = run.finished;
    a->plan = run.best.plan;
    a->step_time_s = run.best.step_time_s;
    a->difference = (a->step_time_s - best.step_time_s) / best.step_time_s;
  } else if (run.finished) {
    a->needs_bytes = run.needs_bytes;
    a->reason = a->needs_bytes > 0 ? "needs " + gigabytes(a->needs_bytes) + " per GPU"
                                   : "no plan of this kind exists here";
  } else {
    a->reason = "no plan found within the work budget";
  }
}

Fix sizing_fix(const Fix& fix) {
  Fix free = fix;
  free.dp.reset();
  free.stage_layers.reset();
  return free;
}

SizingSearch::SizingSearch(PlanCosts* costs, const Cluster& cluster, const Training& training,
                           const Fix& fix, const PlanOptions& options, bool cluster_fits,
                           SearchCaches* caches)
    : costs_(costs),
      cluster_(cluster),
      training_(training),
      free_(sizing_fix(fix)),
      search_(options.search),
      cluster_fits_(cluster_fits),
      caches_(caches) {
  const int32_t most_nodes = std::max(2 * cluster.nodes, 4096 / std::max(1, cluster.gpus_per_node));
  // Node counts 1, 2, 3, 4, 6, 8, 12, 16, ... (2^k and 3 x 2^k).
  for (int64_t n = 1; n <= most_nodes; n *= 2) {
    counts_.push_back(static_cast<int32_t>(n));
    if (n >= 2 && 3 * n / 2 <= most_nodes) counts_.push_back(static_cast<int32_t>(3 * n / 2));
  }
  std::sort(counts_.begin(), counts_.end());
  counts_.erase(std::unique(counts_.begin(), counts_.end()), counts_.end());
  // When the cluster fits, the answer is at most the cluster itself.
  if (cluster_fits) {
    counts_.erase(std::remove_if(counts_.begin(), counts_.end(),
                                 [&](int32_t n) { return n >= cluster.nodes; }),
                  counts_.end());
    counts_.push_back(cluster.nodes);
  }
  hi_ = counts_.size();  // the answer is in [lo, hi); hi: none
}

SizingSearch::~SizingSearch() = default;

bool SizingSearch::step(const std::function<bool()>& yield) {
  if (done()) return true;
  const size_t mid = lo_ + (hi_ - lo_) / 2;
  const int32_t nodes = counts_[mid];
  const int64_t limit = static_cast<int64_t>(cluster_.memory_GB * 1e9);
  bool fits = cluster_fits_ && nodes == cluster_.nodes;
  if (!fits) {
    if (!probe_) {
      Cluster c = cluster_;
      c.nodes = nodes;
      if (check_fix(free_, costs_->facts(), c, training_).is_ok()) {
        probe_ = std::make_unique<Planner>(costs_, c, training_, free_, search_, caches_);
        return false;
      }
    } else {
      if (!probe_->least_memory_step(limit, 512, yield)) return false;
      const Planner::NeedsMemory& least = probe_->least_memory_result();
      fits = least.any && least.bytes <= limit;
      probe_.reset();
    }
  }
  if (fits) {
    hi_ = mid;
    smallest_gpus_ = static_cast<int64_t>(nodes) * cluster_.gpus_per_node;
  } else {
    lo_ = mid + 1;
  }
  return done();
}

std::vector<int32_t> sweep_nodes(const Cluster& cluster) {
  std::vector<int32_t> out;
  for (int64_t nodes = 1; nodes <= 2 * cluster.nodes; nodes *= 2) {
    out.push_back(static_cast<int32_t>(nodes));
  }
  return out;
}

std::string plan_json(const PlanResult& r, int indent) {
  ordered_json out;
  out["format"] = "shardlab-plan";
  out["version"] = 1;
  ordered_json model;
  model["name"] = r.model.name;
  model["kind"] = r.model.kind;
  model["layers"] = r.model.layers;
  model["hidden"] = r.model.hidden;
  model["heads"] = r.model.heads;
  model["experts"] = r.model.experts;
  model["parameters"] = r.model.parameters;
  out["model"] = model;
  ordered_json cluster;
  cluster["name"] = r.cluster.name;
  cluster["nodes"] = r.cluster.nodes;
  cluster["gpus_per_node"] = r.cluster.gpus_per_node;
  cluster["gpus"] = r.cluster.gpus();
  cluster["gpu"] = r.cluster.gpu_name;
  cluster["peak_tflops"] = json_number(r.cluster.peak_tflops);
  cluster["memory_GB"] = json_number(r.cluster.memory_GB);
  cluster["matmul_efficiency"] = json_number(r.cluster.matmul_efficiency);
  cluster["comm_efficiency"] = json_number(r.cluster.comm_efficiency);
  out["cluster"] = cluster;
  ordered_json training;
  training["global_batch"] = r.training.global_batch;
  training["seq"] = r.training.seq;
  out["training"] = training;
  out["fix"] = fix_text(r.fix);
  out["found"] = r.found;
  if (r.found) {
    const StepResult& b = r.best;
    out["plan"] = plan_object(b.plan);
    out["step_time_s"] = json_number(b.step_time_s);
    out["tokens_per_s"] = json_number(b.tokens_per_s);
    out["tflops_per_gpu"] = json_number(b.tflops_per_gpu);
    out["mfu"] = json_number(b.mfu);
    ordered_json mem;
    mem["parameters"] = b.memory.parameters;
    mem["gradients"] = b.memory.gradients;
    mem["optimizer"] = b.memory.optimizer;
    mem["gathered_parameters"] = b.memory.gathered_parameters;
    mem["activations"] = b.memory.activations;
    mem["activation_per_layer_bytes"] = b.memory.activation_per_layer_bytes;
    mem["peak"] = b.memory.peak;
    mem["limit"] = b.memory.limit;
    mem["device"] = b.memory.device;
    out["memory"] = mem;
    ordered_json br;
    br["compute"] = json_number(b.breakdown.compute_s);
    br["tp_comm"] = json_number(b.breakdown.tp_comm_s);
    br["dp_comm"] = json_number(b.breakdown.dp_comm_s);
    br["pp_bubble"] = json_number(b.breakdown.pp_bubble_s);
    br["p2p"] = json_number(b.breakdown.p2p_s);
    out["breakdown_s"] = br;
    out["lower_bound_s"] = json_number(r.lower_bound_s);
    out["gap"] = json_number(r.gap);
    out["proven"] = r.proven;
  } else {
    out["plan"] = nullptr;
    out["needs_bytes"] = r.needs_bytes;
    out["needs_plan"] = r.needs_bytes > 0 ? plan_object(r.needs_plan) : ordered_json(nullptr);
  }
  ordered_json alts = ordered_json::array();
  for (const Alternative& a : r.alternatives) {
    ordered_json o;
    o["name"] = a.name;
    o["fix"] = a.fix;
    o["applicable"] = a.applicable;
    o["fits"] = a.fits;
    if (a.fits) {
      o["step_time_s"] = json_number(a.step_time_s);
      o["difference"] = json_number(a.difference);
      o["proven"] = a.proven;
      o["plan"] = plan_object(a.plan);
    } else {
      o["reason"] = a.reason;
      if (a.needs_bytes > 0) o["needs_bytes"] = a.needs_bytes;
    }
    alts.push_back(o);
  }
  out["alternatives"] = alts;
  ordered_json sizing;
  sizing["smallest_gpus"] = r.sizing.smallest_gpus;
  ordered_json sweep = ordered_json::array();
  for (const SizingPoint& p : r.sizing.sweep) {
    ordered_json o;
    o["gpus"] = p.gpus;
    o["fits"] = p.fits;
    if (p.fits) {
      o["step_time_s"] = json_number(p.step_time_s);
      o["plan"] = plan_object(p.plan);
    } else if (p.needs_bytes > 0) {
      o["needs_bytes"] = p.needs_bytes;
    }
    sweep.push_back(o);
  }
  sizing["sweep"] = sweep;
  if (!r.sizing.reason.empty()) sizing["reason"] = r.sizing.reason;
  out["sizing"] = sizing;
  if (r.found) {
    const StepResult& b = r.best;
    ordered_json devices = ordered_json::array();
    for (const DeviceStep& d : b.devices) {
      ordered_json o;
      o["stages"] = d.stages;
      std::vector<int32_t> layers;
      for (int32_t k : d.stages) layers.push_back(b.plan.stage_layers[k]);
      o["layers"] = layers;
      o["busy_s"] = json_number(d.busy_s);
      o["end_s"] = json_number(d.end_s);
      o["exposed_s"] = json_number(d.exposed_s);
      o["finish_s"] = json_number(d.finish_s);
      ordered_json mem;
      mem["parameters"] = d.memory.state.parameters;
      mem["gradients"] = d.memory.state.gradients;
      mem["optimizer"] = d.memory.state.optimizer;
      mem["gathered_parameters"] = d.memory.gathered;
      mem["activations"] = d.memory.activations + d.memory.transient;
      mem["peak"] = d.memory.total();
      o["memory"] = mem;
      o["inflight_microbatches"] = d.peak_microbatches;
      devices.push_back(o);
    }
    out["devices"] = devices;
    out["critical_device"] = b.critical_device;
    out["layout"] = b.layout;
    ordered_json timeline;
    timeline["schedule"] = b.plan.schedule;
    timeline["problem"] = ordered_json::parse(pipeline::problem_json(b.timeline, -1));
    out["timeline"] = timeline;
  }
  ordered_json search;
  search["configurations"] = r.counters.configurations;
  search["split_solves"] = r.counters.split_solves;
  search["orders"] = r.counters.orders;
  search["simulations"] = r.counters.simulations;
  search["timed"] = r.counters.timed;
  search["pruned_memory"] = r.counters.pruned_memory;
  search["pruned_bound"] = r.counters.pruned_bound;
  search["rejected"] = r.counters.rejected;
  search["lean"] = r.counters.lean;
  search["work"] = r.counters.work;
  search["time_limit_reached"] = r.time_limit_reached;
  out["search"] = search;
  return out.dump(indent);
}

namespace {

std::string format(const char* pattern, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* pattern, ...) {
  char text[512];
  va_list args;
  va_start(args, pattern);
  std::vsnprintf(text, sizeof text, pattern, args);
  va_end(args);
  return text;
}

// 1234567 -> "1,234,567".
std::string grouped(int64_t value) {
  std::string digits = std::to_string(value < 0 ? -value : value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

std::string layers_text(const std::vector<int32_t>& layers) {
  std::string out;
  for (int32_t n : layers) out += (out.empty() ? "" : " ") + std::to_string(n);
  return out;
}

std::string plan_line(const Plan& p) {
  std::string out = "tp " + std::to_string(p.tp);
  if (p.sequence_parallel) out += " (sequence parallel)";
  out += ", pp " + std::to_string(p.pp);
  if (p.vpp > 1) out += " x " + std::to_string(p.vpp) + " chunks";
  out += ", dp " + std::to_string(p.dp);
  if (p.ep > 1) out += ", ep " + std::to_string(p.ep);
  out += ", ZeRO " + std::to_string(p.zero) + ", " + p.schedule + ", micro-batch " +
         std::to_string(p.microbatch_size) + " x " + std::to_string(p.microbatches) +
         ", recompute " + recompute_name(p.recompute);
  return out;
}

}  // namespace

std::string plan_text(const PlanResult& r) {
  std::string out;
  out += "plan for " + r.model.name + " on " + std::to_string(r.cluster.gpus()) + " GPUs (" +
         r.cluster.name + ", " + std::to_string(r.cluster.nodes) + " x " +
         std::to_string(r.cluster.gpus_per_node) + " " + r.cluster.gpu_name + "), global batch " +
         std::to_string(r.training.global_batch) + " x " + std::to_string(r.training.seq) +
         " tokens";
  if (!r.fix.empty()) out += ", --fix " + fix_text(r.fix);
  out += "\n\n";
  if (!r.found && r.needs_bytes == 0 && r.time_limit_reached) {
    out += "no plan found within the time limit\n";
    return out;
  }
  if (!r.found) {
    out += "no plan fits: ";
    if (r.needs_bytes > 0) {
      out += "needs " + gigabytes(r.needs_bytes) + " per GPU with the least-memory plan (" +
             plan_line(r.needs_plan) + "), the GPU has " +
             gigabytes(static_cast<int64_t>(r.cluster.memory_GB * 1e9));
    } else {
      out += "no plan of the decision space applies here";
    }
    if (r.sizing.smallest_gpus > 0) {
      out += "; fits on " + std::to_string(r.sizing.smallest_gpus) + " GPUs";
    }
    out += "\n";
    return out;
  }
  const StepResult& b = r.best;
  out += "  " + plan_line(b.plan) + "\n";
  out += "  layers per stage: " + layers_text(b.plan.stage_layers) + "\n";
  if (!b.layout.empty()) {
    out += "  layer layout: " + b.layout +
           (b.plan.lean_layout ? " (memory-lean: the fastest layouts do not fit)" : "") + "\n";
  }
  out += "\n";
  out +=
      format("step time    %.4f s   %s tokens/s, %.1f TFLOP/s per GPU, MFU %.1f%%\n", b.step_time_s,
             grouped(std::llround(b.tokens_per_s)).c_str(), b.tflops_per_gpu, 100 * b.mfu);
  out += format("lower bound  %.4f s   gap %.2f%%%s\n", r.lower_bound_s, 100 * r.gap,
                r.proven ? " (proven optimal)" : "");
  out += "\n";
  const MemoryReport& m = b.memory;
  out += format("memory per GPU (device %d, the fullest)      GB\n", m.device);
  const auto mem_row = [&out](const char* name, int64_t bytes) {
    out += format("  %-28s %12.2f\n", name, static_cast<double>(bytes) / 1e9);
  };
  mem_row("parameters", m.parameters);
  mem_row("gradients", m.gradients);
  mem_row("optimizer state", m.optimizer);
  if (m.gathered_parameters > 0) mem_row("gathered (ZeRO-3)", m.gathered_parameters);
  mem_row("activations", m.activations);
  const int width = 40;
  const double share = std::min(1.0, static_cast<double>(m.peak) / static_cast<double>(m.limit));
  const int filled = static_cast<int>(std::lround(share * width));
  out += format("  %-28s %12.2f of %.2f  [%s%s]\n", "total", static_cast<double>(m.peak) / 1e9,
                static_cast<double>(m.limit) / 1e9, std::string(filled, '#').c_str(),
                std::string(width - filled, '.').c_str());
  out += format("  (one layer's activations per micro-batch: %.1f MB)\n",
                static_cast<double>(m.activation_per_layer_bytes) / 1e6);
  out += "\n";
  const TimeBreakdown& t = b.breakdown;
  out += format("time of the critical device (%d)              s    share\n", b.critical_device);
  const auto time_row = [&out, &b](const char* name, double s) {
    out += format("  %-28s %12.4f %7.1f%%\n", name, s, 100 * s / b.step_time_s);
  };
  time_row("compute", t.compute_s);
  time_row("tensor-parallel comm", t.tp_comm_s);
  time_row("data-parallel comm", t.dp_comm_s);
  time_row("pipeline bubble", t.pp_bubble_s);
  time_row("point-to-point", t.p2p_s);
  if (!r.alternatives.empty()) {
    out += "\nwhy not                                          step s   vs plan\n";
    for (const Alternative& a : r.alternatives) {
      if (a.fits) {
        out +=
            format("  %-44s %10.4f  %+7.1f%%\n", a.name.c_str(), a.step_time_s, 100 * a.difference);
      } else {
        out += format("  %-44s %s\n", a.name.c_str(),
                      (a.applicable ? a.reason : "n/a: " + a.reason).c_str());
      }
    }
  }
  if (r.sizing.smallest_gpus > 0) {
    out += "\nsizing: the least GPUs where a plan fits: " + std::to_string(r.sizing.smallest_gpus) +
           "\n";
  } else if (!r.sizing.reason.empty()) {
    out += "\nsizing: " + r.sizing.reason + "\n";
  }
  if (!r.sizing.sweep.empty()) {
    out += "\nsweep          GPUs      step s   plan\n";
    for (const SizingPoint& p : r.sizing.sweep) {
      if (p.fits) {
        out += format("  %18lld %11.4f   %s\n", static_cast<long long>(p.gpus), p.step_time_s,
                      plan_line(p.plan).c_str());
      } else {
        out += format("  %18lld %11s   %s\n", static_cast<long long>(p.gpus), "-",
                      p.needs_bytes > 0 ? ("needs " + gigabytes(p.needs_bytes) + " per GPU").c_str()
                                        : "no plan");
      }
    }
  }
  out += "\nsearch: " + grouped(r.counters.configurations) + " configurations, " +
         grouped(r.counters.split_solves) + " split solves, " + grouped(r.counters.timed) +
         " splits timed (" + grouped(r.counters.simulations) + " simulations)\n";
  return out;
}

}  // namespace shardlab::plan
