// The plan lab's blocks (core/plan/block.h): a GPT layer on tp = 8 is
// Megatron's layout with F/B/W times equal to a hand computation from FLOPs
// / (t x peak x efficiency) plus the all-reduces, sequence parallelism where
// it costs no more, memoisation; a Llama layer (GQA, SwiGLU), a Mixtral layer
// with expert parallelism, the einsum model's repeated block, the errors, and
// a solve run piece by piece (as the page's stepped search runs it).
// Transformers and clusters are written by hand here (the presets are the
// plan-inputs part's).
#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/plan/block.h"
#include "core/teach/collectives.h"
#include "helpers.h"

namespace shardlab::plan {
namespace {

// 8 GPUs per node at 300 GB/s and 3 us, 25 GB/s and 5 us across; 312 TFLOP/s
// at half efficiency, links at 80%.
Cluster test_cluster() {
  Cluster c;
  c.name = "test";
  c.nodes = 4;
  c.gpus_per_node = 8;
  c.gpu_name = "A100-80GB";
  c.peak_tflops = 312;
  c.memory_GB = 80;
  c.intra_node = {300, 3};
  c.inter_node = {25, 5};
  c.matmul_efficiency = 0.5;
  c.comm_efficiency = 0.8;
  return c;
}

// A GPT of Narayanan et al.'s family (s 2048, V 51,200, FFN 4h); by default
// GPT-3 175B's layer (Table 1: h 12288, 96 heads, 96 layers).
Transformer gpt(const char* name = "gpt-175b", int32_t heads = 96, int64_t hidden = 12288,
                int32_t layers = 96) {
  Transformer t;
  t.name = name;
  t.family = "gpt";
  t.layers = layers;
  t.hidden = hidden;
  t.heads = heads;
  t.kv_heads = heads;
  t.head_dim = hidden / heads;
  t.ffn_hidden = 4 * hidden;
  t.vocab = 51200;
  t.max_positions = 2048;
  return t;
}

Transformer llama70b() {
  Transformer t;
  t.name = "llama3-70b";
  t.family = "llama";
  t.layers = 80;
  t.hidden = 8192;
  t.heads = 64;
  t.kv_heads = 8;
  t.head_dim = 128;
  t.ffn_hidden = 28672;
  t.ffn = Ffn::kSwiGlu;
  t.norm = Norm::kRmsNorm;
  t.linear_biases = false;
  t.vocab = 128256;
  return t;
}

Transformer mixtral() {
  Transformer t = llama70b();
  t.name = "mixtral-8x7b";
  t.family = "mixtral";
  t.layers = 32;
  t.hidden = 4096;
  t.heads = 32;
  t.kv_heads = 8;
  t.ffn_hidden = 14336;
  t.vocab = 32000;
  t.experts = 8;
  t.experts_per_token = 2;
  return t;
}

ModelInput input_of(const Transformer& t) {
  ModelInput in;
  in.kind = ModelInput::Kind::kTransformer;
  in.transformer = t;
  return in;
}

nlohmann::json report(const BlockCost& c) { return nlohmann::json::parse(c.report_json); }

// Compute of `flops` split `shards` ways, as the cost model rounds it.
int64_t ns(double flops, double shards) { return std::llround(flops / shards / (312 * 0.5 * 1e3)); }

// One all-reduce of `bytes` over the 8 GPUs of a node; reduce-scatter and
// all-gather take half the bandwidth term and the same latency.
int64_t all_reduce_ns(double bytes) {
  return std::llround(2.0 * 7 / 8 * bytes / (300 * 0.8) + 3e3);
}
int64_t half_ns(double bytes) { return std::llround(1.0 * 7 / 8 * bytes / (300 * 0.8) + 3e3); }

TEST_CASE("plan block: a GPT layer on tp = 8 is Megatron's, priced as by hand") {
  BlockCache cache(input_of(gpt()), test_cluster(), Training{});
  BlockQuery q;
  q.tp = 8;
  q.microbatch = 1;
  q.seq = 2048;
  const Result<const BlockCost*> got = cache.get(q);
  REQUIRE_MESSAGE(got.is_ok(), got.status().message());
  const BlockCost& c = *got.value();
  CHECK(c.proven_optimal);
  CHECK(c.layout ==
        "Megatron tensor parallel on 'tp' (column- then row-parallel, all-reduce after)");
  CHECK_FALSE(c.sequence_parallel);  // with 3 us latencies, one all-reduce beats two halves
  const nlohmann::json r = report(c);
  for (const char* op : {"q", "k", "v", "scores", "probs", "ctx", "attn"}) {
    CHECK_MESSAGE(r["ops"][op]["dims"]["h"] == "tp", op);
  }
  for (const char* op : {"h", "a", "o"}) CHECK_MESSAGE(r["ops"][op]["dims"]["f"] == "tp", op);
  for (const char* op : {"ln1", "r1", "ln2", "r2"}) {
    CHECK_MESSAGE(r["ops"][op]["strategy"] == "replicated", op);
  }
  std::vector<std::string> collectives;
  for (const auto& x : r["collectives"]) {
    collectives.push_back(x["kind"].get<std::string>() + " " + x["phase"].get<std::string>() + " " +
                          x["on"].get<std::string>());
  }
  CHECK(collectives == std::vector<std::string>{"all-reduce forward op attn",
                                                "all-reduce forward op o",
                                                "all-reduce backward_input op h.grad.ln2",
                                                "all-reduce backward_input op grad.ln1"});

  // By hand: every op's FLOPs over its shards at 156 TFLOP/s, rounded per op as the model does.
  const double b = 1, s = 2048, h = 12288, a = 96, dh = 128, f = 4 * h, t = 8;
  const double bsh = b * s * h, bss = b * a * s * s;
  const int64_t mm = ns(2 * bsh * h, t), mf = ns(2 * bsh * f, t), att = ns(2 * bss * dh, t);
  const int64_t forward = ns(8 * bsh, 1) + 3 * mm + att + ns(5 * bss, t) + att + mm + ns(bsh, 1) +
                          ns(8 * bsh, 1) + mf + ns(8 * b * s * f, t) + mf + ns(bsh, 1);
  const int64_t input_grads = 2 * ns(bsh, 1) + mf + ns(8 * b * s * f, t) + mf +
                              ns(8 * bsh, 1) +               // r2 .. ln2
                              ns(bsh, 1) + 2 * ns(bsh, 1) +  // the sum at r1, r1's
                              mm + 2 * att + ns(5 * bss, t) + 2 * att + 3 * mm +  // attention
                              ns(2 * bsh, 1) + ns(8 * bsh, 1) + ns(bsh, 1);       // sums at ln1, x
  const int64_t weight_grads = 4 * mm + 2 * mf;
  CHECK(std::llround(c.forward_compute_s * 1e9) == forward);
  CHECK(std::llround(c.backward_compute_s * 1e9) == input_grads);
  CHECK(std::llround(c.weight_compute_s * 1e9) == weight_grads);
  const int64_t ar = all_reduce_ns(bsh * 2);
  CHECK(ar == 370002);
  CHECK(std::llround(c.forward_comm_s * 1e9) == 2 * ar);
  CHECK(std::llround(c.backward_comm_s * 1e9) == 2 * ar);
  CHECK(c.weight_comm_s == 0);
  CHECK(std::llround(c.attention_core_forward_s * 1e9) == 2 * att + ns(5 * bss, t));
  // 12 h^2 weights split 8 ways; norms (2 x 2h) replicated; the biases of q, k, v and the
  // first FFN matrix split, those added after an all-reduce (2h) replicated.
  CHECK(c.parameters_per_device ==
        static_cast<int64_t>(12 * h * h / 8 + 4 * h + 3 * h / 8 + f / 8 + 2 * h));
  CHECK(c.expert_parameters_per_device == 0);
  CHECK(c.grad_reduce_bytes == 2 * c.parameters_per_device);

  // Memoised: the same query is the same block; another micro-batch is another solve.
  CHECK(cache.solves() == 1);
  CHECK(cache.get(q).value() == got.value());
  CHECK(cache.solves() == 1);
  q.microbatch = 2;
  const Result<const BlockCost*> two = cache.get(q);
  REQUIRE(two.is_ok());
  CHECK(cache.solves() == 2);
  CHECK(two.value() != got.value());
  CHECK(two.value()->forward_compute_s > 1.9 * c.forward_compute_s);
}

TEST_CASE("plan block: sequence parallelism, forced or where it costs no more") {
  BlockQuery q;
  q.tp = 8;
  q.seq = 2048;
  q.sequence_parallel = 1;
  BlockCache cache(input_of(gpt()), test_cluster(), Training{});
  const BlockCost& sp = *cache.get(q).value();
  CHECK(sp.sequence_parallel);
  CHECK(sp.layout.rfind("Megatron tensor parallel with sequence parallelism on 'tp'", 0) == 0);
  // Each all-reduce becomes a reduce-scatter and an all-gather: one latency more.
  const double bytes = 2048.0 * 12288 * 2;
  CHECK(std::llround(sp.forward_comm_s * 1e9) == 4 * half_ns(bytes));
  CHECK(std::llround(sp.backward_comm_s * 1e9) == 4 * half_ns(bytes));
  q.sequence_parallel = 0;
  const BlockCost& off = *cache.get(q).value();
  CHECK_FALSE(off.sequence_parallel);
  CHECK(sp.activation_bytes < off.activation_bytes);
  // Without latencies the split norms and residuals save their compute at equal bandwidth:
  // the free solve finds Megatron's sequence parallelism itself.
  Cluster fast = test_cluster();
  fast.intra_node.latency_us = 0;
  fast.inter_node.latency_us = 0;
  BlockCache free_cache(input_of(gpt()), fast, Training{});
  q.sequence_parallel = -1;
  const BlockCost& found = *free_cache.get(q).value();
  CHECK(found.sequence_parallel);
  CHECK(report(found)["axes"]["tp"]["role"] == "megatron_sp");
}

TEST_CASE("plan block: a Llama layer (GQA, SwiGLU, RMSNorm) splits the key/value groups") {
  BlockCache cache(input_of(llama70b()), test_cluster(), Training{});
  BlockQuery q;
  q.tp = 8;
  q.seq = 4096;
  const Result<const BlockCost*> got = cache.get(q);
  REQUIRE_MESSAGE(got.is_ok(), got.status().message());
  const BlockCost& c = *got.value();
  CHECK(c.proven_optimal);
  CHECK(c.layout ==
        "Megatron tensor parallel on 'tp' (column- then row-parallel, all-reduce after)");
  const nlohmann::json r = report(c);
  // The 8 key/value heads, each with its 8 queries, one per GPU.
  CHECK(r["ops"]["q"]["dims"] == nlohmann::json{{"b", nullptr},
                                                {"s", nullptr},
                                                {"m", nullptr},
                                                {"h", "tp"},
                                                {"g", nullptr},
                                                {"d", nullptr}});
  CHECK(r["ops"]["k"]["dims"]["h"] == "tp");
  for (const char* op : {"gate", "up", "act", "prod", "o"}) {
    CHECK_MESSAGE(r["ops"][op]["dims"]["f"] == "tp", op);
  }
  const int64_t h = 8192, kv = 1024, f = 28672;
  CHECK(c.parameters_per_device == (2 * h * h + 2 * h * kv + 3 * h * f) / 8 + 2 * h);
  CHECK(c.weight_comm_s == 0);
}

TEST_CASE("plan block: a Mixtral layer with ep = 4 puts the experts on the ep ranks") {
  BlockCache cache(input_of(mixtral()), test_cluster(), Training{});
  BlockQuery q;
  q.tp = 2;
  q.ep = 4;
  q.seq = 4096;
  const Result<const BlockCost*> got = cache.get(q);
  REQUIRE_MESSAGE(got.is_ok(), got.status().message());
  const BlockCost& c = *got.value();
  CHECK(c.proven_optimal);
  const nlohmann::json r = report(c);
  CHECK(r["mesh"]["axes"] == nlohmann::json{"tp", "ep"});
  CHECK(r["axes"]["ep"]["role"] == "expert_parallel");
  // The batch is pinned split over ep (the ranks' own micro-batches) outside the experts.
  for (const char* op : {"ln1", "q", "attn", "router", "routed", "o", "r2"}) {
    CHECK_MESSAGE(r["ops"][op]["dims"]["b"] == "ep", op);
  }
  for (const char* op : {"egate", "eup", "eout"}) {
    const nlohmann::json e = r["ops"][op]["dims"]["e"];
    CHECK_MESSAGE((e == "ep" || e == nlohmann::json{"tp", "ep"}), op);
  }
  int64_t all_to_all = 0;
  for (const auto& x : r["collectives"]) all_to_all += x["kind"] == "all-to-all";
  CHECK(all_to_all == 4);  // tokens to the experts and back, forward and backward
  // Every expert's three matrices on one of the 8 GPUs of the tp x ep group.
  const int64_t h = 4096, f = 14336;
  CHECK(c.expert_parameters_per_device == 3 * h * f * 8 / 8);
  CHECK(c.grad_reduce_bytes == 2 * c.parameters_per_device);
  // The attention weights' gradients are reduced over ep by data parallelism, outside.
  CHECK(c.weight_comm_s == 0);
  bool reduced_over_ep = false;
  for (const auto& x : r["collectives"]) {
    reduced_over_ep = reduced_over_ep || (x["axis"] == "ep" && x["kind"] == "all-reduce");
  }
  CHECK(reduced_over_ep);  // in the teaching report, not in the block's times
}

TEST_CASE("plan block: the einsum model's repeated block, prelude and epilogue") {
  ModelInput in;
  in.kind = ModelInput::Kind::kEinsum;
  Result<teach::ModelSpec> model = teach::read_model(
      "parallel_block.json",
      test::read_bytes(test::source_path("examples/plan/models/parallel_block.json")));
  REQUIRE(model.is_ok());
  in.einsum = std::move(model).value();
  BlockCache cache(in, test_cluster(), Training{});
  BlockQuery q;
  q.tp = 8;
  q.microbatch = 2;
  q.seq = 1024;
  const Result<const BlockCost*> layer = cache.get(q);
  REQUIRE_MESSAGE(layer.is_ok(), layer.status().message());
  const nlohmann::json r = report(*layer.value());
  CHECK(r["axes"]["tp"]["role"] == "megatron");
  CHECK(r["repeat"]["times"] == 28);
  CHECK(r["backward"]["grad.x0"]["detail"] == "sum of 2 gradients of x0");
  // Resized to the query: micro-batch 2 of 1024 tokens, h 4096 (ln's [b, s, m]).
  CHECK(report(*layer.value())["ops"]["q"]["usage_bytes"] == 2 * 1024 * 16 * 256 * 2 / 8);
  const int64_t params = (4 * 4096 * 4096 + 2 * 4096 * 16384) / 8;
  CHECK(layer.value()->parameters_per_device == params);
  q.part = BlockPart::kEmbedding;
  const Result<const BlockCost*> embedding = cache.get(q);
  REQUIRE(embedding.is_ok());
  const nlohmann::json e = report(*embedding.value());
  CHECK(e["parameters"]["E"]["strategy"] == "v:tp");
  // A vocabulary-parallel lookup, all-reduced into the layout the first layer reads.
  CHECK(e["ops"]["x0"]["dims"]["v"] == "tp");
  CHECK(e["ops"]["block_input"]["strategy"] == "replicated");
  CHECK(std::llround(embedding.value()->forward_comm_s * 1e9) ==
        all_reduce_ns(2.0 * 1024 * 4096 * 2));
  q.part = BlockPart::kHead;
  const Result<const BlockCost*> head = cache.get(q);
  REQUIRE(head.is_ok());
  CHECK(report(*head.value())["ops"]["logits"]["dims"]["v"] == "tp");
  CHECK(cache.solves() == 3);
}

// Korthikanti et al.'s 22B (Table 3: h 6144, 64 heads, 48 layers) at t = 8
// with 4 sequences per micro-batch and sequence parallelism, on a DGX A100.
TEST_CASE("plan block: the memory-lean layout splits every weight over tp") {
  const Transformer t = gpt("gpt-22b", 64, 6144, 48);
  Cluster dgx = test_cluster();
  dgx.intra_node = {300, 2};
  dgx.matmul_efficiency = 0.52;
  BlockCache cache(input_of(t), dgx, Training{});
  BlockQuery q;
  q.tp = 8;
  q.microbatch = 4;
  q.seq = 2048;
  q.sequence_parallel = 1;
  const Result<const BlockCost*> fast = cache.get(q);
  REQUIRE_MESSAGE(fast.is_ok(), fast.status().message());
  q.lean = true;
  const Result<const BlockCost*> lean = cache.get(q);
  REQUIRE_MESSAGE(lean.is_ok(), lean.status().message());
  CHECK(cache.solves() == 2);
  const double h = 6144, f = 4 * h;
  // Megatron's: 12 h^2 weights split 8 ways; norms (2 x 2h) and the biases added
  // after a reduction (2h) replicated, those of q, k, v and the first FFN matrix split.
  const int64_t megatron = static_cast<int64_t>(12 * h * h / 8 + 4 * h + 3 * h / 8 + f / 8 + 2 * h);
  CHECK(lean.value()->parameters_per_device == megatron);
  CHECK(lean.value()->layout.rfind("Megatron tensor parallel with sequence parallelism", 0) == 0);
  // The fastest layout keeps the attention's output projection whole on every device (h^2
  // more weights, 8.7 GB against 5.5 over 48 layers in 2 bytes): it is faster, not leaner.
  CHECK(fast.value()->parameters_per_device > megatron + static_cast<int64_t>(h * h / 2));
  const auto total = [](const BlockCost& c) {
    return c.forward_s() + c.backward_s() + c.weight_s();
  };
  CHECK(total(*fast.value()) < total(*lean.value()));
}

// Issue 26's Stop within 200 ms: a stepped search runs a block's solve in
// pieces (the model generated, the engine built, each of its steps, the
// explanation and price), one a step, so that no step holds a whole solve.
// The pieces call the engine as one get() does: the same layout and cost.
TEST_CASE("plan block: a solve run piece by piece gives get()'s block") {
  for (BlockPart part : {BlockPart::kLayer, BlockPart::kEmbedding, BlockPart::kHead}) {
    for (const Transformer& t : {gpt(), mixtral()}) {
      BlockQuery q;
      q.part = part;
      q.tp = 4;
      q.ep = t.experts > 0 ? 2 : 1;
      q.sequence_parallel = 1;
      BlockCache whole(input_of(t), test_cluster(), Training{});
      const Result<const BlockCost*> once = whole.get(q);
      REQUIRE(once.is_ok());
      BlockCache stepped(input_of(t), test_cluster(), Training{});
      int64_t calls = 0;
      while (!stepped.advance(q)) {
        ++calls;
        CHECK(!stepped.has(q));
        CHECK(stepped.solves() == 0);
        CHECK(stepped.pieces() == calls);
      }
      // Generated, the engine built, and the price: three pieces at least.
      CHECK(calls >= 2);
      CHECK(stepped.solves() == 1);
      CHECK(stepped.pieces() == calls + 1);
      CHECK(whole.pieces() == stepped.pieces());
      REQUIRE(stepped.has(q));
      CHECK(stepped.advance(q));
      CHECK(stepped.pieces() == calls + 1);
      const BlockCost& a = *once.value();
      const BlockCost& b = *stepped.get(q).value();
      CHECK(a.forward_compute_s == b.forward_compute_s);
      CHECK(a.forward_comm_s == b.forward_comm_s);
      CHECK(a.backward_compute_s == b.backward_compute_s);
      CHECK(a.backward_comm_s == b.backward_comm_s);
      CHECK(a.weight_compute_s == b.weight_compute_s);
      CHECK(a.weight_comm_s == b.weight_comm_s);
      CHECK(a.attention_core_forward_s == b.attention_core_forward_s);
      CHECK(a.parameters_per_device == b.parameters_per_device);
      CHECK(a.expert_parameters_per_device == b.expert_parameters_per_device);
      CHECK(a.activation_bytes == b.activation_bytes);
      CHECK(a.sequence_parallel == b.sequence_parallel);
      CHECK(a.proven_optimal == b.proven_optimal);
      CHECK(a.layout == b.layout);
      // The report, but for the solve's own time.
      nlohmann::json ra = report(a), rb = report(b);
      ra.erase("seconds");
      rb.erase("seconds");
      CHECK(ra == rb);
    }
  }
  // A query that cannot be laid out ends at its first piece, with get()'s error.
  BlockCache cache(input_of(gpt()), test_cluster(), Training{});
  BlockQuery bad;
  bad.tp = 12;
  CHECK(cache.advance(bad));
  CHECK(cache.get(bad).status().message() ==
        "plan block: tp = 12 spans nodes but is not a multiple of the 8 GPUs of a node");
  CHECK(cache.solves() == 0);
}

TEST_CASE("plan block: groups that cannot be laid out are refused") {
  BlockCache cache(input_of(gpt()), test_cluster(), Training{});
  BlockQuery q;
  q.tp = 12;
  const Result<const BlockCost*> bad = cache.get(q);
  REQUIRE_FALSE(bad.is_ok());
  CHECK(bad.status().message() ==
        "plan block: tp = 12 spans nodes but is not a multiple of the 8 GPUs of a node");
  q.tp = 0;
  CHECK(cache.get(q).status().message() ==
        "plan block: tp, ep, the micro-batch and the sequence must be at least 1");
  CHECK(cache.solves() == 0);
  // The links as the plan lab prices its own collectives: bandwidth times comm_efficiency.
  const teach::AxisLink inter = cluster_link(test_cluster(), true, 4);
  CHECK(inter.devices == 4);
  CHECK(inter.bandwidth_GBps == 25 * 0.8);
  CHECK(inter.latency_us == 5);
}

}  // namespace
}  // namespace shardlab::plan
