// A synthetic PlanCosts for the plan engine's tests: a GPT-shaped model
// priced by closed forms (FLOPs at a fixed rate, ring collectives on two
// link speeds, Korthikanti's activation bytes, ZeRO's state bytes), so the
// search, the bound and the step model can be tested without the teaching
// lab's solver. Not the production costs (core/plan/model_costs.cpp). Each
// distinct part query counts as a block solve and honours the solve gate
// (costs.h) as ModelCosts does, so the tests see the search put them off.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <string>
#include <tuple>

#include "core/plan/costs.h"

namespace shardlab::plan::testing {

struct SyntheticShape {
  int32_t layers = 8;
  int64_t hidden = 1024;
  int32_t heads = 16;
  int64_t vocab = 32000;
  int64_t seq = 1024;
  double tflops = 100;  // achieved per GPU
  double intra_GBps = 100, inter_GBps = 10;
  double latency_us = 5;
  double head_scale = 1;  // multiplies the head's work (uneven end stages)
};

class SyntheticCosts : public PlanCosts {
 public:
  explicit SyntheticCosts(const SyntheticShape& shape) : s_(shape) {
    facts_.name = "synthetic";
    facts_.layers = shape.layers;
    facts_.hidden = shape.hidden;
    facts_.p2p_bytes_per_sequence = shape.seq * shape.hidden * 2;
    facts_.heads = shape.heads;
    facts_.kv_heads = shape.heads;
    const double h = static_cast<double>(shape.hidden), L = shape.layers,
                 S = static_cast<double>(shape.seq), V = static_cast<double>(shape.vocab);
    facts_.parameters = static_cast<int64_t>(12 * L * h * h + V * h);
    facts_.model_flops_per_sequence = 72 * L * S * h * h * (1 + S / (6 * h) + V / (12 * h * L));
    facts_.hardware_flops_per_sequence = {
        facts_.model_flops_per_sequence, facts_.model_flops_per_sequence + 4 * L * S * S * h,
        96 * L * S * h * h * (1 + S / (6 * h) + V / (16 * h * L))};
  }

  const ModelFacts& facts() const override { return facts_; }

  Result<PartCosts> part(BlockPart part, const PartConfig& c) override {
    if (s_.heads % c.tp != 0) {
      return Status(StatusCode::kInvalidArgument, "tp does not divide the heads");
    }
    const auto key =
        std::tuple(part, c.tp, c.sequence_parallel, c.ep, c.microbatch, c.recompute, c.lean);
    if (!solved_.count(key)) {
      if (gate_ && !gate_()) {
        deferred_ = true;
        return Status(StatusCode::kInternal, "put off");
      }
      solved_.insert(key);
    }
    ++part_calls;
    const double h = static_cast<double>(s_.hidden), S = static_cast<double>(s_.seq);
    const double b = static_cast<double>(c.microbatch), t = c.tp;
    const double rate = s_.tflops * 1e12;
    const double tokens = b * S;
    const GroupShape group{std::min<int32_t>(c.tp, 8), std::max<int32_t>(1, c.tp / 8)};
    PartCosts p;
    if (part == BlockPart::kLayer) {
      const double matmul = 24 * tokens * h * h / t, attention = 4 * b * S * S * h / t;
      p.forward_compute_s = (matmul + attention) / rate;
      p.backward_compute_s = (matmul + 2 * attention) / rate;
      p.weight_compute_s = matmul / rate;
      p.attention_core_forward_s = attention / rate;
      const int64_t bytes = static_cast<int64_t>(tokens * h * 2);
      const double ar = c.tp > 1 ? collective_s(Collective::kAllReduce, bytes, group) : 0;
      p.forward_comm_s = 2 * ar;
      p.backward_comm_s = 2 * ar;
      p.dense_parameters = static_cast<int64_t>(12 * h * h / t + 13 * h);
      const double a = s_.heads;
      double act = 0;
      if (c.recompute == Recompute::kFull) {
        act = 2 * S * b * h;
      } else if (c.recompute == Recompute::kSelective) {
        act = c.sequence_parallel ? 34 * S * b * h / t : S * b * h * (10 + 24 / t);
      } else if (c.sequence_parallel) {
        act = S * b * h / t * (34 + 5 * a * S / h);
      } else {
        act = S * b * h * (10 + 24 / t + 5 * a * S / (h * t));
      }
      p.activation_bytes = static_cast<int64_t>(act);
      p.keep_bytes = static_cast<int64_t>(std::min(act, 14 * S * b * h / t));
      p.transient_bytes =
          c.recompute == Recompute::kFull
              ? static_cast<int64_t>(S * b * h * (10 + 24 / t + 5 * a * S / (h * t)))
              : 0;
      p.layout = "synthetic tensor parallel";
    } else if (part == BlockPart::kEmbedding) {
      p.forward_compute_s = tokens * h / rate;
      p.weight_compute_s = tokens * h / rate;
      p.dense_parameters = static_cast<int64_t>(s_.vocab * h / t);
      p.activation_bytes = static_cast<int64_t>(S * b * h);
    } else {
      const double matmul = 2 * tokens * h * static_cast<double>(s_.vocab) / t * s_.head_scale;
      p.forward_compute_s = matmul / rate;
      p.backward_compute_s = matmul / rate;
      p.weight_compute_s = matmul / rate;
      p.dense_parameters = static_cast<int64_t>(s_.vocab * h / t);
      p.activation_bytes = static_cast<int64_t>(4 * S * b * static_cast<double>(s_.vocab) / t);
      p.keep_bytes = static_cast<int64_t>(2 * S * b * h / t);
    }
    return p;
  }

