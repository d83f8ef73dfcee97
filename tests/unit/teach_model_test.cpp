// The teaching model reader: the issue's example accepted exactly as
// written, the inferred dimension names and defaults, and the exact message
// (file:line:col, byte, JSON path, what was expected) of every kind of
// mistake a student makes.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "core/teach/graph.h"
#include "core/teach/model.h"
#include "core/teach/teach.h"

namespace shardlab::teach {
namespace {

// Verbatim from issue 19.
const char* kIssueExample = R"({
  "name": "mlp",
  "mesh": {"shape": [8], "axes": ["x"], "bandwidth_GBps": [100], "latency_us": [5],
           "device_tflops": 100, "device_memory_GB": 16},
  "training": true,
  "dtype_bytes": 2,
  "tensors": {
    "x":  {"shape": [4096, 1024]},
    "W1": {"shape": [1024, 4096], "parameter": true},
    "W2": {"shape": [4096, 1024], "parameter": true}
  },
  "ops": [
    {"name": "h", "einsum": "bd,df->bf", "inputs": ["x", "W1"]},
    {"name": "a", "elementwise": "gelu", "inputs": ["h"]},
    {"name": "y", "einsum": "bf,fd->bd", "inputs": ["a", "W2"]}
  ]
}
)";

std::string error_of(const std::string& text) {
  const Result<ModelSpec> model = read_model("m.json", text);
  REQUIRE_FALSE(model.is_ok());
  CHECK(model.status().code() == StatusCode::kInvalidInput);
  return model.status().message();
}

