// The Hugging Face config.json reader and read_model_input: every sample
// config in examples/plan/models/ (written from the published config.json
// of openai-community/gpt2, meta-llama/Meta-Llama-3-8B and -70B,
// mistralai/Mistral-7B-v0.1, Qwen/Qwen2-7B and Qwen2-0.5B,
// mistralai/Mixtral-8x7B-v0.1) gives its model's published parameter count,
// and every kind of mistake gives its exact positioned message.
#include <doctest/doctest.h>

#include <string>

#include "core/plan/formulas.h"
#include "core/plan/inputs.h"
#include "helpers.h"

namespace shardlab::plan {
namespace {

Transformer sample(const std::string& file) {
  const std::string text = test::read_bytes(test::source_path("examples/plan/models/" + file));
  Result<Transformer> m = read_hf_config(file, text);
  REQUIRE_MESSAGE(m.is_ok(), m.status().message());
  return m.value();
}

std::string error_of(const std::string& text) {
  const Result<Transformer> m = read_hf_config("config.json", text);
  REQUIRE_FALSE(m.is_ok());
  CHECK(m.status().code() == StatusCode::kInvalidInput);
  return m.status().message();
}

TEST_CASE("plan hf config: the sample of every family, with its published size") {
  const Transformer gpt2 = sample("gpt2.json");
  CHECK(gpt2.name == "gpt2");
  CHECK(gpt2.family == "gpt2");
  CHECK(gpt2.hidden == 768);
  CHECK(gpt2.ffn_hidden == 4 * 768);  // "n_inner": null
  CHECK(gpt2.max_positions == 1024);
  CHECK(gpt2.tied_embeddings);
  CHECK(gpt2.dropout);
  CHECK(gpt2.ffn == Ffn::kGelu);
  CHECK(gpt2.norm == Norm::kLayerNorm);
  CHECK(parameter_counts(gpt2).total == 124439808);

  const Transformer llama = sample("llama3-8b.json");
  CHECK(llama.family == "llama");
  CHECK(llama.kv_heads == 8);
  CHECK(llama.head_dim == 128);
  CHECK(llama.max_positions == 0);
  CHECK_FALSE(llama.dropout);
  CHECK(parameter_counts(llama).total == 8030261248);
  // The same model as the preset, field by field.
  Transformer preset = model_preset("llama3-8b").value();
  preset.name = llama.name;
  CHECK(llama.layers == preset.layers);
  CHECK(llama.ffn_hidden == preset.ffn_hidden);
  CHECK(llama.vocab == preset.vocab);
  CHECK(llama.ffn == preset.ffn);
  CHECK(llama.norm == preset.norm);
  CHECK(llama.linear_biases == preset.linear_biases);
  CHECK(llama.tied_embeddings == preset.tied_embeddings);
  CHECK(parameter_counts(sample("llama3-70b.json")).total == 70553706496);

  const Transformer mistral = sample("mistral-7b.json");
  CHECK(mistral.family == "mistral");
  CHECK(parameter_counts(mistral).total == 7241732096);

  const Transformer qwen = sample("qwen2-7b.json");
  CHECK(qwen.qkv_bias);
  CHECK_FALSE(qwen.out_bias);
  CHECK(qwen.kv_heads == 4);
  CHECK(parameter_counts(qwen).total == 7615616512);
  const Transformer qwen_small = sample("qwen2-0.5b.json");
  CHECK(qwen_small.tied_embeddings);
  CHECK(parameter_counts(qwen_small).total == 494032768);

  const Transformer mixtral = sample("mixtral-8x7b.json");
  CHECK(mixtral.experts == 8);
  CHECK(mixtral.experts_per_token == 2);
  CHECK(parameter_counts(mixtral).total == 46702792704);
}

TEST_CASE("plan hf config: head_dim, attention_bias and null optionals") {
  // Mistral-Nemo's shape: head_dim 128 with 32 heads on h 5120, so the heads
  // need not divide h; attention_bias puts biases on q, k, v and o.
  const Result<Transformer> nemo = read_hf_config("nemo.json", R"({
  "model_type": "mistral", "hidden_size": 5120, "intermediate_size": 14336,
  "num_hidden_layers": 40, "num_attention_heads": 32, "num_key_value_heads": 8,
  "head_dim": 128, "vocab_size": 131072, "attention_bias": true, "attention_dropout": 0.1
})");
  REQUIRE_MESSAGE(nemo.is_ok(), nemo.status().message());
  CHECK(nemo.value().head_dim == 128);
  CHECK(nemo.value().qkv_bias);
  CHECK(nemo.value().out_bias);
  CHECK(nemo.value().dropout);
  const ParameterCounts p = parameter_counts(nemo.value());
  const int64_t attention = 5120LL * 4096 * 2 + 2LL * 5120 * 1024 + (4096 + 2 * 1024) + 5120;
  CHECK(p.per_layer == attention + 3LL * 5120 * 14336 + 2 * 5120);

