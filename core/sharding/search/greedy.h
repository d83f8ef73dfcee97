// Baseline search: start from every node's least-usage strategy (the plan with
// the lowest possible memory profile, so it is memory-feasible whenever any
// plan is) and descend greedily with one-node moves that keep the plan within
// the usage limit. Resumable in small slices so the engine can stop anywhere.
#pragma once

#include <cstdint>
#include <vector>

#include "core/rng.h"
#include "core/sharding/evaluate.h"
#include "core/sharding/model.h"

namespace shardlab {

// Each node at its least usage; ties go to the cheapest non-forbidden choice.
std::vector<int32_t> min_usage_assignment(const Problem& problem);

class GreedyDescent {
 public:
  GreedyDescent(const Problem& problem, uint64_t seed);

  // Sweeps nodes in a seeded order, moving each to its best strategy under
  // (forbidden count, cost) among those that keep the peak within the limit
  // (or, while over the limit, do not raise it). Stops after about `work`
  // strategy evaluations. Returns the number of improving moves made.
  int64_t run(IncrementalEvaluator* state, int64_t work, int64_t* work_done);

  // True once a full sweep made no move: a 1-opt local optimum.
  bool converged() const { return converged_; }
  void restart() {
    converged_ = false;
    quiet_nodes_ = 0;
  }

 private:
  const Problem& problem_;
  Rng rng_;
  std::vector<int32_t> order_;
  size_t cursor_ = 0;
  int64_t quiet_nodes_ = 0;  // nodes visited since the last move
  bool converged_ = false;
};

}  // namespace shardlab