// The issue's example with one substring replaced.
std::string edited(const std::string& from, const std::string& to) {
  std::string text = kIssueExample;
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

TEST_CASE("teach model: the issue's example is accepted as written") {
  const Result<ModelSpec> read = read_model("mlp.json", kIssueExample);
  REQUIRE_MESSAGE(read.is_ok(), read.status().message());
  const ModelSpec& m = read.value();
  CHECK(m.name == "mlp");
  CHECK(m.mesh.shape == std::vector<int32_t>{8});
  CHECK(m.mesh.axes == std::vector<std::string>{"x"});
  CHECK(m.mesh.bandwidth_GBps == std::vector<double>{100});
  CHECK(m.mesh.latency_us == std::vector<double>{5});
  CHECK(m.mesh.device_tflops == 100);
  CHECK(m.mesh.has_memory);
  CHECK(m.training);
  CHECK(m.tensors.size() == 6);      // three declared, one per op
  CHECK(m.tensors[0].dims == "bd");  // named by the first einsum that reads it
  CHECK(m.tensors[1].dims == "df");
  CHECK(m.tensors[2].dims == "fd");
  CHECK(m.tensors[4].dims == "bf");  // the gelu keeps h's names
  CHECK(m.ops[1].kind == OpKind::kElementwise);
  CHECK(m.ops[1].flops_per_element == 8);
  CHECK(m.batch == 'b');
  CHECK(m.cost_model == CostModel::kAlphaBeta);
  CHECK(m.optimizer_state_bytes == 12);

  const Result<Graph> graph = build_graph(m);
  REQUIRE(graph.is_ok());
  std::vector<std::string> names;
  for (const GraphNode& node : graph.value().nodes) names.push_back(node.name);
  CHECK(names == std::vector<std::string>{"x", "W1", "W2", "h", "a", "y", "y.loss_grad", "y.grad.a",
                                          "y.grad.W2", "a.grad.h", "h.grad.W1"});
  const GraphNode& dw1 = graph.value().nodes[10];
  CHECK(dw1.detail == "einsum bf,bd->df (gradient of W1)");  // from dh and x
  CHECK(dw1.grad_of == 1);
  CHECK(dw1.flops == 2.0 * 4096 * 1024 * 4096);
  // x lives until the backward op that reads it; the parameters for the whole step.
  CHECK(graph.value().nodes[0].hi == dw1.time + 1);
  CHECK(graph.value().nodes[1].hi == graph.value().horizon);
}

TEST_CASE("teach model: mistakes are reported at the value, with path and expectation") {
  // The issue's example with one substring replaced, and the exact message.
  struct Mistake {
    const char* from;
    const char* to;
    const char* message;
  };
  const Mistake mistakes[] = {
      {"\"bf,fd->bd\"", "\"bf,fb->bf\"",
       "m.json:15:29 (byte 526): at ops[2].einsum: expected letter 'b' to have one size, "
       "found 4096 (a.shape[0]) and 1024 (W2.shape[1])"},
      {"\"bd,df->bf\"", "\"bd,df->bz\"",
       "m.json:13:29 (byte 402): at ops[0].einsum: expected every output letter among the "
       "inputs' letters, found 'z' only in the output"},
      {"\"bd,df->bf\"", "\"bd->bf\"",
       "m.json:13:29 (byte 402): at ops[0].einsum: expected 2 operand subscripts (one per "
       "input), found 1"},
      {"\"bd,df->bf\"", "\"bdd,df->bf\"",
       "m.json:13:29 (byte 402): at ops[0].einsum: expected each letter once per subscript, "
       "found 'd' twice in \"bdd\""},
      {"\"bd,df->bf\"", "\"bde,df->bf\"",
       "m.json:13:29 (byte 402): at ops[0].einsum: expected subscript 0 to have 2 letters, as "
       "x has shape [4096, 1024], found \"bde\""},
      {"[\"a\", \"W2\"]", "[\"a\", \"W3\"]",
       "m.json:15:58 (byte 555): at ops[2].inputs[1]: expected the name of a declared tensor "
       "or of an earlier op, found \"W3\""},
      {"[\"x\", \"W1\"]", "[\"a\", \"W1\"]",
       "m.json:13:53 (byte 426): at ops[0].inputs[0]: expected the name of a declared tensor "
       "or of an earlier op, found \"a\" (ops[1] comes later: list ops inputs first)"},
      {"\"latency_us\": [5]", "\"latency_us\": [5, 2]",
       "m.json:3:80 (byte 98): at mesh.latency_us: expected a number or an array of 1 "
       "numbers (one per mesh axis), found an array of 2 items"},
      {"\"device_tflops\"", "\"device_tflop\"",
       "m.json:4:12 (byte 114): at mesh: expected one of the keys shape, axes, "
       "bandwidth_GBps, latency_us, device_tflops, device_memory_GB, matmul_efficiency, "
       "comm_efficiency, found the key "
       "\"device_tflop\" (did you mean \"device_tflops\"?)"},
      {"\"shape\": [8]", "\"shape\": [0]",
       "m.json:3:22 (byte 40): at mesh.shape[0]: expected an integer from 1 to 65536, found "
       "the number 0"},
      {"\"elementwise\": \"gelu\"", "\"softmax\": \"k\"",
       "m.json:14:30 (byte 468): at ops[1].softmax: expected one of the dimension names of h "
       "\"bf\", found \"k\""},
      {"\"elementwise\": \"gelu\", \"inputs\": [\"h\"]",
       "\"elementwise\": \"add\", \"inputs\": [\"h\", \"W2\"]",
       "m.json:14:57 (byte 495): at ops[1].inputs[1]: expected a tensor whose shape broadcasts "
       "to [4096, 4096] (equal to its trailing dimensions), found W2 of shape [4096, 1024]"},
      {"\"name\": \"a\", ", "",
       "m.json:14:44 (byte 482): at ops[1]: expected the key \"name\", found '}'"},
      {"{\"name\": \"y\", \"einsum\"", "{\"name\": \"h\", \"einsum\"",
       "m.json:15:14 (byte 511): at ops[2].name: expected a name not used by another tensor or "
       "op, found \"h\", already used"},
      {"\"x\":  {\"shape\": [4096, 1024]}",
       "\"x\":  {\"shape\": [4096, 1024], \"layout\": {\"b\": \"y\"}}",
       "m.json:8:51 (byte 266): at tensors.x.layout.b: expected a mesh axis name, found the "
       "string \"y\""},
      {"\"x\":  {\"shape\": [4096, 1024]}",
       "\"x\":  {\"shape\": [4096, 1024], \"layout\": {\"b\": \"x\"}, "
       "\"dims\": \"b\"}",
       "m.json:8:65 (byte 280): at tensors.x.dims: expected 2 letters (one per dimension of "
       "[4096, 1024]), found the string \"b\""},
      {"\"training\": true", "\"training\": \"yes\"",
       "m.json:5:15 (byte 175): at training: expected true or false, found the string \"yes\""},
  };
  for (const Mistake& m : mistakes) {
    CAPTURE(m.to);
    CHECK(error_of(edited(m.from, m.to)) == m.message);
  }
  CHECK(error_of("{\"mesh\": ") ==
        "m.json:1:10 (byte 9): at mesh: expected a value, found end of input (the file is "
        "truncated)");
}

TEST_CASE("teach model: reduce, softmax, layernorm and embedding name their dimensions") {
  const char* text = R"({"mesh": {"shape": [2, 2], "bandwidth_GBps": 10, "latency_us": 1,
    "device_tflops": 1},
  "tensors": {"ids": {"shape": [4, 8], "dims": "bs", "dtype_bytes": 4},
              "E": {"shape": [100, 16], "parameter": true}},
  "ops": [{"name": "e", "embedding": "bs,vd->bsd", "inputs": ["ids", "E"]},
          {"name": "n", "layernorm": "d", "inputs": ["e"]},
          {"name": "p", "softmax": "s", "inputs": ["n"]},
          {"name": "r", "reduce": "d", "inputs": ["p"]}]})";
  const Result<ModelSpec> read = read_model("m.json", text);
  REQUIRE_MESSAGE(read.is_ok(), read.status().message());
  const ModelSpec& m = read.value();
  CHECK(m.mesh.axes == std::vector<std::string>{"x", "y"});
  CHECK(m.mesh.bandwidth_GBps == std::vector<double>{10, 10});
  CHECK_FALSE(m.mesh.has_memory);
  CHECK_FALSE(m.training);
  CHECK(m.tensors[m.find_tensor("e")].dims == "bsd");
  CHECK(m.tensors[m.find_tensor("r")].dims == "bs");
  CHECK(m.tensors[m.find_tensor("r")].shape == std::vector<int64_t>{4, 8});
  CHECK(m.ops[2].along == 's');
  const Result<Graph> graph = build_graph(m);
  REQUIRE(graph.is_ok());
  const GraphNode& e = graph.value().nodes[2];
  CHECK(e.letters == "bsvd");
  CHECK(e.work_letters == "bsd");  // the looked-up rows do not divide the work
  CHECK(e.flops == 4 * 8 * 16);
  CHECK(graph.value().nodes[4].normalized == 's');

  CHECK(
      error_of(std::string(text).replace(std::string(text).find("bs,vd->bsd"), 10, "bs,vd->bsv")) ==
      "m.json:5:38 (byte 261): at ops[0].embedding: expected an embedding signature "
      "IDS,vd->IDSd (the table's rows v are looked up by the ids; each output position gets a "
      "row of d), found \"bs,vd->bsv\"");
}

}  // namespace
}  // namespace shardlab::teach

