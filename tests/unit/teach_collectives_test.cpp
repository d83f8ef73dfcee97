// The teaching and plan labs' cost model: alpha-beta prices of the four
// collectives, hierarchical over two axes (exact nanoseconds on a 2x4 mesh
// by hand), the efficiencies, the plan lab's entry points (collective_ns over
// links, p2p_ns), the re-partitioning between layouts (which collective, how
// many bytes), the switchable presets, node costs of the textbook matmul
// strategies, and ZeRO's per-parameter accounting.
#include <doctest/doctest.h>

#include <cmath>

#include "core/sharding/types.h"
#include "core/teach/collectives.h"
#include "core/teach/strategies.h"
#include "teach_support.h"

namespace shardlab::teach {
namespace {

MeshSpec mesh_2x4() {
  MeshSpec m;
  m.shape = {2, 4};
  m.axes = {"data", "model"};
  m.bandwidth_GBps = {25, 400};
  m.latency_us = {10, 2};
  m.device_tflops = 100;
  return m;
}

std::vector<std::string> kinds(const std::vector<Collective>& list) {
  std::vector<std::string> out;
  for (const Collective& c : list) {
    std::string axes;
    for (int32_t a : c.axes) axes += std::to_string(a);
    out.push_back(std::string(collective_name(c.kind)) + "@" + axes + ":" +
                  std::to_string(c.bytes));
  }
  return out;
}

TEST_CASE("teach collectives: alpha-beta prices, per axis and per group") {
  const CostTable costs(mesh_2x4(), CostModel::kAlphaBeta);
  // all-reduce of 4e6 bytes on 4 devices at 400 GB/s: 2 * 3/4 * 4e6 / 400 + 2000 ns.
  CHECK(costs.collective_ns(CollectiveKind::kAllReduce, {1}, 4'000'000) == 17000);
  CHECK(costs.collective_ns(CollectiveKind::kAllGather, {1}, 4'000'000) == 9500);
  CHECK(costs.collective_ns(CollectiveKind::kReduceScatter, {1}, 4'000'000) == 9500);
  CHECK(costs.collective_ns(CollectiveKind::kAllToAll, {1}, 4'000'000) == 9500);
  CHECK(CostTable(mesh_2x4(), CostModel::kBandwidth)
            .collective_ns(CollectiveKind::kAllReduce, {1}, 4'000'000) == 15000);
  CHECK(costs.compute_ns(2e9, 8) == 2500);
  CHECK(CostTable(mesh_2x4(), CostModel::kCommunication).compute_ns(2e9, 8) == 0);
}

TEST_CASE("teach collectives: over two axes, hierarchical (fast axis first), by hand") {
  const CostTable costs(mesh_2x4(), CostModel::kAlphaBeta);
  // all-reduce of 4e6 bytes over data (2 at 25 GB/s, 10 us) x model (4 at 400 GB/s, 2 us):
  // reduce-scatter on model, 3/4 * 4e6 / 400 + 2000 = 9500; all-reduce of the 1e6-byte shard on
  // data, 2 * 1/2 * 1e6 / 25 + 10000 = 50000; all-gather on model, 9500.
  CHECK(costs.collective_ns(CollectiveKind::kAllReduce, {0, 1}, 4'000'000) == 69000);
  // The flat ring through all 8 devices at 25 GB/s: 2 * 7/8 * 4e6 / 25 + 10000 = 290000, 4.2x.
  // all-gather (4e6 gathered): on data first, 1/2 * 1e6 / 25 + 10000 = 30000, then on model,
  // 3/4 * 4e6 / 400 + 2000 = 9500. Reduce-scatter: the same two steps the other way round.
  CHECK(costs.collective_ns(CollectiveKind::kAllGather, {0, 1}, 4'000'000) == 39500);
  CHECK(costs.collective_ns(CollectiveKind::kReduceScatter, {0, 1}, 4'000'000) == 39500);
  // all-to-all: an exchange inside the node (9500), then across (1/2 * 4e6 / 25 + 10000).
  CHECK(costs.collective_ns(CollectiveKind::kAllToAll, {0, 1}, 4'000'000) == 99500);
  // Without latencies, the all-reduce's bandwidth terms alone: 2 * 7500 + 40000.
  CHECK(CostTable(mesh_2x4(), CostModel::kBandwidth)
            .collective_ns(CollectiveKind::kAllReduce, {0, 1}, 4'000'000) == 55000);
}

TEST_CASE("teach collectives: the two-axis gradient all-reduce of transformer.json, old and new") {
  // W1's gradient (1024 x 4096 x 2 bytes) all-reduced over data (2, 25 GB/s, 10 us) and model
  // (4, 450 GB/s, 5 us). The earlier flat ring at the slowest bandwidth and largest latency:
  // 2 * 7/8 * 8388608 / 25 + 10000 = 597,203 ns. Hierarchical: 2 * (3/4 * 8388608 / 450 + 5000)
  // + 2 * 1/2 * 2097152 / 25 + 10000 = 37,962 + 93,886 = 131,848 ns: 4.53 times less.
  const int64_t bytes = 1024 * 4096 * 2;
  CHECK(collective_ns(CollectiveKind::kAllReduce, bytes, {{2, 25, 10}, {4, 450, 5}}) == 131848);
  CHECK(std::llround(2.0 * 7 / 8 * bytes / 25 + 10000) == 597203);
}

TEST_CASE("teach collectives: the plan lab's entry points and the efficiencies") {
  // Levels in any order (sorted by bandwidth inside); a level of one device is skipped.
  CHECK(collective_ns(CollectiveKind::kAllReduce, 4'000'000, {{2, 25, 10}, {4, 400, 2}}) == 69000);
  CHECK(collective_ns(CollectiveKind::kAllReduce, 4'000'000, {{4, 400, 2}, {2, 25, 10}}) == 69000);
  CHECK(collective_ns(CollectiveKind::kAllReduce, 4'000'000, {{1, 1, 1000}, {4, 400, 2}}) == 17000);
  CHECK(collective_ns(CollectiveKind::kAllGather, 4'000'000, {{1, 1, 1000}}) == 0);
  CHECK(collective_ns(CollectiveKind::kAllReduce, 4'000'000, {}) == 0);
  // Three levels: reduce-scatter 3/4 * 8e6 / 400 + 2 over 4, 1/2 * 2e6 / 100 + 5 over 2, then
  // all-reduce of 1e6 over 2 at 25 GB/s; doubled below the top level.
  CHECK(collective_ns(CollectiveKind::kAllReduce, 8'000'000,
                      {{4, 400, 2}, {2, 100, 5}, {2, 25, 10}}) ==
        2 * (15000 + 2000) + 2 * (10000 + 5000) + (40000 + 10000));
  // Point to point: bytes / bandwidth + latency.
  CHECK(p2p_ns(4'000'000, {1, 25, 10}) == 170000);
  // An axis whose devices span two levels prices them hierarchically.
  MeshSpec spread = mesh_2x4();
  spread.shape = {8};
  spread.axes = {"ep"};
  spread.bandwidth_GBps = {1};
  spread.latency_us = {1000};
  spread.axis_levels = {{{4, 400, 2}, {2, 25, 10}}};
  CHECK(CostTable(spread, CostModel::kAlphaBeta)
            .collective_ns(CollectiveKind::kAllReduce, {0}, 4'000'000) == 69000);
  // Efficiencies: half the bandwidth doubles the bandwidth term, half the FLOP/s doubles compute.
  MeshSpec slow = mesh_2x4();
  slow.comm_efficiency = 0.5;
  slow.matmul_efficiency = 0.5;
  const CostTable half(slow, CostModel::kAlphaBeta);
  CHECK(half.collective_ns(CollectiveKind::kAllReduce, {1}, 4'000'000) == 32000);
  CHECK(half.compute_ns(2e9, 8) == 5000);
  // A time that does not fit in int64 is reported as forbidden, never wrapped.
  CHECK(collective_ns(CollectiveKind::kAllReduce, int64_t{1} << 62, {{8, 1e-6, 0}}) == kForbidden);
}

TEST_CASE("teach collectives: re-partitioning names its collectives and moves the right bytes") {
  const MeshSpec mesh = mesh_2x4();
  const CostTable costs(mesh, CostModel::kAlphaBeta);
  const TensorShape shape{{64, 128}, 2};  // 16384 bytes
  std::vector<Collective> out;
  const Layout rep = {kReplicated, kReplicated};
  // Slicing is free.
  CHECK(reshard(costs, shape, rep, {0, 1}, "t", &out) == 0);
  CHECK(out.empty());
  // Dropping a split gathers the whole tensor along that axis.
  CHECK(reshard(costs, shape, {kReplicated, 0}, rep, "t", &out) > 0);
  CHECK(kinds(out) == std::vector<std::string>{"all-gather@1:16384"});
  out.clear();
  // Moving a split from one dimension to another is an all-to-all of the shard.
  reshard(costs, shape, {kReplicated, 0}, {kReplicated, 1}, "t", &out);
  CHECK(kinds(out) == std::vector<std::string>{"all-to-all@1:4096"});
  out.clear();
  // Partial sums: all-reduce when the consumer wants them whole...
  reshard(costs, shape, {kPartial, kReplicated}, rep, "t", &out);
  CHECK(kinds(out) == std::vector<std::string>{"all-reduce@0:16384"});
  out.clear();
  // ...reduce-scatter onto ZeRO's flat shard or onto a split dimension.
  reshard(costs, shape, {kPartial, 1}, {kFlat, 1}, "t", &out);
  CHECK(kinds(out) == std::vector<std::string>{"reduce-scatter@0:4096"});
  out.clear();
  // Reduce-scatter first (fewer bytes), then gather what the consumer needs whole.
  reshard(costs, shape, {kPartial, kPartial}, {0, kReplicated}, "t", &out);
  CHECK(kinds(out) == std::vector<std::string>{"reduce-scatter@0:16384", "all-reduce@1:8192"});
  out.clear();
  // A consumer that adds partial terms itself (a gradient sum) takes anything, for free.
  CHECK(reshard(costs, shape, {kPartial, 1}, {kPartial, 1}, "t", &out) == 0);
  CHECK(reshard(costs, shape, {0, kReplicated}, {kPartial, kReplicated}, "t", &out) == 0);
  CHECK(out.empty());
  reshard(costs, shape, {0, 1}, rep, "t", &out);
  CHECK(kinds(out) == std::vector<std::string>{"all-gather@01:16384"});
  CHECK(out[0].ns == costs.collective_ns(CollectiveKind::kAllGather, {0, 1}, 16384));
}

TEST_CASE("teach collectives: the matmul strategies of the slides cost what the slides say") {
  const ModelSpec model = test::teach_model("mm.json", R"({
    "mesh": {"shape": [4], "bandwidth_GBps": 100, "latency_us": 5, "device_tflops": 100},
    "tensors": {"A": {"shape": [1024, 512]}, "B": {"shape": [512, 2048], "parameter": true}},
    "ops": [{"name": "C", "einsum": "ik,kj->ij", "inputs": ["A", "B"]}]})");
  const Result<Graph> graph = build_graph(model);
  REQUIRE(graph.is_ok());
  const GraphNode& mm = graph.value().nodes[2];
  CHECK(mm.letters == "ikj");
  const std::vector<Strategy> list = enumerate_strategies(mm, model);
  std::vector<std::string> names;
  for (const Strategy& s : list) names.push_back(strategy_name(mm, s, model.mesh));
  CHECK(names == std::vector<std::string>{"replicated", "i:x", "k:x", "j:x"});
  const CostTable costs(model.mesh, model.cost_model);
  const double flops = 2.0 * 1024 * 512 * 2048;
  // Splitting i or j: compute / 4 and nothing else.
  CHECK(node_cost(mm, list[1], model, costs).total_ns == std::llround(flops / 4 / 1e5));
  CHECK(node_cost(mm, list[3], model, costs).collectives.empty());
  // Splitting k: compute / 4 plus an all-reduce of the whole output (partial sums).
  const NodeCost k = node_cost(mm, list[2], model, costs);
  REQUIRE(k.collectives.size() == 1);
  CHECK(k.collectives[0].kind == CollectiveKind::kAllReduce);
  CHECK(k.collectives[0].bytes == 1024 * 2048 * 2);
  CHECK(k.collectives[0].what == "partial sums over k");
  CHECK(k.usage_bytes == 1024 * 2048 * 2);
  // Replicated: the whole product on every device.
  CHECK(node_cost(mm, list[0], model, costs).compute_ns == std::llround(flops / 1e5));
  // Operand layouts: i:x needs A split by rows and B whole.
  CHECK(operand_layout(mm, list[1], 0) == Layout{0});
  CHECK(operand_layout(mm, list[1], 1) == Layout{kReplicated});
  CHECK(operand_layout(mm, list[2], 1) == Layout{0});
}

TEST_CASE("teach collectives: ZeRO's bytes per parameter") {
  ModelSpec model;
  model.training = true;
  // 2 + 2 + 12 bytes per parameter, on N = 8.
  CHECK(parameter_bytes(800, 1, 1, 0, model, 2) == 16 * 800);
  CHECK(parameter_bytes(800, 1, 8, 1, model, 2) == 4 * 800 + 12 * 800 / 8);
  CHECK(parameter_bytes(800, 1, 8, 2, model, 2) == 2 * 800 + 14 * 800 / 8);
  CHECK(parameter_bytes(800, 1, 8, 3, model, 2) == 16 * 800 / 8);
  CHECK(parameter_bytes(800, 4, 2, 3, model, 2) == 16 * 200 / 2);  // after a 4-way split
  model.training = false;
  CHECK(parameter_bytes(800, 1, 8, 0, model, 2) == 1600);
  CHECK(parameter_bytes(800, 1, 8, 3, model, 2) == 200);
}

TEST_CASE("teach collectives: strategy names parse back, errors list the choices") {
  const ModelSpec model = test::teach_model("t.json", test::teach_example_text("transformer.json"));
  const Result<Graph> graph = build_graph(model);
  REQUIRE(graph.is_ok());
  const GraphNode* wq = nullptr;
  for (const GraphNode& n : graph.value().nodes) {
    if (n.name == "Wq") wq = &n;
  }
  REQUIRE(wq);
  const std::vector<Strategy> list = enumerate_strategies(*wq, model);
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string name = strategy_name(*wq, list[i], model.mesh);
    const Result<int32_t> back = find_strategy(*wq, list, name, model.mesh);
    REQUIRE_MESSAGE(back.is_ok(), name);
    CHECK(back.value() == static_cast<int32_t>(i));
  }
  CHECK(find_strategy(*wq, list, "h:model,zero2", model.mesh).is_ok());
  CHECK(find_strategy(*wq, list, "m:data+model", model.mesh).is_ok());
  const Result<int32_t> bad = find_strategy(*wq, list, "h:gpu", model.mesh);
  REQUIRE_FALSE(bad.is_ok());
  CHECK(bad.status().message().rfind("'Wq=h:gpu': no mesh axis 'gpu'; its strategies are "
                                     "replicated, zero1, zero2, m:model, ",
                                     0) == 0);
}

}  // namespace
}  // namespace shardlab::teach
