// One-node descent and greedy repair (see local_search.h). The repair rule
// is the classic greedy for multi-dimensional knapsacks (cost per unit of
// the binding resource, here the usage at the worst time), restricted to
// moves that never raise the usage above the current worst excess elsewhere.
#include "core/sharding/search/local_search.h"

#include <algorithm>
#include <numeric>

namespace shardlab {

LocalSearch::LocalSearch(const CoreModel& core, uint64_t seed)
    : core_(core), rng_(seed), order_(core.num_nodes()) {
  std::iota(order_.begin(), order_.end(), 0);
  for (int32_t x = 0; x < core.num_nodes(); ++x) {
    if (core.term_begin[x + 1] > core.term_begin[x]) memory_nodes_.push_back(x);
  }
}

void LocalSearch::nodes_at(int32_t t, std::vector<int32_t>* out) const {
  out->clear();
  for (int32_t x : memory_nodes_) {
    const int32_t* lo = core_.term_lo.data();
    const int32_t a = core_.term_begin[x];
    const int32_t b = core_.term_begin[x + 1];
    const int32_t i = static_cast<int32_t>(std::upper_bound(lo + a, lo + b, t) - lo) - 1;
    if (i >= a && core_.term_hi[i] > t) out->push_back(x);
  }
}

int64_t LocalSearch::descend(CoreState* state, int64_t* work) {
  const int32_t n = core_.num_nodes();
  int64_t moves = 0;
  // A fresh seeded order per call: different engines explore differently.
  for (int32_t i = n; i > 1; --i) {
    std::swap(order_[i - 1], order_[rng_.below(static_cast<uint32_t>(i))]);
  }
  // Work list: every node once, then the neighbours of nodes that moved.
  std::vector<int32_t> queue(order_.begin(), order_.end());
  queued_.assign(n, 1);
  std::vector<int64_t> costs;
  for (size_t head = 0; head < queue.size() && *work > 0; ++head) {
    const int32_t x = queue[head];
    queued_[x] = 0;
    *work -= state->local_costs(x, &costs);
    const int32_t k = core_.num_strategies(x);
    const int32_t current = state->at(x);
    int32_t best = current;
    int64_t best_delta = 0;
    for (int32_t s = 0; s < k; ++s) {
      if (costs[s] >= kForbidden) continue;
      const int64_t delta = costs[s] - costs[current];
      if (delta >= best_delta || !state->move_fits(x, s)) continue;
      best = s;
      best_delta = delta;
    }
    if (best == current) continue;
    *work -= core_.term_begin[x + 1] - core_.term_begin[x];
    state->set(x, best);
    ++moves;
    for (int32_t i = core_.adj_begin[x]; i < core_.adj_begin[x + 1]; ++i) {
      const int32_t y = core_.other(core_.adj_edge[i], x);
      if (!queued_[y]) {
        queued_[y] = 1;
        queue.push_back(y);
      }
    }
  }
  return moves;
}

bool LocalSearch::repair(CoreState* state, int64_t* work) {
  std::vector<int32_t> live;
  const int32_t max_steps = 4 * core_.num_nodes() + 16;
  for (int32_t step = 0; step < max_steps && state->excess() > 0 && *work > 0; ++step) {
    const int64_t worst = state->excess();
    const int32_t t = state->excess_tree().argmax();
    nodes_at(t, &live);
    *work -= static_cast<int64_t>(memory_nodes_.size()) + 1;
    int32_t best_x = -1;
    int32_t best_s = -1;
    // Compare delta_cost / freed as fractions without division.
    int64_t best_cost = 0;
    int64_t best_freed = 1;
    for (int32_t x : live) {
      const int32_t* lo = core_.term_lo.data();
      const int32_t a = core_.term_begin[x];
      const int32_t seg =
          static_cast<int32_t>(std::upper_bound(lo + a, lo + core_.term_begin[x + 1], t) - lo) - 1;
      const int64_t now = core_.term_use(seg, state->at(x));
      const int32_t k = core_.num_strategies(x);
      *work -= k;
      for (int32_t s = 0; s < k; ++s) {
        const int64_t freed = now - core_.term_use(seg, s);
        if (freed <= 0) continue;
        int64_t forbidden = 0;
        const int64_t delta = state->move_cost(x, s, &forbidden);
        if (forbidden > 0) continue;
        if (!state->move_fits(x, s, worst)) continue;
        const __int128 lhs = static_cast<__int128>(delta) * best_freed;
        const __int128 rhs = static_cast<__int128>(best_cost) * freed;
        if (best_x < 0 || lhs < rhs) {
          best_x = x;
          best_s = s;
          best_cost = delta;
          best_freed = freed;
        }
      }
    }
    if (best_x < 0) return false;
    state->set(best_x, best_s);
  }
  return state->excess() <= 0;
}

}  // namespace shardlab
