// Incremental evaluation of core plans (see core_state.h). A node's usage
// segments are disjoint, so the usage change of a move is one constant per
// segment and "does it still fit" is one range-max query per growing segment.
#include "core/sharding/search/core_state.h"

#include <algorithm>

namespace shardlab {

CoreState::CoreState(const CoreModel& core, std::vector<int32_t> plan)
    : core_(&core), plan_(std::move(plan)), num_times_(core.num_times()) {
  auto add = [&](int64_t c) {
    if (c >= kForbidden) {
      ++forbidden_;
    } else {
      cost_ += c;
    }
  };
  for (int32_t x = 0; x < core.num_nodes(); ++x) add(core.node_cost(x, plan_[x]));
  for (int32_t e = 0; e < core.num_edges(); ++e) {
    add(core.edge_cost(e, plan_[core.edge_u[e]], plan_[core.edge_v[e]]));
  }
  std::vector<int64_t> diff(num_times_ + 1, 0);
  for (int32_t x = 0; x < core.num_nodes(); ++x) {
    for (int32_t i = core.term_begin[x]; i < core.term_begin[x + 1]; ++i) {
      diff[core.term_lo[i]] += core.term_use(i, plan_[x]);
      diff[core.term_hi[i]] -= core.term_use(i, plan_[x]);
    }
  }
  std::vector<int64_t> excess(num_times_);
  int64_t live = 0;
  for (int32_t t = 0; t < num_times_; ++t) {
    live += diff[t];
    excess[t] = live - core.capacity[t];
  }
  excess_.assign(excess);
}

int64_t CoreState::local_cost(int32_t x, int32_t s) const {
  const CoreModel& c = *core_;
  int64_t total = c.node_cost(x, s);
  for (int32_t i = c.adj_begin[x]; i < c.adj_begin[x + 1]; ++i) {
    const int32_t e = c.adj_edge[i];
    const int64_t entry = c.edge_u[e] == x ? c.edge_cost(e, s, plan_[c.edge_v[e]])
                                           : c.edge_cost(e, plan_[c.edge_u[e]], s);
    total = std::min<int64_t>(total + entry, kForbidden);
  }
  return total;
}

int64_t CoreState::local_costs(int32_t x, std::vector<int64_t>* out) const {
  const CoreModel& c = *core_;
  const int32_t k = c.num_strategies(x);
  out->assign(c.unary.begin() + c.strategy_begin[x], c.unary.begin() + c.strategy_begin[x + 1]);
  int64_t* o = out->data();
  for (int32_t i = c.adj_begin[x]; i < c.adj_begin[x + 1]; ++i) {
    const int32_t e = c.adj_edge[i];
    const int64_t* m = c.edge_costs(e);
    if (c.edge_u[e] == x) {
      const int32_t cols = c.num_strategies(c.edge_v[e]);
      const int64_t* col = m + plan_[c.edge_v[e]];
      for (int32_t s = 0; s < k; ++s) {
        o[s] = std::min<int64_t>(o[s] + col[static_cast<int64_t>(s) * cols], kForbidden);
      }
    } else {
      const int64_t* row = m + static_cast<int64_t>(plan_[c.edge_u[e]]) * k;
      // Both terms are at most kForbidden (1e18), so the sum cannot overflow.
      for (int32_t s = 0; s < k; ++s) o[s] = std::min<int64_t>(o[s] + row[s], kForbidden);
    }
  }
  return static_cast<int64_t>(k) * (c.adj_begin[x + 1] - c.adj_begin[x] + 1);
}

int64_t CoreState::move_cost(int32_t x, int32_t s, int64_t* forbidden_change) const {
  const CoreModel& c = *core_;
  const int32_t old = plan_[x];
  int64_t delta = 0;
  int64_t forb = 0;
  auto add = [&](int64_t before, int64_t after) {
    forb += (after >= kForbidden ? 1 : 0) - (before >= kForbidden ? 1 : 0);
    delta += (after >= kForbidden ? 0 : after) - (before >= kForbidden ? 0 : before);
  };
  if (old != s) {
    add(c.node_cost(x, old), c.node_cost(x, s));
    for (int32_t i = c.adj_begin[x]; i < c.adj_begin[x + 1]; ++i) {
      const int32_t e = c.adj_edge[i];
      if (c.edge_u[e] == x) {
        const int32_t o = plan_[c.edge_v[e]];
        add(c.edge_cost(e, old, o), c.edge_cost(e, s, o));
      } else {
        const int32_t o = plan_[c.edge_u[e]];
        add(c.edge_cost(e, o, old), c.edge_cost(e, o, s));
      }
    }
  }
  if (forbidden_change != nullptr) *forbidden_change = forb;
  return delta;
}

bool CoreState::move_fits(int32_t x, int32_t s, int64_t limit) const {
  const CoreModel& c = *core_;
  const int32_t old = plan_[x];
  if (old == s) return true;
  for (int32_t i = c.term_begin[x]; i < c.term_begin[x + 1]; ++i) {
    const int64_t d = c.term_use(i, s) - c.term_use(i, old);
    if (d > 0 && excess_.max(c.term_lo[i], c.term_hi[i]) + d > limit) return false;
  }
  return true;
}

int64_t CoreState::move_growth(int32_t x, int32_t s) const {
  const CoreModel& c = *core_;
  int64_t growth = 0;
  for (int32_t i = c.term_begin[x]; i < c.term_begin[x + 1]; ++i) {
    growth = std::max(growth, c.term_use(i, s) - c.term_use(i, plan_[x]));
  }
  return growth;
}

void CoreState::apply_usage(int32_t x, int32_t from, int32_t to) {
  const CoreModel& c = *core_;
  for (int32_t i = c.term_begin[x]; i < c.term_begin[x + 1]; ++i) {
    excess_.add(c.term_lo[i], c.term_hi[i], c.term_use(i, to) - c.term_use(i, from));
  }
}

int64_t CoreState::excess_after(int32_t x, int32_t s) {
  const int32_t old = plan_[x];
  if (old == s) return excess();
  apply_usage(x, old, s);
  const int64_t result = excess();
  apply_usage(x, s, old);
  return result;
}

void CoreState::set(int32_t x, int32_t s) {
  const int32_t old = plan_[x];
  if (old == s) return;
  int64_t forb = 0;
  cost_ += move_cost(x, s, &forb);
  forbidden_ += forb;
  apply_usage(x, old, s);
  plan_[x] = s;
}

}  // namespace shardlab
