// Property tests on seeded random instances: the incremental evaluator agrees
// with evaluate() after every one-node change, and the solver's plan is
// feasible whenever the least-usage plan is.
#include <doctest/doctest.h>

#include "core/rng.h"
#include "core/sharding/evaluate.h"
#include "core/sharding/search/greedy.h"
#include "core/sharding/solver.h"

namespace shardlab {
namespace {

// A random instance: up to `max_nodes` nodes with 1-4 strategies, random
// intervals on [0, 20), random edges, some forbidden entries, and a limit
// between the least-usage peak and the sum of the largest usages.
Problem random_instance(Rng& rng, int32_t max_nodes) {
  ProblemBuilder b;
  const int32_t n = 1 + static_cast<int32_t>(rng.below(static_cast<uint32_t>(max_nodes)));
  for (int32_t v = 0; v < n; ++v) {
    const int32_t k = 1 + static_cast<int32_t>(rng.below(4));
    std::vector<Cost> costs;
    std::vector<Usage> usages;
    for (int32_t s = 0; s < k; ++s) {
      costs.push_back(rng.below(10) == 0 ? kForbidden : rng.below(100));
      usages.push_back(rng.below(20));
    }
    const Time lo = rng.below(20);
    b.add_node(lo, lo + rng.below(8), costs, usages);
  }
  const int32_t m = static_cast<int32_t>(rng.below(static_cast<uint32_t>(2 * n)));
  for (int32_t e = 0; e < m && n > 1; ++e) {
    const int32_t u = static_cast<int32_t>(rng.below(static_cast<uint32_t>(n)));
    int32_t v = static_cast<int32_t>(rng.below(static_cast<uint32_t>(n - 1)));
    if (v >= u) ++v;
    std::vector<Cost> costs;
    const int64_t size =
        static_cast<int64_t>(b.problem.strategy_begin[u + 1] - b.problem.strategy_begin[u]) *
        (b.problem.strategy_begin[v + 1] - b.problem.strategy_begin[v]);
    for (int64_t i = 0; i < size; ++i)
      costs.push_back(rng.below(8) == 0 ? kForbidden : rng.below(50));
    b.add_edge(u, v, costs);
  }
  Problem draft = std::move(ProblemBuilder(b).build()).value();
  const int64_t floor = min_possible_peak(draft);
  b.set_usage_limit(floor + static_cast<int64_t>(rng.below(30)));
  return std::move(b.build()).value();
}

TEST_CASE("incremental evaluation equals evaluate() after random one-node changes") {
  Rng rng(2024);
  for (int instance = 0; instance < 200; ++instance) {
    const Problem p = random_instance(rng, 12);
    std::vector<int32_t> plan(p.num_nodes());
    for (int32_t v = 0; v < p.num_nodes(); ++v) {
      plan[v] = static_cast<int32_t>(rng.below(static_cast<uint32_t>(p.num_strategies(v))));
    }
    IncrementalEvaluator inc(p, plan);
    for (int move = 0; move < 30; ++move) {
      const int32_t v = static_cast<int32_t>(rng.below(static_cast<uint32_t>(p.num_nodes())));
      const int32_t s = static_cast<int32_t>(rng.below(static_cast<uint32_t>(p.num_strategies(v))));
      const IncrementalEvaluator::Delta d = inc.delta(v, s);
      const int64_t cost_before = inc.cost();
      const int64_t forbidden_before = inc.forbidden_count();
      inc.set(v, s);
      plan[v] = s;
      const Evaluation e = evaluate(p, plan);
      CAPTURE(instance);
      CAPTURE(move);
      REQUIRE(inc.cost() == static_cast<int64_t>(e.cost));
      REQUIRE(inc.forbidden_count() == e.forbidden_count);
      REQUIRE(inc.peak() == static_cast<int64_t>(e.peak_usage));
      REQUIRE(cost_before + d.cost == inc.cost());
      REQUIRE(forbidden_before + d.forbidden == inc.forbidden_count());
      REQUIRE(d.peak == inc.peak());
      REQUIRE(inc.feasible() == e.feasible());
    }
  }
}

TEST_CASE("the solver's plan is feasible whenever the least-usage plan is") {
  Rng rng(77);
  int feasible_starts = 0;
  for (int instance = 0; instance < 150; ++instance) {
    const Problem p = random_instance(rng, 10);
    const Evaluation start = evaluate(p, min_usage_assignment(p));
    Options options;
    options.seed = instance;
    const SolveResult result = solve(p, options, 5.0);
    CAPTURE(instance);
    if (start.feasible()) {
      ++feasible_starts;
      REQUIRE(result.best.found());
      CHECK(result.best.cost <= static_cast<int64_t>(start.cost));
    }
    if (result.best.found()) {
      const Evaluation check = evaluate(p, result.best.solution);
      REQUIRE(check.feasible());
      CHECK(static_cast<int64_t>(check.cost) == result.best.cost);
      CHECK(result.lower_bound <= result.best.cost);
    }
  }
  CHECK(feasible_starts > 30);
}

}  // namespace
}  // namespace shardlab
