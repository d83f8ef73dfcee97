// Exact depth-first branch and bound over a whole core, for small cores
// (after presolve, tiny instances and many test instances have a handful of
// nodes). Proves optimality, or infeasibility, within a node budget. Used by
// the Engine before its anytime search and by the property tests.
#pragma once

#include <cstdint>
#include <vector>

#include "core/sharding/presolve.h"

namespace shardlab {

struct ExhaustiveResult {
  bool complete = false;      // the whole tree was searched: the answer is exact
  bool found = false;         // a feasible plan was found
  std::vector<int32_t> plan;  // the best core plan found
  int64_t cost = 0;           // its core cost (without core.constant)
  int64_t nodes = 0;          // search nodes visited
};

// Searches for the cheapest core plan within capacity. Gives up (complete =
// false) after max_nodes search nodes. `incumbent` (may be empty) seeds the
// upper bound with a known feasible plan.
ExhaustiveResult solve_exhaustively(const CoreModel& core, int64_t max_nodes,
                                    const std::vector<int32_t>& incumbent = {});

}  // namespace shardlab
