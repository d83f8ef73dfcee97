// Presolve: each reduction on a hand-made instance, the example's optimum
// through the core, and infeasibility detection.
#include "core/sharding/presolve.h"

#include <doctest/doctest.h>

#include "../property/random_instances.h"
#include "core/sharding/evaluate.h"
#include "core/sharding/io.h"
#include "core/sharding/search/exhaustive.h"
#include "helpers.h"

namespace shardlab {
namespace {

Problem build(ProblemBuilder& b) { return std::move(b.build()).value(); }

// The optimum of the original problem through the core.
int64_t core_optimum(const Presolved& pre) {
  const ExhaustiveResult r = solve_exhaustively(pre.core(), 1'000'000);
  REQUIRE(r.complete);
  return r.found ? r.cost + pre.core().constant : -1;
}

TEST_CASE("example.json: the core keeps the optimum 445 and expands to a feasible plan") {
  const Problem p = test::example_problem();
  const Presolved pre = std::move(presolve(p)).value();
  CHECK_FALSE(pre.infeasible());
  const ExhaustiveResult r = solve_exhaustively(pre.core(), 1'000'000);
  REQUIRE(r.found);
  CHECK(r.cost + pre.core().constant == 445);
  const Evaluation e = evaluate(p, pre.expand(r.plan));
  CHECK(e.feasible());
  CHECK(e.cost == 445);
}

TEST_CASE("identity edges merge nodes; the merged node carries both intervals") {
  ProblemBuilder b;
  b.add_node(0, 4, {10, 20}, {5, 1});
  b.add_node(6, 9, {1, 2}, {7, 2});
  b.add_edge(0, 1, {0, kForbidden, kForbidden, 0});  // identity
  b.set_usage_limit(6);
  const Problem p = build(b);
  const Presolved pre = std::move(presolve(p)).value();
  CHECK(pre.stats().merged == 1);
  // Strategy 0 uses 5 then 7: 7 > 6 cannot fit, so only strategy 1 is left
  // and the whole instance reduces to a constant.
  CHECK(pre.core().num_nodes() == 0);
  CHECK(core_optimum(pre) == 22);
  CHECK(test::brute_force_optimum(p) == 22);
  CHECK(pre.expand({}) == std::vector<int32_t>({1, 1}));
}

TEST_CASE("functional edges merge in one direction") {
  ProblemBuilder b;
  b.add_node(0, 2, {0, 0, 0}, {1, 2, 3});
  b.add_node(0, 2, {5, 1}, {1, 1});
  // Each strategy of node 0 allows exactly one strategy of node 1.
  b.add_edge(0, 1, {0, kForbidden, kForbidden, 3, 2, kForbidden});
  b.set_usage_limit(100);
  const Problem p = build(b);
  const Presolved pre = std::move(presolve(p)).value();
  CHECK(pre.stats().merged == 1);
  CHECK(core_optimum(pre) == test::brute_force_optimum(p));
}

TEST_CASE("memory-free leaves and series nodes are eliminated exactly") {
  // A path 0 - 1 - 2 with no usage limit: everything is memory-free.
  ProblemBuilder b;
  b.add_node(0, 1, {3, 1}, {1, 1});
  b.add_node(0, 1, {2, 2, 7}, {1, 1, 1});
  b.add_node(0, 1, {4, 0}, {1, 1});
  b.add_edge(0, 1, {1, 5, 0, 2, 9, 4});
  b.add_edge(1, 2, {3, 0, 1, 6, 0, 2});
  const Problem p = build(b);
  const Presolved pre = std::move(presolve(p)).value();
  CHECK(pre.stats().eliminated >= 2);
  CHECK(pre.core().num_nodes() == 0);
  const int64_t brute = test::brute_force_optimum(p);
  CHECK(core_optimum(pre) == brute);
  CHECK(evaluate(p, pre.expand({})).cost == brute);
}

TEST_CASE("dominance keeps a cheaper strategy that uses more memory") {
  ProblemBuilder b;
  // Strategy 0: cheap and heavy; 1: dear and light; 2: dear and heavy
  // (dominated by 0). A second node shares the time so memory binds.
  b.add_node(0, 4, {1, 9, 9}, {8, 2, 8});
  b.add_node(0, 4, {0, 5}, {6, 1});
  b.set_usage_limit(10);
  const Problem p = build(b);
  const Presolved pre = std::move(presolve(p)).value();
  CHECK(pre.stats().removed_dominated >= 1);
  // 0 at 0 (8) fits only with 1 at 1 (1): cost 6; 0 at 1 with 1 at 0: 9.
  CHECK(core_optimum(pre) == 6);
  CHECK(test::brute_force_optimum(p) == 6);
}

TEST_CASE("strategies that cannot fit in memory are removed") {
  ProblemBuilder b;
  b.add_node(0, 4, {0, 10}, {50, 5});
  b.add_node(2, 6, {0, 10}, {3, 40});
  b.add_node(1, 3, {4, 4}, {1, 2});  // usage varies a little
  b.set_usage_limit(45);
  const Problem p = build(b);
  const Presolved pre = std::move(presolve(p)).value();
  CHECK(pre.stats().removed_memory >= 1);
  CHECK(core_optimum(pre) == test::brute_force_optimum(p));
}

TEST_CASE("an instance whose lightest plan exceeds the limit is infeasible") {
  ProblemBuilder b;
  b.add_node(0, 4, {1, 2}, {6, 7});
  b.add_node(2, 5, {1, 2}, {5, 9});
  b.set_usage_limit(10);
  const Problem p = build(b);
  const Presolved pre = std::move(presolve(p)).value();
  CHECK(pre.infeasible());
  CHECK(test::brute_force_optimum(p) == -1);
}

TEST_CASE("forbidden strategies and unsupported ones are pruned") {
  ProblemBuilder b;
  b.add_node(0, 2, {kForbidden, 4, 6}, {1, 1, 1});
  b.add_node(0, 2, {1, 1}, {1, 1});
  // Strategy 2 of node 0 has no allowed partner.
  b.add_edge(0, 1, {0, 0, 1, 2, kForbidden, kForbidden});
  b.set_usage_limit(10);
  const Problem p = build(b);
  const Presolved pre = std::move(presolve(p)).value();
  CHECK(pre.stats().removed_forbidden >= 2);
  CHECK(core_optimum(pre) == test::brute_force_optimum(p));
}

TEST_CASE("bundled instance B: presolve shrinks it and round-trips a plan") {
  const std::string text =
      test::read_json_text(test::source_path("examples/asplos-2025-iopddl-B.json.gz"));
  Result<Problem> problem = read_instance_bytes("B", text.data(), text.size());
  REQUIRE(problem.is_ok());
  const Problem& p = problem.value();
  const Presolved pre = std::move(presolve(p)).value();
  const CoreModel& core = pre.core();
  CHECK(core.num_nodes() < p.num_nodes() / 3);
  CHECK(core.num_times() < p.num_checkpoints() / 5);
  // Every all-equal-index core plan that is forbidden-free expands exactly.
  for (int32_t pick = 0; pick < 4; ++pick) {
    std::vector<int32_t> plan(core.num_nodes());
    for (int32_t x = 0; x < core.num_nodes(); ++x) plan[x] = pick % core.num_strategies(x);
    const CoreEvaluation ce = evaluate_core(core, plan);
    const Evaluation e = evaluate(p, pre.expand(plan));
    CHECK(e.cost == static_cast<Int128>(ce.cost + core.constant));
    CHECK(e.feasible() == ce.feasible());
  }
}

}  // namespace
}  // namespace shardlab
