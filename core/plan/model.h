// The plan lab's inputs and its answer, as plain structs: a decoder-only
// transformer (from a Hugging Face config.json, a bundled preset, or the
// teaching lab's einsum format with a repeated block), a GPU cluster, the
// training settings, and a training plan (the parallelism degrees, ZeRO,
// recomputation, micro-batching, the schedule and the layers of each stage).
// Readers return Status messages in the house format (core/json_doc.h).
// The formulas over these structs (parameter counts, FLOPs, memory) live in
// formulas.h; the search that fills a Plan lives behind plan.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/teach/model.h"

namespace shardlab::plan {

// ---- the model -------------------------------------------------------------

enum class Ffn : uint8_t {
  kGelu,    // two matrices, h -> ffn -> h (GPT, GPT-2)
  kSwiGlu,  // three: gate and up h -> ffn, down ffn -> h (Llama, Mistral, Qwen2, Mixtral)
};
enum class Norm : uint8_t { kLayerNorm, kRmsNorm };  // 2h or h parameters per norm

// A decoder-only transformer: L identical layers between an embedding and
// an output head. Every size is a count of elements, not bytes.
struct Transformer {
  std::string name;        // the preset's name, or the config file's name
  std::string family;      // "gpt" (Megatron's GPT), "gpt2", "llama", "mistral", "qwen2", "mixtral"
  int32_t layers = 0;      // L
  int64_t hidden = 0;      // h
  int32_t heads = 0;       // a
  int32_t kv_heads = 0;    // key/value heads (GQA); equal to heads without GQA
  int64_t head_dim = 0;    // h / a unless the config states it
  int64_t ffn_hidden = 0;  // the FFN's inner size (4h for GPT)
  Ffn ffn = Ffn::kGelu;
  Norm norm = Norm::kLayerNorm;
  bool linear_biases = true;  // biases on every linear layer (GPT); Llama has none
  bool qkv_bias = false;      // biases on q, k and v (Qwen2), when linear_biases is false
  bool out_bias = false;      // bias on attention's output projection (Llama's attention_bias)
  bool mlp_bias = false;      // biases on the FFN's matrices (Llama's mlp_bias)
  // Training stores 1-byte dropout masks (attention probabilities, after the
  // attention and FFN blocks), as Korthikanti et al. count them; Llama-family
  // runs train without dropout, so those masks (and the dropped-out copy of
  // the attention probabilities) are not stored.
  bool dropout = true;
  int64_t vocab = 0;              // V
  int64_t max_positions = 0;      // learned position embeddings (GPT): max_positions x h; 0: rotary
  bool tied_embeddings = false;   // the head reuses the embedding matrix
  bool embedding_norm = false;    // a norm right after the embedding lookup (BLOOM's)
  int32_t experts = 0;            // MoE: experts per layer (0: dense)
  int32_t experts_per_token = 0;  // MoE: top-k
};

// The model as the user gave it: a transformer, or (custom architectures)
// a teaching-lab einsum model whose ops [repeat_first, repeat_last] form
// one layer repeated repeat_times times (the reader of that format is the
// teaching lab's, core/teach/model.h).
struct ModelInput {
  enum class Kind : uint8_t { kTransformer, kEinsum };
  Kind kind = Kind::kTransformer;
  Transformer transformer;
  teach::ModelSpec einsum;
};

// ---- the cluster -------------------------------------------------------------

struct LinkSpec {
  double bandwidth_GBps = 0;  // per GPU, per direction, 1e9 bytes per second
  double latency_us = 0;
};

struct Cluster {
  std::string name;  // the preset's name, or the file's
  int32_t nodes = 1;
  int32_t gpus_per_node = 8;
  std::string gpu_name;    // "A100-80GB", "H100-80GB", "H800", ... (picks default efficiencies)
  double peak_tflops = 0;  // dense 16-bit peak of one GPU
  double memory_GB = 0;    // per GPU, 1e9 bytes
  LinkSpec intra_node;     // NVLink / NVSwitch
  LinkSpec inter_node;     // InfiniBand / RoCE, per GPU
  // Achievable fractions of the peaks, calibrated once per cluster (never
  // per model); a file that states none gets its GPU's defaults.
  double matmul_efficiency = 0;  // of peak_tflops
  double comm_efficiency = 0;    // of both link bandwidths
  int64_t gpus() const { return static_cast<int64_t>(nodes) * gpus_per_node; }
};

// ---- training ----------------------------------------------------------------

struct Training {
  int64_t global_batch = 0;  // sequences per step
  int64_t seq = 2048;        // tokens per sequence
  int32_t dtype_bytes = 2;   // weights, activations and gradients (bf16)
  // Optimizer state per parameter beyond the 16-bit weights and gradients:
  // mixed-precision Adam keeps an fp32 master copy, momentum and variance (12).
  int32_t optimizer_bytes = 12;
};

// ---- the plan ----------------------------------------------------------------

enum class Recompute : uint8_t { kNone, kSelective, kFull };
const char* recompute_name(Recompute r);  // "none", "selective", "full"
bool parse_recompute(std::string_view text, Recompute* out);

struct Plan {
  int32_t tp = 1;   // tensor-parallel size t
  int32_t pp = 1;   // pipeline stages p (devices along the pipeline)
  int32_t dp = 1;   // data-parallel size d
  int32_t ep = 1;   // expert-parallel size (MoE; carved out of the data-parallel ranks)
  int32_t vpp = 1;  // virtual chunks per device v
  bool sequence_parallel = false;  // Megatron's SP (with tp > 1)
  int32_t zero = 0;                // ZeRO stage 0-3 over the data-parallel group
  std::string schedule = "1F1B";   // a name of the pipeline lab's (core/pipeline/generators.h)
  int64_t microbatch_size = 1;     // sequences per micro-batch
  int64_t microbatches = 1;        // per pipeline, per step
  Recompute recompute = Recompute::kNone;
  // The parts' memory-lean layouts (every weight split over the tp group),
  // which the search takes only where the fastest layouts do not fit.
  bool lean_layout = false;
  // Transformer layers of each pipeline stage in model order (pp * vpp
  // entries; the schedule's placement says which device runs stage k:
  // interleaved k mod pp, V-shape k < pp ? k : 2 pp - 1 - k); the embedding
  // rides with the first stage, the head with the last.
  std::vector<int32_t> stage_layers;
  int64_t gpus() const { return static_cast<int64_t>(tp) * pp * dp; }
};

}  // namespace shardlab::plan
