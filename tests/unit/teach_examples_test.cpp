// The five course examples of examples/teach/: each solved to a proven
// optimum, with the strategy the textbook names, checked on the plan's
// letters-to-axes maps and on every collective it pays (kind, axis, pass,
// where), not only on the cost. The same binary runs as wasm under node, so
// this is also the "natively and in wasm" check.
#include <doctest/doctest.h>

#include <algorithm>

#include "core/sharding/io.h"
#include "teach_support.h"

namespace shardlab {
namespace {

using nlohmann::json;
using test::teach_collectives;
using test::teach_solve;
using test::teach_solve_file;

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

void check_dims(const json& entry, const json& want) { CHECK(entry["dims"] == want); }

TEST_CASE("teach: the issue's MLP on [8] is Megatron, with one all-reduce in the forward") {
  const test::TeachRun run = teach_solve_file("mlp.json");
  CHECK(run.bound == run.cost);
  CHECK(run.cost == 366929);
  const json& ops = run.json["ops"];
  check_dims(ops["h"], {{"b", nullptr}, {"d", nullptr}, {"f", "x"}});  // column-parallel
  check_dims(ops["a"], {{"b", nullptr}, {"f", "x"}});
  check_dims(ops["y"], {{"b", nullptr}, {"f", "x"}, {"d", nullptr}});  // row-parallel
  check_dims(run.json["parameters"]["W1"], {{"d", nullptr}, {"f", "x"}});
  check_dims(run.json["parameters"]["W2"], {{"f", "x"}, {"d", nullptr}});
  CHECK(teach_collectives(run) == std::vector<std::string>{"all-reduce \"x\" forward op y"});
  CHECK(run.json["collectives"][0]["bytes"] == 4096 * 1024 * 2);
  CHECK(run.json["collectives"][0]["what"] == "partial sums over f");
  CHECK(run.json["axes"]["x"]["role"] == "megatron");
  CHECK(run.json["partition_specs"]["W1"] == "P(None, 'x')");
  CHECK(run.json["partition_specs"]["W2"] == "P('x', None)");
  // Textbook arithmetic: 2 * 7/8 * 8 MiB / 100 GB/s + 5 us.
  CHECK(run.json["collectives"][0]["ns"] == 151801);
  CHECK(run.json["breakdown"]["compute_ns"] == 215128);
}

TEST_CASE("teach: the same MLP at batch 262144 switches to data parallelism") {
  std::string text = test::teach_example_text("mlp.json");
  const std::string from = "[4096, 1024]";
  text.replace(text.find(from), from.size(), "[262144, 1024]");
  const test::TeachRun run = teach_solve(test::teach_model("mlp_big.json", text));
  CHECK(run.bound == run.cost);
  CHECK(run.json["axes"]["x"]["role"] == "data_parallel");
  for (const char* op : {"h", "a", "y"}) CHECK(run.json["ops"][op]["dims"]["b"] == "x");
  CHECK(sorted(teach_collectives(run)) ==
        std::vector<std::string>{"all-reduce \"x\" backward edge h.grad.W1 -> W1",
                                 "all-reduce \"x\" backward edge y.grad.W2 -> W2"});
}

TEST_CASE("teach: a large batch with small weights is data parallel, gradients all-reduced") {
  const test::TeachRun run = teach_solve_file("data_parallel.json");
  CHECK(run.bound == run.cost);
  CHECK(run.cost == 243289);
  for (const char* op : {"h", "a", "y"}) {
    for (const auto& [letter, axis] : run.json["ops"][op]["dims"].items()) {
      CHECK(axis == (letter == "b" ? json("x") : json(nullptr)));
    }
  }
  check_dims(run.json["inputs"]["x"], {{"b", "x"}, {"d", nullptr}});
  check_dims(run.json["parameters"]["W1"], {{"d", nullptr}, {"f", nullptr}});
  CHECK(sorted(teach_collectives(run)) ==
        std::vector<std::string>{"all-reduce \"x\" backward edge h.grad.W1 -> W1",
                                 "all-reduce \"x\" backward edge y.grad.W2 -> W2"});
  CHECK(run.json["collectives"][0]["bytes"] == 256 * 1024 * 2);
  CHECK(run.json["axes"]["x"]["role"] == "data_parallel");
  CHECK(run.json["textbook"] == "data parallel on 'x' (b split, gradients all-reduced)");
}

TEST_CASE("teach: forcing tensor parallelism on the data-parallel example costs more") {
  teach::GenerateOptions options;
  options.forces = {{"h", "f:x"}, {"y", "f:x"}};
  const teach::ModelSpec model =
      test::teach_model("data_parallel.json", test::teach_example_text("data_parallel.json"));
  const test::TeachRun forced = teach_solve(model, options);
  CHECK(forced.bound == forced.cost);
  CHECK(forced.cost == 807289);  // 564000 ns above the free optimum 243289
  CHECK(forced.json["ops"]["h"]["forced"] == true);
  CHECK(forced.json["ops"]["y"]["strategy"] == "f:x");
  options.forces = {{"h", "q:x"}};
  const Result<teach::Generated> bad = teach::generate(model, options);
  REQUIRE_FALSE(bad.is_ok());
  CHECK(bad.status().message() ==
        "--force 'h=q:x': expected LETTER:AXIS with a letter of \"bdf\", found 'q:x'; its "
        "strategies are replicated, b:x, d:x, f:x");
}

TEST_CASE(
    "teach: the transformer block on [2, 4] is data parallel on one axis, Megatron on the "
    "other") {
  const test::TeachRun run = teach_solve_file("transformer.json");
  CHECK(run.bound == run.cost);
  CHECK(run.cost == 1250877);
  CHECK(run.json["axes"]["data"]["role"] == "data_parallel");
  CHECK(run.json["axes"]["model"]["role"] == "megatron");
  for (const auto& [key, op] : run.json["ops"].items()) {
    const std::string name = key;  // (clang 14 lambdas cannot capture a structured binding)
    CHECK_MESSAGE(op["dims"]["b"] == "data", name);
    for (const auto& [letter, axis] : op["dims"].items()) {
      const bool tp = letter == "h" || letter == "f";
      if (letter != "b") CHECK_MESSAGE(axis == (tp ? json("model") : json(nullptr)), name);
    }
  }
  // Megatron's all-reduces: after the attention and MLP outputs in the forward, the MLP's
  // input gradient in the backward; data parallelism's: every weight gradient.
  CHECK(sorted(teach_collectives(run)) ==
        sorted({"all-reduce \"model\" forward op attn", "all-reduce \"model\" forward op o",
                "all-reduce \"model\" backward op h.grad.ln2",
                "all-reduce \"data\" backward edge q.grad.Wq -> Wq",
                "all-reduce \"data\" backward edge k.grad.Wk -> Wk",
                "all-reduce \"data\" backward edge v.grad.Wv -> Wv",
                "all-reduce \"data\" backward edge attn.grad.Wo -> Wo",
                "all-reduce \"data\" backward edge h.grad.W1 -> W1",
                "all-reduce \"data\" backward edge o.grad.W2 -> W2"}));
  CHECK(run.json["partition_specs"]["q"] == "P('data', None, 'model', None)");
}

TEST_CASE("teach: the memory-tight MLP is sharded ZeRO-3, and the ZeRO table is reproduced") {
  const test::TeachRun run = teach_solve_file("zero.json");
  CHECK(run.bound == run.cost);
  CHECK(run.cost == 60894415);
  CHECK(run.json["axes"]["x"]["role"] == "zero3");
  for (const char* op : {"h", "a", "y"}) CHECK(run.json["ops"][op]["dims"]["b"] == "x");
  for (const char* w : {"W1", "W2"}) {
    CHECK(run.json["parameters"][w]["zero_stage"] == 3);
    int split = 0;
    for (const auto& [letter, axis] : run.json["parameters"][w]["dims"].items()) {
      split += axis == "x";
    }
    CHECK(split == 1);
  }
  // FSDP's pattern: weights gathered for each use (W2 twice, for the forward and for the
  // backward of its input; W1's input needs no gradient), gradients reduce-scattered.
  CHECK(sorted(teach_collectives(run)) ==
        sorted({"all-gather \"x\" forward edge W1 -> h", "all-gather \"x\" forward edge W2 -> y",
                "all-gather \"x\" backward edge W2 -> y.grad.a",
                "reduce-scatter \"x\" backward edge h.grad.W1 -> W1",
                "reduce-scatter \"x\" backward edge y.grad.W2 -> W2"}));
  const int64_t limit = run.json["memory_limit_bytes"];
  CHECK(run.json["peak_bytes_per_device"].get<int64_t>() <= limit);
  // ZeRO's table for P parameters on N = 8 devices: 16P, 4P + 12P/N, 2P + 14P/N, 16P/N.
  const json& table = run.json["zero_table"];
  const int64_t p = table["parameters"];
  CHECK(p == 2 * 4096 * 16384);
  CHECK(table["devices"] == 8);
  const int64_t want[] = {16 * p, 4 * p + 12 * p / 8, 2 * p + 14 * p / 8, 16 * p / 8};
  for (int stage = 0; stage <= 3; ++stage) {
    CHECK(table["rows"][stage]["generator_bytes"] == want[stage]);
    CHECK(table["rows"][stage]["formula_bytes"] == want[stage]);
  }
  // With more memory the same model is plain data parallel.
  std::string text = test::teach_example_text("zero.json");
  const std::string from = "\"device_memory_GB\": 1}";
  text.replace(text.find(from), from.size(), "\"device_memory_GB\": 16}");
  const test::TeachRun roomy = teach_solve(test::teach_model("zero16.json", text));
  CHECK(roomy.json["axes"]["x"]["role"] == "data_parallel");
  CHECK(roomy.cost < run.cost);
}

TEST_CASE("teach: the MoE layer puts experts on devices, with GShard's all-to-alls") {
  const test::TeachRun run = teach_solve_file("moe.json");
  CHECK(run.bound == run.cost);
  CHECK(run.cost == 1114297);
  CHECK(run.json["axes"]["x"]["role"] == "expert_parallel");
  for (const char* op : {"h", "a", "o"}) CHECK(run.json["ops"][op]["dims"]["e"] == "x");
  for (const char* op : {"routed", "y"}) CHECK(run.json["ops"][op]["dims"]["g"] == "x");
  for (const char* w : {"wi", "wo"}) CHECK(run.json["parameters"][w]["dims"]["e"] == "x");
  // Tokens to their experts and back in the forward; the output's gradient to the experts in
  // the backward (the routed tokens need no gradient: x is an input). Backward ops reuse the
  // copies their forward op re-partitioned, so nothing is exchanged twice.
  CHECK(sorted(teach_collectives(run)) ==
        sorted({"all-to-all \"x\" forward edge routed -> h", "all-to-all \"x\" forward edge o -> y",
                "all-to-all \"x\" backward edge y.grad.o -> o.grad.a"}));
  CHECK(run.json["collectives"][0]["bytes"] == 8 * 8 * 256 * 1024 * 2 / 8);
}

TEST_CASE("teach: the emitted contest JSON reads back as the same instance") {
  for (const char* file : {"mlp.json", "moe.json", "zero.json"}) {
    const teach::ModelSpec model = test::teach_model(file, test::teach_example_text(file));
    const Result<teach::Generated> gen = teach::generate(model);
    REQUIRE(gen.is_ok());
    const std::string text = teach::instance_json(gen.value());
    const Result<Problem> back = read_instance_bytes(file, text.data(), text.size());
    REQUIRE_MESSAGE(back.is_ok(), back.status().message());
    const Problem& a = gen.value().problem;
    const Problem& b = back.value();
    CHECK(a.strategy_cost == b.strategy_cost);
    CHECK(a.strategy_usage == b.strategy_usage);
    CHECK(a.interval_lo == b.interval_lo);
    CHECK(a.interval_hi == b.interval_hi);
    CHECK(a.edge_u == b.edge_u);
    CHECK(a.usage_limit == b.usage_limit);
    for (int32_t e = 0; e < a.num_edges(); ++e) {
      const int64_t n =
          static_cast<int64_t>(a.num_strategies(a.edge_u[e])) * a.num_strategies(a.edge_v[e]);
      CHECK(std::equal(a.edge_costs(e), a.edge_costs(e) + n, b.edge_costs(e)));
    }
    const json side = json::parse(teach::sidecar_json(gen.value()));
    CHECK(side["nodes"].size() == static_cast<size_t>(a.num_nodes()));
    CHECK(side["cost_unit"] == "ns");
  }
}

}  // namespace
}  // namespace shardlab

