// Hard-feasible improvement and repair of core plans. descend() applies
// improving one-node moves that keep every time within capacity; repair()
// turns an over-capacity plan into a feasible one by greedily freeing memory
// at the worst time for the least cost per byte. Both edit a CoreState and
// report their work in entry visits so the Engine can stay within budget.
#pragma once

#include <cstdint>
#include <vector>

#include "core/rng.h"
#include "core/sharding/search/core_state.h"

namespace shardlab {

class LocalSearch {
 public:
  LocalSearch(const CoreModel& core, uint64_t seed);

  // Best-improvement one-node moves: every node once in a seeded order, then
  // the neighbours of nodes that moved, until none is left or *work (entry
  // visits left) runs out. Returns the number of moves. Requires a plan
  // within capacity and keeps it so.
  int64_t descend(CoreState* state, int64_t* work);
  // Moves one node at a time to lower the worst excess, choosing the
  // cheapest cost increase per byte freed at the worst time. Returns true
  // when the plan ends within capacity.
  bool repair(CoreState* state, int64_t* work);

  // Nodes with a segment covering core time t.
  void nodes_at(int32_t t, std::vector<int32_t>* out) const;

 private:
  const CoreModel& core_;
  Rng rng_;
  std::vector<int32_t> order_;
  std::vector<int32_t> memory_nodes_;
  std::vector<uint8_t> queued_;
};

}  // namespace shardlab
