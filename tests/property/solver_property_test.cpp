// Property tests on seeded random instances of up to 10 nodes, against brute
// force: presolve is exact (round trip and same optimum), certified bounds
// never exceed the optimum, block search never breaks feasibility, exact
// region solves find the best plan of their region, the class branch and
// bound proves the optimum, and the Engine finds the optimum with a matching
// bound.
#include <doctest/doctest.h>

#include <algorithm>

#include "core/sharding/bound.h"
#include "core/sharding/evaluate.h"
#include "core/sharding/presolve.h"
#include "core/sharding/search/block_search.h"
#include "core/sharding/search/class_branch.h"
#include "core/sharding/search/exhaustive.h"
#include "core/sharding/search/lagrangian.h"
#include "core/sharding/search/message_passing.h"
#include "core/sharding/search/region_exact.h"
#include "core/sharding/solver.h"
#include "random_instances.h"

namespace shardlab {
namespace {

constexpr uint64_t kInstances = 150;

// Enumerates core plans (all of them when few, else a seeded sample).
template <typename Visit>
void for_core_plans(const CoreModel& core, uint64_t seed, Visit visit) {
  const int32_t n = core.num_nodes();
  int64_t total = 1;
  for (int32_t x = 0; x < n && total <= 4096; ++x) total *= core.num_strategies(x);
  std::vector<int32_t> plan(n, 0);
  if (total <= 4096) {
    while (true) {
      visit(plan);
      int32_t x = 0;
      while (x < n && ++plan[x] == core.num_strategies(x)) plan[x++] = 0;
      if (x == n) return;
    }
  }
  Rng rng(seed);
  for (int i = 0; i < 500; ++i) {
    for (int32_t x = 0; x < n; ++x) {
      plan[x] = static_cast<int32_t>(rng.below(static_cast<uint32_t>(core.num_strategies(x))));
    }
    visit(plan);
  }
}

// The most expensive feasible core plan that for_core_plans visits (empty
// when it sees none): a start that search can improve.
std::vector<int32_t> worst_feasible_plan(const CoreModel& core, uint64_t seed) {
  std::vector<int32_t> worst_plan;
  int64_t worst = -1;
  for_core_plans(core, seed, [&](const std::vector<int32_t>& plan) {
    const CoreEvaluation ce = evaluate_core(core, plan);
    if (ce.feasible() && ce.cost > worst) {
      worst = ce.cost;
      worst_plan = plan;
    }
  });
  return worst_plan;
}

TEST_CASE("presolve round-trips exactly and keeps the optimum") {
  for (uint64_t seed = 1; seed <= kInstances; ++seed) {
    CAPTURE(seed);
    const Problem p = test::random_instance(seed);
    const int64_t optimum = test::brute_force_optimum(p);
    Result<Presolved> result = presolve(p);
    REQUIRE(result.is_ok());
    const Presolved& pre = result.value();
    if (pre.infeasible()) {
      CHECK(optimum == -1);
      continue;
    }
    const CoreModel& core = pre.core();
    int64_t core_optimum = -1;
    for_core_plans(core, seed, [&](const std::vector<int32_t>& plan) {
      const CoreEvaluation ce = evaluate_core(core, plan);
      if (ce.forbidden > 0) return;
      const std::vector<int32_t> original = pre.expand(plan);
      const Evaluation e = evaluate(p, original);
      REQUIRE(e.forbidden_count == 0);
      REQUIRE(e.cost == static_cast<Int128>(ce.cost + core.constant));
      REQUIRE(e.feasible() == ce.feasible());
      // restrict_plan recovers a plan with the same expansion.
      REQUIRE(pre.expand(pre.restrict_plan(original)) == original);
      if (ce.feasible() && (core_optimum < 0 || ce.cost + core.constant < core_optimum)) {
        core_optimum = ce.cost + core.constant;
      }
    });
    // Exhaustive search on the core finds the brute-force optimum.
    const ExhaustiveResult exact = solve_exhaustively(core, 10'000'000);
    REQUIRE(exact.complete);
    if (optimum < 0) {
      CHECK_FALSE(exact.found);
    } else {
      REQUIRE(exact.found);
      CHECK(exact.cost + core.constant == optimum);
      CHECK(evaluate(p, pre.expand(exact.plan)).cost == optimum);
    }
    // A full enumeration of the core must also see the optimum.
    int64_t total = 1;
    for (int32_t x = 0; x < core.num_nodes() && total <= 4096; ++x) {
      total *= core.num_strategies(x);
    }
    if (total <= 4096) CHECK(core_optimum == optimum);
  }
}

TEST_CASE("certified Lagrangian bounds never exceed the optimum") {
  for (uint64_t seed = 1; seed <= kInstances; ++seed) {
    CAPTURE(seed);
    const Problem p = test::random_instance(seed);
    const int64_t optimum = test::brute_force_optimum(p);
    if (optimum < 0) continue;
    Result<Presolved> result = presolve(p);
    const CoreModel& core = result.value().core();
    CHECK(separable_bound(core) + core.constant <= optimum);
    MessagePassing mp(core);
    Lagrangian lagrangian(core);
    Rng rng(seed * 77);
    const std::vector<int64_t>& begins = mp.message_begins();
    std::vector<double> unary;
    for (int round = 0; round < 8; ++round) {
      // Arbitrary (also silly) multipliers must stay valid.
      std::vector<double> lambda(core.num_times());
      for (double& l : lambda) l = rng.below(4) == 0 ? 0.0 : rng.unit() * 20.0;
      lagrangian.set_lambda(lambda);
      lagrangian.penalised_unary(&unary);
      mp.set_unary(unary);
      mp.run(1 + round);
      const int64_t bound = certify_bound(core, lambda, mp.messages(), begins);
      REQUIRE(bound != kNoBound);
      CHECK(bound + core.constant <= optimum);
      // Zero messages: the plain Lagrangian relaxation bound.
      const int64_t plain = certify_bound(core, lambda, {}, {});
      CHECK(plain + core.constant <= optimum);
    }
  }
}

// Instances whose cores keep several nodes, with tight memory.
test::RandomInstanceOptions branch_shape() {
  test::RandomInstanceOptions shape;
  shape.min_nodes = 5;
  shape.forbidden = false;
  shape.limit_fraction = 0.3;
  return shape;
}

TEST_CASE("masked and region-tightened certified bounds hold for every allowed plan") {
  int64_t checked = 0;
  int64_t tightened = 0;
  for (uint64_t seed = 1; seed <= kInstances; ++seed) {
    CAPTURE(seed);
    const Problem p = test::random_instance(seed, branch_shape());
    Result<Presolved> result = presolve(p);
    if (!result.is_ok() || result.value().infeasible()) continue;
    const CoreModel& core = result.value().core();
    int64_t total = 1;
    for (int32_t x = 0; x < core.num_nodes() && total <= 4096; ++x) total *= core.num_strategies(x);
    if (core.num_nodes() == 0 || total > 4096) continue;
    Rng rng(seed * 31);
    std::vector<uint8_t> allowed(core.unary.size(), 0);
    for (int32_t x = 0; x < core.num_nodes(); ++x) {
      for (int32_t s = 0; s < core.num_strategies(x); ++s) {
        allowed[core.strategy_begin[x] + s] = rng.below(5) < 3;
      }
      allowed[core.strategy_begin[x] + rng.below(core.num_strategies(x))] = 1;
    }
    MessagePassing mp(core);
    Lagrangian lagrangian(core);
    std::vector<double> lambda(core.num_times());
    for (double& l : lambda) l = rng.below(3) == 0 ? 0.0 : rng.unit() * 10.0;
    lagrangian.set_lambda(lambda);
    std::vector<double> unary;
    lagrangian.penalised_unary(&unary);
    mp.set_unary(unary);
    mp.run(3);
    const std::vector<int64_t>& begins = mp.message_begins();
    std::vector<int64_t> forced;
    const int64_t bound = certify_bound(core, lambda, mp.messages(), begins, &allowed, &forced);
    const int64_t unmasked = certify_bound(core, lambda, mp.messages(), begins);
    if (bound == kNoBound) continue;  // a masked node with only forbidden strategies
    CHECK(bound >= unmasked);         // a branch bound is at least the whole problem's
    // Tightened by exact solves of overlapping regions (each node and its
    // first neighbours): never below the plain bound, never above a plan.
    std::vector<std::vector<int32_t>> regions;
    for (int32_t x = 0; x < core.num_nodes(); ++x) {
      std::vector<int32_t> region = {x};
      for (int32_t j = core.adj_begin[x]; j < core.adj_begin[x + 1] && region.size() < 4; ++j) {
        const int32_t y = core.other(core.adj_edge[j], x);
        if (std::find(region.begin(), region.end(), y) == region.end()) region.push_back(y);
      }
      regions.push_back(region);
    }
    const RegionSolver solve = [](const CoreModel& region) {
      const ExhaustiveResult exact = solve_exhaustively(region, 100000);
      return exact.complete && exact.found ? exact.cost : int64_t{0};
    };
    const int64_t tight =
        certify_bound(core, lambda, mp.messages(), begins, &allowed, nullptr, &regions, &solve);
    CHECK(tight >= bound);
    if (tight > bound) ++tightened;
    for_core_plans(core, seed, [&](const std::vector<int32_t>& plan) {
      for (int32_t x = 0; x < core.num_nodes(); ++x) {
        if (!allowed[core.strategy_begin[x] + plan[x]]) return;
      }
      const CoreEvaluation ce = evaluate_core(core, plan);
      if (!ce.feasible()) return;
      ++checked;
      CHECK(bound <= ce.cost);
      CHECK(tight <= ce.cost);
      for (int32_t x = 0; x < core.num_nodes(); ++x) {
        CHECK(forced[core.strategy_begin[x] + plan[x]] <= ce.cost);
      }
    });
  }
  CHECK(checked >= 300);
  CHECK(tightened >= 10);
}

TEST_CASE("the class branch and bound proves the brute-force optimum") {
  int64_t with_incumbent = 0;
  int64_t without = 0;
  for (uint64_t seed = 1; seed <= kInstances; ++seed) {
    CAPTURE(seed);
    const Problem p = test::random_instance(seed, branch_shape());
    const int64_t optimum = test::brute_force_optimum(p);
    if (optimum < 0) continue;
    Result<Presolved> result = presolve(p);
    const CoreModel& core = result.value().core();
    if (core.num_nodes() == 0) continue;
    // Even seeds know the optimum as their incumbent; odd seeds know nothing.
    const bool known = seed % 2 == 0;
    const int64_t incumbent = known ? optimum - core.constant : INT64_MAX / 4;
    ClassBranch search(core);
    for (int call = 0; call < 100000 && !search.over() && !search.full(); ++call) {
      int64_t work = 200000;
      search.run(incumbent, &work);
      REQUIRE(search.bound() != kNoBound);
      CHECK(search.bound() + core.constant <= optimum);
    }
    REQUIRE(search.over());
    CHECK(search.bound() + core.constant == optimum);
    if (known) {
      ++with_incumbent;
      CHECK(search.leaf_plan().empty());  // nothing cheaper than the incumbent
      CHECK(search.open_branches() == 0);
    } else {
      ++without;
      const std::vector<int32_t> plan = search.leaf_plan();
      REQUIRE(!plan.empty());
      const CoreEvaluation ce = evaluate_core(core, plan);
      CHECK(ce.feasible());
      CHECK(ce.cost + core.constant == optimum);
    }
  }
  CHECK(with_incumbent >= 20);
  CHECK(without >= 20);
}

TEST_CASE("block search keeps plans feasible and never makes them worse") {
  for (uint64_t seed = 1; seed <= kInstances; ++seed) {
    CAPTURE(seed);
    const Problem p = test::random_instance(seed);
    std::vector<int32_t> optimal;
    const int64_t optimum = test::brute_force_optimum(p, &optimal);
    if (optimum < 0) continue;
    Result<Presolved> result = presolve(p);
    const Presolved& pre = result.value();
    const CoreModel& core = pre.core();
    if (core.num_nodes() == 0) continue;
    // Start from the worst feasible core plan we can see cheaply.
    const std::vector<int32_t> start = worst_feasible_plan(core, seed);
    if (start.empty()) continue;
    CoreState state(core, start);
    BlockSearch blocks(core, seed);
    BlockSearch::Params params;
    params.max_nodes = 12;
    int64_t work = 1 << 30;
    for (int i = 0; i < 40; ++i) {
      const int64_t before = state.cost();
      blocks.improve(&state, static_cast<int32_t>(i % core.num_nodes()), params, &work);
      REQUIRE(state.feasible());
      REQUIRE(state.cost() <= before);
      REQUIRE(evaluate_core(core, state.plan()).cost == state.cost());
    }
    CHECK(state.cost() + core.constant >= optimum);
  }
}

TEST_CASE("an exact region solve finds the cheapest plan that changes only its region") {
  int improved = 0;
  int checked = 0;
  // Most random instances presolve to a core of 0 or 1 nodes: take ten
  // times as many seeds as elsewhere.
  for (uint64_t seed = 1; seed <= 10 * kInstances; ++seed) {
    CAPTURE(seed);
    const Problem p = test::random_instance(seed);
    Result<Presolved> result = presolve(p);
    const CoreModel& core = result.value().core();
    if (core.num_nodes() < 2) continue;
    // The worst feasible plan seen, and a seeded region of 2 to 4 nodes.
    const std::vector<int32_t> start = worst_feasible_plan(core, seed);
    if (start.empty()) continue;
    const int64_t worst = evaluate_core(core, start).cost;
    Rng rng(seed);
    std::vector<int32_t> region;
    const int32_t want =
        std::min<int32_t>(core.num_nodes(), 2 + static_cast<int32_t>(rng.below(3)));
    while (static_cast<int32_t>(region.size()) < want) {
      const auto x = static_cast<int32_t>(rng.below(static_cast<uint32_t>(core.num_nodes())));
      if (std::find(region.begin(), region.end(), x) == region.end()) region.push_back(x);
    }
    // Brute force over the region's strategies, the rest fixed.
    int64_t best = worst;
    std::vector<int32_t> plan = start;
    std::vector<int32_t> digits(region.size(), 0);
    while (true) {
      for (size_t i = 0; i < region.size(); ++i) plan[region[i]] = digits[i];
      const CoreEvaluation ce = evaluate_core(core, plan);
      if (ce.feasible()) best = std::min(best, ce.cost);
      size_t i = 0;
      while (i < region.size() && ++digits[i] == core.num_strategies(region[i])) digits[i++] = 0;
      if (i == region.size()) break;
    }
    CoreState state(core, start);
    int64_t work = 1 << 30;
    const bool changed = improve_region_exactly(&state, region, 1'000'000, &work);
    CHECK(changed == (best < worst));
    CHECK(state.cost() == best);
    CHECK(state.feasible());
    CHECK(evaluate_core(core, state.plan()).cost == state.cost());
    for (int32_t x = 0; x < core.num_nodes(); ++x) {
      if (std::find(region.begin(), region.end(), x) == region.end())
        CHECK(state.at(x) == start[x]);
    }
    improved += changed;
    ++checked;
  }
  // The test must see real improvements, not only "nothing to do".
  CHECK(checked >= 100);
  CHECK(improved >= 20);
}

TEST_CASE("the engine finds the brute-force optimum and its bound never exceeds it") {
  Options options;
  for (uint64_t seed = 1; seed <= kInstances; ++seed) {
    CAPTURE(seed);
    const Problem p = test::random_instance(seed);
    const int64_t optimum = test::brute_force_optimum(p);
    Engine engine(p, options, static_cast<int32_t>(seed % 3));
    for (int step = 0; step < 50 && !engine.finished(); ++step) engine.step(10);
    CHECK(engine.lower_bound() <= (optimum < 0 ? engine.lower_bound() : optimum));
    if (optimum < 0) {
      CHECK_FALSE(engine.best().found());
      CHECK(engine.finished());
      continue;
    }
    REQUIRE(engine.best().found());
    CHECK(engine.best().cost == optimum);
    CHECK(engine.lower_bound() == optimum);
    CHECK(engine.finished());
    const Evaluation e = evaluate(p, engine.best().solution);
    CHECK(e.feasible());
    CHECK(e.cost == optimum);
  }
}

TEST_CASE("without the exact start, the anytime search stays valid and usually optimal") {
  Options options;
  options.exact_max_nodes = 0;
  int found_optimum = 0;
  int feasible_instances = 0;
  for (uint64_t seed = 1; seed <= kInstances; ++seed) {
    CAPTURE(seed);
    const Problem p = test::random_instance(seed);
    const int64_t optimum = test::brute_force_optimum(p);
    Engine engine(p, options, 0);
    for (int step = 0; step < 30 && !engine.finished(); ++step) engine.step(10);
    if (optimum < 0) {
      CHECK_FALSE(engine.best().found());
      continue;
    }
    ++feasible_instances;
    CHECK(engine.lower_bound() <= optimum);
    if (engine.best().found()) {
      const Evaluation e = evaluate(p, engine.best().solution);
      CHECK(e.feasible());
      CHECK(e.cost == engine.best().cost);
      CHECK(engine.best().cost >= optimum);
      found_optimum += engine.best().cost == optimum;
    }
  }
  MESSAGE("anytime search alone found the optimum on " << found_optimum << " of "
                                                       << feasible_instances);
  CHECK(found_optimum * 10 >= feasible_instances * 8);
}

TEST_CASE("engines on larger random instances: bounds stay below the brute-force optimum") {
  // Up to 10 nodes but more strategies: cores too big for the start-up
  // exhaustive search in some cases, so Lagrangian rounds and block search
  // must do the work.
  test::RandomInstanceOptions shape;
  shape.max_nodes = 10;
  shape.max_strategies = 6;
  shape.max_plans = 200000;
  Options options;
  for (uint64_t seed = 1000; seed < 1040; ++seed) {
    CAPTURE(seed);
    const Problem p = test::random_instance(seed, shape);
    const int64_t optimum = test::brute_force_optimum(p);
    Engine engine(p, options, 0);
    for (int step = 0; step < 40 && !engine.finished(); ++step) engine.step(20);
    if (optimum < 0) {
      CHECK_FALSE(engine.best().found());
      continue;
    }
    CHECK(engine.lower_bound() <= optimum);
    REQUIRE(engine.best().found());
    CHECK(engine.best().cost == optimum);
  }
}

}  // namespace
}  // namespace shardlab
