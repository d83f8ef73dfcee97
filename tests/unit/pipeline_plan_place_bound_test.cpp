// The placement bound (plan/place_bound.h) on random operator DAGs: never
// above an optimum the engine proves without it, nor above any schedule
// found on larger DAGs, and a chain where it proves at the root what the
// root relaxations miss by 4.5 units.
#include <doctest/doctest.h>

#include <algorithm>

#include "core/pipeline/model.h"
#include "core/pipeline/plan/bound.h"
#include "core/pipeline/plan/engine.h"
#include "core/pipeline/plan/heft.h"
#include "core/pipeline/plan/place_bound.h"
#include "core/pipeline/plan/problem.h"
#include "core/pipeline/problem_json.h"
#include "core/rng.h"
#include "tests/unit/pipeline_plan_place_bound_dags.h"

namespace shardlab::pipeline {
namespace {

using testing::draw_dag;
using testing::graph_of;
using testing::proven_without;

int64_t final_bound(const PlanGraph& g, int64_t upper = kNoCap) {
  PlacementBound pb(g);
  for (int32_t k = 0; k < 10000 && !pb.done(); ++k) pb.step(100000, upper);
  CHECK(pb.done());
  return pb.bound();
}

TEST_CASE("pipeline plan place bound: never above the optimum on small random DAGs") {
  Rng rng(2407);
  int32_t checked = 0, raised = 0, tight = 0;
  for (int32_t trial = 0; trial < 24; ++trial) {
    const Problem problem = draw_dag(&rng, {2, 2}, {3, 3}, 2);
    INFO("trial " << trial << ": " << problem_json(problem, -1));
    const PlanGraph g = graph_of(problem);
    const PlanSchedule optimum = proven_without(g, 300);
    if (optimum.empty()) continue;
    const int64_t bound = final_bound(g);
    CHECK(bound <= optimum.makespan);
    CHECK(bound >= root_bound(g));
    raised += bound > root_bound(g);
    tight += bound == optimum.makespan;
    ++checked;
  }
  // 23 proven; the bound rises above the root bound on 16 and reaches the
  // optimum on 22 (the root bound on 6), so a bound one tick too high fails.
  CHECK(checked >= 20);
  CHECK(raised >= 14);
  CHECK(tight >= 20);
}

TEST_CASE("pipeline plan place bound: never above a schedule found on larger random DAGs") {
  Rng rng(2408);
  int32_t raised = 0;
  for (int32_t trial = 0; trial < 6; ++trial) {
    const Problem problem = draw_dag(&rng, {3, 3}, {8, 5}, 2);
    INFO("trial " << trial << ": " << problem_json(problem, -1));
    const PlanGraph g = graph_of(problem);
    PlacementBound pb(g);
    for (int32_t k = 0; k < 40 && !pb.done(); ++k) pb.step(2000, kNoCap);
    const PlanSchedule h = heft(g);
    REQUIRE(!h.empty());
    CHECK(pb.bound() <= h.makespan);
    raised += pb.bound() > root_bound(g);
    // The schedules of the engine with and without it.
    for (const double share : {0.0, 0.25}) {
      EngineConfig config;
      config.placement_bound_share = share;
      config.seed = 1 + trial;
      PlanEngine engine(g, config);
      for (int32_t k = 0; k < 20 && !engine.finished(); ++k) engine.step(1000);
      REQUIRE(!engine.best().empty());
      CHECK(pb.bound() <= engine.best().makespan);
      CHECK(engine.lower_bound() <= engine.best().makespan);
    }
  }
  CHECK(raised >= 3);
}

TEST_CASE("pipeline plan place bound: a chain's optimum proven at the root") {
  // Five operators, 2 devices, 2 micro-batches; o1 only on device 0. The
  // root relaxations give 29.5: the path bound lets the chain o0 -> o2 ->
  // o3 -> o4 share one device for free, and the window bound spreads its
  // work over both. Every placement either pays the delays (1 to 2 each
  // way) or runs both micro-batches of a long run of the chain on one
  // device: the least bound over placements is 34, the optimum.
  const char* text =
      R"({"format":"shardlab-pipeline-problem","version":1,"devices":2,"microbatches":2,)"
      R"("operators":[{"name":"o0","F":2,"B":3,"W":1},{"name":"o1","F":3,"B":4,"W":0,)"
      R"("devices":[0]},{"name":"o2","F":2,"B":2,"W":1},{"name":"o3","F":2,"B":2,"W":1},)"
      R"({"name":"o4","F":2,"B":3,"W":0}],"edges":[{"from":"o0","to":"o1","comm":0.5},)"
      R"({"from":"o0","to":"o2","comm":1},{"from":"o2","to":"o3","comm":1.5},)"
      R"({"from":"o3","to":"o4","comm":2}]})";
  Result<Problem> problem = read_problem_json("chain.json", text);
  REQUIRE_MESSAGE(problem.is_ok(), problem.status().message());
  Result<Expansion> e = expand(problem.value(), Placement());
  REQUIRE(e.is_ok());
  const int64_t scale = e.value().time_scale;
  const PlanGraph g = graph_of(problem.value());
  CHECK(root_bound(g) * 2 == 59 * scale);
  CHECK(final_bound(g) == 34 * scale);
  const PlanSchedule optimum = proven_without(g, 400);
  REQUIRE(!optimum.empty());
  CHECK(optimum.makespan == 34 * scale);
  // With the placement bound the engine proves it in two steps; without, not.
  for (const double share : {0.0, 0.25}) {
    EngineConfig config;
    config.placement_bound_share = share;
    PlanEngine engine(g, config);
    for (int32_t k = 0; k < 2 && !engine.finished(); ++k) engine.step(1000);
    CHECK(engine.finished() == (share > 0));
    CHECK(engine.lower_bound() <= 34 * scale);
  }
}

}  // namespace
}  // namespace shardlab::pipeline
