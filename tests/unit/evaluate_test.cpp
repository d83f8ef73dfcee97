// The checker: the contest's fixed cases on example.json and each verdict.
#include "core/sharding/evaluate.h"

#include <doctest/doctest.h>

#include "helpers.h"

namespace shardlab {
namespace {

TEST_CASE("example.json: the optimum and the fixed cases") {
  const Problem p = test::example_problem();
  Evaluation e = evaluate(p, {0, 0, 2, 1, 0});
  CHECK(e.verdict == Verdict::kFeasible);
  CHECK(e.cost == 445);
  CHECK(e.peak_usage == 50);

  e = evaluate(p, {0, 1, 2, 0, 0});
  CHECK(e.feasible());
  CHECK(e.cost == 495);

  e = evaluate(p, {0, 0, 1, 1, 0});
  CHECK(e.verdict == Verdict::kOverLimit);
  CHECK(e.peak_usage == 55);
  CHECK(e.peak_time == 50);
  CHECK(e.message == "usage 55 at time 50 exceeds the limit 50");

  Problem unlimited = p;
  unlimited.has_usage_limit = false;
  e = evaluate(unlimited, {0, 0, 1, 1, 0});
  CHECK(e.feasible());
  CHECK(e.cost == 415);
  CHECK(e.peak_usage == 55);
}

TEST_CASE("wrong length and out-of-range strategies are distinct errors") {
  const Problem p = test::example_problem();
  Evaluation e = evaluate(p, {0, 0, 2, 1});
  CHECK(e.verdict == Verdict::kWrongLength);
  CHECK(e.message == "the solution has 4 entries but the instance has 5 nodes");
  e = evaluate(p, {0, 0, 3, 1, 0});
  CHECK(e.verdict == Verdict::kStrategyOutOfRange);
  CHECK(e.message == "node 2 has strategy 3 but only 3 strategies (0..2)");
  e = evaluate(p, {0, -1, 2, 1, 0});
  CHECK(e.verdict == Verdict::kStrategyOutOfRange);
}

TEST_CASE("forbidden entries are counted, never summed") {
  ProblemBuilder b;
  b.add_node(0, 2, {5, kForbidden}, {1, 1});
  b.add_node(1, 3, {7, 9}, {1, 1});
  b.add_edge(0, 1, {1, kForbidden, 2, 3});
  const Problem p = std::move(b.build()).value();
  Evaluation e = evaluate(p, {0, 1});
  CHECK(e.verdict == Verdict::kForbidden);
  CHECK(e.forbidden_count == 1);
  CHECK(e.cost == 5 + 9);
  CHECK(e.message == "1 chosen cost(s) are forbidden (first: edge 0)");
  e = evaluate(p, {1, 1});
  CHECK(e.forbidden_count == 1);
  CHECK(e.cost == 9 + 3);
  e = evaluate(p, {0, 0});
  CHECK(e.feasible());
  CHECK(e.cost == 13);
}

TEST_CASE("half-open intervals: a node ending at t is not live at t") {
  ProblemBuilder b;
  b.add_node(0, 10, {0}, {30});
  b.add_node(10, 20, {0}, {30});
  b.add_node(5, 5, {0}, {1000});  // empty interval: never live
  b.set_usage_limit(30);
  const Problem p = std::move(b.build()).value();
  const Evaluation e = evaluate(p, {0, 0, 0});
  CHECK(e.feasible());
  CHECK(e.peak_usage == 30);
  CHECK(e.peak_time == 0);
  const UsageProfile profile = usage_profile(p, {0, 0, 0});
  CHECK(profile.time == std::vector<Time>{0, 20});
  CHECK(profile.usage == std::vector<int64_t>{30, 0});
}

TEST_CASE("min-usage profile and the minimum possible peak") {
  const Problem p = test::example_problem();
  CHECK(min_possible_peak(p) == 50);
  const UsageProfile floor = min_usage_profile(p);
  CHECK(floor.time == std::vector<Time>{30, 40, 50, 70, 110, 120, 140, 150});
  CHECK(floor.usage == std::vector<int64_t>{10, 35, 50, 15, 40, 25, 15, 0});
}

TEST_CASE("incremental evaluation follows one-node changes") {
  const Problem p = test::example_problem();
  IncrementalEvaluator inc(p, {0, 0, 0, 1, 0});
  CHECK(inc.cost() == 475);
  CHECK(inc.peak() == 50);
  const IncrementalEvaluator::Delta d = inc.delta(2, 1);
  CHECK(d.cost == -60);
  CHECK(d.peak == 55);
  inc.set(2, 2);
  CHECK(inc.cost() == 445);
  CHECK(inc.feasible());
  inc.set(2, 1);
  CHECK(inc.cost() == 415);
  CHECK(inc.over_limit());
}

}  // namespace
}  // namespace shardlab
