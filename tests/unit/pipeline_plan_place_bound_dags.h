// Random operator DAGs for the placement bounds' tests
// (pipeline_plan_place_bound_test.cpp, pipeline_plan_path_place_bound_test.cpp)
// like the benchmark's (tests/bench/pipeline_bench.py): a chain with skip
// arcs, a quarter of the operators on one device, 2 micro-batches; and the
// engine's proven optimum to check them against. Every random number is
// drawn in a statement of its own, so a seed builds the same DAGs natively
// and in wasm.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "core/pipeline/model.h"
#include "core/pipeline/plan/engine.h"
#include "core/pipeline/plan/problem.h"
#include "core/rng.h"

namespace shardlab::pipeline::testing {

// A count drawn uniformly from [least, least + span).
struct Drawn {
  int32_t least = 1;
  int32_t span = 1;
};

// Draws the device count, then the operator count, then the DAG, whose arcs
// reach back at most `reach` operators. (The counts as arguments of one call
// have no order: GCC and clang drew them the other way round and built
// different DAGs.)
inline Problem draw_dag(Rng* rng, Drawn devices_drawn, Drawn operators_drawn, int32_t reach) {
  const int32_t devices =
      devices_drawn.least + static_cast<int32_t>(rng->below(devices_drawn.span));
  const int32_t operators =
      operators_drawn.least + static_cast<int32_t>(rng->below(operators_drawn.span));
  Problem p;
  p.form = Form::kOperators;
  p.devices = devices;
  p.microbatches = 2;
  for (int32_t i = 0; i < operators; ++i) {
    OperatorSpec op;
    op.name = "o" + std::to_string(i);
    op.f = 1 + rng->below(3);
    op.b = op.f + rng->below(3);
    op.w = rng->below(2);
    if (rng->below(4) == 0) op.devices = {static_cast<int32_t>(rng->below(devices))};
    p.operators.push_back(op);
  }
  for (int32_t i = 1; i < operators; ++i) {
    const int32_t from = i - 1 - static_cast<int32_t>(rng->below(std::min(i, reach)));
    p.edges.push_back({from, i, 0.5 * (1 + rng->below(4))});
  }
  return p;
}

inline PlanGraph graph_of(const Problem& problem) {
  Result<Expansion> e = expand(problem, Placement());
  REQUIRE(e.is_ok());
  Result<PlanGraph> g = plan_graph_of(e.value());
  REQUIRE(g.is_ok());
  return std::move(g).value();
}

// The engine without the placement bounds (the optimum it proves is
// independent of them); empty when it does not finish within `steps` of
// 1,000 nodes.
inline PlanSchedule proven_without(const PlanGraph& g, int32_t steps) {
  EngineConfig config;
  config.placement_bound_share = 0;
  PlanEngine engine(g, config);
  for (int32_t k = 0; k < steps && !engine.finished(); ++k) engine.step(1000);
  return engine.finished() ? engine.best() : PlanSchedule();
}

}  // namespace shardlab::pipeline::testing