  const Result<Transformer> no_kv = read_hf_config("old.json", R"({
  "model_type": "llama", "hidden_size": 4096, "intermediate_size": 11008,
  "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": null,
  "head_dim": null, "vocab_size": 32000
})");
  REQUIRE_MESSAGE(no_kv.is_ok(), no_kv.status().message());
  CHECK(no_kv.value().kv_heads == 32);
  CHECK(no_kv.value().head_dim == 128);
  CHECK(parameter_counts(no_kv.value()).total == 6738415616);  // Llama 2 7B
}

const char* kLlama = R"({
  "model_type": "llama",
  "hidden_size": 4096,
  "intermediate_size": 14336,
  "num_hidden_layers": 32,
  "num_attention_heads": 32,
  "num_key_value_heads": 8,
  "vocab_size": 128256
})";

std::string edited(const std::string& from, const std::string& to) {
  std::string text = kLlama;
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

TEST_CASE("plan hf config: exact messages for bad configs") {
  REQUIRE(read_hf_config("config.json", kLlama).is_ok());
  CHECK(error_of(edited("4096", "\"4096\"")) ==
        "config.json:3:18 (byte 44): at hidden_size: expected an integer, found the string "
        "\"4096\"");
  CHECK(error_of(edited("  \"hidden_size\": 4096,\n", "")) ==
        "config.json:8:1 (byte 164): expected the key \"hidden_size\", found '}'");
  CHECK(error_of(edited("\"llama\"", "\"bert\"")) ==
        "config.json:2:17 (byte 18): at model_type: expected one of gpt2, llama, mistral, qwen2, "
        "mixtral, found \"bert\"");
  CHECK(error_of(edited("\"num_attention_heads\": 32", "\"num_attention_heads\": 48")) ==
        "config.json:6:26 (byte 132): at num_attention_heads: expected a divisor of hidden_size "
        "(4096), found the number 48");
  CHECK(error_of(edited("\"num_key_value_heads\": 8", "\"num_key_value_heads\": 12")) ==
        "config.json:7:26 (byte 161): at num_key_value_heads: expected a divisor of "
        "num_attention_heads (32), found the number 12");
  CHECK(error_of(edited("128256\n", "128256,\n")) ==
        "config.json:9:1 (byte 188): expected a key string, found '}'");
  CHECK(error_of(edited("\"vocab_size\": 128256", "\"vocab_size\": 0")) ==
        "config.json:8:17 (byte 180): at vocab_size: expected an integer from 1 to 16777216, "
        "found the number 0");
  CHECK(error_of(edited("\"model_type\": \"llama\"", "\"model_type\": 7")) ==
        "config.json:2:17 (byte 18): at model_type: expected a string, found the number 7");
  CHECK(error_of(edited("  \"model_type\": \"llama\",\n", "")) ==
        "config.json:8:1 (byte 162): expected the key \"model_type\", found '}'");
  CHECK(error_of("[1]") ==
        "config.json:1:1 (byte 0): expected an object, found an array of 1 item");
  CHECK(error_of("") ==
        "config.json:1:1 (byte 0): expected a value, found end of input (the file is empty)");

  // Mixtral needs its experts, at most as many per token as there are.
  const std::string mixtral = edited("\"llama\"", "\"mixtral\"");
  CHECK(error_of(mixtral) ==
        "config.json:9:1 (byte 189): expected the key \"num_local_experts\", found '}'");
  std::string too_many = mixtral;
  too_many.insert(too_many.rfind('}'), ", \"num_local_experts\": 8, \"num_experts_per_tok\": 9\n");
  CHECK(error_of(too_many) ==
        "config.json:9:50 (byte 238): at num_experts_per_tok: expected an integer from 1 to 8, "
        "found the number 9");

  // GPT-2's keys.
  CHECK(error_of(R"({"model_type": "gpt2", "n_embd": 768, "n_layer": 12, "n_head": 10,
 "vocab_size": 50257})") ==
        "config.json:1:64 (byte 63): at n_head: expected a divisor of n_embd (768), found the "
        "number 10");
  // Every field in range, their product not: 10^18 parameters would wrap
  // the memory model's int64 bytes into a plan that "fits" in 0 GB.
  CHECK(error_of(R"({"model_type": "gpt2", "n_embd": 1048576, "n_layer": 100000, "n_head": 16,
 "vocab_size": 50257})") ==
        "config.json:1:54 (byte 53): at n_layer: expected a model of at most 10^15 parameters, "
        "found about 1.32e+18 parameters (100000 layers of n_embd 1048576)");
  REQUIRE(read_hf_config("config.json", R"({"model_type": "gpt2", "n_embd": 16384,
 "n_layer": 1000, "n_head": 128, "vocab_size": 50257})")
              .is_ok());
  CHECK(error_of(R"({"model_type": "gpt2", "n_embd": 768, "n_layer": 12, "n_head": 12,
 "vocab_size": 50257, "tie_word_embeddings": "yes"})") ==
        "config.json:2:46 (byte 112): at tie_word_embeddings: expected true or false, found the "
        "string \"yes\"");
}

