// One-node greedy descent under the memory limit (the baseline engine).
#include "core/sharding/search/greedy.h"

#include <numeric>

namespace shardlab {

std::vector<int32_t> min_usage_assignment(const Problem& problem) {
  std::vector<int32_t> solution(problem.num_nodes(), 0);
  for (int32_t v = 0; v < problem.num_nodes(); ++v) {
    int32_t best = 0;
    for (int32_t s = 1; s < problem.num_strategies(v); ++s) {
      const Usage us = problem.node_usage(v, s);
      const Usage ub = problem.node_usage(v, best);
      const Cost cs = problem.node_cost(v, s);
      const Cost cb = problem.node_cost(v, best);
      if (us < ub || (us == ub && cs < cb)) best = s;
    }
    solution[v] = best;
  }
  return solution;
}

GreedyDescent::GreedyDescent(const Problem& problem, uint64_t seed)
    : problem_(problem), rng_(seed), order_(problem.num_nodes()) {
  std::iota(order_.begin(), order_.end(), 0);
  for (size_t i = order_.size(); i > 1; --i) {
    std::swap(order_[i - 1], order_[rng_.below(static_cast<uint32_t>(i))]);
  }
}

int64_t GreedyDescent::run(IncrementalEvaluator* state, int64_t work, int64_t* work_done) {
  int64_t moves = 0;
  int64_t spent = 0;
  const int64_t n = static_cast<int64_t>(order_.size());
  while (!converged_ && spent < work) {
    const int32_t v = order_[cursor_];
    cursor_ = (cursor_ + 1) % order_.size();
    const int32_t current = state->solution()[v];
    const int64_t peak_now = state->peak();
    const bool over = state->over_limit();
    int32_t best = current;
    IncrementalEvaluator::Delta best_delta;  // zero change
    for (int32_t s = 0; s < problem_.num_strategies(v); ++s) {
      if (s == current) continue;
      const IncrementalEvaluator::Delta d = state->delta(v, s);
      ++spent;
      const bool memory_ok = problem_.has_usage_limit
                                 ? (over ? d.peak <= peak_now : d.peak <= problem_.usage_limit)
                                 : true;
      if (!memory_ok) continue;
      const bool better =
          d.forbidden < best_delta.forbidden ||
          (d.forbidden == best_delta.forbidden && d.cost < best_delta.cost) ||
          (over && d.forbidden == best_delta.forbidden && d.cost == best_delta.cost &&
           d.peak < peak_now && (best == current || d.peak < best_delta.peak));
      if (better) {
        best = s;
        best_delta = d;
      }
    }
    if (best != current) {
      state->set(v, best);
      ++moves;
      quiet_nodes_ = 0;
    } else if (++quiet_nodes_ >= n) {
      converged_ = true;
    }
  }
  *work_done += spent;
  return moves;
}

}  // namespace shardlab
