// The exact step time and memory of a plan (step_model.h): stage costs,
// the pipeline lab's timeline, data-parallel exposure, memory, breakdown.
#include "core/plan/step_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/pipeline/generators.h"
#include "core/pipeline/pipeline.h"
#include "core/pipeline/simulate.h"

namespace shardlab::plan {
namespace {

constexpr double kUsPerS = 1e6;
// Memory goes to the pipeline lab in bytes: integers, which its expansion
// keeps exactly (a fraction of MB would be rounded to its decimal scale).

// The pipeline lab keeps six decimals of every input (model.h): the key
// holds exactly what its expansion will see.
int64_t micro_units(double value) { return std::llround(value * 1e6); }

std::string sim_key(const pipeline::Problem& problem, const std::string& schedule, bool checked) {
  std::string key = schedule + (checked ? "/c/" : "/u/");
  const auto put = [&key](int64_t v) { key.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(problem.devices);
  put(problem.microbatches);
  put(problem.placement.chunks);
  const bool times_only = schedule != "ZBV";  // ZBV's greedy reads the memory too
  for (const pipeline::StageSpec& s : problem.stages) {
    put(micro_units(s.f));
    put(micro_units(s.b));
    put(micro_units(s.w));
    put(micro_units(s.comm));
    if (!times_only) {
      put(micro_units(s.act));
      put(micro_units(s.keep));
    }
  }
  return key;
}

SimOutcome outcome_of(const pipeline::Expansion& e, const pipeline::Timeline& timeline,
                      const pipeline::Metrics& metrics) {
  SimOutcome out;
  out.device_end_s.assign(e.devices, 0);
  for (const pipeline::TimedSlot& s : timeline.slots) {
    out.device_end_s[s.device] =
        std::max(out.device_end_s[s.device], e.time_value(s.end) / kUsPerS);
  }
  out.makespan_s = e.time_value(metrics.makespan) / kUsPerS;
  for (int32_t d = 0; d < e.devices; ++d) {
    out.peak_activation_bytes.push_back(std::llround(e.mem_value(metrics.peak_activation[d])));
  }
  return out;
}

Status internal(std::string message) { return Status(StatusCode::kInternal, std::move(message)); }

}  // namespace

bool SimCache::has(const pipeline::Problem& problem, const std::string& schedule,
                   bool checked) const {
  return cache_.count(sim_key(problem, schedule, checked)) > 0;
}

Result<const SimOutcome*> SimCache::run(const pipeline::Problem& problem,
                                        const std::string& schedule, bool checked) {
  const std::string key = sim_key(problem, schedule, checked);
  auto it = cache_.find(key);
  if (it == cache_.end()) {
    ++simulations_;
    std::unique_ptr<Result<SimOutcome>> made;
    if (checked) {
      Result<pipeline::ScheduleResult> r = pipeline::run_schedule(problem, schedule);
      if (!r.is_ok()) {
        made = std::make_unique<Result<SimOutcome>>(r.status());
      } else if (!r.value().check.valid) {
        made = std::make_unique<Result<SimOutcome>>(
            internal("the pipeline lab's checker rejects the " + schedule + " timeline: " +
                     (r.value().check.violations.empty() ? std::string("?")
                                                         : r.value().check.violations[0])));
      } else {
        simulated_ops_ += r.value().expansion.num_ops();
        made = std::make_unique<Result<SimOutcome>>(
            outcome_of(r.value().expansion, r.value().timeline, r.value().metrics));
      }
    } else {
      Result<pipeline::Generated> g = pipeline::generate(problem, schedule);
      if (!g.is_ok()) {
        made = std::make_unique<Result<SimOutcome>>(g.status());
      } else {
        Result<pipeline::Timeline> t = pipeline::simulate(g.value().expansion, g.value().order);
        if (!t.is_ok()) {
          made = std::make_unique<Result<SimOutcome>>(t.status());
        } else {
          simulated_ops_ += g.value().expansion.num_ops();
          // Unchecked runs need the ends only (memory comes from the in-flight
          // profile); the checked run measures everything.
          const pipeline::Expansion& e = g.value().expansion;
          SimOutcome out;
          out.device_end_s.assign(e.devices, 0);
          for (const pipeline::TimedSlot& slot : t.value().slots) {
            out.device_end_s[slot.device] =
                std::max(out.device_end_s[slot.device], e.time_value(slot.end) / kUsPerS);
            out.makespan_s = std::max(out.makespan_s, e.time_value(slot.end) / kUsPerS);
          }
          made = std::make_unique<Result<SimOutcome>>(std::move(out));
        }
      }
    }
    it = cache_.emplace(key, std::move(made)).first;
  }
  if (!it->second->is_ok()) return it->second->status();
  return &it->second->value();
}

pipeline::Problem timeline_problem(const StageModel& model, const std::vector<StageCost>& stages) {
  pipeline::Problem problem;
  problem.name = plan_summary(model.config());
  problem.form = pipeline::Form::kStages;
  problem.devices = model.devices();
  problem.microbatches = static_cast<int32_t>(model.microbatches());
  problem.uniform = false;
  problem.placement.chunks = model.shape().chunks;
  for (int32_t k = 0; k < model.stages(); ++k) {
    pipeline::StageSpec s;
    s.f = stages[k].f_s * kUsPerS;
    s.b = stages[k].b_s * kUsPerS;
    s.w = stages[k].w_s * kUsPerS;
    s.act = static_cast<double>(stages[k].act_bytes);
    s.keep = static_cast<double>(stages[k].keep_bytes);
    s.comm = k + 1 < model.stages() ? model.edge_s(k) * kUsPerS : 0;
    problem.stages.push_back(s);
  }
  return problem;
}

Result<StepResult> evaluate_split(const StageModel& model, const std::vector<int32_t>& layers,
                                  const InflightProfile& profile, SimCache* sims,
                                  const EvaluateOptions& options) {
  StepResult r;
  r.plan = model.config();
  r.plan.stage_layers = layers;
  r.stages = stage_costs(model, layers);
  r.timeline = timeline_problem(model, r.stages);
  r.layout = model.layer().layout;
  const std::string& schedule = model.config().schedule;
  Result<const SimOutcome*> sim = sims->run(r.timeline, schedule, options.checked);
  if (!sim.is_ok()) return sim.status();
  const SimOutcome& out = *sim.value();
  r.makespan_s = out.makespan_s;

  const std::vector<DeviceTerms> terms = device_terms(model, r.stages);
  const std::vector<DeviceMemory> memory = device_memory(model, profile, r.stages);
  const int64_t m = model.microbatches();
  r.devices.resize(model.devices());
  r.step_time_s = 0;
  for (int32_t d = 0; d < model.devices(); ++d) {
    DeviceStep& dev = r.devices[d];
    dev.stages = model.device_stages(d);
    dev.busy_s = m * terms[d].work_s;
    dev.end_s = out.device_end_s[d];
    dev.exposed_s = terms[d].exposed_s;
    dev.finish_s = dev.end_s + dev.exposed_s;
    dev.bound_s = terms[d].bound_s(m);
    dev.memory = memory[d];
    dev.peak_microbatches = profile.peak_microbatches(d);
    r.bound_s = std::max(r.bound_s, dev.bound_s);
    if (dev.finish_s > r.step_time_s) {
      r.step_time_s = dev.finish_s;
      r.critical_device = d;
    }
    if (options.checked) {
      const int64_t simulated = out.peak_activation_bytes[d];
      const bool same = model.shape().fixed_order ? simulated == memory[d].activations
                                                  : simulated <= memory[d].activations;
      if (!same) {
        return internal("device " + std::to_string(d) + " holds " + std::to_string(simulated) +
                        " bytes of activations in the simulation, " +
                        std::to_string(memory[d].activations) + " by its in-flight profile");
      }
    }
  }

  // The worst device's memory.
  int64_t worst = -1;
  for (int32_t d = 0; d < model.devices(); ++d) {
    const DeviceMemory& mem = r.devices[d].memory;
    if (mem.total() > worst) {
      worst = mem.total();
      r.memory.device = d;
      r.memory.parameters = mem.state.parameters;
      r.memory.gradients = mem.state.gradients;
      r.memory.optimizer = mem.state.optimizer;
      r.memory.activations = mem.activations + mem.transient;
      r.memory.gathered_parameters = mem.gathered;
      r.memory.peak = mem.total();
    }
  }
  r.memory.activation_per_layer_bytes = model.layer().activation_bytes;
  r.memory.limit = model.memory_limit_bytes();
  r.fits = r.memory.peak <= r.memory.limit;

  // The critical device's time, split.
  const int32_t c = r.critical_device;
  TimeBreakdown& br = r.breakdown;
  for (int32_t k : model.device_stages(c)) {
    br.compute_s += m * r.stages[k].compute_s;
    br.tp_comm_s += m * r.stages[k].tp_comm_s;
    br.dp_comm_s += m * r.stages[k].zero_comm_s;
  }
  br.dp_comm_s += r.devices[c].exposed_s;
  const double idle = std::max(0.0, r.devices[c].end_s - r.devices[c].busy_s);
  if (options.breakdown) {
    pipeline::Problem quiet = r.timeline;
    for (pipeline::StageSpec& s : quiet.stages) s.comm = 0;
    Result<const SimOutcome*> q = sims->run(quiet, schedule, false);
    if (q.is_ok()) {
      br.p2p_s = std::clamp(r.devices[c].end_s - q.value()->device_end_s[c], 0.0, idle);
    }
  }
  br.pp_bubble_s = idle - br.p2p_s;

  const Training& t = model.training();
  const double gpus = static_cast<double>(model.cluster().gpus());
  const double sequences = static_cast<double>(t.global_batch);
  r.tokens_per_s = sequences * t.seq / r.step_time_s;
  const double hw =
      model.facts().hardware_flops_per_sequence[static_cast<int>(model.config().recompute)];
  r.tflops_per_gpu = hw * sequences / (r.step_time_s * gpus) / 1e12;
  r.mfu = model.facts().model_flops_per_sequence * sequences /
          (r.step_time_s * gpus * model.cluster().peak_tflops * 1e12);
  return r;
}

Result<StepResult> evaluate(const Plan& plan, PlanCosts* costs, const Cluster& cluster,
                            const Training& training, const EvaluateOptions& options) {
  InflightCache profiles;
  SimCache sims;
  return evaluate(plan, costs, cluster, training, options, &profiles, &sims);
}

bool evaluation_parts(const Plan& plan, PlanCosts* costs, const Cluster& cluster,
                      const Training& training, const EvaluateOptions& options,
                      InflightCache* profiles, SimCache* sims) {
  if (!check_plan(plan, costs->facts(), cluster, training).is_ok()) return true;
  if (plan.stage_layers.empty()) return true;
  Result<StageModel> model = StageModel::build(plan, costs, cluster, training);
  if (!model.is_ok()) return true;
  const StageModel& m = model.value();
  if (!profiles->has(m.shape(), plan.pp, plan.microbatches)) {
    profiles->get(m.shape(), plan.pp, plan.microbatches);
    return false;
  }
  // evaluate_split's problems, as it builds them.
  const pipeline::Problem problem = timeline_problem(m, stage_costs(m, plan.stage_layers));
  if (!sims->has(problem, plan.schedule, options.checked)) {
    sims->run(problem, plan.schedule, options.checked);
    return false;
  }
  if (!options.breakdown) return true;
  pipeline::Problem quiet = problem;
  for (pipeline::StageSpec& s : quiet.stages) s.comm = 0;
  if (!sims->has(quiet, plan.schedule, false)) {
    sims->run(quiet, plan.schedule, false);
    return false;
  }
  return true;
}

Result<StepResult> evaluate(const Plan& plan, PlanCosts* costs, const Cluster& cluster,
                            const Training& training, const EvaluateOptions& options,
                            InflightCache* profiles, SimCache* sims) {
  const Status valid = check_plan(plan, costs->facts(), cluster, training);
  if (!valid.is_ok()) return valid;
  if (plan.stage_layers.empty()) {
    return Status(StatusCode::kInvalidArgument, "the plan lists no layers per stage");
  }
  Result<StageModel> model = StageModel::build(plan, costs, cluster, training);
  if (!model.is_ok()) return model.status();
  Result<const InflightProfile*> profile =
      profiles->get(model.value().shape(), plan.pp, plan.microbatches);
  if (!profile.is_ok()) return profile.status();
  return evaluate_split(model.value(), plan.stage_layers, *profile.value(), sims, options);
}

}  // namespace shardlab::plan
