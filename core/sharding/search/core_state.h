// A core plan under one-node moves: its cost and, per core time, the excess
// usage - capacity in a range-add/range-max segment tree, so that checking
// whether a move keeps memory within capacity costs O(segments * log T).
// Every hard-feasible search technique (local search, repair, LNS) edits the
// incumbent through this class.
#pragma once

#include <cstdint>
#include <vector>

#include "core/sharding/presolve.h"
#include "core/sharding/segment_tree.h"

namespace shardlab {

class CoreState {
 public:
  CoreState() = default;
  // plan must be in range: 0 <= plan[x] < K(x).
  CoreState(const CoreModel& core, std::vector<int32_t> plan);

  const std::vector<int32_t>& plan() const { return plan_; }
  int32_t at(int32_t x) const { return plan_[x]; }
  int64_t cost() const { return cost_; }  // finite part, without core.constant
  int64_t forbidden() const { return forbidden_; }
  // max over core times of usage - capacity (<= 0: within capacity).
  int64_t excess() const { return num_times_ > 0 ? excess_.max_all() : 0; }
  bool feasible() const { return forbidden_ == 0 && excess() <= 0; }

  // Change of cost (and of the forbidden count) if x moved to s.
  int64_t move_cost(int32_t x, int32_t s, int64_t* forbidden_change) const;
  // Cost of x at s given its neighbours' current strategies (unary + edges);
  // forbidden entries count as kForbidden each, saturating.
  int64_t local_cost(int32_t x, int32_t s) const;
  // local_cost for every strategy of x at once (cache-friendly): out[s].
  // Returns the entry visits spent.
  int64_t local_costs(int32_t x, std::vector<int64_t>* out) const;
  // True when, after moving x to s, every core time where x's usage grows
  // stays at or below `limit` excess (0: within capacity).
  bool move_fits(int32_t x, int32_t s, int64_t limit = 0) const;
  // Largest usage increase of moving x to s at any time (0 if none).
  int64_t move_growth(int32_t x, int32_t s) const;
  // Exact max excess after moving x to s (applies and reverts the change).
  int64_t excess_after(int32_t x, int32_t s);
  void set(int32_t x, int32_t s);

  const MaxSegmentTree& excess_tree() const { return excess_; }
  const CoreModel& core() const { return *core_; }

 private:
  void apply_usage(int32_t x, int32_t from, int32_t to);

  const CoreModel* core_ = nullptr;
  std::vector<int32_t> plan_;
  int64_t cost_ = 0;
  int64_t forbidden_ = 0;
  int32_t num_times_ = 0;
  MaxSegmentTree excess_;
};

}  // namespace shardlab
