// time_orders (plan/graph.h) on a hand-built graph: the semi-active start of
// every op from per-device orders (plan/slot_timing.h, the loop the order
// search shares), and each way a set of orders is refused, with its message.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/pipeline/plan/graph.h"

namespace shardlab::pipeline {
namespace {

// Ops 0 (2 ticks) and 2 (1 tick) in group 0 on device 0, op 1 (3 ticks) in
// group 1 on device 1; arcs 0 -> 1 with a delay of 1 and 1 -> 2 with 2.
// Op 0 holds 2 units of memory until op 2 frees them.
PlanGraph two_devices() {
  PlanGraph g;
  g.devices = 2;
  g.groups.resize(2);
  g.groups[0].devices = {0};
  g.groups[1].devices = {1};
  const int64_t durations[3] = {2, 3, 1};
  const int32_t groups[3] = {0, 1, 0};
  for (int32_t i = 0; i < 3; ++i) {
    PlanOp op;
    op.duration = durations[i];
    op.group = groups[i];
    g.ops.push_back(op);
  }
  g.ops[0].mem_peak = g.ops[0].mem_net = 2;
  g.ops[2].mem_net = -2;
  g.arcs = {{0, 1, 1}, {1, 2, 2}};
  REQUIRE(g.finalize().is_ok());
  return g;
}

std::string refusal(const PlanGraph& g, const std::vector<std::vector<int32_t>>& orders) {
  Result<PlanSchedule> timed = time_orders(g, orders);
  REQUIRE(!timed.is_ok());
  return timed.status().message();
}

TEST_CASE("pipeline plan time_orders: each op starts when its device and its inputs allow") {
  const PlanGraph g = two_devices();
  Result<PlanSchedule> timed = time_orders(g, {{0, 2}, {1}});
  REQUIRE(timed.is_ok());
  const PlanSchedule& s = timed.value();
  CHECK(s.start == std::vector<int64_t>{0, 3, 8});
  CHECK(s.device == std::vector<int32_t>{0, 1, 0});
  CHECK(s.makespan == 9);
  CHECK(check_plan(g, s).empty());
}

TEST_CASE("pipeline plan time_orders: refuses orders it cannot time, saying why") {
  PlanGraph g = two_devices();
  CHECK(refusal(g, {{2, 0}, {1}}) == "orders: deadlock (a cycle)");
  CHECK(refusal(g, {{0}, {1}}) == "orders: an op is missing");
  CHECK(refusal(g, {{0, 0}, {1}}) == "orders: an op is missing, repeated or unknown");
  CHECK(refusal(g, {{0, 2}, {1, 7}}) == "orders: an op is missing, repeated or unknown");
  g.mem_cap = {1, kNoCap};
  CHECK(refusal(g, {{0, 2}, {1}}) == "orders: memory above the cap");
  g.mem_cap = {2, kNoCap};
  CHECK(time_orders(g, {{0, 2}, {1}}).is_ok());
}

}  // namespace
}  // namespace shardlab::pipeline
