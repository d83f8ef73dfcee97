// The production costs of the plan lab (model_costs.h): BlockCache's solved
// parts, Korthikanti's activation bytes, ZeRO's state bytes, hierarchical
// collectives over the cluster's two link levels.
#include "core/plan/model_costs.h"

#include <algorithm>
#include <cmath>

#include "core/plan/formulas.h"

namespace shardlab::plan {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The analytic Megatron stand-in for BlockCache's solved parts (replaced when
// BlockCache lands): compute at the cluster's matmul efficiency, two
// all-reduces of s b h per pass inside the tensor-parallel group.
struct Times {
  double f = 0, fc = 0, b = 0, bc = 0, w = 0, wc = 0, attn = 0;
  int64_t params = 0, expert = 0;
  std::string layout;
};

double ring_s(const Cluster& c, double factor, double bytes, GroupShape g) {
  const double e = c.comm_efficiency > 0 ? c.comm_efficiency : 1;
  double t = 0;
  double s = bytes;
  if (g.per_node > 1) {
    t += factor * (g.per_node - 1.0) / g.per_node * s / (c.intra_node.bandwidth_GBps * e * 1e9) +
         c.intra_node.latency_us * 1e-6;
    s /= g.per_node;
  }
  if (g.nodes > 1) {
    t += factor * (g.nodes - 1.0) / g.nodes * s / (c.inter_node.bandwidth_GBps * e * 1e9) +
         c.inter_node.latency_us * 1e-6;
  }
  return t;
}

}  // namespace

ModelCosts::ModelCosts(const ModelInput& model, const Cluster& cluster, const Training& training)
    : model_(model), cluster_(cluster), training_(training) {}

ModelCosts::~ModelCosts() = default;

Result<std::unique_ptr<ModelCosts>> ModelCosts::create(const ModelInput& model,
                                                       const Cluster& cluster,
                                                       const Training& training) {
  if (model.kind != ModelInput::Kind::kTransformer) {
    return Status(StatusCode::kInvalidInput, "einsum models are not priced yet");
  }
  std::unique_ptr<ModelCosts> costs(new ModelCosts(model, cluster, training));
  const Transformer& t = model.transformer;
  ModelFacts& f = costs->facts_;
  f.name = t.name;
  f.layers = t.layers;
  f.hidden = t.hidden;
  f.p2p_bytes_per_sequence = training.seq * t.hidden * training.dtype_bytes;
  f.heads = t.heads;
  f.kv_heads = t.kv_heads > 0 ? t.kv_heads : t.heads;
  f.experts = t.experts;
  f.parameters = parameter_counts(t).total;
  f.model_flops_per_sequence = model_flops(t, 1, training.seq);
  for (Recompute r : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
    f.hardware_flops_per_sequence[static_cast<int>(r)] = hardware_flops(t, 1, training.seq, r);
  }
  return costs;
}

int64_t ModelCosts::solves() const { return 0; }

std::string ModelCosts::report_json(BlockPart, const PartConfig&) { return "{}"; }

