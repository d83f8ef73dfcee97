// The per-stage, per-edge and per-device prices of one plan configuration
// (stage_model.h). Every formula here is in the README's plan-lab section.
#include "core/plan/stage_model.h"

#include <algorithm>

namespace shardlab::plan {

double StageModel::collective_s(Collective kind, int64_t bytes, const GroupShape& group) const {
  if (bytes == 0 || group.size() <= 1) return 0;
  return costs_->collective_s(kind, bytes, group);
}

double StageModel::dp_collective_s(Collective kind, bool expert, int64_t bytes) const {
  return collective_s(kind, bytes, expert ? layout_.expert_dp : layout_.dp);
}

Result<StageModel> StageModel::build(const Plan& config, PlanCosts* costs, const Cluster& cluster,
                                     const Training& training) {
  StageModel m;
  m.config_ = config;
  m.config_.stage_layers.clear();
  m.shape_ = schedule_shape(config.schedule, config.vpp);
  m.layout_ = rank_layout(config, cluster);
  m.facts_ = costs->facts();
  m.cluster_ = cluster;
  m.training_ = training;
  m.costs_ = costs;
  m.stages_ = config.pp * m.shape_.chunks;
  m.device_stages_.assign(config.pp, {});
  for (int32_t k = 0; k < m.stages_; ++k) m.device_stages_[m.device_of(k)].push_back(k);
  for (auto& list : m.device_stages_) std::sort(list.begin(), list.end());
  m.dtype_bytes_ = training.dtype_bytes;
  m.memory_limit_bytes_ = static_cast<int64_t>(cluster.memory_GB * 1e9);

  PartConfig pc;
  pc.tp = config.tp;
  pc.sequence_parallel = config.sequence_parallel;
  pc.ep = config.ep;
  pc.microbatch = config.microbatch_size;
  pc.recompute = config.recompute;
  pc.lean = config.lean_layout;
  Result<PartCosts> layer = costs->part(BlockPart::kLayer, pc);
  if (!layer.is_ok()) return layer.status();
  Result<PartCosts> embedding = costs->part(BlockPart::kEmbedding, pc);
  if (!embedding.is_ok()) return embedding.status();
  Result<PartCosts> head = costs->part(BlockPart::kHead, pc);
  if (!head.is_ok()) return head.status();
  m.layer_ = layer.value();
  m.embedding_ = embedding.value();
  m.head_ = head.value();

  // Stage to stage: b s h values (a transformer); with t > 1 each rank of the group sends
  // 1/t of them (SP's split activations, or Megatron's scatter-gather), and
  // without SP the receiving group all-gathers the slices over its fast links.
  m.p2p_bytes_ = config.microbatch_size * m.facts_.p2p_bytes_per_sequence;
  const int64_t slice = m.p2p_bytes_ / config.tp;
  const double regather = config.tp > 1 && !config.sequence_parallel
                              ? m.collective_s(Collective::kAllGather, m.p2p_bytes_, m.layout_.tp)
                              : 0.0;
  for (int32_t k = 0; k + 1 < m.stages_; ++k) {
    if (m.layout_.edge_same_device[k]) {
      m.edge_s_.push_back(0);
    } else {
      m.edge_s_.push_back(costs->p2p_s(slice, m.layout_.edge_inter_node[k]) + regather);
    }
  }
  return m;
}

StageCost StageModel::stage(int32_t k, int32_t n, bool with_zero) const {
  StageCost s;
  const bool first = k == 0, last = k == stages_ - 1;
  double fc = n * layer_.forward_compute_s, fm = n * layer_.forward_comm_s;
  double bc = n * layer_.backward_compute_s, bm = n * layer_.backward_comm_s;
  double wc = n * layer_.weight_compute_s, wm = n * layer_.weight_comm_s;
  // Recomputation runs before the backward of each layer (Korthikanti et al.).
  if (config_.recompute == Recompute::kFull) {
    bc += n * layer_.forward_compute_s;
    bm += n * layer_.forward_comm_s;
  } else if (config_.recompute == Recompute::kSelective) {
    bc += n * layer_.attention_core_forward_s;
  }
  s.act_bytes = n * layer_.activation_bytes;
  s.keep_bytes = n * layer_.keep_bytes;
  s.transient_bytes = n > 0 ? layer_.transient_bytes : 0;
  s.dense_parameters = n * layer_.dense_parameters;
  s.expert_parameters = n * layer_.expert_parameters;
  for (const auto& [on, part] : {std::pair{first, &embedding_}, std::pair{last, &head_}}) {
    if (!on) continue;
    fc += part->forward_compute_s;
    fm += part->forward_comm_s;
    bc += part->backward_compute_s;
    bm += part->backward_comm_s;
    wc += part->weight_compute_s;
    wm += part->weight_comm_s;
    s.act_bytes += part->activation_bytes;
    s.keep_bytes += part->keep_bytes;
    s.transient_bytes = std::max(s.transient_bytes, part->transient_bytes);
    s.dense_parameters += part->dense_parameters;
    s.expert_parameters += part->expert_parameters;
  }
  // A head tied to the embedding shares its matrix when both are on this stage.
  if (first && last) s.dense_parameters -= head_.tied_parameters;
  // ZeRO-3 gathers each part's parameters in full (its t-shard) just before
  // it runs and frees them after; FSDP prefetches the next part meanwhile, so
  // two parts' parameters are held at once: the part running and the next.
  // The two largest parts of the stage bound every such pair from above and
  // are reached (consecutive layers, or a layer next to the embedding or head).
  if (config_.zero == 3 && config_.dp > 1) {
    const auto put = [&s, bytes = static_cast<int64_t>(dtype_bytes_)](
                         const PartCosts& part, int32_t copies, int64_t shared = 0) {
      const int64_t b = (part.dense_parameters + part.expert_parameters - shared) * bytes;
      for (int32_t i = 0; i < copies; ++i) {
        if (b > s.gathered_bytes[0]) {
          s.gathered_bytes[1] = s.gathered_bytes[0];
          s.gathered_bytes[0] = b;
        } else if (b > s.gathered_bytes[1]) {
          s.gathered_bytes[1] = b;
        }
      }
    };
    put(layer_, std::min(n, 2));
    if (first) put(embedding_, 1);
    if (last) put(head_, 1, first ? head_.tied_parameters : 0);  // a tied head: gathered once
  }
  if (!shape_.split_backward) s.keep_bytes = 0;  // W runs inside B: nothing waits for it
  s.keep_bytes = std::min(s.keep_bytes, s.act_bytes);
  s.f_s = fc + fm;
  s.b_s = bc + bm;
  s.w_s = wc + wm;
  s.compute_s = fc + bc + wc;
  s.tp_comm_s = fm + bm + wm;
  // ZeRO's per-micro-batch collectives, prefetched layer by layer under the
  // compute (FSDP's order): the first layer's gather (the last layer's
  // reduce-scatter) cannot hide, the rest hides under the larger of the two.
  // With n pieces of equal compute c and collective g:
  //   g + (n - 1) max(c, g) + c = max(C, G) + min(C, G) / n.
  const auto overlap = [pieces = std::max(1, n + (first ? 1 : 0) + (last ? 1 : 0))](
                           double compute, double collective) {
    return std::max(compute, collective) + std::min(compute, collective) / pieces;
  };
  if (with_zero && config_.zero >= 2 && config_.dp > 1) {
    const int64_t dense = s.dense_parameters * dtype_bytes_;
    const int64_t expert = s.expert_parameters * dtype_bytes_;
    const double rs = dp_collective_s(Collective::kReduceScatter, false, dense) +
                      dp_collective_s(Collective::kReduceScatter, true, expert);
    const double before = s.f_s + s.b_s + s.w_s;
    if (config_.zero == 3) {
      const double ag = dp_collective_s(Collective::kAllGather, false, dense) +
                        dp_collective_s(Collective::kAllGather, true, expert);
      s.f_s = overlap(s.f_s, ag);
      s.b_s = overlap(s.b_s, ag);
    }
    s.w_s = overlap(s.w_s, rs);
    s.zero_comm_s = s.f_s + s.b_s + s.w_s - before;
  }
  return s;
}

double StageModel::exposed_dp_s(int64_t dense, int64_t expert, double window_s) const {
  if (config_.dp == 1) return 0;
  const int64_t db = dense * dtype_bytes_, eb = expert * dtype_bytes_;
  const auto both = [&](Collective kind) {
    return dp_collective_s(kind, false, db) + dp_collective_s(kind, true, eb);
  };
  switch (config_.zero) {
    case 0:
      return std::max(0.0, both(Collective::kAllReduce) - window_s);
    case 1:
      return std::max(0.0, both(Collective::kReduceScatter) - window_s) +
             both(Collective::kAllGather);
    case 2:
      return both(Collective::kAllGather);
    default:
      return 0;
  }
}

StateBytes StageModel::state(int64_t dense, int64_t expert) const {
  const StateBytes a = costs_->state(dense, config_.zero, config_.dp);
  if (expert == 0) return a;
  const StateBytes b =
      costs_->state(expert, config_.zero, std::max(1, config_.dp / std::max(1, config_.ep)));
  return StateBytes{a.parameters + b.parameters, a.gradients + b.gradients,
                    a.optimizer + b.optimizer};
}

}  // namespace shardlab::plan
