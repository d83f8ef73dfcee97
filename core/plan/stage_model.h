// The cost model of one plan configuration (every decision but the layers of
// each stage), shared by the exact step model (step_model.h), the bound
// (bound.h) and the stage DP (stage_dp.h), so that all three price a stage
// the same way:
//   stage k with n layers, one micro-batch (first stage + embedding, last + head):
//     F = n F_layer + F_emb + F_head                      (compute + the layout's collectives)
//     B = n B_layer + ... + recomputation: full n F_layer, selective n A_layer (attention core)
//     W = n W_layer + ...
//     ZeRO-3: F = F o AG, B = B o AG, W = W o RS; ZeRO-2: W = W o RS, where
//       x o y = max(x, y) + min(x, y) / n over the stage's n parts (layers, embedding,
//       head): the stage's parameters gathered and its gradients reduce-scattered over
//       data parallelism for every micro-batch, layer by layer, each prefetched under the
//       previous layer's compute (FSDP's order; the first gather cannot hide)
//   edge k -> k+1: p2p(b s h bytes / t) (Megatron's scatter-gather, or SP's split
//     activations) + without SP an all-gather of the t slices inside the group;
//     0 between two stages of one device
//   after a device's last operation (data-parallel gradients, Megatron's overlap of the
//   reduction with the last micro-batch's backward, window = that backward's B + W):
//     ZeRO-0 max(0, AR - window); ZeRO-1 max(0, RS - window) + AG; ZeRO-2 AG; ZeRO-3 0
//   memory: state (weights, gradients, optimizer by ZeRO stage; dense parameters over dp,
//     expert parameters over dp / ep) + activations in flight (inflight.h) + the working
//     memory of one backward (full recomputation: one layer's activations) + with ZeRO-3
//     the gathered parameters of the part running and of the one prefetched (FSDP).
#pragma once

#include <cstdint>
#include <vector>

#include "core/plan/config.h"
#include "core/plan/costs.h"
#include "core/plan/model.h"
#include "core/status.h"

namespace shardlab::plan {

// One stage, one micro-batch, on one device.
struct StageCost {
  double f_s = 0, b_s = 0, w_s = 0;  // as the pipeline runs them
  // f + b + w split: compute (recomputation included), the layout's own
  // collectives, and what ZeRO's per-micro-batch collectives add beyond them.
  double compute_s = 0, tp_comm_s = 0, zero_comm_s = 0;
  int64_t act_bytes = 0, keep_bytes = 0, transient_bytes = 0;
  // ZeRO-3 only: the bytes of the stage's two largest parts (layers,
  // embedding, head) gathered in full, the one running and the one
  // prefetched (FSDP's order); a device holds the two largest of its stages'.
  int64_t gathered_bytes[2] = {0, 0};
  int64_t dense_parameters = 0, expert_parameters = 0;
  double work_s() const { return f_s + b_s + w_s; }
};

class StageModel {
 public:
  // Fails when the costs cannot hold the configuration (a part rejects it);
  // config.stage_layers is ignored.
  static Result<StageModel> build(const Plan& config, PlanCosts* costs, const Cluster& cluster,
                                  const Training& training);

  const Plan& config() const { return config_; }
  const ScheduleShape& shape() const { return shape_; }
  const RankLayout& layout() const { return layout_; }
  const ModelFacts& facts() const { return facts_; }
  const Cluster& cluster() const { return cluster_; }
  const Training& training() const { return training_; }
  int32_t stages() const { return stages_; }
  int32_t devices() const { return config_.pp; }
  int64_t microbatches() const { return config_.microbatches; }
  int32_t layers() const { return facts_.layers; }
  int32_t device_of(int32_t stage) const { return device_of_stage(shape_, config_.pp, stage); }
  // The stages of device d in chunk order.
  const std::vector<int32_t>& device_stages(int32_t d) const { return device_stages_[d]; }

  // Stage k holding `layers` layers; with_zero false leaves out ZeRO-2/3's
  // per-micro-batch collectives (the linear part the stage DP sums).
  StageCost stage(int32_t k, int32_t layers, bool with_zero = true) const;
  double edge_s(int32_t k) const { return edge_s_[k]; }  // k -> k+1

  // What a device's data-parallel traffic after its last operation leaves
  // exposed, for the parameters it holds and its last backward's window.
  double exposed_dp_s(int64_t dense, int64_t expert, double window_s) const;
  StateBytes state(int64_t dense, int64_t expert) const;
  int64_t memory_limit_bytes() const { return memory_limit_bytes_; }

  const PartCosts& layer() const { return layer_; }
  const PartCosts& embedding() const { return embedding_; }
  const PartCosts& head() const { return head_; }
  int32_t dtype_bytes() const { return dtype_bytes_; }
  int64_t p2p_bytes() const { return p2p_bytes_; }  // one micro-batch's activations between stages

 private:
  // 0 for nothing to move or a group of one; else the costs' price.
  double collective_s(Collective kind, int64_t bytes, const GroupShape& group) const;
  // The same over the data-parallel group (expert: the experts' one); the
  // production costs memoise the prices (model_costs.h).
  double dp_collective_s(Collective kind, bool expert, int64_t bytes) const;

  Plan config_;
  ScheduleShape shape_;
  RankLayout layout_;
  ModelFacts facts_;
  Cluster cluster_;
  Training training_;
  const PlanCosts* costs_ = nullptr;
  int32_t stages_ = 0;
  std::vector<std::vector<int32_t>> device_stages_;
  PartCosts layer_, embedding_, head_;
  std::vector<double> edge_s_;
  int64_t memory_limit_bytes_ = 0;
  int32_t dtype_bytes_ = 2;
  int64_t p2p_bytes_ = 0;
};

}  // namespace shardlab::plan