TEST_CASE("plan model input: a config, an einsum model, or neither") {
  const Result<ModelInput> hf = read_model_input("config.json", kLlama);
  REQUIRE_MESSAGE(hf.is_ok(), hf.status().message());
  CHECK(hf.value().kind == ModelInput::Kind::kTransformer);
  CHECK(hf.value().transformer.hidden == 4096);

  const std::string mlp = test::read_bytes(test::source_path("examples/teach/mlp.json"));
  const Result<ModelInput> einsum = read_model_input("mlp.json", mlp);
  REQUIRE_MESSAGE(einsum.is_ok(), einsum.status().message());
  CHECK(einsum.value().kind == ModelInput::Kind::kEinsum);
  CHECK_FALSE(einsum.value().einsum.ops.empty());

  const Result<ModelInput> neither = read_model_input("x.json", "{\n  \"layers\": 3\n}\n");
  REQUIRE_FALSE(neither.is_ok());
  CHECK(neither.status().message() ==
        "x.json:1:1 (byte 0): expected a Hugging Face config.json (with the key \"model_type\") "
        "or an einsum model (with the key \"ops\"), found an object with neither");
  const Result<ModelInput> array = read_model_input("x.json", "[]");
  REQUIRE_FALSE(array.is_ok());
  CHECK(array.status().message() ==
        "x.json:1:1 (byte 0): expected a Hugging Face config.json (with the key \"model_type\") "
        "or an einsum model (with the key \"ops\"), found an array of 0 items");
  // The config's own errors come through.
  const Result<ModelInput> bad = read_model_input("config.json", edited("\"llama\"", "\"bert\""));
  REQUIRE_FALSE(bad.is_ok());
  CHECK(bad.status().message().find("found \"bert\"") != std::string::npos);
}

}  // namespace
}  // namespace shardlab::plan