namespace shardlab {
namespace {

TEST_CASE(
    "teach: GPT-J's parallel block, repeated 28 times, is Megatron with one backward "
    "all-reduce per layer") {
  const teach::ModelSpec model = test::teach_model(
      "parallel_block.json",
      test::read_bytes(test::source_path("examples/plan/models/parallel_block.json")));
  CHECK(model.repeat.times == 28);
  CHECK(model.sequence == 's');
  const test::TeachRun run = teach_solve(model);
  CHECK(run.bound == run.cost);
  CHECK(run.json["axes"]["tp"]["role"] == "megatron");
  CHECK(run.json["repeat"] == nlohmann::json{{"first", "ln"},
                                             {"last", "r2"},
                                             {"input", "x0"},
                                             {"times", 28},
                                             {"solved", "one repetition"}});
  std::vector<std::string> block;
  for (const auto& c : run.json["collectives"]) {
    const std::string on = c["on"];
    if (on == "op x0" || on.find("logits") != std::string::npos ||
        on.find("loss") != std::string::npos) {
      continue;  // the embedding and the head
    }
    block.push_back(c["kind"].get<std::string>() + " " + c["phase"].get<std::string>() + " " + on);
  }
  CHECK(sorted(block) == std::vector<std::string>{"all-reduce backward_input op grad.ln",
                                                  "all-reduce forward op attn",
                                                  "all-reduce forward op o"});
  // The phases add up to the cost.
  int64_t total = 0;
  for (const auto& [phase, t] : run.json["phases"].items()) {
    total += t["compute_ns"].get<int64_t>() + t["collectives_ns"].get<int64_t>();
  }
  CHECK(total == run.cost);
}

}  // namespace
}  // namespace shardlab
