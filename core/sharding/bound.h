// Certified lower bounds. The search keeps its Lagrangian multipliers and
// message-passing duals in double precision; certify_bound() re-evaluates the
// same dual in exact 128-bit integer arithmetic, so the value it returns is a
// true lower bound on the core optimum whatever rounding happened before.
// Used by the Engine (core/solver.cpp) for lower_bound().
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/sharding/presolve.h"

namespace shardlab {

// Sentinel for "no bound" (returned when the inputs cannot be certified).
constexpr int64_t kNoBound = INT64_MIN / 4;

// The Lagrangian dual of the memory constraints with multipliers lambda
// (one per core time, clamped to >= 0) and any message vectors (laid out as
// in MessagePassing, empty = all zero), scaled by 2^32 and rounded to
// integers. Valid because, for every plan x within capacity,
//   cost(x) >= cost(x) + sum_t lambda_t (usage_t(x) - capacity_t)
// and the message reparametrisation leaves every plan's total unchanged
// while the sum of factor minima bounds the total from below. Costs are
// integers, so the bound is rounded up. Returns the bound on the core cost (without core.constant),
// or kNoBound.
//
// With `allowed` (one flag per core strategy), the bound covers only the plans
// made of allowed strategies (a branch of a search). With `forced`, it also
// fills, per core strategy, a bound on the plans that use that strategy
// (kNoBound for strategies not allowed): reduced-cost fixing.
//
// With candidate `regions` (sets of distinct nodes) and `solve`, the bound is
// also tightened: the part of the reparametrised problem inside a region
// (its nodes' and inner edges' costs above their minima, rounded down to
// units of 2^-8) becomes a small core of its own, `solve` returns the least
// total it proves for it (0 when it cannot), and the gains of regions that
// share no node add to the dual (greedily, largest first). The forced
// bounds do not include these gains.
using RegionSolver = std::function<int64_t(const CoreModel& region)>;
int64_t certify_bound(const CoreModel& core, const std::vector<double>& lambda,
                      const std::vector<double>& messages,
                      const std::vector<int64_t>& message_begin,
                      const std::vector<uint8_t>* allowed = nullptr,
                      std::vector<int64_t>* forced = nullptr,
                      const std::vector<std::vector<int32_t>>* regions = nullptr,
                      const RegionSolver* solve = nullptr);

// The trivial bound: every node and edge at its cheapest entry.
int64_t separable_bound(const CoreModel& core);

}  // namespace shardlab
