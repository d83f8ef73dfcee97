// Relink: component-wise recombination under memory (core/sharding/search/relink.h).
#include "core/sharding/search/relink.h"

#include <doctest/doctest.h>

namespace shardlab {
namespace {

// Four nodes with two strategies each, edges 0-1 and 2-3 (zero tables),
// every node live at the one core time. Plan [0,0,0,0] uses 10 of 10.
// Strategy 1 of node 0 saves 10 but needs 5 more memory; strategy 1 of
// node 2 frees 5 and costs `payer_cost`.
CoreModel two_groups(int64_t payer_cost) {
  CoreModel core;
  core.strategy_begin = {0, 2, 4, 6, 8};
  core.unary = {10, 0, 0, 0, 0, payer_cost, 0, 0};
  core.edge_u = {0, 2};
  core.edge_v = {1, 3};
  core.edge_matrix = {0, 0};
  core.matrix_begin = {0, 4};
  core.matrix_cost = {0, 0, 0, 0};
  core.adj_begin = {0, 1, 2, 3, 4};
  core.adj_edge = {0, 0, 1, 1};
  core.term_begin = {0, 1, 2, 3, 4};
  core.term_lo = {0, 0, 0, 0};
  core.term_hi = {1, 1, 1, 1};
  core.term_usage_begin = {0, 2, 4, 6};
  core.term_usage = {5, 10, 0, 0, 5, 0, 0, 0};
  core.capacity = {10};
  return core;
}

// Recombines the incumbent [0,0,0,0] of `core` with a second plan.
struct FromZero {
  explicit FromZero(const CoreModel& model) : relink(model), incumbent(model, {0, 0, 0, 0}) {}
  bool operator()(const std::vector<int32_t>& other) {
    return relink.recombine(incumbent, other, &out, &work);
  }
  Relink relink;
  CoreState incumbent;
  std::vector<int32_t> out;
  int64_t work = 1000000;
};

TEST_CASE("a gain that needs memory is paid for by a distant component that frees it") {
  const CoreModel core = two_groups(1);
  FromZero recombine(core);
  REQUIRE(recombine.incumbent.feasible());
  CHECK(recombine.incumbent.cost() == 10);
  REQUIRE(recombine({1, 1, 1, 1}));
  CHECK(recombine.out == std::vector<int32_t>{1, 1, 1, 1});
  const CoreState mixed(core, recombine.out);
  CHECK(mixed.feasible());
  CHECK(mixed.cost() == 1);
  CHECK(recombine.work < 1000000);
}

TEST_CASE("the pair is refused when the payer costs as much as the gain") {
  const CoreModel core = two_groups(10);
  FromZero recombine(core);
  CHECK_FALSE(recombine({1, 1, 1, 1}));
  // Neither component alone helps: the gain overflows, the payer costs.
  CHECK_FALSE(recombine({1, 1, 0, 0}));
  CHECK_FALSE(recombine({0, 0, 1, 1}));
}

TEST_CASE("a gain that fits is taken alone, and a useless component is left out") {
  CoreModel core = two_groups(3);
  core.capacity = {15};  // room for node 0's heavier strategy
  FromZero recombine(core);
  REQUIRE(recombine({1, 1, 1, 1}));
  CHECK(recombine.out == std::vector<int32_t>{1, 1, 0, 0});
  CHECK(CoreState(core, recombine.out).cost() == 0);
}

TEST_CASE("a component whose change hits a forbidden entry is never taken") {
  CoreModel core = two_groups(1);
  core.capacity = {15};
  core.matrix_cost = {0, 0, 0, kForbidden};  // (1, 1) on both edges
  FromZero recombine(core);
  CHECK_FALSE(recombine({1, 1, 1, 1}));
  // Node 0 alone (node 1 kept at 0) is fine.
  REQUIRE(recombine({1, 0, 0, 0}));
  CHECK(recombine.out == std::vector<int32_t>{1, 0, 0, 0});
}

}  // namespace
}  // namespace shardlab
