// The bundled models (core/plan/inputs.h) against their published sizes:
// Llama 3 8B/70B and 3.1 405B and Mixtral 8x7B to the parameter (the totals
// of their released safetensors), GPT-3 175B within 1% of its name, and the
// shapes the presets were written from; plus the "did you mean" of a near
// miss.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/plan/formulas.h"
#include "core/plan/inputs.h"

namespace shardlab::plan {
namespace {

Transformer preset(const std::string& name) {
  Result<Transformer> m = model_preset(name);
  REQUIRE_MESSAGE(m.is_ok(), m.status().message());
  return m.value();
}

TEST_CASE("plan presets: the names, in order") {
  CHECK(model_preset_names() ==
        std::vector<std::string>{"gpt-1.7b", "gpt-3.6b", "gpt-7.5b", "gpt-18.4b", "gpt-39.1b",
                                 "gpt-76.1b", "gpt-145.6b", "gpt-310.1b", "gpt-529.6b", "gpt-1t",
                                 "gpt3-175b", "llama3-8b", "llama3-70b", "llama3-405b",
                                 "mixtral-8x7b", "bloom-176b"});
  for (const std::string& name : model_preset_names()) CHECK(preset(name).name == name);
}

TEST_CASE("plan presets: published parameter counts") {
  CHECK(parameter_counts(preset("llama3-8b")).total == 8030261248);
  CHECK(parameter_counts(preset("llama3-70b")).total == 70553706496);
  CHECK(parameter_counts(preset("llama3-405b")).total == 405853388800);
  CHECK(parameter_counts(preset("mixtral-8x7b")).total == 46702792704);
  // GPT-3 175B with the padded vocabulary: 174.6B (Eq. 2, plus the final norm's 2h).
  const int64_t gpt3 = parameter_counts(preset("gpt3-175b")).total;
  CHECK(gpt3 == 174615822336 + 2 * 12288);
  CHECK(std::fabs(gpt3 / 175e9 - 1) < 0.01);
  // BLOOM: the model card's 176,247,271,424 exactly: 70 (12h^2 + 13h) + V h,
  // the LayerNorm after the embedding (2h) and the final LayerNorm's 2h.
  CHECK(parameter_counts(preset("bloom-176b")).total == 176247271424);
  CHECK(parameter_counts(preset("bloom-176b")).total ==
        70 * (12LL * 14336 * 14336 + 13 * 14336) + 250880LL * 14336 + 2 * 14336 + 2 * 14336);
  CHECK(parameter_counts(preset("bloom-176b")).embedding == 250880LL * 14336 + 2 * 14336);
}

TEST_CASE("plan presets: the parts of a count") {
  const ParameterCounts llama = parameter_counts(preset("llama3-8b"));
  // q 4096^2, k and v 4096 x 1024, o 4096^2, SwiGLU 3 x 4096 x 14336, 2 RMSNorms.
  CHECK(llama.per_layer == 218112000);
  CHECK(llama.per_layer_active == llama.per_layer);
  CHECK(llama.expert_per_layer == 0);
  CHECK(llama.embedding == 128256LL * 4096);
  CHECK(llama.head == 128256LL * 4096 + 4096);  // untied, and the final RMSNorm

  // Mixtral: 8 experts of 3 x 4096 x 14336 per layer, 2 active, a router of 4096 x 8.
  const ParameterCounts mixtral = parameter_counts(preset("mixtral-8x7b"));
  CHECK(mixtral.expert_per_layer == 8LL * 3 * 4096 * 14336);
  CHECK(mixtral.per_layer - mixtral.per_layer_active == 6LL * 3 * 4096 * 14336);
  const int64_t active = 32 * mixtral.per_layer_active + mixtral.embedding + mixtral.head;
  CHECK(active == 12879925248);  // the "12.9B active" of the Mixtral paper
  CHECK(std::fabs(active / 12.9e9 - 1) < 0.01);

  // GPT: 12h^2 + 13h a layer, tied head, learned positions of 2048.
  const ParameterCounts gpt = parameter_counts(preset("gpt-7.5b"));
  CHECK(gpt.per_layer == 12LL * 4096 * 4096 + 13 * 4096);
  CHECK(gpt.embedding == (51200LL + 2048) * 4096);
  CHECK(gpt.head == 2 * 4096);
}

TEST_CASE("plan presets: the shapes they were written from") {
  const Transformer l405 = preset("llama3-405b");
  CHECK(l405.family == "llama");
  CHECK(l405.layers == 126);
  CHECK(l405.hidden == 16384);
  CHECK(l405.heads == 128);
  CHECK(l405.kv_heads == 8);
  CHECK(l405.head_dim == 128);
  CHECK(l405.ffn_hidden == 53248);
  CHECK(l405.ffn == Ffn::kSwiGlu);
  CHECK(l405.norm == Norm::kRmsNorm);
  CHECK_FALSE(l405.linear_biases);
  CHECK_FALSE(l405.tied_embeddings);
  CHECK_FALSE(l405.dropout);
  CHECK(l405.max_positions == 0);
  CHECK(l405.vocab == 128256);

  const Transformer gpt1t = preset("gpt-1t");
  CHECK(gpt1t.family == "gpt");
  CHECK(gpt1t.layers == 128);
  CHECK(gpt1t.hidden == 25600);
  CHECK(gpt1t.heads == 160);
  CHECK(gpt1t.ffn_hidden == 4 * 25600);
  CHECK(gpt1t.vocab == 51200);
  CHECK(gpt1t.max_positions == 2048);
  CHECK(gpt1t.tied_embeddings);
  CHECK(gpt1t.linear_biases);
  CHECK(gpt1t.dropout);

  const Transformer mixtral = preset("mixtral-8x7b");
  CHECK(mixtral.family == "mixtral");
  CHECK(mixtral.experts == 8);
  CHECK(mixtral.experts_per_token == 2);
  CHECK(mixtral.vocab == 32000);
  CHECK(mixtral.kv_heads == 8);

  const Transformer bloom = preset("bloom-176b");
  CHECK(bloom.layers == 70);
  CHECK(bloom.hidden == 14336);
  CHECK(bloom.heads == 112);
  CHECK(bloom.ffn_hidden == 4 * 14336);
  CHECK(bloom.vocab == 250880);
  CHECK(bloom.max_positions == 0);  // ALiBi
  CHECK(bloom.tied_embeddings);
  CHECK(bloom.dropout);
}

TEST_CASE("plan presets: names ignore case; a near miss says what it meant") {
  CHECK(preset("LLAMA3-8B").name == "llama3-8b");
  const Result<Transformer> miss = model_preset("llama3-7b");
  REQUIRE_FALSE(miss.is_ok());
  CHECK(miss.status().code() == StatusCode::kInvalidArgument);
  CHECK(miss.status().message() ==
        "model preset: expected one of gpt-1.7b, gpt-3.6b, gpt-7.5b, gpt-18.4b, gpt-39.1b, "
        "gpt-76.1b, gpt-145.6b, gpt-310.1b, gpt-529.6b, gpt-1t, gpt3-175b, llama3-8b, "
        "llama3-70b, llama3-405b, mixtral-8x7b, bloom-176b, found \"llama3-7b\" (did you mean "
        "\"llama3-8b\"?)");
  const Result<Transformer> far = model_preset("bert-large");
  REQUIRE_FALSE(far.is_ok());
  CHECK(far.status().message().find("found \"bert-large\"") != std::string::npos);
  CHECK(far.status().message().find("did you mean") == std::string::npos);
}

}  // namespace
}  // namespace shardlab::plan
