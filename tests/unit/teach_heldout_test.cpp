// Held-out models (examples/teach/heldout/): other sizes, depths and meshes
// in the same vocabulary. Where a textbook answer exists the solver must
// find it; the "beyond_" models record what it finds instead, with the
// reason in each file's description (and in the README).
#include <doctest/doctest.h>

#include <algorithm>

#include "teach_support.h"

namespace shardlab {
namespace {

struct HeldOut {
  const char* file;
  std::vector<std::pair<const char*, const char*>> roles;  // axis -> role
};

TEST_CASE("teach: held-out models give the textbook answer where one exists") {
  const std::vector<HeldOut> cases = {
      {"mlp_b2048_mesh4.json", {{"x", "megatron"}}},
      {"mlp_b65536_mesh16.json", {{"x", "data_parallel"}}},
      {"mlp_inference_mesh8.json", {{"x", "data_parallel"}}},
      {"mlp3_b1024_mesh8.json", {{"x", "megatron"}}},
      {"mlp2_zero3_mesh16.json", {{"x", "zero3"}}},
      {"mlp2_b16384_mesh2x4.json", {{"data", "data_parallel"}, {"model", "megatron"}}},
      {"transformer_mesh4x2.json", {{"data", "data_parallel"}, {"model", "megatron"}}},
      {"transformer3_mesh2x4.json", {{"data", "data_parallel"}, {"model", "megatron"}}},
      {"moe16_mesh16.json", {{"x", "expert_parallel"}}},
      {"beyond_mlp2_b8192_mesh2x4.json", {{"data", "megatron"}, {"model", "data_parallel"}}},
      {"beyond_mlp2_b32768_mesh2x4.json", {{"data", "data_parallel"}, {"model", "zero_mixed"}}},
      {"beyond_transformer_b4_h16.json", {{"data", "megatron"}, {"model", "mixed"}}},
      {"beyond_gpt_tiny_mesh8.json", {{"x", "mixed"}}},
      {"beyond_classifier_mesh8.json", {{"x", "mixed"}}},
  };
  for (const HeldOut& c : cases) {
    CAPTURE(c.file);
    const test::TeachRun run = test::teach_solve_file(std::string("heldout/") + c.file);
    CHECK(run.bound == run.cost);
    for (const auto& [axis, role] : c.roles) CHECK(run.json["axes"][axis]["role"] == role);
  }
}

TEST_CASE("teach: three transformer blocks pay exactly Megatron's all-reduces on 'model'") {
  const test::TeachRun run = test::teach_solve_file("heldout/transformer3_mesh2x4.json");
  std::vector<std::string> model;
  for (const auto& c : run.json["collectives"]) {
    if (c["axis"] != "model") continue;
    CHECK(c["kind"] == "all-reduce");
    model.push_back(c["pass"].get<std::string>() + " " + c["on"].get<std::string>());
  }
  std::sort(model.begin(), model.end());
  // Per block: after the attention and the MLP in the forward; for the MLP's input and (one,
  // for q, k and v together) the attention's input in the backward. The first block's input
  // needs no gradient.
  CHECK(model == std::vector<std::string>{"backward op grad.ln12", "backward op grad.ln13",
                                          "backward op h1.grad.ln21", "backward op h2.grad.ln22",
                                          "backward op h3.grad.ln23", "forward op attn1",
                                          "forward op attn2", "forward op attn3", "forward op o1",
                                          "forward op o2", "forward op o3"});
  CHECK(run.json["backward"]["grad.ln12"]["strategy"] == "b:data,sum:model");
}

TEST_CASE("teach: embedding, reduce and softmax in a held-out model, explained") {
  const test::TeachRun run = test::teach_solve_file("heldout/beyond_classifier_mesh8.json");
  CHECK(run.json["axes"]["x"]["text"] == "mixed on 'x': m in e; b in ln1, q, k and 13 more");
  // The table is split along its width; the lookup needs no collective, the tokens go back
  // to the batch split by one all-to-all for both of e's readers (ln1 and the residual add,
  // through e.shared), and their gradients, summed in that layout, come back by one more.
  CHECK(run.json["parameters"]["E"]["strategy"] == "m:x");
  CHECK(run.json["ops"]["pooled"]["dims"] ==
        nlohmann::json{{"b", "x"}, {"s", nullptr}, {"m", nullptr}});
  int all_to_all = 0;
  for (const auto& c : run.json["collectives"]) all_to_all += c["kind"] == "all-to-all";
  CHECK(all_to_all == 2);
}

TEST_CASE("teach: in inference, data parallelism pays no collective at all") {
  const test::TeachRun run = test::teach_solve_file("heldout/mlp_inference_mesh8.json");
  CHECK(run.json["collectives"].empty());
  CHECK(run.json["ops"]["y1"]["dims"]["b"] == "x");
  CHECK_FALSE(run.json.contains("zero_table"));
}

}  // namespace
}  // namespace shardlab