namespace shardlab::teach {
namespace {

// A block h .. y repeated 3 times, a fourth op after it, a mask m that the
// bad cases read inside the block.
const char* kRepeated = R"({"mesh": {"shape": [2], "bandwidth_GBps": 10, "latency_us": 1,
    "device_tflops": 1},
 "training": true,
 "tensors": {"x": {"shape": [4, 8]}, "m": {"shape": [4, 16]},
             "W1": {"shape": [8, 16], "parameter": true},
             "W2": {"shape": [16, 8], "parameter": true}},
 "ops": [{"name": "h", "einsum": "bd,de->be", "inputs": ["x", "W1"]},
         {"name": "a", "elementwise": "relu", "inputs": ["h"]},
         {"name": "y", "einsum": "be,ed->bd", "inputs": ["a", "W2"]},
         {"name": "z", "elementwise": "relu", "inputs": ["y"]}],
 "repeat": {"first": "h", "last": "y", "times": 3}})";

std::string repeated(const std::string& from, const std::string& to) {
  std::string text = kRepeated;
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

TEST_CASE("teach model: a block repeated n times names its first and last op") {
  const Result<ModelSpec> read = read_model("r.json", kRepeated);
  REQUIRE_MESSAGE(read.is_ok(), read.status().message());
  const ModelSpec& m = read.value();
  REQUIRE(m.repeat.present());
  CHECK(m.repeat.first == 0);
  CHECK(m.repeat.last == 2);
  CHECK(m.repeat.times == 3);
  CHECK(m.tensors[m.repeat.input].name == "x");
  // Earlier repetitions need the gradient of the block's input.
  CHECK(m.tensors[m.repeat.input].requires_grad);
  const Result<Graph> graph = build_graph(m);
  REQUIRE(graph.is_ok());
  const GraphNode& sum = graph.value().nodes.back();
  CHECK(sum.name == "grad.x");
  CHECK(sum.detail == "gradient of x in its layout");
  CHECK(sum.lead == graph.value().holder_of_tensor[m.find_tensor("x")]);
  CHECK(sum.phase() == Phase::kInputGrad);
  // The block's output becomes the next repetition's input: an edge between y and x carries
  // it, and x's gradient back.
  const Result<Generated> gen = generate(m);
  REQUIRE(gen.is_ok());
  std::vector<int32_t> carries;
  for (const EdgeInfo& e : gen.value().edges) {
    for (const Link& link : e.links) {
      if (link.operand == kCarry || link.operand == kCarryGradient) carries.push_back(link.operand);
    }
  }
  CHECK(carries == std::vector<int32_t>{kCarry, kCarryGradient});
  const nlohmann::json side = nlohmann::json::parse(sidecar_json(gen.value()));
  bool named = false;
  for (const auto& e : side["edges"]) {
    for (const auto& c : e["carries"]) named = named || c == "y -> x (next repetition)";
  }
  CHECK(named);
  // One repetition needs no carry, and its input no gradient.
  const Result<ModelSpec> once = read_model("r.json", repeated("\"times\": 3", "\"times\": 1"));
  REQUIRE(once.is_ok());
  CHECK_FALSE(once.value().tensors[once.value().repeat.input].requires_grad);
}

TEST_CASE("teach model: mistakes in the repeated block, sequence letter and flops") {
  struct Mistake {
    const char* from;
    const char* to;
    const char* message;
  };
  const Mistake mistakes[] = {
      {"\"first\": \"h\"", "\"first\": \"q\"",
       "m.json:11:22 (byte 576): at repeat.first: expected the name of an op, found the string "
       "\"q\""},
      {"\"first\": \"h\", \"last\": \"y\"", "\"first\": \"y\", \"last\": \"h\"",
       "m.json:11:35 (byte 589): at repeat.last: expected an op at or after repeat.first (y, "
       "ops[2]), found \"h\" (ops[0])"},
      {"\"times\": 3", "\"times\": 0",
       "m.json:11:49 (byte 603): at repeat.times: expected an integer from 1 to 1000000, found the "
       "number 0"},
      {"\"times\": 3", "\"time\": 3",
       "m.json:11:40 (byte 594): at repeat: expected one of the keys first, last, times, input, "
       "found the key \"time\" (did you mean \"times\"?)"},
      {"\"last\": \"y\"", "\"last\": \"a\"",
       "m.json:11:35 (byte 589): at repeat.last: expected an op whose output has the shape of the "
       "block's input x [4, 8], found a of shape [4, 16]"},
      {"\"inputs\": [\"y\"]", "\"inputs\": [\"a\"]",
       "m.json:10:58 (byte 547): at ops[3].inputs[0]: expected a tensor from outside the repeated "
       "block, or its output (y), found \"a\" (inside the block h .. y)"},
      {"\"elementwise\": \"relu\", \"inputs\": [\"h\"]",
       "\"elementwise\": \"mul\", \"inputs\": [\"h\", \"m\"]",
       "m.json:11:12 (byte 570): at repeat: expected \"input\": the block reads several tensors "
       "from outside it (x, m); name the one the previous repetition's output replaces, found no "
       "\"input\""},
      {"\"times\": 3", "\"times\": 3, \"input\": \"W1\"",
       "m.json:11:61 (byte 615): at repeat.input: expected a tensor the block reads from outside "
       "it (one of x), found the string \"W1\""},
      {"\"elementwise\": \"relu\", \"inputs\": [\"h\"]",
       "\"elementwise\": \"relu\", \"flops\": 5, \"inputs\": [\"h\"]",
       "m.json:8:56 (byte 411): at ops[1].flops: expected \"flops\" on einsums only (other ops "
       "take flops_per_element), found it on elementwise"},
      {"\"x\": {\"shape\": [4, 8]}", "\"x\": {\"shape\": [1099511627776, 8192]}",
       "m.json:4:29 (byte 135): at tensors.x.shape: expected a tensor of at most 2^53 bytes, found "
       "1099511627776 x 8192 elements of 2 bytes"},
      // The magnitude check prices an einsum's "flops" and the efficiencies as the generator
      // does (it read the shape's points at the peak, and the generator then refused 1e30
      // FLOPs without a position).
      {"\"einsum\": \"bd,de->be\"", "\"einsum\": \"bd,de->be\", \"flops\": 1e30",
       "m.json:7:34 (byte 319): at ops[0].einsum: expected a model whose costs fit 64-bit "
       "nanoseconds (at most 1e+17 ns of communication and compute in all), found an op of "
       "1e+30 floating-point operations at 1 TFLOP/s (about 1e+27 ns)"},
      {"\"training\": true", "\"training\": true, \"sequence\": \"q\"",
       "m.json:3:32 (byte 119): at sequence: expected a dimension letter used by the model, found "
       "the string \"q\""},
  };
  for (const Mistake& m : mistakes) {
    CAPTURE(m.to);
    CHECK(error_of(repeated(m.from, m.to)) == m.message);
  }
  // 10^14 FLOPs fit at the peak of 1 TFLOP/s, not at an efficiency of 10^-6.
  std::string slow =
      repeated("\"einsum\": \"bd,de->be\"", "\"einsum\": \"bd,de->be\", \"flops\": 1e14");
  CHECK(read_model("m.json", slow).is_ok());
  slow.replace(slow.find("\"device_tflops\": 1"), 18,
               "\"device_tflops\": 1, \"matmul_efficiency\": 1e-6");
  CHECK(error_of(slow).find("at ops[0].einsum: expected a model whose costs fit 64-bit nanoseconds "
                            "(at most 1e+17 ns of communication and compute in all), found an op "
                            "of 1e+14 floating-point operations at 1e-06 TFLOP/s (about 1e+17 "
                            "ns)") != std::string::npos);
  // Sixteen outputs of 2^52 bytes each pass one by one, the seventeenth takes the model
  // beyond 2^56 bytes in all (so that 16 bytes per parameter and peak sums fit in int64).
  std::string chain = R"({"mesh": {"shape": [2], "bandwidth_GBps": 1, "latency_us": 1,
      "device_tflops": 1}, "tensors": {"x": {"shape": [33554432, 67108864], "dims": "bd"}},
      "ops": [)";
  for (int i = 0; i < 17; ++i) {
    chain += (i ? ", " : "") + std::string("{\"name\": \"y") + std::to_string(i) +
             "\", \"elementwise\": \"relu\", \"inputs\": [\"" +
             (i ? "y" + std::to_string(i - 1) : std::string("x")) + "\"]}";
  }
  chain += "]}";
  CHECK(error_of(chain).find("at ops[15].elementwise: expected tensors of at most 2^56 bytes "
                             "in all, found 76561193665298432 bytes up to here") !=
        std::string::npos);
  // "flops" on an einsum overrides its work, for the forward and for each input gradient.
  const Result<ModelSpec> read = read_model(
      "r.json", repeated("\"einsum\": \"bd,de->be\"", "\"einsum\": \"bd,de->be\", \"flops\": 64"));
  REQUIRE(read.is_ok());
  const Result<Graph> graph = build_graph(read.value());
  REQUIRE(graph.is_ok());
  for (const GraphNode& node : graph.value().nodes) {
    if (node.op == "h" && node.kind != NodeKind::kGradSum)
      CHECK_MESSAGE(node.flops == 64, node.name);
  }
}

}  // namespace
}  // namespace shardlab::teach
