// The planner's LNS on operator DAGs (free groups; plan/engine.cpp): a move
// may return a schedule as long as the one it started from, and the next
// moves start there, so the search walks the incumbent's plateau. With LNS
// alone for a fixed work, the engine ends lower on random DAGs than when
// every move restarts from the incumbent. On DAGs of kLargeDagOps ops and
// more, LNS also frees the groups along a critical chain and takes the
// improver's work and half the dives': the exact figures are pinned, the
// same natively and in wasm (the gain is the benchmark's, README).
#include <doctest/doctest.h>

#include <memory>

#include "core/pipeline/plan/engine.h"
#include "core/pipeline/plan/graph.h"
#include "core/rng.h"
#include "tests/unit/pipeline_plan_place_bound_dags.h"

namespace shardlab::pipeline {
namespace {

using testing::draw_dag;
using testing::graph_of;

// An engine on `g` after `steps` steps of 1,000 work (fewer once finished),
// with a schedule and a bound at or below it.
std::unique_ptr<PlanEngine> stepped(const PlanGraph& g, const EngineConfig& config, int32_t steps) {
  auto engine = std::make_unique<PlanEngine>(g, config);
  for (int32_t k = 0; k < steps && !engine->finished(); ++k) engine->step(1000);
  REQUIRE(!engine->best().empty());
  INFO("makespan " << engine->best().makespan);
  CHECK(engine->lower_bound() <= engine->best().makespan);
  return engine;
}

TEST_CASE("pipeline plan dag lns: sideways moves reach shorter schedules at equal work") {
  Rng rng(2411);
  int64_t total = 0, sideways = 0;
  for (int32_t trial = 0; trial < 4; ++trial) {
    const Problem problem = draw_dag(&rng, {3, 2}, {14, 4}, 3);
    const PlanGraph g = graph_of(problem);
    EngineConfig config;
    config.seed = 1 + trial;
    config.prover_share = config.improver_share = config.dive_share = 0;
    config.placement_bound_share = 0;
    INFO("trial " << trial);
    const auto engine = stepped(g, config, 30);
    total += engine->best().makespan;
    sideways += engine->counters().find("lns_sideways")->integer;
  }
  // Restarting every move from the incumbent ends at 2,730 ticks in all.
  CHECK(total == 2705);
  CHECK(sideways > 0);
}

TEST_CASE("pipeline plan dag lns: large DAGs take critical chains and LNS's larger share") {
  Rng rng(2412);
  int64_t total = 0;
  for (int32_t trial = 0; trial < 3; ++trial) {
    const Problem problem = draw_dag(&rng, {5, 3}, {40, 4}, 3);
    const PlanGraph g = graph_of(problem);
    REQUIRE(g.num_ops() >= kLargeDagOps);
    REQUIRE(g.large_dag);
    EngineConfig config;
    config.seed = 1 + trial;
    config.placement_bound_share = 0;
    INFO("trial " << trial);
    total += stepped(g, config, 200)->best().makespan;
  }
  // 1,270, 1,335 and 1,460. Without critical chains and with the shares of
  // smaller graphs: 4,030 (1,320, 1,290 and 1,420), lower at this work on
  // these DAGs; the benchmark's largest DAGs (README) end lower with them.
  CHECK(total == 4065);
}

TEST_CASE(
    "pipeline plan dag lns: any_free and large_dag (free groups, no pairs, kLargeDagOps ops)") {
  Rng rng(2412);
  PlanGraph g = graph_of(draw_dag(&rng, {5, 3}, {40, 4}, 3));
  REQUIRE(g.num_ops() >= kLargeDagOps);
  CHECK(g.any_free);
  CHECK(g.large_dag);
  // Every group pinned: nothing to place (finalize() derives both again).
  for (PlanGroup& group : g.groups) group.devices.resize(1);
  REQUIRE(g.finalize().is_ok());
  CHECK(!g.any_free);
  CHECK(!g.large_dag);
  // Fewer ops: free groups, but not large.
  Rng small(2411);
  const PlanGraph h = graph_of(draw_dag(&small, {3, 2}, {14, 4}, 3));
  REQUIRE(h.num_ops() < kLargeDagOps);
  CHECK(h.any_free);
  CHECK(!h.large_dag);
}

}  // namespace
}  // namespace shardlab::pipeline
