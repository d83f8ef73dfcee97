// The step model: a plan's exact step time and memory under the cost model,
// recomputed from scratch (the independent evaluator the search is checked
// against, as the sharding solver's evaluate.h is). For a fixed plan:
//   1. the stages' F, B, W per micro-batch, their activations and parameters,
//      and the stage-to-stage delays (stage_model.h);
//   2. the pipeline timeline: an explicit-stages problem of the pipeline lab
//      (times in microseconds, memory in bytes) run by its generator and
//      simulator under the plan's schedule (run_schedule with the pipeline
//      lab's checker for the final answer) -> each device's last end_d;
//   3. finish_d = end_d + exposed_d (data-parallel traffic after the last
//      operation, stage_model.h); step time = max_d finish_d;
//   4. memory per device: state by ZeRO stage + the simulated in-flight peak
//      of activations + one backward's working memory (+ ZeRO-3's two gathered
//      parts, stage_model.h), against the GPU's;
//   5. the critical device's time split: compute, tensor-parallel (layout)
//      collectives, data-parallel (ZeRO per micro-batch + exposed reduction),
//      p2p (what the stage transfers add: a second simulation without them),
//      and the pipeline bubble (the rest of its idle time);
//   6. throughput: tokens/s = B s / step; TFLOP/s per GPU = hardware FLOPs
//      (Narayanan et al.'s Eq. 3 form, with the recomputation used) /
//      (step x GPUs); MFU = model FLOPs (Korthikanti et al.) / (step x GPUs x peak).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/pipeline/model.h"
#include "core/plan/bound.h"
#include "core/plan/inflight.h"
#include "core/plan/stage_model.h"

namespace shardlab::plan {

struct MemoryReport {
  int32_t device = 0;  // the worst device
  int64_t parameters = 0, gradients = 0, optimizer = 0;
  int64_t activations = 0;          // in flight at the peak, plus one backward's working memory
  int64_t gathered_parameters = 0;  // ZeRO-3: the running and the prefetched part, in full
  int64_t activation_per_layer_bytes = 0;  // one micro-batch, one layer (Korthikanti)
  int64_t peak = 0, limit = 0;
};

struct TimeBreakdown {
  double compute_s = 0, tp_comm_s = 0, dp_comm_s = 0, pp_bubble_s = 0, p2p_s = 0;
};

struct DeviceStep {
  std::vector<int32_t> stages;
  double busy_s = 0;     // m x (F + B + W) of its stages
  double end_s = 0;      // its last operation's end in the timeline
  double exposed_s = 0;  // data-parallel traffic after it
  double finish_s = 0;   // end + exposed
  double bound_s = 0;    // LB_d (bound.h)
  DeviceMemory memory;
  int32_t peak_microbatches = 0;  // micro-batches in flight at the peak
};

struct StepResult {
  Plan plan;
  bool fits = false;  // every device within the GPU's memory
  double step_time_s = 0, tokens_per_s = 0, tflops_per_gpu = 0, mfu = 0;
  double bound_s = 0;     // this split's lower bound (bound.h), <= step_time_s
  double makespan_s = 0;  // the pipeline timeline alone
  MemoryReport memory;
  TimeBreakdown breakdown;
  int32_t critical_device = 0;
  std::vector<DeviceStep> devices;
  std::vector<StageCost> stages;
  pipeline::Problem timeline;  // the pipeline lab's problem (microseconds, bytes)
  std::string layout;          // the layer's layout, as the costs name it
};

struct EvaluateOptions {
  bool checked = true;    // the pipeline lab's checker on the timeline, memory cross-checked
  bool breakdown = true;  // simulate again without transfers to split p2p from the bubble
};

// Simulations memoised by their problem (times rounded as the pipeline lab
// rounds them), so plans that differ only where the timeline cannot see
// (ZeRO stage, sequence parallelism, memory) simulate once.
struct SimOutcome {
  std::vector<double> device_end_s;
  std::vector<int64_t> peak_activation_bytes;
  double makespan_s = 0;
};
class SimCache {
 public:
  Result<const SimOutcome*> run(const pipeline::Problem& problem, const std::string& schedule,
                                bool checked);
  int64_t simulations() const { return simulations_; }
  int64_t simulated_ops() const { return simulated_ops_; }
  // run() would answer from memory.
  bool has(const pipeline::Problem& problem, const std::string& schedule, bool checked) const;

 private:
  std::map<std::string, std::unique_ptr<Result<SimOutcome>>> cache_;
  int64_t simulations_ = 0, simulated_ops_ = 0;
};

// The pipeline lab's problem of a split.
pipeline::Problem timeline_problem(const StageModel& model, const std::vector<StageCost>& stages);

// One split of a configuration, with a profile of its schedule (inflight.h).
Result<StepResult> evaluate_split(const StageModel& model, const std::vector<int32_t>& layers,
                                  const InflightProfile& profile, SimCache* sims,
                                  const EvaluateOptions& options);

// A whole plan from scratch (stage_layers must be set): everything above,
// checked. kInvalidArgument with check_plan()'s line when the plan cannot run.
Result<StepResult> evaluate(const Plan& plan, PlanCosts* costs, const Cluster& cluster,
                            const Training& training, const EvaluateOptions& options = {});
// The same with the order and the simulations kept in caches of the
// caller's that serve this evaluation only (PlanRun's evaluation, its long
// parts run in steps of their own beforehand: evaluation_parts()).
Result<StepResult> evaluate(const Plan& plan, PlanCosts* costs, const Cluster& cluster,
                            const Training& training, const EvaluateOptions& options,
                            InflightCache* profiles, SimCache* sims);
// The long parts evaluate() runs for a plan, in its order: the schedule's
// order, the checked simulation, the one without transfers (breakdown).
// Each call runs the first that `profiles` and `sims` lack and returns
// false; true when none is left (or the plan cannot be evaluated: evaluate()
// then says why).
bool evaluation_parts(const Plan& plan, PlanCosts* costs, const Cluster& cluster,
                      const Training& training, const EvaluateOptions& options,
                      InflightCache* profiles, SimCache* sims);

}  // namespace shardlab::plan
