// The production costs of the plan lab (model_costs.h): BlockCache's solved
// parts (times, parameters, the layout), Korthikanti's activation bytes for
// transformers (the generator's own count for einsum models), ZeRO's state
// bytes, and the teaching lab's hierarchical collectives over the cluster's
// two link levels (core/teach/collectives.h).
#include "core/plan/model_costs.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/plan/formulas.h"
#include "core/teach/collectives.h"

namespace shardlab::plan {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

teach::CollectiveKind teach_kind(Collective kind) {
  switch (kind) {
    case Collective::kAllReduce:
      return teach::CollectiveKind::kAllReduce;
    case Collective::kReduceScatter:
      return teach::CollectiveKind::kReduceScatter;
    case Collective::kAllGather:
      return teach::CollectiveKind::kAllGather;
  }
  return teach::CollectiveKind::kAllReduce;
}

// Elements of one tensor of an einsum model for one sequence of `seq`
// tokens: the batch letter counts 1, the sequence letter seq.
int64_t per_sequence_elements(const teach::ModelSpec& m, const teach::TensorSpec& t, int64_t seq) {
  int64_t n = 1;
  for (size_t d = 0; d < t.shape.size(); ++d) {
    const char letter = d < t.dims.size() ? t.dims[d] : 0;
    if (letter != 0 && letter == m.batch) continue;
    n *= (m.sequence != 0 && letter == m.sequence) ? seq : t.shape[d];
  }
  return n;
}

}  // namespace

ModelCosts::ModelCosts(const ModelInput& model, const Cluster& cluster, const Training& training)
    : model_(model), cluster_(cluster), training_(training) {}

ModelCosts::~ModelCosts() = default;

