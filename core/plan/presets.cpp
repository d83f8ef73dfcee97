// The bundled models of inputs.h: the GPT family of Narayanan et al.'s weak
// scaling table, GPT-3 175B, Llama 3 8B/70B/405B, Mixtral 8x7B and BLOOM
// 176B, as Transformer structs. Their parameter counts are checked against the
// published totals in tests/unit/plan_presets_test.cpp.
#include <array>

#include "core/plan/inputs.h"
#include "core/plan/suggest.h"

namespace shardlab::plan {
namespace {

// Narayanan et al., SC'21, Table 1 (heads, h, layers; s 2048 and V 51,200 for
// every row), as transcribed in ../shared/reference/plan.md and
// megatron_weak_scaling.csv. Megatron's GPT: learned positions, GeLU FFN of 4h,
// LayerNorm, biases on every linear layer, dropout, the head tied to the
// embedding (Eq. 2 counts V h once).
struct GptRow {
  const char* name;
  int32_t heads;
  int64_t hidden;
  int32_t layers;
};
constexpr std::array<GptRow, 10> kGptRows = {{
    {"gpt-1.7b", 24, 2304, 24},
    {"gpt-3.6b", 32, 3072, 30},
    {"gpt-7.5b", 32, 4096, 36},
    {"gpt-18.4b", 48, 6144, 40},
    {"gpt-39.1b", 64, 8192, 48},
    {"gpt-76.1b", 80, 10240, 60},
    {"gpt-145.6b", 96, 12288, 80},
    {"gpt-310.1b", 128, 16384, 96},
    {"gpt-529.6b", 128, 20480, 105},
    {"gpt-1t", 160, 25600, 128},
}};

Transformer megatron_gpt(const char* name, int32_t heads, int64_t hidden, int32_t layers) {
  Transformer m;
  m.name = name;
  m.family = "gpt";
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.kv_heads = heads;
  m.head_dim = hidden / heads;
  m.ffn_hidden = 4 * hidden;
  m.ffn = Ffn::kGelu;
  m.norm = Norm::kLayerNorm;
  m.linear_biases = true;
  m.vocab = 51200;
  m.max_positions = 2048;
  m.tied_embeddings = true;
  m.dropout = true;
  return m;
}

// Llama 3 (Meta's config.json for Meta-Llama-3-8B and -70B, and Llama 3.1
// 405B; also torchtitan's llama3 model args: 405B dim 16384, 126 layers, 128
// heads, 8 kv heads, ffn_dim_multiplier 1.2 and multiple_of 4096, which give
// 53,248): GQA with 8 kv heads of 128, SwiGLU, RMSNorm, rotary positions, no
// biases, untied head, vocabulary 128,256, no dropout.
Transformer llama3(const char* name, int64_t hidden, int32_t layers, int32_t heads, int64_t ffn) {
  Transformer m;
  m.name = name;
  m.family = "llama";
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.kv_heads = 8;
  m.head_dim = hidden / heads;
  m.ffn_hidden = ffn;
  m.ffn = Ffn::kSwiGlu;
  m.norm = Norm::kRmsNorm;
  m.linear_biases = false;
  m.vocab = 128256;
  m.max_positions = 0;
  m.tied_embeddings = false;
  m.dropout = false;
  return m;
}

std::vector<Transformer> all_presets() {
  std::vector<Transformer> out;
  for (const GptRow& row : kGptRows) {
    out.push_back(megatron_gpt(row.name, row.heads, row.hidden, row.layers));
  }
  // GPT-3 175B (Brown et al., 2020, Table 2.1: 96 layers, d_model 12,288, 96
  // heads, context 2,048). Its BPE vocabulary of 50,257 is padded by Megatron
  // (--make-vocab-size-divisible-by 128, times t = 8) to 51,200, the V that
  // Narayanan et al. use for every row; we take the padded size, as the run
  // that trains it does.
  out.push_back(megatron_gpt("gpt3-175b", 96, 12288, 96));
  out.push_back(llama3("llama3-8b", 4096, 32, 32, 14336));
  out.push_back(llama3("llama3-70b", 8192, 80, 64, 28672));
  out.push_back(llama3("llama3-405b", 16384, 126, 128, 53248));
  // Mixtral 8x7B (mistralai/Mixtral-8x7B-v0.1 config.json): Mistral 7B's
  // attention with 8 experts of SwiGLU 14,336 per layer, 2 per token, a
  // router without bias, vocabulary 32,000, untied, no dropout.
  Transformer mixtral = llama3("mixtral-8x7b", 4096, 32, 32, 14336);
  mixtral.family = "mixtral";
  mixtral.vocab = 32000;
  mixtral.experts = 8;
  mixtral.experts_per_token = 2;
  out.push_back(mixtral);
  // BLOOM 176B (BigScience tr11-176B-ml; its training script and README in
  // bigscience-workshop/bigscience, train/tr11-176B-ml/): 70 layers, h 14,336,
  // 112 heads, sequence 2,048, Megatron's GPT layer (GeLU FFN of 4h,
  // LayerNorm, biases, dropout 0.1 as Megatron's defaults) with ALiBi instead
  // of learned positions (no position table), the head tied to the embedding
  // and the vocabulary padded to 250,880 (--pad-vocab-size-to), and a
  // LayerNorm right after the embedding (--embed-layernorm: 2h parameters,
  // one LayerNorm on the first stage). Published: 176,247,271,424 parameters,
  // exactly this struct's count.
  Transformer bloom = megatron_gpt("bloom-176b", 112, 14336, 70);
  bloom.family = "bloom";
  bloom.embedding_norm = true;
  bloom.vocab = 250880;
  bloom.max_positions = 0;
  out.push_back(bloom);
  return out;
}

}  // namespace

std::vector<std::string> model_preset_names() {
  std::vector<std::string> names;
  for (const Transformer& m : all_presets()) names.push_back(m.name);
  return names;
}

Result<Transformer> model_preset(std::string_view name) {
  for (Transformer& m : all_presets()) {
    if (detail::lower(name) == m.name) return std::move(m);
  }
  return Status(StatusCode::kInvalidArgument,
                "model preset: " + detail::expected_one_of(model_preset_names(), name));
}

}  // namespace shardlab::plan
