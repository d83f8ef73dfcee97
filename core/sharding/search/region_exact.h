// Exact re-optimisation of a small region of any shape: a few nodes,
// possibly in several pieces far apart in the graph, memory included.
// Everything outside the region keeps the incumbent's strategies; the region
// becomes a core of its own (its unary costs absorb the edges to the fixed
// nodes, its capacities lose the fixed nodes' usage) and goes to the
// exhaustive branch and bound (search/exhaustive.h).
//
// This is the move for a gain that needs memory and a distant change that
// frees it, when neither pays off alone and the two are not a tree: the
// block search (search/block_search.h) needs a forest with a small cutset,
// and recombination (search/relink.h) only takes the other plan's
// strategies as they are.
#pragma once

#include <cstdint>
#include <vector>

#include "core/sharding/search/core_state.h"

namespace shardlab {

// The region's own core, with the strategy of local node i and local
// strategy k being strategies[i][k] in the full core (strategies that hit a
// forbidden entry with a fixed neighbour are left out).
struct RegionCore {
  CoreModel core;
  std::vector<std::vector<int32_t>> strategies;
  std::vector<int32_t> incumbent;  // the state's plan in local strategies
};

// Builds the region core of `nodes` (distinct core nodes) around `state`.
RegionCore region_core(const CoreState& state, const std::vector<int32_t>& nodes);

// Solves the region exactly within max_search_nodes search nodes and applies
// the result when it is strictly cheaper. Returns true on improvement. The
// state must be feasible and stays feasible. *work is decreased by an
// estimate of the entry visits spent.
bool improve_region_exactly(CoreState* state, const std::vector<int32_t>& nodes,
                            int64_t max_search_nodes, int64_t* work);

}  // namespace shardlab
