// The pipeline expansion and the event simulator on hand-built orders: arcs
// and delays, the integer scales of split stages, overlapped pairs, memory
// profiles, deadlocks and malformed orders.
#include <doctest/doctest.h>

#include "core/pipeline/model.h"
#include "core/pipeline/simulate.h"

namespace shardlab::pipeline {
namespace {

Problem uniform(int32_t p, int32_t m, double f, double b, double w) {
  Problem problem;
  problem.devices = p;
  problem.microbatches = m;
  StageSpec s;
  s.f = f;
  s.b = b;
  s.w = w;
  problem.stages = {s};
  return problem;
}

Expansion expand_ok(const Problem& problem, PlacementKind kind, int32_t chunks = 2) {
  Placement placement;
  placement.kind = kind;
  placement.chunks = chunks;
  Result<Expansion> e = expand(problem, placement);
  REQUIRE_MESSAGE(e.is_ok(), e.status().message());
  return std::move(e).value();
}

// All forwards, then B and W of every micro-batch (GPipe), built by hand.
Order all_forward_first(const Expansion& e) {
  Order order;
  order.unit_device.resize(e.num_units());
  order.device_slots.assign(e.devices, {});
  for (int32_t u = 0; u < e.num_units(); ++u) order.unit_device[u] = e.units[u].devices[0];
  for (int32_t u = 0; u < e.num_units(); ++u) {
    auto& slots = order.device_slots[order.unit_device[u]];
    for (int32_t k = 0; k < e.microbatches; ++k) slots.push_back({e.op_of(k, u, OpKind::kF)});
  }
  for (int32_t u = e.num_units() - 1; u >= 0; --u) {
    auto& slots = order.device_slots[order.unit_device[u]];
    for (int32_t k = 0; k < e.microbatches; ++k) {
      slots.push_back({e.op_of(k, u, OpKind::kB)});
      slots.push_back({e.op_of(k, u, OpKind::kW)});
    }
  }
  return order;
}

TEST_CASE("pipeline simulate: all-forward-first on a linear chain") {
  Problem problem = uniform(3, 4, 1, 2, 1);
  problem.comm = 0.5;
  const Expansion e = expand_ok(problem, PlacementKind::kLinear);
  CHECK(e.stages == 3);
  CHECK(e.time_scale == 10);
  CHECK(e.num_ops() == 36);
  CHECK(e.arcs.size() == 4u * (2 + 1 + 2 + 3));
  Result<Timeline> t = simulate(e, all_forward_first(e));
  REQUIRE(t.is_ok());
  const Metrics m = measure(e, t.value());
  // Forward front: device 2 starts F0 at 2 * (1 + 0.5) = 3 and runs 4 F's
  // back to back (each waits 1.5 after the previous device's F, which arrive
  // every 1). Then the last device runs B+W of 4 micro-batches: 4 * 3 = 12
  // from t = 7; device 1 gets B0 at 7 + 2 + 0.5 = 9.5 and finishes at 21.5,
  // device 0 gets B0 at 12 and finishes at 24.
  CHECK(m.makespan == 240);
  CHECK(m.busy == std::vector<int64_t>{160, 160, 160});
  CHECK(m.global_idle == std::vector<int64_t>{80, 80, 80});
  CHECK(m.peak_activation == std::vector<int64_t>{4, 4, 4});
  CHECK(m.memory[0].activation.back() == 0);
}

TEST_CASE("pipeline simulate: interleaved split keeps ticks exact") {
  Problem problem = uniform(2, 2, 1, 1, 1);
  const Expansion e = expand_ok(problem, PlacementKind::kInterleaved, 3);
  CHECK(e.stages == 6);
  CHECK(e.time_scale == 3);
  CHECK(e.ops[0].duration == 1);  // a device's share of 1 split in 3 chunks: 1/3 = 1 tick
  CHECK(e.mem_scale == 3);
  CHECK(e.ops[0].alloc == 1);
  CHECK(e.units[3].devices == std::vector<int32_t>{1});
  CHECK(e.units[3].chunk == 1);
}

TEST_CASE("pipeline simulate: a pair runs for the F&B time and a bad order is named") {
  Problem problem = uniform(2, 2, 1, 1, 1);
  problem.stages[0].fb = 1.5;
  const Expansion e = expand_ok(problem, PlacementKind::kBidirectional);
  CHECK(e.copies == 2);
  CHECK(e.microbatch_copy == std::vector<int32_t>{0, 1});
  // Copy 0 of stage 0 on device 0, copy 1 of stage 0 on device 1.
  CHECK(e.units[e.unit_at(1, 0)].devices == std::vector<int32_t>{1});
  Order order;
  order.unit_device = {0, 1, 1, 0};
  order.device_slots.assign(2, {});
  const int32_t u00 = e.unit_at(0, 0), u01 = e.unit_at(0, 1);
  const int32_t u10 = e.unit_at(1, 0), u11 = e.unit_at(1, 1);
  using K = OpKind;
  // Micro-batch 0 runs down (copy 0), micro-batch 1 up (copy 1).
  order.device_slots[0] = {{e.op_of(0, u00, K::kF)}, {e.op_of(1, u11, K::kF)},
                           {e.op_of(1, u11, K::kB)}, {e.op_of(1, u11, K::kW)},
                           {e.op_of(0, u00, K::kB)}, {e.op_of(0, u00, K::kW)}};
  order.device_slots[1] = {{e.op_of(1, u10, K::kF)}, {e.op_of(0, u01, K::kF)},
                           {e.op_of(0, u01, K::kB)}, {e.op_of(0, u01, K::kW)},
                           {e.op_of(1, u10, K::kB)}, {e.op_of(1, u10, K::kW)}};
  Result<Timeline> t = simulate(e, order);
  REQUIRE(t.is_ok());
  CHECK(e.time_scale == 10);
  CHECK(measure(e, t.value()).makespan == 60);
  // An F paired with its own micro-batch's B waits for itself.
  Order bad = order;
  bad.device_slots[1] = {{e.op_of(1, u10, K::kF)},
                         {e.op_of(0, u01, K::kF), e.op_of(0, u01, K::kB), SlotKind::kPair},
                         {e.op_of(1, u10, K::kB)},
                         {e.op_of(1, u10, K::kW)}};
  Result<Timeline> dead = simulate(e, bad);
  REQUIRE_FALSE(dead.is_ok());
  CHECK(dead.status().message().find("deadlocks") != std::string::npos);
  Order missing = order;
  missing.device_slots[0].pop_back();
  CHECK(simulate(e, missing).status().message() == "the order never runs W0 stage 0 copy 0");
}

}  // namespace
}  // namespace shardlab::pipeline