Result<std::unique_ptr<ModelCosts>> ModelCosts::create(const ModelInput& model,
                                                       const Cluster& cluster,
                                                       const Training& training) {
  std::unique_ptr<ModelCosts> costs(new ModelCosts(model, cluster, training));
  costs->blocks_ = std::make_unique<BlockCache>(model, cluster, training);
  ModelFacts& f = costs->facts_;
  if (model.kind == ModelInput::Kind::kTransformer) {
    const Transformer& t = model.transformer;
    f.name = t.name;
    f.kind = "transformer";
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
  // An einsum model: its repeated block is the layer, the ops before it the
  // embedding, those after it the head.
  const teach::ModelSpec& m = model.einsum;
  if (!m.repeat.present()) {
    return Status(StatusCode::kInvalidInput,
                  m.name + ": an einsum model needs a \"repeat\" block for the plan lab");
  }
  f.name = m.name;
  f.kind = "einsum";
  f.layers = static_cast<int32_t>(m.repeat.times);
  const teach::TensorSpec& carried = m.tensors[m.repeat.input];
  const int64_t carried_elements = per_sequence_elements(m, carried, training.seq);
  f.p2p_bytes_per_sequence = carried_elements * carried.dtype_bytes;
  f.hidden = carried_elements / std::max<int64_t>(1, training.seq);
  // Parameters: the block's once per repetition, the others once (a tensor
  // both ends read, such as a tied embedding, counts once).
  for (const teach::TensorSpec& t : m.tensors) {
    if (!t.parameter) continue;
    int64_t n = 1;
    for (int64_t d : t.shape) n *= d;
    bool in_block = false;
    for (int32_t i = m.repeat.first; i <= m.repeat.last && !in_block; ++i) {
      for (int32_t input : m.ops[i].inputs) in_block = in_block || m.tensors[input].name == t.name;
    }
    f.parameters += in_block ? n * m.repeat.times : n;
  }
  // FLOPs of one sequence as the cost model charges them (the parts solved
  // on one GPU): forward, backward (B and W), and what recomputation adds.
  const double rate =
      cluster.peak_tflops * 1e12 * (cluster.matmul_efficiency > 0 ? cluster.matmul_efficiency : 1);
  double model_flops_total = 0, forward_layers = 0, core_layers = 0;
  for (BlockPart part : {BlockPart::kEmbedding, BlockPart::kLayer, BlockPart::kHead}) {
    BlockQuery q;
    q.part = part;
    q.seq = training.seq;
    q.sequence_parallel = 0;
    Result<const BlockCost*> c = costs->blocks_->get(q);
    if (!c.is_ok()) return c.status();
    const BlockCost& b = *c.value();
    const double n = part == BlockPart::kLayer ? static_cast<double>(m.repeat.times) : 1.0;
    model_flops_total +=
        n * (b.forward_compute_s + b.backward_compute_s + b.weight_compute_s) * rate;
    if (part == BlockPart::kLayer) {
      forward_layers = n * b.forward_compute_s * rate;
      core_layers = n * b.attention_core_forward_s * rate;
    }
  }
  f.model_flops_per_sequence = model_flops_total;
  f.hardware_flops_per_sequence = {model_flops_total, model_flops_total + core_layers,
                                   model_flops_total + forward_layers};
  return costs;
}

int64_t ModelCosts::solves() const { return blocks_->solves(); }

int64_t ModelCosts::solve_pieces() const { return blocks_->pieces(); }

void ModelCosts::set_solve_gate(std::function<bool()> gate) {
  gate_ = std::move(gate);
  deferred_ = false;
}

std::string ModelCosts::report_json(BlockPart part, const PartConfig& c) {
  BlockQuery q;
  q.part = part;
  q.tp = c.tp;
  q.ep = c.ep;
  q.microbatch = c.microbatch;
  q.seq = training_.seq;
  q.sequence_parallel = c.tp > 1 && c.sequence_parallel ? 1 : 0;
  q.lean = c.tp > 1 && c.lean;
  Result<const BlockCost*> got = blocks_->get(q);
  return got.is_ok() ? got.value()->report_json : "{}";
}

Result<PartCosts> ModelCosts::part(BlockPart part, const PartConfig& c) {
  const auto key =
      std::tuple(part, c.tp, c.sequence_parallel, c.ep, c.microbatch, c.recompute, c.lean);
  auto it = memo_.find(key);
  if (it != memo_.end()) return it->second;
  Result<PartCosts> out = price(part, c);
  if (deferred_ && !out.is_ok()) return out;  // put off: solved by a later call
  memo_.emplace(key, out);
  return out;
}

Result<PartCosts> ModelCosts::price(BlockPart part, const PartConfig& c) {
  const int64_t t = c.tp;
  if (model_.kind == ModelInput::Kind::kTransformer && model_.transformer.heads % t != 0) {
    return Status(StatusCode::kInvalidArgument,
                  "tp=" + std::to_string(t) + " does not divide the " +
                      std::to_string(model_.transformer.heads) + " heads");
  }
  // The part laid out by the sharding solver on the tensor-parallel group
  // (sequence parallelism pinned as the plan asks: Megatron's SP splits the
  // norms and residuals along the sequence).
  BlockQuery q;
  q.part = part;
  q.tp = c.tp;
  q.ep = c.ep;
  q.microbatch = c.microbatch;
  q.seq = training_.seq;
  q.sequence_parallel = t > 1 && c.sequence_parallel ? 1 : 0;
  q.lean = t > 1 && c.lean;
  // Under a gate the solve runs piece by piece, the gate asked before each
  // (a search's step runs one, block.h BlockCache::advance); the pieces run
  // stay with the cache when it refuses one.
  while (gate_ && !blocks_->has(q)) {
    if (!gate_()) {
      deferred_ = true;
      return Status(StatusCode::kInternal, "the block's solve was put off to the next step");
    }
    if (blocks_->advance(q)) break;
  }
  Result<const BlockCost*> got = blocks_->get(q);
  if (!got.is_ok()) return got.status();
  const BlockCost& b = *got.value();
  PartCosts p;
  p.forward_compute_s = b.forward_compute_s;
  p.forward_comm_s = b.forward_comm_s;
  p.backward_compute_s = b.backward_compute_s;
  p.backward_comm_s = b.backward_comm_s;
  p.weight_compute_s = b.weight_compute_s;
  p.weight_comm_s = b.weight_comm_s;
  p.attention_core_forward_s = b.attention_core_forward_s;
  p.expert_parameters = b.expert_parameters_per_device;
  p.dense_parameters = b.parameters_per_device - b.expert_parameters_per_device;
  p.layout = b.layout;
  const int64_t mb = c.microbatch;
  const int32_t dt = training_.dtype_bytes;
  if (model_.kind == ModelInput::Kind::kEinsum) {
    // The generator's own count of what the part saves; full recomputation
    // keeps the block's input only and rebuilds the rest during the backward.
    const int64_t carried = mb * facts_.p2p_bytes_per_sequence;
    p.activation_bytes = b.activation_bytes;
    if (part == BlockPart::kLayer && c.recompute == Recompute::kFull) {
      p.activation_bytes = std::min(b.activation_bytes, carried);
      p.transient_bytes = b.activation_bytes;
    }
    p.keep_bytes = p.activation_bytes;
    return p;
  }
  // Transformers: Korthikanti et al.'s bytes (formulas.h).
  const Transformer& m = model_.transformer;
  const int64_t s = training_.seq, h = m.hidden;
  const int64_t tsp = c.sequence_parallel ? t : 1;  // SP splits what Korthikanti keeps whole
  if (part == BlockPart::kLayer) {
    p.activation_bytes = activation_bytes_per_layer(m, s, mb, static_cast<int32_t>(t),
                                                    c.sequence_parallel, c.recompute);
    // W needs the inputs of the layer's matrices: the QKV and FFN inputs
    // (h each, split with SP), attention's output projection input and the
    // FFN's second input (split over t).
    const int64_t keep = dt * s * mb * (2 * h / tsp + h / t + m.ffn_hidden / t);
    p.keep_bytes = std::min(keep, p.activation_bytes);
    p.transient_bytes = c.recompute == Recompute::kFull
                            ? activation_bytes_per_layer(m, s, mb, static_cast<int32_t>(t),
                                                         c.sequence_parallel, Recompute::kNone)
                            : 0;
  } else if (part == BlockPart::kEmbedding) {
    p.activation_bytes = m.dropout ? s * mb * h / tsp : 0;              // the dropout mask
    if (m.embedding_norm) p.activation_bytes += dt * s * mb * h / tsp;  // the norm's input
  } else {
    // A tied head holds the word embeddings again on the last stage (Megatron
    // keeps that copy); held once when the embedding shares the stage.
    p.tied_parameters = m.tied_embeddings ? ceil_div(m.vocab * m.hidden, t) : 0;
    // Korthikanti: the final norm's input, the output projection's input,
    // and the fp32 logits of the cross entropy.
    p.activation_bytes = dt * s * mb * h / tsp + dt * s * mb * h / tsp + 4 * s * mb * m.vocab / t;
    p.keep_bytes = dt * s * mb * h / tsp;
  }
  return p;
}

StateBytes ModelCosts::state(int64_t parameters, int32_t zero, int32_t dp) const {
  return state_bytes(parameters, zero, dp, training_);
}

double ModelCosts::memo_price(const PriceKey& key,
                              double (*price)(const ModelCosts&, const PriceKey&)) const {
  auto it = prices_.find(key);
  if (it != prices_.end()) return it->second;
  // A bound on the memo (a sweep over many GPU counts): start afresh.
  if (prices_.size() >= (size_t{1} << 20)) prices_.clear();
  const double value = price(*this, key);
  prices_.emplace(key, value);
  return value;
}

// Outside one block (data-parallel reduction, ZeRO's gathers): the
// teaching lab's hierarchical collective over the group's two levels.
double ModelCosts::collective_s(Collective kind, int64_t bytes, GroupShape group) const {
  return memo_price({bytes, group.per_node, group.nodes, static_cast<int32_t>(kind)},
                    [](const ModelCosts& self, const PriceKey& k) {
                      const std::vector<teach::AxisLink> levels = {
                          cluster_link(self.cluster_, false, k.per_node),
                          cluster_link(self.cluster_, true, k.nodes)};
                      return static_cast<double>(teach::collective_ns(
                                 teach_kind(static_cast<Collective>(k.kind)), k.bytes, levels)) *
                             1e-9;
                    });
}

double ModelCosts::p2p_s(int64_t bytes, bool inter_node) const {
  return memo_price(
      {bytes, 2, 1, 16 + (inter_node ? 1 : 0)}, [](const ModelCosts& self, const PriceKey& k) {
        return static_cast<double>(
                   teach::p2p_ns(k.bytes, cluster_link(self.cluster_, k.kind == 17, 2))) *
               1e-9;
      });
}

}  // namespace shardlab::plan
