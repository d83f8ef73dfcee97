// The layouts inside a pipeline stage: one transformer layer (or the einsum
// model's repeated block), the embedding or the output head, built as a
// teaching-lab model (core/teach/model.h) on the devices of one
// model-parallel group, turned into a sharding instance by the teaching
// lab's generator and solved exactly by the sharding solver
// (core/teach/session.h), so that the layout is found, not assumed (on a
// GPT layer it is Megatron's, with sequence parallelism where it saves
// memory at equal cost). The result is priced in seconds by the one cost
// model the teaching and plan labs share (core/teach/collectives.h:
// compute at the cluster's matmul efficiency, hierarchical collectives).
//
// Lifecycle: BlockCache cache(model, cluster, training);
//            Result<const BlockCost*> c = cache.get({part, tp, ep, b, seq});
// Solves are memoised per query: every stage of every candidate plan that
// asks for the same (part, group, micro-batch) shares one solve. A stepped
// caller (the plan search on the page, where a Stop must land between two
// short steps) may run a solve in pieces instead, one advance() at a time:
// the model built and generated, the engine built (its presolve and exact
// search), each of the engine's steps, and the explanation and price; get()
// then answers from memory. The pieces call the engine exactly as one get()
// does, so the layout and its cost are the same.
//
// The block's mesh: one axis "tp" of tp devices inside a node at the
// cluster's intra-node link; when tp > gpus_per_node, "tp" (gpus_per_node,
// intra) and "tp_nodes" (tp / gpus_per_node, inter). With ep > 1 an axis
// "ep" (data parallelism carved out for experts) over which the batch is
// pinned split (the block holds ep micro-batches, one per rank) and experts
// may be split; it sits inside the node as far as tp x ep fits there and
// across nodes beyond, priced over both levels. The layer of a Transformer
// is built as: LayerNorm or RMSNorm, q/k/v projections (GQA: the query
// heads grouped under their key/value head, so tp splits the groups, or
// the queries within one when tp exceeds the key/value heads), scores,
// softmax along the keys and attention x V (the attention core), the output
// projection, residual adds, and the FFN (GeLU: two matrices; SwiGLU:
// three) or, for MoE, a router (softmax over the experts), GShard's
// dispatch of the tokens to E experts of capacity ceil(k s / E) per
// sequence (its one-hot mask priced as the gather it is), the experts'
// FFNs and the weighted combine. Biases and norm weights are counted in
// parameters_per_device (split as their layer's output is) but not priced:
// their work is a few elementwise FLOPs. No dropout. The embedding is the
// token lookup (+ learned positions); the head the final norm, the logits
// and the softmax over the vocabulary whose gradient is the loss's.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "core/plan/model.h"
#include "core/status.h"
#include "core/teach/model.h"

namespace shardlab::plan {

enum class BlockPart : uint8_t { kLayer, kEmbedding, kHead };

struct BlockQuery {
  BlockPart part = BlockPart::kLayer;
  int32_t tp = 1;          // devices of the model-parallel group the block is laid out on
  int32_t ep = 1;          // expert-parallel ranks (MoE layers; 1 otherwise)
  int64_t microbatch = 1;  // sequences per micro-batch (per expert-parallel rank)
  int64_t seq = 2048;
  // -1: the solver's choice; 0: the norms and residuals replicated over tp;
  // 1: split along the sequence over tp (Megatron's sequence parallelism).
  int8_t sequence_parallel = -1;
  // The memory-lean layout: the fastest among those that split every weight
  // over the whole tp group (Megatron's memory), instead of the fastest.
  bool lean = false;
  auto key() const { return std::tuple(part, tp, ep, microbatch, seq, sequence_parallel, lean); }
};

// The cluster's links as the cost model prices them (core/teach/collectives.h):
// `devices` along the link at its bandwidth times comm_efficiency. The plan
// lab builds the levels of its data-parallel and pipeline transfers from
// these: teach::collective_ns(kind, bytes, {intra, inter}), teach::p2p_ns.
teach::AxisLink cluster_link(const Cluster& cluster, bool inter_node, int64_t devices);

// One micro-batch through the block on one device of the group, in seconds.
// Times exclude the reduction of weight gradients over data parallelism
// (the block's ep axis included): the plan lab overlaps it with the
// backward and prices it itself from grad_reduce_bytes.
struct BlockCost {
  double forward_compute_s = 0;
  double forward_comm_s = 0;      // the layout's collectives in the forward (TP all-reduces, ...)
  double backward_compute_s = 0;  // B: input gradients
  double backward_comm_s = 0;
  double weight_compute_s = 0;  // W: weight gradients (separable, zero-bubble style)
  double weight_comm_s = 0;
  double attention_core_forward_s = 0;  // what selective recomputation repeats
  // Elements this device holds of the block's weights (with biases and norm
  // weights; the head's output matrix even when tied to the embedding, as
  // Megatron keeps a copy on the last stage).
  int64_t parameters_per_device = 0;
  // Of which split over the ep axis (experts under expert parallelism):
  // their gradients are reduced over d / ep data-parallel ranks, the others over d.
  int64_t expert_parameters_per_device = 0;
  // Weight-gradient bytes per device per step that data parallelism reduces
  // (dtype_bytes x parameters_per_device).
  int64_t grad_reduce_bytes = 0;
  // The generator's own count of what one micro-batch saves for the
  // backward on one device (outputs that a backward op reads, no dropout
  // masks); the plan lab uses Korthikanti's formulas for Transformers.
  int64_t activation_bytes = 0;
  bool sequence_parallel = false;  // the layout splits the sequence where Megatron's SP does
  bool proven_optimal = false;     // the sharding solver proved the layout optimal
  std::string layout;              // the textbook name ("Megatron tensor parallel on tp", ...)
  std::string report_json;         // the teaching lab's explanation (explain.h), for the page
  double solve_seconds = 0;        // generating and solving this block
  double forward_s() const { return forward_compute_s + forward_comm_s; }
  double backward_s() const { return backward_compute_s + backward_comm_s; }
  double weight_s() const { return weight_compute_s + weight_comm_s; }
};

class BlockCache {
 public:
  BlockCache(const ModelInput& model, const Cluster& cluster, const Training& training);
  ~BlockCache();
  // The solved block (memoised); errors when the group cannot hold the
  // block's layout (e.g. tp does not divide the heads).
  Result<const BlockCost*> get(const BlockQuery& query);
  bool has(const BlockQuery& query) const;  // get() would answer from memory
  // Runs the next piece of the query's solve; true when there is none left
  // (get() then answers from memory, the cost or the error).
  bool advance(const BlockQuery& query);
  int64_t solves() const;  // distinct solves so far
  int64_t pieces() const;  // pieces of solves run so far (get() runs them too)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace shardlab::plan
