// The model files of inputs.h: a Hugging Face config.json of the decoder
// families gpt2, llama, mistral, qwen2 and mixtral becomes a Transformer, and
// read_model_input tells that form from the teaching lab's einsum model.
// Field names and defaults follow transformers' GPT2Config, LlamaConfig,
// MistralConfig, Qwen2Config and MixtralConfig.
#include <algorithm>
#include <array>
#include <cstdio>

#include "core/json_doc.h"
#include "core/plan/formulas.h"
#include "core/plan/inputs.h"
#include "core/teach/model.h"

namespace shardlab::plan {
namespace {

using json::Errors;
using json::JsonAt;
using json::Kind;

constexpr int64_t kMaxHidden = int64_t{1} << 20;
constexpr int64_t kMaxFfn = int64_t{1} << 24;
constexpr int64_t kMaxVocab = int64_t{1} << 24;
constexpr int64_t kMaxLayers = 100000;
constexpr int64_t kMaxHeads = 65536;
constexpr int64_t kMaxExperts = 4096;
constexpr int64_t kMaxPositions = int64_t{1} << 24;

const std::array<const char*, 5> kModelTypes = {"gpt2", "llama", "mistral", "qwen2", "mixtral"};

// Optional keys may also be written as null (GPT-2's "n_inner": null means
// 4h; newer Llama configs write "head_dim" explicitly, older ones omit it).
bool given(const JsonAt& at) { return at.exists() && !at.is(Kind::kNull); }

// Each field has its range, but their products do not: 100,000 layers of
// hidden size 2^20 make about 10^18 parameters, whose bytes wrap int64 in
// the memory model and would read as a plan that fits in 0 GB. The
// parameter count is bounded here, in floating point (parameter_estimate),
// before any exact count is formed (formulas.h): 10^15 is over 2,000 times Llama 3's 405B,
// and 16 bytes of mixed-precision state for each stay far below 2^63.
constexpr double kMaxParameters = 1e15;

Status check_size(const JsonAt& layers_at, const Transformer& m, const char* hidden_key) {
  const double total = parameter_estimate(m);
  if (total <= kMaxParameters) return Status::ok();
  char found[160];
  std::snprintf(found, sizeof found, "about %.3g parameters (%d layers of %s %lld)", total,
                m.layers, hidden_key, static_cast<long long>(m.hidden));
  return layers_at.error("a model of at most 10^15 parameters", found);
}

std::string file_stem(const std::string& source) {
  const size_t slash = source.find_last_of("/\\");
  std::string name = slash == std::string::npos ? source : source.substr(slash + 1);
  const size_t dot = name.rfind('.');
  if (dot != std::string::npos && dot > 0) name.resize(dot);
  return name;
}

// GPT-2 (GPT2Config): learned positions (n_positions), GeLU FFN of n_inner
// (null: 4h), LayerNorm, biases everywhere, head tied unless the config says
// otherwise, dropout unless every probability is 0.
Result<Transformer> read_gpt2(const JsonAt& root, Transformer m) {
  Errors errors;
  m.hidden = errors.take(root["n_embd"].integer(1, kMaxHidden));
  m.layers = static_cast<int32_t>(errors.take(root["n_layer"].integer(1, kMaxLayers)));
  const JsonAt heads = root["n_head"];
  m.heads = static_cast<int32_t>(errors.take(heads.integer(1, kMaxHeads)));
  if (errors.ok() && m.hidden % m.heads != 0) {
    return heads.error("a divisor of n_embd (" + std::to_string(m.hidden) + ")");
  }
  m.ffn_hidden = 4 * m.hidden;
  if (given(root["n_inner"])) m.ffn_hidden = errors.take(root["n_inner"].integer(1, kMaxFfn));
  m.vocab = errors.take(root["vocab_size"].integer(1, kMaxVocab));
  m.max_positions = errors.take(root.integer_or("n_positions", 1024, 1, kMaxPositions));
  errors.take(root.string_or("activation_function", "gelu_new"));
  m.tied_embeddings = errors.take(root.boolean_or("tie_word_embeddings", true));
  const double attn_pdrop = errors.take(root.number_or("attn_pdrop", 0.1, 0, 1));
  const double resid_pdrop = errors.take(root.number_or("resid_pdrop", 0.1, 0, 1));
  if (!errors.ok()) return errors.status();
  m.kv_heads = m.heads;
  m.head_dim = m.hidden / m.heads;
  m.ffn = Ffn::kGelu;
  m.norm = Norm::kLayerNorm;
  m.linear_biases = true;
  m.dropout = attn_pdrop > 0 || resid_pdrop > 0;
  Status size = check_size(root["n_layer"], m, "n_embd");
  if (!size.is_ok()) return size;
  return m;
}

// Llama, Mistral, Qwen2 and Mixtral: a gated FFN (gate, up and down
// matrices, whatever hidden_act is: silu gives SwiGLU), RMSNorm, rotary
// positions (max_position_embeddings is a context length, not a table),
// GQA with num_key_value_heads (default: as many as the query heads), no
// biases but Qwen2's on q, k and v and Llama's optional attention_bias and
// mlp_bias. Mistral's sliding window is read as full attention (an upper
// bound on its s^2 terms).
Result<Transformer> read_llama_like(const JsonAt& root, Transformer m) {
  Errors errors;
  const JsonAt hidden = root["hidden_size"];
  m.hidden = errors.take(hidden.integer(1, kMaxHidden));
  m.ffn_hidden = errors.take(root["intermediate_size"].integer(1, kMaxFfn));
  m.layers = static_cast<int32_t>(errors.take(root["num_hidden_layers"].integer(1, kMaxLayers)));
  const JsonAt heads = root["num_attention_heads"];
  m.heads = static_cast<int32_t>(errors.take(heads.integer(1, kMaxHeads)));
  if (!errors.ok()) return errors.status();
  const JsonAt kv = root["num_key_value_heads"];
  m.kv_heads = m.heads;
  if (given(kv)) {
    m.kv_heads = static_cast<int32_t>(errors.take(kv.integer(1, m.heads)));
    if (errors.ok() && m.heads % m.kv_heads != 0) {
      return kv.error("a divisor of num_attention_heads (" + std::to_string(m.heads) + ")");
    }
  }
  const JsonAt head_dim = root["head_dim"];
  if (given(head_dim)) {
    m.head_dim = errors.take(head_dim.integer(1, kMaxHidden));
  } else if (errors.ok() && m.hidden % m.heads != 0) {
    return heads.error("a divisor of hidden_size (" + std::to_string(m.hidden) + ")");
  } else {
    m.head_dim = m.hidden / std::max(1, m.heads);
  }
  m.vocab = errors.take(root["vocab_size"].integer(1, kMaxVocab));
  if (given(root["max_position_embeddings"])) {
    errors.take(root["max_position_embeddings"].integer(1, kMaxPositions));
  }
  m.tied_embeddings = errors.take(root.boolean_or("tie_word_embeddings", false));
  errors.take(root.string_or("hidden_act", "silu"));
  const double attention_dropout = errors.take(root.number_or("attention_dropout", 0, 0, 1));
  const bool attention_bias = errors.take(root.boolean_or("attention_bias", false));
  m.mlp_bias = errors.take(root.boolean_or("mlp_bias", false));
  if (m.family == "mixtral") {
    m.experts =
        static_cast<int32_t>(errors.take(root["num_local_experts"].integer(1, kMaxExperts)));
    if (errors.ok()) {
      m.experts_per_token =
          static_cast<int32_t>(errors.take(root["num_experts_per_tok"].integer(1, m.experts)));
    }
  }
  if (!errors.ok()) return errors.status();
  m.ffn = Ffn::kSwiGlu;
  m.norm = Norm::kRmsNorm;
  m.linear_biases = false;
  m.qkv_bias = m.family == "qwen2" || attention_bias;
  m.out_bias = m.family != "qwen2" && attention_bias;
  m.max_positions = 0;
  m.dropout = attention_dropout > 0;
  Status size = check_size(root["num_hidden_layers"], m, "hidden_size");
  if (!size.is_ok()) return size;
  return m;
}

}  // namespace

Result<Transformer> read_hf_config(const std::string& source, std::string_view text) {
  Result<json::Document> doc = json::Document::parse(source, text);
  if (!doc.is_ok()) return doc.status();
  const JsonAt root = doc.value().root();
  Status object = root.expect(Kind::kObject);
  if (!object.is_ok()) return object;
  const JsonAt type_at = root["model_type"];
  Result<std::string> type = type_at.string();
  if (!type.is_ok()) return type.status();
  const auto known = std::find(kModelTypes.begin(), kModelTypes.end(), type.value());
  if (known == kModelTypes.end()) {
    std::string list;
    for (const char* name : kModelTypes) list += std::string(list.empty() ? "" : ", ") + name;
    return type_at.error("one of " + list, "\"" + type.value() + "\"");
  }
  Transformer m;
  m.name = file_stem(source);
  m.family = type.value();
  return m.family == "gpt2" ? read_gpt2(root, std::move(m)) : read_llama_like(root, std::move(m));
}

Result<ModelInput> read_model_input(const std::string& source, std::string_view text) {
  Result<json::Document> doc = json::Document::parse(source, text);
  if (!doc.is_ok()) return doc.status();
  const JsonAt root = doc.value().root();
  const std::string expected =
      "a Hugging Face config.json (with the key \"model_type\") or an einsum model (with the key "
      "\"ops\")";
  if (!root.is(Kind::kObject)) return root.error(expected);
  ModelInput input;
  if (root.has("model_type")) {
    Result<Transformer> model = read_hf_config(source, text);
    if (!model.is_ok()) return model.status();
    input.kind = ModelInput::Kind::kTransformer;
    input.transformer = std::move(model).value();
    return input;
  }
  if (root.has("ops")) {
    // The einsum form's repeated block ("repeat") is the teaching lab's
    // syntax, read by its reader as the teach-cost work adds it.
    Result<teach::ModelSpec> model = teach::read_model(source, text);
    if (!model.is_ok()) return model.status();
    input.kind = ModelInput::Kind::kEinsum;
    input.einsum = std::move(model).value();
    return input;
  }
  return root.error(expected, "an object with neither");
}

}  // namespace shardlab::plan
