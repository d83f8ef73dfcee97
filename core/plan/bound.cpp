// Lower bounds on the step time and memory of a configuration (bound.h).
#include "core/plan/bound.h"

#include <algorithm>
#include <cmath>

namespace shardlab::plan {

std::vector<StageCost> stage_costs(const StageModel& model, const std::vector<int32_t>& layers) {
  std::vector<StageCost> out;
  out.reserve(layers.size());
  for (int32_t k = 0; k < static_cast<int32_t>(layers.size()); ++k) {
    out.push_back(model.stage(k, layers[k]));
  }
  return out;
}

std::vector<DeviceTerms> device_terms(const StageModel& model,
                                      const std::vector<StageCost>& stages) {
  const int32_t S = model.stages();
  // H_k: the forward chain to stage k; T_k: the backward chain from stage k
  // back to stage 0 after its B (and W, fused).
  std::vector<double> head(S, 0), tail(S, 0);
  for (int32_t k = 1; k < S; ++k) {
    head[k] = head[k - 1] + stages[k - 1].f_s + model.edge_s(k - 1);
    tail[k] = tail[k - 1] + stages[k - 1].b_s + stages[k - 1].w_s + model.edge_s(k - 1);
  }
  const bool fused = !model.shape().split_backward;
  std::vector<DeviceTerms> out(model.devices());
  for (int32_t d = 0; d < model.devices(); ++d) {
    DeviceTerms& t = out[d];
    t.head_s = INFINITY;
    t.tail_s = fused ? INFINITY : 0;
    for (int32_t k : model.device_stages(d)) {
      t.head_s = std::min(t.head_s, head[k]);
      if (fused) t.tail_s = std::min(t.tail_s, tail[k]);
      t.work_s += stages[k].work_s();
      t.window_s += stages[k].b_s + stages[k].w_s;
      t.dense += stages[k].dense_parameters;
      t.expert += stages[k].expert_parameters;
    }
    t.exposed_s = model.exposed_dp_s(t.dense, t.expert, t.window_s);
  }
  return out;
}

double split_bound_s(const StageModel& model, const std::vector<StageCost>& stages) {
  double best = 0;
  for (const DeviceTerms& t : device_terms(model, stages)) {
    best = std::max(best, t.bound_s(model.microbatches()));
  }
  return best;
}

std::vector<DeviceMemory> device_memory(const StageModel& model, const InflightProfile& profile,
                                        const std::vector<StageCost>& stages) {
  std::vector<int64_t> act(stages.size()), keep(stages.size());
  for (size_t k = 0; k < stages.size(); ++k) {
    act[k] = stages[k].act_bytes;
    keep[k] = stages[k].keep_bytes;
  }
  std::vector<DeviceMemory> out(model.devices());
  for (int32_t d = 0; d < model.devices(); ++d) {
    int64_t dense = 0, expert = 0;
    int64_t top[2] = {0, 0};
    for (int32_t k : model.device_stages(d)) {
      dense += stages[k].dense_parameters;
      expert += stages[k].expert_parameters;
      out[d].transient = std::max(out[d].transient, stages[k].transient_bytes);
      // The device's two largest gathered parts, over all its stages (the
      // next part may be another chunk's).
      int64_t* g = top;
      for (const int64_t b : stages[k].gathered_bytes) {
        if (b > g[0]) {
          g[1] = g[0];
          g[0] = b;
        } else if (b > g[1]) {
          g[1] = b;
        }
      }
    }
    out[d].gathered = top[0] + top[1];
    out[d].state = model.state(dense, expert);
    out[d].activations = profile.peak_bytes(d, act, keep);
  }
  return out;
}

// For every split, max_d (head_d + m work_d) is at least the value below.
// Linear placements (stage d on device d): head_d (+ tail_d when B and W are
// fused) >= phi sum_{j<d} work_j, with phi the least F / (F + B + W) of the
// parts (1 when fused: head + tail cover the whole chain). With x_d = work_d
// summing to W, the least max_d (phi sum_{j<d} x_j + m x_d) equalises every
// term: T = phi W / (1 - (1 - phi / m)^p) (T = m W / p when phi = 0), since
// any smaller T forces sum x < W by induction over d. Placements with several
// chunks per device: device d's first stage is stage d, the stages before it
// hold at least one layer each, so head_d (+ tail_d) >= d a with a = phi x
// one layer's work; the least max_d (a d + m x_d) is m W / p + a (p - 1) / 2.
// ZeRO-2/3 make stage work nonlinear in its layers: there phi = 0 and W is the
// work without their collectives.
double relaxation_bound_s(const StageModel& model) {
  const Plan& c = model.config();
  const int64_t m = c.microbatches;
  const int32_t p = c.pp;
  const StageCost one = model.stage(1 % std::max(2, model.stages()), 1);  // a middle stage, 1 layer
  const StageCost none = model.stage(1 % std::max(2, model.stages()), 0);
  const double layer_work = one.work_s() - none.work_s() - one.zero_comm_s + none.zero_comm_s;
  // Total work of the chain: L layers, the embedding, the head.
  const StageCost emb = model.stage(0, 0);
  const StageCost head = model.stage(model.stages() - 1, 0);
  double total = model.layers() * layer_work;
  if (model.stages() == 1) {
    total += emb.work_s() - emb.zero_comm_s;
  } else {
    total += emb.work_s() - emb.zero_comm_s + head.work_s() - head.zero_comm_s;
  }
  const bool fused = !model.shape().split_backward;
  double phi = 0;
  if (c.zero < 2 || c.dp == 1) {
    if (fused) {
      phi = 1;
    } else {
      phi = 1;
      const PartCosts* parts[] = {&model.layer(), &model.embedding(), &model.head()};
      for (const PartCosts* part : parts) {
        double b = part->backward_s();
        if (part == &model.layer()) {
          if (c.recompute == Recompute::kFull) b += part->forward_s();
          if (c.recompute == Recompute::kSelective) b += part->attention_core_forward_s;
        }
        const double w = part->forward_s() + b + part->weight_s();
        if (w > 0) phi = std::min(phi, part->forward_s() / w);
      }
    }
  }
  if (p == 1) return m * total;
  if (model.shape().chunks == 1) {
    if (phi <= 0) return m * total / p;
    const double denom = 1 - std::pow(1 - phi / m, p);
    return denom > 0 ? phi * total / denom : m * total / p;
  }
  return m * total / p + phi * layer_work * (p - 1) / 2;
}

int64_t least_memory_bytes(const StageModel& model) {
  const int32_t p = model.devices();
  const PartCosts& layer = model.layer();
  const int64_t L = model.layers();
  const int64_t dense = L * layer.dense_parameters + model.embedding().dense_parameters +
                        model.head().dense_parameters - model.head().tied_parameters;
  const int64_t expert = L * layer.expert_parameters + model.embedding().expert_parameters +
                         model.head().expert_parameters;
  const int64_t act = L * layer.activation_bytes + model.embedding().activation_bytes +
                      model.head().activation_bytes;
  // State is linear in the parameters up to rounding, a byte per device each.
  const StateBytes state = model.state(dense, expert);
  const int64_t chunks = model.shape().chunks;
  // ZeRO-3: every device gathers at least one layer in full (stage_model.h).
  const int64_t gathered =
      model.config().zero == 3 && model.config().dp > 1
          ? (layer.dense_parameters + layer.expert_parameters) * model.dtype_bytes()
          : 0;
  return std::max<int64_t>(0, (state.total() + act / chunks) / p - 8) + layer.transient_bytes +
         gathered;
}

}  // namespace shardlab::plan
