// certify_bound(): exact integer certification of Lagrangian duals.
#include "core/sharding/bound.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "core/sharding/search/lagrangian.h"
#include "core/sharding/search/message_passing.h"
#include "helpers.h"

namespace shardlab {
namespace {

Presolved example_core() { return std::move(presolve(test::example_problem())).value(); }

TEST_CASE("zero multipliers and messages give the separable bound") {
  const Presolved pre = example_core();
  const CoreModel& core = pre.core();
  CHECK(certify_bound(core, {}, {}, {}) == separable_bound(core));
  CHECK(separable_bound(core) + core.constant <= 445);
}

TEST_CASE("bad multipliers are clamped or refused, never trusted") {
  const Presolved pre = example_core();
  const CoreModel& core = pre.core();
  std::vector<double> lambda(core.num_times(), std::numeric_limits<double>::quiet_NaN());
  CHECK(certify_bound(core, lambda, {}, {}) == separable_bound(core));  // NaN -> 0
  std::vector<double> negative(core.num_times(), -5.0);
  CHECK(certify_bound(core, negative, {}, {}) == separable_bound(core));  // clamped to 0
  if (core.num_times() > 0) {
    std::vector<double> huge(core.num_times(), 1e30);
    CHECK(certify_bound(core, huge, {}, {}) == kNoBound);
  }
}

TEST_CASE("message passing with multipliers reaches the example's optimum as a bound") {
  const Presolved pre = example_core();
  const CoreModel& core = pre.core();
  MessagePassing mp(core);
  Lagrangian lagrangian(core);
  const std::vector<int64_t>& begins = mp.message_begins();
  int64_t best = kNoBound;
  std::vector<double> unary;
  for (int round = 0; round < 200; ++round) {
    lagrangian.penalised_unary(&unary);
    mp.set_unary(unary);
    mp.run(5);
    const double dual = mp.dual() - lagrangian.capacity_term();
    const int64_t bound = certify_bound(core, lagrangian.lambda(), mp.messages(), begins);
    REQUIRE(bound + core.constant <= 445);
    best = std::max(best, bound);
    std::vector<int32_t> plan;
    mp.decode(&plan);
    lagrangian.update(plan, dual, 445.0 - static_cast<double>(core.constant));
  }
  CHECK(best + core.constant >= 400);  // far above the separable bound
}

TEST_CASE("stalled subgradient steps restart from the best multipliers") {
  // One node at one core time: strategy 1 uses 20 of a capacity of 10, so
  // its subgradient moves the multiplier up.
  CoreModel core;
  core.strategy_begin = {0, 2};
  core.unary = {5, 0};
  core.adj_begin = {0, 0};
  core.matrix_begin = {0};
  core.term_begin = {0, 1};
  core.term_lo = {0};
  core.term_hi = {1};
  core.term_usage_begin = {0};
  core.term_usage = {5, 20};
  core.capacity = {10};
  const std::vector<int32_t> heavy{1};
  Lagrangian lagrangian(core);
  lagrangian.set_patience(1);
  const std::vector<double> zero{0.0};
  lagrangian.update(heavy, 10.0, 100.0);  // the best dual, at lambda = 0
  REQUIRE(lagrangian.lambda()[0] > 0);
  // Each worse dual halves the step factor: 1/2, 1/4, ..., 1/512 ...
  for (int round = 0; round < 9; ++round) lagrangian.update(heavy, 5.0, 100.0);
  CHECK(lagrangian.step_factor() == doctest::Approx(1.0 / 512));
  CHECK(lagrangian.lambda()[0] > 0);
  // ... and below 1e-3 the method restarts where the dual was best.
  lagrangian.update(heavy, 5.0, 100.0);
  CHECK(lagrangian.step_factor() == 0.25);
  CHECK(lagrangian.lambda() == zero);
}

}  // namespace
}  // namespace shardlab
