// Closed forms over the plan lab's structs (model.h): parameter counts,
// FLOPs per step, activation memory per layer and per-device state under
// ZeRO. Each cites its source; for the GPT shape (FFN 4h with GeLU,
// multi-head attention, layer norms, biases) they equal the published
// formulas exactly, and for other shapes they follow the same derivation
// term by term (the README gives every term):
// - parameters: Narayanan et al. (SC'21), Eq. 2;
// - FLOPs: Korthikanti et al. (MLSys'23) for model FLOPs, Narayanan et al.'s
//   Eq. 3 for hardware FLOPs (with the recomputed forward);
// - activations: Korthikanti et al., Section 4 (five settings);
// - optimizer state: Rajbhandari et al. (ZeRO, SC'20).
#pragma once

#include <cstdint>

#include "core/plan/model.h"

namespace shardlab::plan {

// ---- parameters ------------------------------------------------------------

// In arithmetic T: int64_t for the exact counts (parameter_counts), double
// for parameter_estimate(), which cannot overflow.
template <typename T>
struct ParameterCountsIn {
  T per_layer{};         // one transformer layer (all experts of an MoE layer)
  T per_layer_active{};  // what one token uses (top-k experts only)
  T expert_per_layer{};  // the experts' share of per_layer (0 when dense)
  T embedding{};         // token (and learned position) embeddings
  T head{};              // the output head (0 when tied) and the final norm
  T total{};             // layers * per_layer + embedding + head
};
using ParameterCounts = ParameterCountsIn<int64_t>;
// For the GPT shape total = Eq. 2 + 2h: Eq. 2, 12 L h^2 (1 + 13/(12h) +
// (V + s)/(12 L h)), leaves out the final LayerNorm's 2h parameters.
ParameterCounts parameter_counts(const Transformer& model);
// The same total in double arithmetic, which cannot overflow: what a reader
// checks a model's size against before parameter_counts() may be called.
double parameter_estimate(const Transformer& model);

// ---- FLOPs per step --------------------------------------------------------

// Model FLOPs of one step over `sequences` sequences of `seq` tokens
// (forward + backward, no recomputation; Korthikanti's count, for GPT
// 72 B L s h^2 (1 + s/(6h) + V/(12 h L))).
double model_flops(const Transformer& model, int64_t sequences, int64_t seq);
// Hardware FLOPs: the model FLOPs plus what recomputation adds (full: one
// more forward of every layer, as in Narayanan et al.'s Eq. 3,
// 96 B s L h^2 (1 + s/(6h) + V/(16 L h)); selective: the attention core's
// forward again).
double hardware_flops(const Transformer& model, int64_t sequences, int64_t seq,
                      Recompute recompute);
// Forward FLOPs of one layer for one micro-batch of b sequences (per token
// FLOPs of the matmuls including the active experts, plus attention's s^2 terms).
double layer_forward_flops(const Transformer& model, int64_t b, int64_t seq);

// ---- memory ----------------------------------------------------------------

// Bytes one micro-batch of b sequences stores for one transformer layer on
// one device, with tensor-parallel size t (Korthikanti et al.'s table for
// 16-bit activations and 1-byte dropout masks; GPT shape):
//   t = 1, no recompute            s b h (34 + 5 a s / h)
//   tensor parallel                s b h (10 + 24/t + 5 a s / (h t))
//   tensor + sequence parallel     s b h / t (34 + 5 a s / h)
//   selective recompute (+ SP)     34 s b h / t   (without SP: s b h (10 + 24/t))
//   full recompute                 2 s b h        (with SP: 2 s b h / t, the input kept split)
// Exact integers when t divides a and h. Other shapes (GQA, gated FFN, MoE,
// no dropout) follow the same derivation term by term (formulas.cpp has the
// table); heads, kv heads and FFN columns per device round up (the busiest
// device), kv heads are replicated when t exceeds them.
int64_t activation_bytes_per_layer(const Transformer& model, int64_t seq, int64_t b, int32_t t,
                                   bool sequence_parallel, Recompute recompute);

// Per-device bytes of weights, gradients and optimizer state for `params`
// parameters held by one model-parallel rank, sharded over d data-parallel
// ranks by ZeRO stage (with 2-byte weights and gradients and 12 bytes of
// optimizer state: 16P, 4P + 12P/d, 2P + 14P/d, 16P/d). A sharded quantity
// counts ceil(P/d) parameters (the largest shard) when d does not divide P.
struct StateBytes {
  int64_t parameters = 0;
  int64_t gradients = 0;
  int64_t optimizer = 0;
  int64_t total() const { return parameters + gradients + optimizer; }
};
StateBytes state_bytes(int64_t params, int32_t zero, int32_t d, const Training& training);

}  // namespace shardlab::plan
