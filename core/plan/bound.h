// Lower bounds on a plan's step time under the cost model (stage_model.h),
// for any schedule that runs the plan's stages on its devices:
//   for one split (the layers of every stage), per device d:
//     LB_d = head_d + m work_d + max(tail_d, exposed_d)
//   head_d  = least F-chain from stage 0 to a stage of d (H_k = sum_{j<k} F_j + edge_j):
//             d can start nothing before the first micro-batch reaches it;
//   work_d  = F + B + W of d's stages for one micro-batch: d runs one operation at a time;
//   tail_d  = with B and W fused (GPipe, 1F1B, interleaved), the backward chain from d's
//             first stage back to stage 0 (T_k = sum_{j<k} edge_j + B_j + W_j) that follows
//             d's last operation; 0 when W runs apart (it can be last);
//   exposed_d = the data-parallel traffic left after d's last operation (stage_model.h).
//   The step time is at least max_d LB_d.
// - relaxation_bound_s(): the same for every split at once, in closed form, for the
//   search's first, cheap ordering of configurations (split_bound_s() of the best split
//   is never below it).
// - least_memory_bytes(): a lower bound on the worst device's memory over every split.
#pragma once

#include <cstdint>
#include <vector>

#include "core/plan/inflight.h"
#include "core/plan/stage_model.h"

namespace shardlab::plan {

struct DeviceTerms {
  double head_s = 0, work_s = 0, tail_s = 0;
  double window_s = 0;   // one micro-batch's B + W on the device (the overlap window)
  double exposed_s = 0;  // data-parallel traffic after the last operation
  int64_t dense = 0, expert = 0;
  double bound_s(int64_t m) const { return head_s + m * work_s + std::max(tail_s, exposed_s); }
};

// The stage costs of a split (layers per stage, in chain order).
std::vector<StageCost> stage_costs(const StageModel& model, const std::vector<int32_t>& layers);
std::vector<DeviceTerms> device_terms(const StageModel& model,
                                      const std::vector<StageCost>& stages);
// max_d LB_d for one split.
double split_bound_s(const StageModel& model, const std::vector<StageCost>& stages);

// Worst device memory of a split: state + in-flight activations + working memory.
struct DeviceMemory {
  StateBytes state;
  int64_t activations = 0, transient = 0;
  int64_t gathered = 0;  // ZeRO-3: two parts' parameters gathered in full (stage_model.h)
  int64_t total() const { return state.total() + activations + transient + gathered; }
};
std::vector<DeviceMemory> device_memory(const StageModel& model, const InflightProfile& profile,
                                        const std::vector<StageCost>& stages);

// A bound on every split's max_d LB_d (a continuous relaxation; see bound.cpp).
double relaxation_bound_s(const StageModel& model);
// A bound on every split's worst device memory (its average over devices,
// each holding at least one micro-batch of its own stages).
int64_t least_memory_bytes(const StageModel& model);

}  // namespace shardlab::plan
