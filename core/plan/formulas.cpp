// The closed forms of formulas.h: parameter counts, FLOPs, activation bytes
// per layer and per-device weight/gradient/optimizer bytes under ZeRO. All
// counts are exact integers (FLOPs in __int128, converted to double once at
// the end), so that for the GPT shape they equal the published formulas
// exactly, not within rounding.
#include "core/plan/formulas.h"

#include <algorithm>

namespace shardlab::plan {
namespace {

using i128 = __int128;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The sizes every formula below is written in: q is the width of the queries
// (a * head_dim, h for GPT), kv that of the keys and of the values (kv_heads *
// head_dim; q without GQA), f the FFN's inner size and m its number of h x f
// matrices (2 with GeLU, 3 with a gated FFN).
struct Shape {
  int64_t h = 0, q = 0, kv = 0, f = 0, m = 2, heads = 1, kv_heads = 1, head_dim = 0;
  int64_t experts = 0, top_k = 0;
};

Shape shape_of(const Transformer& model) {
  Shape s;
  s.h = model.hidden;
  s.heads = std::max<int64_t>(1, model.heads);
  s.kv_heads = model.kv_heads > 0 ? model.kv_heads : s.heads;
  s.head_dim = model.head_dim > 0 ? model.head_dim : s.h / s.heads;
  s.q = s.heads * s.head_dim;
  s.kv = s.kv_heads * s.head_dim;
  s.f = model.ffn_hidden;
  s.m = model.ffn == Ffn::kSwiGlu ? 3 : 2;
  s.experts = model.experts;
  s.top_k = model.experts > 0 ? std::max(1, model.experts_per_token) : 0;
  return s;
}

// Weights of the matrices one token multiplies in one layer (what FLOPs
// count): the four attention projections, the FFN (top-k experts and the
// router for MoE). Biases and norms are elementwise and not counted, as in
// Narayanan et al.
int64_t matmul_weights_per_token(const Shape& s) {
  const int64_t attention = s.h * s.q + 2 * s.h * s.kv + s.q * s.h;
  const int64_t ffn = s.m * s.h * s.f;
  if (s.experts == 0) return attention + ffn;
  return attention + s.top_k * ffn + s.h * s.experts;
}

// Forward FLOPs of one layer over b sequences of `seq` tokens: 2 FLOPs per
// multiply-add of every weight for every token, plus the two s x s products
// of attention (Q K^T and the probabilities times V: 2 s^2 q each per
// sequence, counted whole, without the causal mask's saving, as the papers do).
i128 layer_forward(const Shape& s, int64_t b, int64_t seq) {
  return i128(2) * b * seq * matmul_weights_per_token(s) + i128(4) * b * seq * seq * s.q;
}

// What selective recomputation repeats: the attention core's forward (the
// two s x s products; the softmax and dropout are elementwise and uncounted).
i128 attention_core_forward(const Shape& s, int64_t b, int64_t seq) {
  return i128(4) * b * seq * seq * s.q;
}

i128 model_flops_exact(const Transformer& model, int64_t sequences, int64_t seq) {
  const Shape s = shape_of(model);
  const i128 logits = i128(2) * sequences * seq * s.h * model.vocab;
  // Backward costs twice the forward (input and weight gradients).
  return 3 * (i128(model.layers) * layer_forward(s, sequences, seq) + logits);
}

}  // namespace

// ---- parameters --------------------------------------------------------------
// Per layer, with the sizes of Shape (GPT: q = kv = h, f = 4h, m = 2):
//   attention  h q + 2 h kv + q h          (GPT 4h^2)  + biases q + 2kv + h (4h)
//   FFN        m h f per expert            (GPT 8h^2)  + biases (m-1) f + h (5h)
//   router     h E (MoE only, no bias)
//   two norms  2 x 2h (LayerNorm: gain and bias) or 2 x h (RMSNorm)
// GPT: 12h^2 + 13h. Embedding V h (+ s h learned positions), head V h unless
// tied, and the final norm: L (12h^2 + 13h) + (V + s) h is Narayanan et al.'s
// Eq. 2; the final LayerNorm's 2h, which Eq. 2 leaves out, comes on top (and
// BLOOM's LayerNorm after the embedding, another 2h).
namespace {

// The count in arithmetic T (formulas.h ParameterCountsIn).
template <typename T>
ParameterCountsIn<T> count_parameters(const Transformer& model) {
  const Shape shape = shape_of(model);
  const auto t = [](int64_t v) { return static_cast<T>(v); };
  const T h = t(shape.h), q = t(shape.q), kv = t(shape.kv), f = t(shape.f), m = t(shape.m);
  const T norm = model.norm == Norm::kLayerNorm ? 2 * h : h;
  const bool all = model.linear_biases;
  T attention = h * q + 2 * h * kv + q * h;
  if (all || model.qkv_bias) attention += q + 2 * kv;
  if (all || model.out_bias) attention += h;
  T ffn_one = m * h * f;
  if (all || model.mlp_bias) ffn_one += (m - 1) * f + h;

  ParameterCountsIn<T> c;
  const T shared = attention + 2 * norm;
  if (shape.experts > 0) {
    const T router = h * t(shape.experts);
    c.expert_per_layer = t(shape.experts) * ffn_one;
    c.per_layer = shared + router + c.expert_per_layer;
    c.per_layer_active = shared + router + t(shape.top_k) * ffn_one;
  } else {
    c.per_layer = shared + ffn_one;
    c.per_layer_active = c.per_layer;
  }
  const T vocab = t(model.vocab);
  c.embedding = vocab * h + t(model.max_positions) * h + (model.embedding_norm ? norm : 0);
  c.head = (model.tied_embeddings ? 0 : vocab * h) + norm;
  c.total = t(model.layers) * c.per_layer + c.embedding + c.head;
  return c;
}

}  // namespace

ParameterCounts parameter_counts(const Transformer& model) {
  return count_parameters<int64_t>(model);
}

double parameter_estimate(const Transformer& model) {
  return count_parameters<double>(model).total;
}

// ---- FLOPs -------------------------------------------------------------------
// Per sequence, forward: L (2 s W + 4 s^2 q) + 2 s h V, with W the matmul
// weights one token uses (GPT: 12h^2). Fwd + bwd = 3x: for GPT
//   3 B [L (24 s h^2 + 4 s^2 h) + 2 s h V] = 72 B L s h^2 (1 + s/(6h) + V/(12 h L)),
// Korthikanti et al.'s model FLOPs. Full recomputation runs every layer's
// forward once more (the logits are not recomputed):
//   + B L (24 s h^2 + 4 s^2 h)  ->  96 B s L h^2 (1 + s/(6h) + V/(16 L h)),
// Narayanan et al.'s Eq. 3. Selective recomputation repeats only the
// attention core's forward: + 4 B L s^2 q.
double model_flops(const Transformer& model, int64_t sequences, int64_t seq) {
  return static_cast<double>(model_flops_exact(model, sequences, seq));
}

double hardware_flops(const Transformer& model, int64_t sequences, int64_t seq,
                      Recompute recompute) {
  const Shape s = shape_of(model);
  i128 flops = model_flops_exact(model, sequences, seq);
  if (recompute == Recompute::kFull) {
    flops += i128(model.layers) * layer_forward(s, sequences, seq);
  } else if (recompute == Recompute::kSelective) {
    flops += i128(model.layers) * attention_core_forward(s, sequences, seq);
  }
  return static_cast<double>(flops);
}

double layer_forward_flops(const Transformer& model, int64_t b, int64_t seq) {
  return static_cast<double>(layer_forward(shape_of(model), b, seq));
}

// ---- activations ---------------------------------------------------------------
// Korthikanti et al. (Section 4.1) count, per token of one layer, the bytes
// each operation keeps for its backward (16-bit values, 1-byte dropout
// masks). The same derivation for any shape, per token:
//
//   term                               GPT (q=kv=h, f=4h)   general           split by t
//   LayerNorm inputs (2 norms)         4h                   4h                no (SP: yes)
//   QKV projection input               2h                   2h                no (SP: yes)
//   Q and K (for Q K^T)                4h                   2q + 2kv          yes
//   softmax output                     2as                  2as               yes
//   its dropout mask and output        3as                  3as if dropout    yes
//   V (for probabilities x V)          2h                   2kv               yes
//   output projection input            2h                   2q                yes
//   dropout masks (attention, FFN)     2h                   2h if dropout     no (SP: yes)
//   FFN input (router input for MoE)   2h                   2h                no (SP: yes)
//   MoE: the k routed copies           -                    2hk               no (SP: yes)
//   GeLU input and output              16h                  4f (x k for MoE)  yes
//   gated FFN: gate, up, act(gate),    -                    8f (x k for MoE)  yes
//     product (each input kept)
//
// GPT sums to 34h + 5as = sbh (34 + 5as/h) per layer; with tensor parallelism
// t the split terms divide by t (heads per device ceil(a/t), kv heads
// ceil(kv_heads/t) -- replicated when t exceeds them -- FFN columns
// ceil(f/t)): sbh (10 + 24/t + 5as/(ht)); sequence parallelism also splits
// the rest: sbh/t (34 + 5as/h). Selective recomputation drops the s x s
// terms (34 sbh/t with SP, sbh (10 + 24/t) without). Full recomputation keeps
// only each layer's input: 2sbh (sequence-parallel runs keep it split: 2sbh/t).
// Fused kernels (flash attention, Megatron's fused SwiGLU) store less; this is
// the unfused count the papers give.
int64_t activation_bytes_per_layer(const Transformer& model, int64_t seq, int64_t b, int32_t t,
                                   bool sequence_parallel, Recompute recompute) {
  const Shape s = shape_of(model);
  const int64_t tp = std::max<int32_t>(1, t);
  const int64_t tokens = seq * b;
  if (recompute == Recompute::kFull) {
    const int64_t input = 2 * tokens * s.h;
    return sequence_parallel ? ceil_div(input, tp) : input;
  }
  const int64_t k = s.experts > 0 ? s.top_k : 1;
  int64_t replicated = 10 * s.h;  // norms 4h, QKV input 2h, FFN input 2h, masks 2h
  if (!model.dropout) replicated -= 2 * s.h;
  if (s.experts > 0) replicated += 2 * s.h * k;

  const int64_t q_dev = ceil_div(s.heads, tp) * s.head_dim;
  const int64_t kv_dev = ceil_div(s.kv_heads, tp) * s.head_dim;
  const int64_t f_dev = ceil_div(s.f, tp);
  const int64_t ffn_dev = (model.ffn == Ffn::kSwiGlu ? 8 : 4) * f_dev * k;
  const int64_t split = 4 * q_dev + 4 * kv_dev + ffn_dev;

  int64_t bytes = tokens * split;
  bytes += sequence_parallel ? ceil_div(tokens * replicated, tp) : tokens * replicated;
  if (recompute == Recompute::kNone) {
    const int64_t per_score = model.dropout ? 5 : 2;
    bytes += per_score * ceil_div(s.heads, tp) * seq * tokens;
  }
  return bytes;
}

// ---- optimizer state (ZeRO) ----------------------------------------------------
// Rajbhandari et al.: with w-byte weights, g-byte gradients and o bytes of
// optimizer state per parameter (2, 2, 12 for mixed-precision Adam),
// stage 0 keeps (w + g + o) P, stage 1 shards the optimizer state (w + g) P +
// o P/d, stage 2 the gradients too w P + (g + o) P/d, stage 3 everything
// (w + g + o) P/d. When d does not divide P the largest shard holds ceil(P/d)
// parameters, and that is what one device must fit.
StateBytes state_bytes(int64_t params, int32_t zero, int32_t d, const Training& training) {
  const int64_t ranks = std::max<int32_t>(1, d);
  const int64_t shard = ceil_div(params, ranks);
  const int64_t w = training.dtype_bytes;
  const int64_t g = training.dtype_bytes;
  const int64_t o = training.optimizer_bytes;
  StateBytes out;
  out.parameters = (zero >= 3 ? shard : params) * w;
  out.gradients = (zero >= 2 ? shard : params) * g;
  out.optimizer = (zero >= 1 ? shard : params) * o;
  return out;
}

}  // namespace shardlab::plan
