// The planner's bi-level merging and HEFT on random operator graphs with
// free placements: merged schedules expand to valid schedules of the full
// problem with the same makespan; HEFT's schedules are valid; and the
// planner run with merging on a problem above its threshold stays valid and
// no worse than HEFT.
#include <doctest/doctest.h>

#include "core/pipeline/check.h"
#include "core/pipeline/model.h"
#include "core/pipeline/plan/heft.h"
#include "core/pipeline/plan/merge.h"
#include "core/pipeline/plan/problem.h"
#include "core/pipeline/plan/search.h"
#include "core/pipeline/planner.h"
#include "core/rng.h"

namespace shardlab::pipeline {
namespace {

// A random operator DAG: chains with branches and joins, some operators
// free on all devices, some on two, some fixed.
Problem random_dag(uint64_t seed, int32_t operators, int32_t devices, int32_t microbatches,
                   double cap) {
  Rng rng(seed);
  Problem p;
  p.form = Form::kOperators;
  p.devices = devices;
  p.microbatches = microbatches;
  p.comm = 1;
  for (int32_t i = 0; i < operators; ++i) {
    OperatorSpec op;
    op.name = "op" + std::to_string(i);
    op.f = 1 + rng.below(4);
    op.b = op.f + rng.below(3);
    op.w = rng.below(3);
    op.act = 1;
    const uint32_t kind = rng.below(4);
    if (kind == 0) op.devices = {static_cast<int32_t>(rng.below(devices))};
    if (kind == 1) {
      const int32_t a = static_cast<int32_t>(rng.below(devices - 1));
      op.devices = {a, a + 1};
    }
    p.operators.push_back(op);
  }
  for (int32_t i = 1; i < operators; ++i) {
    p.edges.push_back(
        {i - 1 - static_cast<int32_t>(rng.below(std::min(i, 3))), i, 0.5 * (1 + rng.below(3))});
    if (i > 2 && rng.below(3) == 0)
      p.edges.push_back({static_cast<int32_t>(rng.below(i - 2)), i, 1});
  }
  if (cap > 0) p.mem_cap.assign(devices, cap);
  return p;
}

TEST_CASE("pipeline plan merge: merged schedules expand to valid schedules of the same makespan") {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    const Problem problem = random_dag(seed, 8 + seed % 5, 3, 2, seed % 2 ? 0 : 6);
    Result<Expansion> e = expand(problem, Placement());
    REQUIRE(e.is_ok());
    Result<PlanGraph> g = plan_graph_of(e.value());
    REQUIRE(g.is_ok());
    for (int32_t target : {g.value().num_ops() / 2, g.value().num_ops() / 4}) {
      const Merged m = coarsen(g.value(), target);
      CHECK(m.graph.num_ops() < g.value().num_ops());
      int32_t members = 0;
      for (const auto& list : m.members) members += static_cast<int32_t>(list.size());
      CHECK(members == g.value().num_ops());
      ScheduleSearch search(m.graph, SearchConfig());
      Rng rng(seed);
      PlanSchedule coarse;
      int64_t used = 0;
      if (!search.dive(&rng, 0.0, 0, &coarse, &used)) continue;  // a cap may block the dive
      REQUIRE(check_plan(m.graph, coarse).empty());
      const PlanSchedule fine = expand_merged(g.value(), m, coarse);
      INFO("seed " << seed << " target " << target);
      CHECK(check_plan(g.value(), fine) == "");
      CHECK(fine.makespan == coarse.makespan);
      const CheckReport report = check_schedule(e.value(), timeline_of(e.value(), fine));
      CHECK(report.valid);
    }
  }
}

TEST_CASE("pipeline plan merge: HEFT is valid and the planner with merging never worse") {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const Problem problem = random_dag(100 + seed, 12, 4, 2, 0);
    Result<Expansion> e = expand(problem, Placement());
    REQUIRE(e.is_ok());
    Result<PlanGraph> g = plan_graph_of(e.value());
    REQUIRE(g.is_ok());
    const PlanSchedule h = heft(g.value());
    REQUIRE(!h.empty());
    CHECK(check_plan(g.value(), h) == "");
    PlannerOptions options;
    options.merge_above = 30;  // 72 ops: plan a merged problem first
    Planner planner(problem, options);
    REQUIRE(planner.status().is_ok());
    for (int32_t k = 0; k < 40 && !planner.finished(); ++k) planner.step(500);
    REQUIRE(planner.has_best());
    CHECK(planner.best_ticks() <= h.makespan);
    CHECK(check_schedule(planner.expansion(), planner.best()).valid);
    CHECK(planner.counters().find("merged.ops") != nullptr);
  }
}

}  // namespace
}  // namespace shardlab::pipeline
