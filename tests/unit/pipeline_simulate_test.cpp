// The pipeline expansion and the event simulator on hand-built orders: arcs
// and delays, the integer scales of split stages, overlapped pairs, memory
// profiles, deadlocks and malformed orders.
#include <doctest/doctest.h>

#include "core/pipeline/check.h"
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

TEST_CASE("pipeline simulate: serial links send a device's results one at a time") {
  // GPipe's order on 2 devices, 4 micro-batches, F = B = W = 1, delay 2.
  // Device 0's F's end at 1, 2, 3 and 4. In parallel they reach device 1 at
  // 3, 4, 5 and 6; on a serial link each waits for the one before: 3, 5, 7
  // and 9. Device 1 then ends its F's at 7 (10), runs B and W alternately,
  // and its B's reach device 0 two units apart, so the link back never
  // queues: device 0 ends at 18 (21).
  Problem problem = uniform(2, 4, 1, 1, 1);
  problem.comm = 2;
  const Expansion parallel = expand_ok(problem, PlacementKind::kLinear);
  problem.serial_links = true;
  const Expansion serial = expand_ok(problem, PlacementKind::kLinear);
  CHECK_FALSE(parallel.serial_links);
  CHECK(serial.serial_links);
  Result<Timeline> tp = simulate(parallel, all_forward_first(parallel));
  Result<Timeline> ts = simulate(serial, all_forward_first(serial));
  REQUIRE(tp.is_ok());
  REQUIRE(ts.is_ok());
  CHECK(measure(parallel, tp.value()).makespan == 18);
  CHECK(measure(serial, ts.value()).makespan == 21);
  std::vector<int64_t> forward_starts[2];
  for (const TimedSlot& s : ts.value().slots) {
    if (s.device == 1 && serial.ops[s.slot.op].kind == OpKind::kF) {
      forward_starts[1].push_back(s.start);
    }
  }
  for (const TimedSlot& s : tp.value().slots) {
    if (s.device == 1 && parallel.ops[s.slot.op].kind == OpKind::kF) {
      forward_starts[0].push_back(s.start);
    }
  }
  CHECK(forward_starts[0] == std::vector<int64_t>{3, 4, 5, 6});
  CHECK(forward_starts[1] == std::vector<int64_t>{3, 5, 7, 9});
  // The checker's arrivals are the times the simulator used.
  const std::vector<int64_t> at = check_schedule(serial, ts.value()).arrival;
  REQUIRE(at.size() == serial.arcs.size());
  for (int32_t k = 0; k < 4; ++k) {
    const int32_t f1 = serial.op_of(k, 1, OpKind::kF);
    const int32_t arc = serial.pred_arcs[serial.pred_begin[f1]];
    CHECK(at[arc] == 3 + 2 * k);
  }
  // Both timelines pass the checker on their own links; the parallel one
  // breaks the serial links, first at micro-batch 1.
  CHECK(check_schedule(parallel, tp.value()).valid);
  CHECK(check_schedule(serial, ts.value()).valid);
  CHECK(check_schedule(parallel, ts.value()).valid);
  const CheckReport broken = check_schedule(serial, tp.value());
  CHECK_FALSE(broken.valid);
  CHECK(broken.violation_count == 3);
  REQUIRE(!broken.violations.empty());
  CHECK(broken.violations[0] ==
        "F1 stage 1 starts at 4 but its input F1 stage 0 ends at 2 and, sent after the results "
        "before it on the link from device 0 to device 1, arrives at 5");
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

TEST_CASE("pipeline simulate: a pair gains only what the problem's F&B times give") {
  // Explicit stages of different sizes on the bidirectional placement.
  Problem problem;
  problem.devices = 2;
  problem.microbatches = 2;
  problem.uniform = false;
  StageSpec a, b;
  a.f = 3, a.b = 1, a.w = 0;
  b.f = 1, b.b = 3, b.w = 1;
  problem.stages = {a, b};
  Expansion e = expand_ok(problem, PlacementKind::kBidirectional);
  // Device 0 holds copy 0 stage 0 (a) and copy 1 stage 1 (b); pair a's F of
  // micro-batch 0 with b's backward of micro-batch 1.
  const int32_t f = e.op_of(0, e.unit_at(0, 0), OpKind::kF);
  const int32_t bw = e.op_of(1, e.unit_at(1, 1), OpKind::kB);
  CHECK(e.pair_duration(f, bw) == 3 + 3 + 1);  // no F&B given: F + B + W
  problem.stages[0].fb = 3.5;
  e = expand_ok(problem, PlacementKind::kBidirectional);
  CHECK(e.pair_duration(f, bw) == (3 + 3 + 1) * e.time_scale);  // one given: still no gain
  problem.stages[1].fb = 4.5;
  e = expand_ok(problem, PlacementKind::kBidirectional);
  CHECK(e.time_scale == 10);
  CHECK(e.pair_duration(f, bw) == 45);  // both given: the larger
}

}  // namespace
}  // namespace shardlab::pipeline
