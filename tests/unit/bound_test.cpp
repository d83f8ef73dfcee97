// certify_bound(): exact integer certification of Lagrangian duals.
#include "core/bound.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "core/search/lagrangian.h"
#include "core/search/message_passing.h"
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
  std::vector<int64_t> begins;
  for (int32_t e = 0; e < core.num_edges(); ++e) {
    begins.push_back(mp.message_begin(e, 0));
    begins.push_back(mp.message_begin(e, 1));
  }
  begins.push_back(static_cast<int64_t>(mp.messages().size()));
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

}  // namespace
}  // namespace shardlab
