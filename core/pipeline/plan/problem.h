// Between the pipeline model (model.h, simulate.h) and the planner's own
// view (plan/graph.h): an Expansion becomes a PlanGraph (one op per
// operation, one group per unit, memory as peak and net), a planned
// schedule becomes a Timeline, and a Timeline (a generated, imported or
// offered schedule) becomes a planned schedule.
#pragma once

#include <memory>

#include "core/pipeline/model.h"
#include "core/pipeline/plan/graph.h"
#include "core/pipeline/simulate.h"
#include "core/status.h"

namespace shardlab::pipeline {

// The planner's view of an expansion. Symmetry classes: in the stages form
// every (unit, kind) is a class ranked by micro-batch (the chain exchange
// argument of plan/search.cpp holds there); in the operators form only the
// forwards of the first source operator are ranked, which renames whole
// micro-batches and so holds for every graph.
Result<PlanGraph> plan_graph_of(const Expansion& expansion);

// The timeline of a planned schedule: one slot per op, or per overlapped pair.
Timeline timeline_of(const Expansion& expansion, const PlanGraph& graph,
                     const PlanSchedule& schedule);

// A planned schedule from a timeline. An overlapped pair the graph allows
// (pair_length) stays a pair when keep_pairs; other blocks are opened: a
// full backward into B then W, a pair into F, B and W, each from the
// block's start. When they fit in the block (F&B >= F + B + W) every op ends
// no later and memory is freed no later, so the schedule stays valid;
// otherwise the device orders are re-timed semi-actively. Fails when the
// timeline does not place every op once.
Result<PlanSchedule> plan_schedule_of(const Expansion& expansion, const PlanGraph& graph,
                                      const Timeline& timeline, bool keep_pairs = true);

}  // namespace shardlab::pipeline
