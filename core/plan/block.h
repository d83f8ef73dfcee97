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
// asks for the same (part, group, micro-batch) shares one solve.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "core/plan/model.h"
#include "core/status.h"

namespace shardlab::plan {

enum class BlockPart : uint8_t { kLayer, kEmbedding, kHead };

struct BlockQuery {
  BlockPart part = BlockPart::kLayer;
  int32_t tp = 1;          // devices of the model-parallel group the block is laid out on
  int32_t ep = 1;          // expert-parallel ranks (MoE layers; 1 otherwise)
  int64_t microbatch = 1;  // sequences per micro-batch
  int64_t seq = 2048;
  auto key() const { return std::tuple(part, tp, ep, microbatch, seq); }
};

// One micro-batch through the block on one device of the group, in seconds.
struct BlockCost {
  double forward_compute_s = 0;
  double forward_comm_s = 0;      // the layout's collectives in the forward (TP all-reduces, ...)
  double backward_compute_s = 0;  // B: input gradients
  double backward_comm_s = 0;
  double weight_compute_s = 0;  // W: weight gradients (separable, zero-bubble style)
  double weight_comm_s = 0;
  double attention_core_forward_s = 0;  // what selective recomputation repeats
  int64_t parameters_per_device = 0;    // elements this device holds of the block's weights
  int64_t grad_reduce_bytes = 0;   // per device per step, reduced over data parallelism (outside)
  int64_t activation_bytes = 0;    // the generator's own count of saved activations (einsum models)
  bool sequence_parallel = false;  // the layout splits the sequence where Megatron's SP does
  bool proven_optimal = false;     // the sharding solver proved the layout optimal
  std::string layout;              // the textbook name ("Megatron tensor parallel on tp", ...)
  std::string report_json;         // the teaching lab's explanation (explain.h), for the page
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
  int64_t solves() const;  // distinct solves so far

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace shardlab::plan