Result<PartCosts> ModelCosts::part(BlockPart part, const PartConfig& c) {
  const auto key = std::tuple(part, c.tp, c.sequence_parallel, c.ep, c.microbatch, c.recompute);
  auto it = memo_.find(key);
  if (it != memo_.end()) return it->second;
  const Transformer& m = model_.transformer;
  const int64_t s = training_.seq, b = c.microbatch, h = m.hidden, t = c.tp;
  const int32_t dt = training_.dtype_bytes;
  const double rate = cluster_.peak_tflops * 1e12 * cluster_.matmul_efficiency;
  const GroupShape tp{static_cast<int32_t>(std::min<int64_t>(t, cluster_.gpus_per_node)),
                      static_cast<int32_t>(ceil_div(t, cluster_.gpus_per_node))};
  PartCosts p;
  Result<PartCosts> out = p;
  if (m.heads % t != 0) {
    out = Status(StatusCode::kInvalidArgument,
                 "tp=" + std::to_string(t) + " does not divide the heads");
    memo_.emplace(key, out);
    return out;
  }
  const ParameterCounts counts = parameter_counts(m);
  // Sequence parallelism and tensor parallelism split every saved tensor
  // of the parts below as Korthikanti et al. count them (t' = t with SP).
  const int64_t tsp = c.sequence_parallel ? t : 1;
  if (part == BlockPart::kLayer) {
    const double fwd = layer_forward_flops(m, b, s) / t;
    const double attn = 4.0 * b * s * s * h / t;
    const double ar = t > 1 ? ring_s(cluster_, 2, static_cast<double>(b * s * h * dt), tp) : 0;
    p.forward_compute_s = fwd / rate;
    p.backward_compute_s = (fwd) / rate;
    p.weight_compute_s = (fwd - attn) / rate;
    p.attention_core_forward_s = attn / rate;
    p.forward_comm_s = 2 * ar;
    p.backward_comm_s = 2 * ar;
    p.dense_parameters = counts.per_layer / t;
    p.activation_bytes = activation_bytes_per_layer(m, s, b, static_cast<int32_t>(t),
                                                    c.sequence_parallel, c.recompute);
    // W needs the inputs of the layer's matrices: the QKV and FFN inputs
    // (h each, split with SP), attention's output projection input and the
    // FFN's second input (split over t).
    const int64_t keep = dt * s * b * (2 * h / tsp + h / t + m.ffn_hidden / t);
    p.keep_bytes = std::min(keep, p.activation_bytes);
    p.transient_bytes = c.recompute == Recompute::kFull
                            ? activation_bytes_per_layer(m, s, b, static_cast<int32_t>(t),
                                                         c.sequence_parallel, Recompute::kNone)
                            : 0;
    p.layout = "Megatron tensor parallel (analytic, scratch)";
  } else if (part == BlockPart::kEmbedding) {
    p.dense_parameters = counts.embedding / t;
    p.activation_bytes = m.dropout ? s * b * h / tsp : 0;  // the dropout mask
  } else {
    const double logits = 2.0 * b * s * h * static_cast<double>(m.vocab) / t;
    p.forward_compute_s = logits / rate;
    p.backward_compute_s = logits / rate;
    p.weight_compute_s = logits / rate;
    // A tied head holds the word embeddings again on the last stage (Megatron
    // keeps that copy and all-reduces its gradient with the first stage's).
    p.tied_parameters = m.tied_embeddings ? ceil_div(m.vocab * m.hidden, t) : 0;
    p.dense_parameters = ceil_div(counts.head, t) + p.tied_parameters;
    // Korthikanti: the final norm's input, the output projection's input,
    // and the fp32 logits of the cross entropy.
    p.activation_bytes = dt * s * b * h / tsp + dt * s * b * h / tsp + 4 * s * b * m.vocab / t;
    p.keep_bytes = dt * s * b * h / tsp;
  }
  out = p;
  memo_.emplace(key, out);
  return out;
}

StateBytes ModelCosts::state(int64_t parameters, int32_t zero, int32_t dp) const {
  return state_bytes(parameters, zero, dp, training_);
}

double ModelCosts::collective_s(Collective kind, int64_t bytes, GroupShape group) const {
  const double factor = kind == Collective::kAllReduce ? 2 : 1;
  return ring_s(cluster_, factor, static_cast<double>(bytes), group);
}

double ModelCosts::p2p_s(int64_t bytes, bool inter_node) const {
  const LinkSpec& link = inter_node ? cluster_.inter_node : cluster_.intra_node;
  const double e = cluster_.comm_efficiency > 0 ? cluster_.comm_efficiency : 1;
  return static_cast<double>(bytes) / (link.bandwidth_GBps * e * 1e9) + link.latency_us * 1e-6;
}

}  // namespace shardlab::plan

// Placeholder definitions until block.cpp lands (BlockCache is not used yet).
namespace shardlab::plan {
struct BlockCache::Impl {};
BlockCache::~BlockCache() = default;
}  // namespace shardlab::plan