  StateBytes state(int64_t params, int32_t zero, int32_t d) const override {
    StateBytes s;
    s.parameters = zero >= 3 ? 2 * params / d : 2 * params;
    s.gradients = zero >= 2 ? 2 * params / d : 2 * params;
    s.optimizer = zero >= 1 ? 12 * params / d : 12 * params;
    return s;
  }

  // Two levels: reduce-scatter inside the node, the collective across nodes
  // on a node's share, all-gather inside the node.
  double collective_s(Collective kind, int64_t bytes, GroupShape g) const override {
    const double n1 = g.per_node, n2 = g.nodes, B = static_cast<double>(bytes);
    const double intra = s_.intra_GBps * 1e9, inter = s_.inter_GBps * 1e9;
    const double lat = s_.latency_us * 1e-6;
    const double factor = kind == Collective::kAllReduce ? 2 : 1;
    double t = 0;
    if (n1 > 1) t += factor * (n1 - 1) / n1 * B / intra + lat;
    if (n2 > 1) t += factor * (n2 - 1) / n2 * (B / n1) / inter + lat;
    return t;
  }

  double p2p_s(int64_t bytes, bool inter_node) const override {
    return static_cast<double>(bytes) / ((inter_node ? s_.inter_GBps : s_.intra_GBps) * 1e9) +
           s_.latency_us * 1e-6;
  }

  int64_t solves() const override { return static_cast<int64_t>(solved_.size()); }
  void set_solve_gate(std::function<bool()> gate) override {
    gate_ = std::move(gate);
    deferred_ = false;
  }
  bool deferred() const override { return deferred_; }

  int64_t part_calls = 0;

 private:
  std::set<std::tuple<BlockPart, int32_t, bool, int32_t, int64_t, Recompute, bool>> solved_;
  std::function<bool()> gate_;
  bool deferred_ = false;
  SyntheticShape s_;
  ModelFacts facts_;
};

inline Cluster synthetic_cluster(int32_t nodes, int32_t gpus_per_node, double memory_GB) {
  Cluster c;
  c.name = "synthetic";
  c.nodes = nodes;
  c.gpus_per_node = gpus_per_node;
  c.gpu_name = "synthetic";
  c.peak_tflops = 200;
  c.memory_GB = memory_GB;
  c.intra_node = {100, 5};
  c.inter_node = {10, 5};
  c.matmul_efficiency = 0.5;
  c.comm_efficiency = 1;
  return c;
}

inline Training synthetic_training(int64_t global_batch, int64_t seq) {
  Training t;
  t.global_batch = global_batch;
  t.seq = seq;
  return t;
}

}  // namespace shardlab::plan::testing
