// MIP mode: the pipeline problem as the flexible job-shop MIP of the
// operator-level planning literature (arXiv 2503.09357, reconstructed in
// ../shared/reference/pipeline.md section 1.2), written as CPLEX-LP text for
// any MIP solver (CBC, HiGHS), a MIP start from a schedule, and the way back
// from a solver's column values to a schedule.
//
// Columns (all times in the problem's unit, memory in its memory unit):
//   Cmax            the makespan (minimised)
//   s_I             start of op I (I = the op's index in the expansion)
//   y_I_K           binary, 1 when op I runs before op K on their device
//                   (one per pair that may share a device and is not already
//                   ordered by the arcs, the rank order of identical
//                   micro-batches, or their closure)
//   x_U_D           binary, unit U placed on device D (free units only)
//   z_A             binary, arc A crosses devices (arcs between free units)
//   w_K_I_D         K is on device D and runs before I (memory rows of free
//                   placements only; a linearised product)
// Rows: precedence with delays, big-M disjunctions, one device per unit,
// memory at the start of every op that raises it, Cmax after every op.
// The model has no overlapped F&B pairs (an upper bound where pairs gain).
// Big-M is the horizon: the given incumbent's makespan (Cmax <= it is then
// a row, which keeps every optimum), else a serial schedule's length.
#pragma once

#include <map>
#include <string>

#include "core/pipeline/plan/graph.h"
#include "core/status.h"

namespace shardlab::pipeline {

struct MipUnits {
  double time = 1;    // problem time units per tick
  double memory = 1;  // problem memory units per memory tick
};

struct MipModel {
  std::string lp;  // CPLEX-LP text
  int64_t rows = 0, columns = 0, binaries = 0;
  int64_t horizon = 0;  // big-M in ticks
};

// The LP text. `incumbent` (may be empty) bounds the horizon.
MipModel emit_lp(const PlanGraph& graph, const MipUnits& units, const PlanSchedule& incumbent,
                 bool symmetry = true);

// Column values of a schedule for the model emit_lp writes (a MIP start):
// every column of the model, by name.
std::map<std::string, double> mip_start(const PlanGraph& graph, const MipUnits& units,
                                        const PlanSchedule& schedule, bool symmetry = true);

// A schedule from a solver's column values (by name; missing binaries are
// read as 0): units go where their x is largest, each device runs its ops in
// the order of their starts, and the ops are re-timed as early as that order
// allows, so the result is valid whenever the solution's order is (never
// later than the solution). Fails when starts are missing or the order
// breaks a memory cap.
Result<PlanSchedule> schedule_from_mip(const PlanGraph& graph, const MipUnits& units,
                                       const std::map<std::string, double>& columns);

}  // namespace shardlab::pipeline
