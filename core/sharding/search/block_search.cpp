// Exact region re-optimisation (see block_search.h).
//
// Why usage classes: memory depends on a node's strategy only through its
// usage vector, and on the contest instances a memory node has few distinct
// vectors (2-9 on V, where a node has up to 118 strategies). Branching on
// classes instead of strategies keeps the tree small, and the tree DP with
// some classes fixed is a valid lower bound (memory relaxed), so branch and
// bound (Land and Doig 1960) closes each region exactly when it finishes.
// Regions mix a forest with a small enumerated cutset: cutset conditioning
// (Pearl 1988; Dechter 2003) lets a region contain a cycle.
#include "core/sharding/search/block_search.h"

#include <algorithm>
#include <numeric>

namespace shardlab {

BlockSearch::BlockSearch(const CoreModel& core, uint64_t seed)
    : core_(core),
      rng_(seed),
      forest_(core),
      class_of_(core.unary.size(), 0),
      num_classes_(core.num_nodes(), 1),
      in_region_(core.num_nodes(), 0),
      seen_(core.num_nodes(), 0),
      relaxed_(core.num_nodes(), 0),
      allowed_(core.unary.size(), 1) {
  std::vector<int32_t> order;
  for (int32_t x = 0; x < core.num_nodes(); ++x) {
    const int32_t a = core.term_begin[x];
    const int32_t b = core.term_begin[x + 1];
    if (a == b) continue;
    memory_nodes_.push_back(x);
    const int32_t k = core.num_strategies(x);
    order.resize(k);
    std::iota(order.begin(), order.end(), 0);
    auto less = [&](int32_t s, int32_t t) {
      for (int32_t i = a; i < b; ++i) {
        if (core.term_use(i, s) != core.term_use(i, t))
          return core.term_use(i, s) < core.term_use(i, t);
      }
      return s < t;
    };
    auto same = [&](int32_t s, int32_t t) {
      for (int32_t i = a; i < b; ++i) {
        if (core.term_use(i, s) != core.term_use(i, t)) return false;
      }
      return true;
    };
    std::sort(order.begin(), order.end(), less);
    int32_t cls = 0;
    for (int32_t j = 0; j < k; ++j) {
      if (j > 0 && !same(order[j - 1], order[j])) ++cls;
      class_of_[core.strategy_begin[x] + order[j]] = cls;
    }
    num_classes_[x] = cls + 1;
  }
}

std::vector<int32_t> BlockSearch::region() const {
  std::vector<int32_t> nodes(forest_.nodes());
  nodes.insert(nodes.end(), cut_.begin(), cut_.end());
  return nodes;
}

void BlockSearch::clear_region() {
  forest_.clear();
  for (int32_t x : cut_) in_region_[x] = 0;
  cut_.clear();
  key_.clear();
  monotone_.clear();
}

bool BlockSearch::admit(int32_t x, const Params& params, int32_t key_limit, int64_t* product) {
  if (forest_.contains(x) || in_region_[x]) return false;
  const bool memory = core_.term_begin[x + 1] > core_.term_begin[x];
  if (forest_.links(x) <= 1) {
    if (!memory) return forest_.add(x);
    if (static_cast<int32_t>(key_.size()) < key_limit) {
      if (!forest_.add(x)) return false;
      key_.push_back(x);
      return true;
    }
    if (!params.monotone || !forest_.add(x)) return false;
    monotone_.push_back(x);
    return true;
  }
  if (static_cast<int32_t>(cut_.size()) < params.max_cutset &&
      *product * core_.num_strategies(x) <= params.max_cutset_product) {
    *product *= core_.num_strategies(x);
    cut_.push_back(x);
    in_region_[x] = 1;
    return true;
  }
  return false;
}

void BlockSearch::grow(const CoreState& state, int32_t root, const Params& params) {
  (void)state;
  clear_region();
  // The graph part leaves room for the memory partners added later. Half
  // of the regions grow breadth-first (compact), half from a random point
  // of the frontier (elongated, reaching past high-degree nodes).
  const int32_t graph_nodes = std::max(1, params.max_nodes - params.partners);
  const bool breadth_first = rng_.below(2) == 0;
  std::vector<int32_t> frontier{root};
  std::vector<int32_t> touched{root};
  seen_[root] = 1;
  int64_t product = 1;
  const int32_t key_limit = std::max(0, params.max_key_nodes - params.partners);
  size_t head = 0;
  while (head < frontier.size() &&
         forest_.size() + static_cast<int32_t>(cut_.size()) < graph_nodes) {
    if (!breadth_first) {
      const size_t pick = head + rng_.below(static_cast<uint32_t>(frontier.size() - head));
      std::swap(frontier[head], frontier[pick]);
    }
    const int32_t y = frontier[head++];
    if (!admit(y, params, key_limit, &product)) continue;
    const int32_t begin = core_.adj_begin[y];
    const int32_t degree = core_.adj_begin[y + 1] - begin;
    if (degree == 0) continue;
    const int32_t offset = static_cast<int32_t>(rng_.below(static_cast<uint32_t>(degree)));
    for (int32_t j = 0; j < degree; ++j) {
      const int32_t z = core_.other(core_.adj_edge[begin + (j + offset) % degree], y);
      if (seen_[z]) continue;
      seen_[z] = 1;
      touched.push_back(z);
      frontier.push_back(z);
    }
  }
  for (int32_t y : touched) seen_[y] = 0;
}

int32_t BlockSearch::tightest_time(const CoreState& state) const {
  // The largest excess under the key nodes' segments, located by bisection
  // with range-max queries.
  const MaxSegmentTree& tree = state.excess_tree();
  int32_t lo = -1;
  int32_t hi = -1;
  int64_t worst = 0;
  for (int32_t x : key_) {
    for (int32_t i = core_.term_begin[x]; i < core_.term_begin[x + 1]; ++i) {
      const int64_t e = tree.max(core_.term_lo[i], core_.term_hi[i]);
      if (lo < 0 || e > worst) {
        worst = e;
        lo = core_.term_lo[i];
        hi = core_.term_hi[i];
      }
    }
  }
  if (lo < 0) return -1;
  while (hi - lo > 1) {
    const int32_t mid = lo + (hi - lo) / 2;
    if (tree.max(lo, mid) >= worst) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return lo;
}

int32_t BlockSearch::overflow_time() {
  // Solve the region with memory relaxed; where does its choice overflow?
  const int64_t value = forest_.solve<int64_t>(core_.unary, allowed_, kForbidden, &work_plan_);
  spent_ += forest_.last_work();
  if (value >= kForbidden) return -1;
  int32_t worst = -1;
  int64_t worst_over = 0;
  for (size_t j = 0; j < interval_lo_.size(); ++j) {
    int64_t used = 0;
    for (size_t m = 0; m < members_.size(); ++m) {
      used += usage(static_cast<int32_t>(m), static_cast<int32_t>(j), work_plan_[members_[m]]);
    }
    if (used - slack_[j] > worst_over) {
      worst_over = used - slack_[j];
      worst = static_cast<int32_t>(j);
    }
  }
  return worst < 0 ? -1 : interval_lo_[worst];
}

void BlockSearch::add_partners(const CoreState& state, const Params& params, int32_t t) {
  if (params.partners <= 0 || memory_nodes_.empty() || t < 0) return;
  // Candidates: memory nodes live at t that could free memory there, most
  // first (random order among equals).
  std::vector<std::pair<int64_t, int32_t>> candidates;
  const int32_t count = static_cast<int32_t>(memory_nodes_.size());
  const int32_t offset = static_cast<int32_t>(rng_.below(static_cast<uint32_t>(count)));
  for (int32_t j = 0; j < count; ++j) {
    const int32_t x = memory_nodes_[(j + offset) % count];
    if (forest_.contains(x) || in_region_[x]) continue;
    const int32_t* tl = core_.term_lo.data();
    const int32_t a = core_.term_begin[x];
    const int32_t i =
        static_cast<int32_t>(std::upper_bound(tl + a, tl + core_.term_begin[x + 1], t) - tl) - 1;
    if (i < a || core_.term_hi[i] <= t) continue;
    int64_t least = core_.term_use(i, state.at(x));
    for (int32_t s = 0; s < core_.num_strategies(x); ++s) {
      least = std::min(least, core_.term_use(i, s));
    }
    const int64_t freeable = core_.term_use(i, state.at(x)) - least;
    if (freeable > 0) candidates.push_back({-freeable, j});
  }
  spent_ += count;
  std::sort(candidates.begin(), candidates.end());
  int32_t added = 0;
  for (const auto& [neg, j] : candidates) {
    if (added >= params.partners || static_cast<int32_t>(key_.size()) >= params.max_key_nodes ||
        forest_.size() + static_cast<int32_t>(cut_.size()) >= params.max_nodes) {
      return;
    }
    // Skip some of the best at random so repeated calls try other partners.
    if (rng_.below(3) == 0) continue;
    const int32_t x = memory_nodes_[(j + offset) % count];
    if (forest_.add(x)) {
      key_.push_back(x);
      ++added;
    }
  }
}

void BlockSearch::set_monotone(const std::vector<int32_t>& plan, bool restrict) {
  // Monotone nodes: only strategies never heavier than the current one.
  for (int32_t x : monotone_) {
    const int32_t base = core_.strategy_begin[x];
    for (int32_t s = 0; s < core_.num_strategies(x); ++s) {
      bool lighter = true;
      for (int32_t i = core_.term_begin[x]; i < core_.term_begin[x + 1] && lighter&& restrict;
           ++i) {
        lighter = core_.term_use(i, s) <= core_.term_use(i, plan[x]);
      }
      allowed_[base + s] = lighter;
    }
  }
}

int64_t BlockSearch::usage(int32_t local, int32_t interval, int32_t s) const {
  const int32_t seg = segment_of_[static_cast<size_t>(local) * interval_lo_.size() + interval];
  return seg < 0 ? 0 : core_.term_use(seg, s);
}

void BlockSearch::prepare_intervals(const CoreState& state) {
  members_.clear();
  members_.insert(members_.end(), cut_.begin(), cut_.end());
  members_.insert(members_.end(), key_.begin(), key_.end());
  members_.insert(members_.end(), monotone_.begin(), monotone_.end());
  std::vector<int32_t> cuts;
  for (int32_t x : members_) {
    for (int32_t i = core_.term_begin[x]; i < core_.term_begin[x + 1]; ++i) {
      cuts.push_back(core_.term_lo[i]);
      cuts.push_back(core_.term_hi[i]);
    }
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  interval_lo_.clear();
  interval_hi_.clear();
  for (size_t j = 0; j + 1 < cuts.size(); ++j) {
    interval_lo_.push_back(cuts[j]);
    interval_hi_.push_back(cuts[j + 1]);
  }
  const size_t count = interval_lo_.size();
  segment_of_.assign(members_.size() * count, -1);
  for (size_t m = 0; m < members_.size(); ++m) {
    const int32_t x = members_[m];
    size_t j = 0;
    for (int32_t i = core_.term_begin[x]; i < core_.term_begin[x + 1]; ++i) {
      while (j < count && interval_lo_[j] < core_.term_lo[i]) ++j;
      for (; j < count && interval_hi_[j] <= core_.term_hi[i]; ++j) {
        segment_of_[m * count + j] = i;
      }
    }
  }
  slack_.assign(count, 0);
  for (size_t j = 0; j < count; ++j) {
    int64_t current = 0;
    for (size_t m = 0; m < members_.size(); ++m) {
      current += usage(static_cast<int32_t>(m), static_cast<int32_t>(j), state.at(members_[m]));
    }
    slack_[j] = current - state.excess_tree().max(interval_lo_[j], interval_hi_[j]);
  }
  spent_ += static_cast<int64_t>(members_.size() * count) + static_cast<int64_t>(cuts.size());
}

int64_t BlockSearch::block_value(const std::vector<int32_t>& plan) const {
  int64_t total = 0;
  auto in_region = [&](int32_t x) { return forest_.contains(x) || in_region_[x] != 0; };
  std::vector<int32_t> region(forest_.nodes());
  region.insert(region.end(), cut_.begin(), cut_.end());
  for (int32_t x : region) {
    total += core_.node_cost(x, plan[x]);
    for (int32_t i = core_.adj_begin[x]; i < core_.adj_begin[x + 1]; ++i) {
      const int32_t e = core_.adj_edge[i];
      const int32_t y = core_.other(e, x);
      if (in_region(y) && y < x) continue;  // counted from y
      const int64_t c = core_.edge_cost_from(e, x, plan[x], plan[y]);
      if (c >= kForbidden) return kForbidden;
      total += c;
    }
  }
  return total;
}

bool BlockSearch::fits(const std::vector<int32_t>& plan) const {
  for (size_t j = 0; j < interval_lo_.size(); ++j) {
    int64_t used = 0;
    for (size_t m = 0; m < members_.size(); ++m) {
      used += usage(static_cast<int32_t>(m), static_cast<int32_t>(j), plan[members_[m]]);
    }
    if (used > slack_[j]) return false;
  }
  return true;
}

void BlockSearch::prepare_cut_costs() {
  // Per cutset node and strategy: unary plus edges to fixed nodes (which do
  // not change during the search); per cutset pair: the cheapest entry of
  // the edges between them.
  cut_own_.assign(cut_.size(), {});
  for (size_t c = 0; c < cut_.size(); ++c) {
    const int32_t x = cut_[c];
    const int32_t k = core_.num_strategies(x);
    std::vector<int64_t>& own = cut_own_[c];
    own.assign(core_.unary.begin() + core_.strategy_begin[x],
               core_.unary.begin() + core_.strategy_begin[x + 1]);
    for (int32_t i = core_.adj_begin[x]; i < core_.adj_begin[x + 1]; ++i) {
      const int32_t e = core_.adj_edge[i];
      const int32_t y = core_.other(e, x);
      if (forest_.contains(y) || in_region_[y]) continue;
      for (int32_t s = 0; s < k; ++s) {
        own[s] =
            std::min<int64_t>(own[s] + core_.edge_cost_from(e, x, s, work_plan_[y]), kForbidden);
      }
      spent_ += k;
    }
  }
}

int64_t BlockSearch::cut_value() const {
  // The cutset's own terms (unary, edges to fixed nodes) and the edges among
  // cutset nodes, each once; unassigned cutset nodes count their cheapest
  // allowed strategy and cheapest pair entries (a lower bound).
  int64_t total = 0;
  for (size_t c = 0; c < cut_.size(); ++c) {
    const int32_t x = cut_[c];
    int64_t best = kForbidden;
    if (cut_assigned_[c]) {
      best = cut_own_[c][work_plan_[x]];
    } else {
      for (int32_t s = 0; s < core_.num_strategies(x); ++s) {
        if (allowed_[core_.strategy_begin[x] + s]) best = std::min(best, cut_own_[c][s]);
      }
    }
    if (best >= kForbidden) return kForbidden;
    total += best;
    for (size_t d = c + 1; d < cut_.size(); ++d) {
      const int32_t y = cut_[d];
      for (int32_t i = core_.adj_begin[x]; i < core_.adj_begin[x + 1]; ++i) {
        const int32_t e = core_.adj_edge[i];
        if (core_.other(e, x) != y) continue;
        int64_t v = kForbidden;
        if (cut_assigned_[c] && cut_assigned_[d]) {
          v = core_.edge_cost_from(e, x, work_plan_[x], work_plan_[y]);
        } else {
          const int64_t size = static_cast<int64_t>(core_.num_strategies(core_.edge_u[e])) *
                               core_.num_strategies(core_.edge_v[e]);
          for (int64_t j = 0; j < size; ++j) v = std::min(v, core_.edge_costs(e)[j]);
        }
        if (v >= kForbidden) return kForbidden;
        total += v;
      }
    }
  }
  return total;
}

void BlockSearch::branch(int32_t depth) {
  if (nodes_left_ <= 0) return;
  --nodes_left_;
  ++search_nodes_;
  const int64_t value =
      forest_.solve<int64_t>(core_.unary, allowed_, kForbidden, &work_plan_, relaxed_);
  spent_ += forest_.last_work();
  if (value >= kForbidden) return;
  const int64_t fixed = cut_value();
  for (int32_t x : cut_) spent_ += core_.num_strategies(x) + 4;
  if (fixed >= kForbidden || value + fixed >= best_value_) return;
  // Cutset nodes are branched on first.
  for (size_t c = 0; c < cut_.size(); ++c) {
    if (cut_assigned_[c]) continue;
    const int32_t x = cut_[c];
    const int32_t base = core_.strategy_begin[x];
    const int32_t k = core_.num_strategies(x);
    std::vector<std::pair<int64_t, int32_t>> order;
    // The current strategy first, then the cheapest.
    for (int32_t s = 0; s < k; ++s) {
      if (!allowed_[base + s]) continue;
      order.push_back({s == state_->at(x) ? -1 : core_.node_cost(x, s), s});
    }
    std::sort(order.begin(), order.end());
    const std::vector<uint8_t> saved(allowed_.begin() + base, allowed_.begin() + base + k);
    cut_assigned_[c] = 1;
    relaxed_[x] = 0;
    for (const auto& [cost, v] : order) {
      for (int32_t s = 0; s < k; ++s) allowed_[base + s] = s == v;
      work_plan_[x] = v;
      branch(depth + 1);
      if (nodes_left_ <= 0) break;
    }
    for (int32_t s = 0; s < k; ++s) allowed_[base + s] = saved[s];
    work_plan_[x] = state_->at(x);
    relaxed_[x] = 1;
    cut_assigned_[c] = 0;
    return;
  }
  if (fits(work_plan_)) {
    best_value_ = value + fixed;
    best_plan_ = work_plan_;
    return;
  }
  // Branch on the unassigned key node using the most memory where the DP's
  // choice overflows.
  const size_t count = interval_lo_.size();
  const size_t first_key = cut_.size();
  int32_t pick = -1;
  int64_t pick_load = -1;
  for (size_t j = 0; j < count; ++j) {
    int64_t used = 0;
    for (size_t m = 0; m < members_.size(); ++m) {
      used += usage(static_cast<int32_t>(m), static_cast<int32_t>(j), work_plan_[members_[m]]);
    }
    if (used <= slack_[j]) continue;
    for (size_t k = 0; k < key_.size(); ++k) {
      if (assigned_[k] >= 0) continue;
      const int64_t load =
          usage(static_cast<int32_t>(first_key + k), static_cast<int32_t>(j), work_plan_[key_[k]]);
      if (load > pick_load) {
        pick_load = load;
        pick = static_cast<int32_t>(k);
      }
    }
  }
  if (pick < 0) return;  // only monotone or cutset nodes overflow: give up here
  const int32_t x = key_[pick];
  const int32_t base = core_.strategy_begin[x];
  const int32_t k = core_.num_strategies(x);
  const int32_t preferred = class_of_[base + work_plan_[x]];
  for (int32_t step = 0; step < num_classes_[x]; ++step) {
    const int32_t cls = step == 0 ? preferred : (step <= preferred ? step - 1 : step);
    // Cheap feasibility: this class at its usage, every other region member
    // at its lightest admissible usage.
    bool ok = true;
    int32_t representative = -1;
    for (int32_t s = 0; s < k && representative < 0; ++s) {
      if (class_of_[base + s] == cls) representative = s;
    }
    for (size_t j = 0; j < count && ok; ++j) {
      const int32_t local = static_cast<int32_t>(first_key) + pick;
      if (segment_of_[static_cast<size_t>(local) * count + j] < 0) continue;
      int64_t used = usage(local, static_cast<int32_t>(j), representative);
      for (size_t m = 0; m < members_.size(); ++m) {
        if (static_cast<int32_t>(m) == local) continue;
        const int32_t y = members_[m];
        int64_t least = -1;
        for (int32_t s = 0; s < core_.num_strategies(y); ++s) {
          if (!allowed_[core_.strategy_begin[y] + s]) continue;
          const int64_t u = usage(static_cast<int32_t>(m), static_cast<int32_t>(j), s);
          if (least < 0 || u < least) least = u;
        }
        used += std::max<int64_t>(least, 0);
      }
      spent_ += static_cast<int64_t>(members_.size()) * 4;
      ok = used <= slack_[j];
    }
    if (!ok) continue;
    for (int32_t s = 0; s < k; ++s) allowed_[base + s] = class_of_[base + s] == cls;
    assigned_[pick] = cls;
    branch(depth + 1);
    assigned_[pick] = -1;
    for (int32_t s = 0; s < k; ++s) allowed_[base + s] = 1;
    if (nodes_left_ <= 0) return;
  }
}

bool BlockSearch::improve(CoreState* state, int32_t root, const Params& params, int64_t* work) {
  spent_ = 0;
  grow(*state, root, params);
  return solve_region(state, params, work);
}

bool BlockSearch::improve_region(CoreState* state, const std::vector<int32_t>& nodes,
                                 const Params& params, int64_t* work) {
  spent_ = 0;
  clear_region();
  int64_t product = 1;
  for (int32_t x : nodes) admit(x, params, params.max_key_nodes, &product);
  return solve_region(state, params, work);
}

bool BlockSearch::solve_region(CoreState* state, const Params& params, int64_t* work) {
  ++attempts_;
  state_ = state;
  params_ = &params;
  const std::vector<int32_t>& plan = state->plan();
  work_plan_ = plan;
  if (params.partners > 0) {
    // Memory partners go where the region's memory-relaxed optimum
    // overflows (or, if it fits, where the region is tightest): freeing
    // memory there is what the region needs to improve.
    prepare_intervals(*state);
    set_monotone(plan, true);
    int32_t t = overflow_time();
    if (t < 0) t = tightest_time(*state);
    set_monotone(plan, false);
    work_plan_ = plan;
    add_partners(*state, params, t);
  }
  prepare_intervals(*state);
  const int64_t current = block_value(plan);
  best_value_ = current;
  best_plan_.clear();
  nodes_left_ = params.max_search_nodes;
  assigned_.assign(key_.size(), -1);
  set_monotone(plan, true);
  // Cutset nodes start unassigned and relaxed (their edges into the forest
  // count their cheapest entry); branch and bound assigns them first.
  for (int32_t x : cut_) relaxed_[x] = 1;
  cut_assigned_.assign(cut_.size(), 0);
  prepare_cut_costs();
  branch(0);
  for (int32_t x : cut_) relaxed_[x] = 0;
  set_monotone(plan, false);
  *work -= spent_;
  if (best_plan_.empty() || best_value_ >= current) return false;
  // Apply, and keep the change only if the incremental state agrees.
  const int64_t before = state->cost();
  std::vector<std::pair<int32_t, int32_t>> undo;
  std::vector<int32_t> region(forest_.nodes());
  region.insert(region.end(), cut_.begin(), cut_.end());
  for (int32_t x : region) {
    if (best_plan_[x] != state->at(x)) {
      undo.push_back({x, state->at(x)});
      state->set(x, best_plan_[x]);
    }
  }
  if (state->feasible() && state->cost() < before) {
    ++successes_;
    return true;
  }
  for (auto it = undo.rbegin(); it != undo.rend(); ++it) state->set(it->first, it->second);
  return false;
}

}  // namespace shardlab
