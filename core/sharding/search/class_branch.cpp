// Best-first branch and bound over usage classes (class_branch.h).
#include "core/sharding/search/class_branch.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <queue>

#include "core/sharding/bound.h"
#include "core/sharding/search/exhaustive.h"
#include "core/sharding/search/message_passing.h"

namespace shardlab {
namespace {

constexpr int32_t kIterations = 10;        // message-passing sweeps per round
constexpr int32_t kRounds = 20;            // multiplier rounds per branch
constexpr int32_t kExpandRounds = 60;      // the same, cold, when a branch is expanded
constexpr int32_t kFixingPasses = 3;       // reduced-cost fixing passes per branch
constexpr size_t kMaxOpen = 20000;         // open branches kept (memory cap)
constexpr double kTightShare = 0.5;        // capacity <= this share of the peak: tight
constexpr double kMaxMaskCost = 1e14;      // masks above this lose too much precision
constexpr size_t kRegionNodes = 10;        // nodes per tightening region
constexpr int64_t kRegionSearch = 200000;  // search nodes per region solve

struct Branch {
  int64_t bound = 0;
  int32_t depth = 0;
  bool leaf = false;
  std::vector<uint8_t> allowed;  // per core strategy
  std::vector<double> lambda;    // per core time
  std::vector<int32_t> plan;     // leaves only
};

struct Later {  // priority: least bound, then leaves, then deeper
  bool operator()(const Branch* a, const Branch* b) const {
    if (a->bound != b->bound) return a->bound > b->bound;
    if (a->leaf != b->leaf) return b->leaf;
    return a->depth < b->depth;
  }
};

// Per core time: the peak load (every node at its largest usage).
std::vector<int64_t> peak_loads(const CoreModel& core) {
  std::vector<int64_t> diff(core.num_times() + 1, 0);
  for (int32_t x = 0; x < core.num_nodes(); ++x) {
    for (int32_t i = core.term_begin[x]; i < core.term_begin[x + 1]; ++i) {
      int64_t most = 0;
      for (int32_t s = 0; s < core.num_strategies(x); ++s)
        most = std::max(most, core.term_use(i, s));
      diff[core.term_lo[i]] += most;
      diff[core.term_hi[i]] -= most;
    }
  }
  std::vector<int64_t> peak(core.num_times(), 0);
  int64_t run = 0;
  for (int32_t t = 0; t < core.num_times(); ++t) peak[t] = run += diff[t];
  return peak;
}

// 1000 times the largest finite cost of a plan: masked strategies cost this
// (at most kMaxMaskCost) in the double-precision message passing, so that
// plans through them do not win its minima. (Only the search's guidance
// depends on it: the certified bounds skip masked strategies exactly.)
double cost_ceiling(const CoreModel& core) {
  double total = 0;
  for (int32_t x = 0; x < core.num_nodes(); ++x) {
    int64_t most = 0;
    for (int32_t s = 0; s < core.num_strategies(x); ++s) {
      if (core.node_cost(x, s) < kForbidden) most = std::max(most, core.node_cost(x, s));
    }
    total += static_cast<double>(most);
  }
  for (int32_t e = 0; e < core.num_edges(); ++e) {
    const int64_t size = static_cast<int64_t>(core.num_strategies(core.edge_u[e])) *
                         core.num_strategies(core.edge_v[e]);
    int64_t most = 0;
    for (int64_t i = 0; i < size; ++i) {
      if (core.edge_costs(e)[i] < kForbidden) most = std::max(most, core.edge_costs(e)[i]);
    }
    total += static_cast<double>(most);
  }
  return 1000.0 * (total + 1.0);
}

}  // namespace

bool ClassBranch::applicable(const CoreModel& core, int32_t max_nodes) {
  if (core.num_nodes() == 0 || core.num_nodes() > max_nodes) return false;
  const std::vector<int64_t> peak = peak_loads(core);
  bool binds = false;
  for (int32_t t = 0; t < core.num_times(); ++t) binds = binds || peak[t] > core.capacity[t];
  return binds;
}

struct ClassBranch::Impl {
  explicit Impl(const CoreModel& core) : core(core), mp(core) {
    const int32_t times = core.num_times();
    const std::vector<int64_t> peak = peak_loads(core);
    binding.assign(times, 0);
    std::vector<int32_t> tight;
    int32_t tightest = -1;
    for (int32_t t = 0; t < times; ++t) {
      if (peak[t] <= core.capacity[t]) continue;
      binding[t] = 1;
      const double share = static_cast<double>(core.capacity[t]) / static_cast<double>(peak[t]);
      if (share <= kTightShare) tight.push_back(t);
      if (tightest < 0 || share < static_cast<double>(core.capacity[tightest]) /
                                      static_cast<double>(peak[tightest])) {
        tightest = t;
      }
    }
    if (tight.empty() && tightest >= 0) tight.push_back(tightest);
    // A node's usage class: its usage vector over the tight times.
    cls.assign(core.unary.size(), 0);
    std::vector<std::pair<int64_t, int32_t>> order;
    for (int32_t x = 0; x < core.num_nodes(); ++x) {
      std::map<std::vector<int64_t>, int32_t> seen;
      int64_t low = INT64_MAX;
      int64_t high = 0;
      for (int32_t s = 0; s < core.num_strategies(x); ++s) {
        std::vector<int64_t> use(tight.size(), 0);
        for (size_t j = 0; j < tight.size(); ++j) use[j] = usage_at(x, s, tight[j]);
        int64_t sum = 0;
        for (int64_t u : use) sum += u;
        low = std::min(low, sum);
        high = std::max(high, sum);
        const auto it = seen.emplace(use, static_cast<int32_t>(seen.size())).first;
        cls[core.strategy_begin[x] + s] = it->second;
      }
      if (seen.size() > 1) order.push_back({-(high - low), x});
    }
    std::sort(order.begin(), order.end());
    for (const auto& item : order) items.push_back(item.second);
    entries = static_cast<int64_t>(core.unary.size()) + 1;
    for (int32_t e = 0; e < core.num_edges(); ++e) {
      entries += static_cast<int64_t>(core.num_strategies(core.edge_u[e])) *
                 core.num_strategies(core.edge_v[e]);
    }
    mask_cost = std::min(cost_ceiling(core), kMaxMaskCost);
    // Tightening regions: from every node, the first kRegionNodes nodes met
    // breadth-first.
    for (int32_t seed = 0; seed < core.num_nodes(); ++seed) {
      std::vector<int32_t> region = {seed};
      std::vector<uint8_t> in(core.num_nodes(), 0);
      in[seed] = 1;
      for (size_t i = 0; i < region.size() && region.size() < kRegionNodes; ++i) {
        const int32_t x = region[i];
        for (int32_t j = core.adj_begin[x]; j < core.adj_begin[x + 1]; ++j) {
          const int32_t y = core.other(core.adj_edge[j], x);
          if (in[y] || region.size() >= kRegionNodes) continue;
          in[y] = 1;
          region.push_back(y);
        }
      }
      if (region.size() >= 2) regions.push_back(std::move(region));
    }
  }

  ~Impl() {
    while (!open.empty()) {
      delete open.top();
      open.pop();
    }
  }

  int64_t usage_at(int32_t x, int32_t s, int32_t t) const {
    int64_t use = 0;
    for (int32_t i = core.term_begin[x]; i < core.term_begin[x + 1]; ++i) {
      if (core.term_lo[i] <= t && t < core.term_hi[i]) use += core.term_use(i, s);
    }
    return use;
  }

  // Memory and support propagation, exact: drops strategies that cannot fit
  // beside the least loads of the others, and strategies left without a
  // finite partner on some edge. False when the branch holds no plan.
  bool propagate(std::vector<uint8_t>* allowed, int64_t* work) {
    std::vector<uint8_t>& ok = *allowed;
    const int32_t times = core.num_times();
    for (int32_t pass = 0; pass < 8; ++pass) {
      *work -= entries;
      bool changed = false;
      std::vector<int64_t> least(core.num_terms(), 0);
      std::vector<int64_t> diff(times + 1, 0);
      for (int32_t x = 0; x < core.num_nodes(); ++x) {
        for (int32_t i = core.term_begin[x]; i < core.term_begin[x + 1]; ++i) {
          int64_t low = INT64_MAX;
          for (int32_t s = 0; s < core.num_strategies(x); ++s) {
            if (ok[core.strategy_begin[x] + s]) low = std::min(low, core.term_use(i, s));
          }
          if (low == INT64_MAX) return false;
          least[i] = low;
          diff[core.term_lo[i]] += low;
          diff[core.term_hi[i]] -= low;
        }
      }
      std::vector<int64_t> room(times, 0);
      int64_t load = 0;
      for (int32_t t = 0; t < times; ++t) {
        load += diff[t];
        room[t] = core.capacity[t] - load;
        if (room[t] < 0) return false;
      }
      for (int32_t x = 0; x < core.num_nodes(); ++x) {
        for (int32_t i = core.term_begin[x]; i < core.term_begin[x + 1]; ++i) {
          int64_t free = INT64_MAX;
          for (int32_t t = core.term_lo[i]; t < core.term_hi[i]; ++t)
            free = std::min(free, room[t]);
          for (int32_t s = 0; s < core.num_strategies(x); ++s) {
            uint8_t& flag = ok[core.strategy_begin[x] + s];
            if (flag && core.term_use(i, s) - least[i] > free) {
              flag = 0;
              changed = true;
            }
          }
        }
      }
      for (int32_t e = 0; e < core.num_edges(); ++e) {
        const int32_t u = core.edge_u[e];
        const int32_t v = core.edge_v[e];
        const int32_t rows = core.num_strategies(u);
        const int32_t cols = core.num_strategies(v);
        const int64_t* m = core.edge_costs(e);
        std::vector<uint8_t> row_ok(rows, 0);
        std::vector<uint8_t> col_ok(cols, 0);
        for (int32_t a = 0; a < rows; ++a) {
          if (!ok[core.strategy_begin[u] + a]) continue;
          for (int32_t b = 0; b < cols; ++b) {
            if (ok[core.strategy_begin[v] + b] &&
                m[static_cast<int64_t>(a) * cols + b] < kForbidden) {
              row_ok[a] = 1;
              col_ok[b] = 1;
            }
          }
        }
        for (int32_t a = 0; a < rows; ++a) {
          uint8_t& flag = ok[core.strategy_begin[u] + a];
          if (flag && !row_ok[a]) flag = 0, changed = true;
        }
        for (int32_t b = 0; b < cols; ++b) {
          uint8_t& flag = ok[core.strategy_begin[v] + b];
          if (flag && !col_ok[b]) flag = 0, changed = true;
        }
      }
      for (int32_t x = 0; x < core.num_nodes(); ++x) {
        for (int32_t s = 0; s < core.num_strategies(x); ++s) {
          uint8_t& flag = ok[core.strategy_begin[x] + s];
          if (flag && core.node_cost(x, s) >= kForbidden) flag = 0, changed = true;
        }
      }
      if (!changed) break;
    }
    for (int32_t x = 0; x < core.num_nodes(); ++x) {
      bool any = false;
      for (int32_t s = 0; s < core.num_strategies(x); ++s)
        any = any || ok[core.strategy_begin[x] + s];
      if (!any) return false;
    }
    return true;
  }

  // Multiplier rounds on the branch, warm from the current messages; returns
  // its certified bound (kNoBound when none) and drops strategies whose
  // certified bound reaches the incumbent. Closed branches return >= ub.
  int64_t evaluate(Branch* b, int32_t rounds, int64_t* work) {
    int64_t best = kNoBound;
    for (int32_t fixing = 0; fixing <= kFixingPasses; ++fixing) {
      if (!propagate(&b->allowed, work)) return ub;
      best = std::max(best, multiplier_rounds(b, rounds, work));
      if (best >= ub) return best;
      *work -= 3 * entries;
      std::vector<int64_t> forced;
      const int64_t now =
          certify_bound(core, b->lambda, mp.messages(), mp.message_begins(), &b->allowed, &forced);
      best = std::max(best, now);
      if (best >= ub) return best;
      bool removed = false;
      for (size_t i = 0; i < forced.size(); ++i) {
        if (b->allowed[i] && forced[i] != kNoBound && forced[i] >= ub) {
          b->allowed[i] = 0;
          removed = true;
        }
      }
      if (!removed) break;
      rounds = std::max(4, rounds / 2);
    }
    return best;
  }

  int64_t multiplier_rounds(Branch* b, int32_t rounds, int64_t* work) {
    const int32_t times = core.num_times();
    std::vector<double>& lambda = b->lambda;
    double best_dual = -1e300;
    int64_t certified = kNoBound;
    double mu = 1.0;
    int32_t stall = 0;
    std::vector<int32_t> plan;
    for (int32_t r = 0; r < rounds; ++r) {
      std::vector<double> prefix(times + 1, 0.0);
      double capacity_term = 0;
      for (int32_t t = 0; t < times; ++t) {
        prefix[t + 1] = prefix[t] + lambda[t];
        capacity_term += lambda[t] * static_cast<double>(core.capacity[t]);
      }
      for (int32_t x = 0; x < core.num_nodes(); ++x) {
        for (int32_t s = 0; s < core.num_strategies(x); ++s) {
          const int64_t i = core.strategy_begin[x] + s;
          double v = core.unary[i] >= kForbidden ? 1e18 : static_cast<double>(core.unary[i]);
          if (!b->allowed[i]) v = mask_cost;
          for (int32_t j = core.term_begin[x]; j < core.term_begin[x + 1]; ++j) {
            v += (prefix[core.term_hi[j]] - prefix[core.term_lo[j]]) *
                 static_cast<double>(core.term_use(j, s));
          }
          unary[i] = v;
        }
      }
      mp.set_unary(unary);
      mp.run(kIterations);
      *work -= (2 * kIterations + 1) * entries;
      const double dual = mp.dual() - capacity_term;
      if (dual > best_dual + 1e-9 * std::abs(best_dual)) {
        best_dual = dual;
        stall = 0;
        if (dual > static_cast<double>(certified) + 0.5) {
          *work -= 3 * entries;
          certified = std::max(certified, certify_bound(core, lambda, mp.messages(),
                                                        mp.message_begins(), &b->allowed));
          if (certified >= ub) return certified;
        }
      } else if (++stall > 3) {
        mu *= 0.6;
        stall = 0;
      }
      // Subgradient step from the decoded plan's loads at the binding times.
      mp.decode(&plan);
      std::vector<double> diff(times + 1, 0.0);
      for (int32_t x = 0; x < core.num_nodes(); ++x) {
        for (int32_t j = core.term_begin[x]; j < core.term_begin[x + 1]; ++j) {
          const double use = static_cast<double>(core.term_use(j, plan[x]));
          diff[core.term_lo[j]] += use;
          diff[core.term_hi[j]] -= use;
        }
      }
      std::vector<double> g(times, 0.0);
      double load = 0;
      double norm = 0;
      for (int32_t t = 0; t < times; ++t) {
        load += diff[t];
        if (!binding[t]) continue;
        g[t] = load - static_cast<double>(core.capacity[t]);
        if (lambda[t] > 0 || g[t] > 0) norm += g[t] * g[t];
      }
      if (norm <= 0) continue;
      const double step = mu * std::max(static_cast<double>(ub) - dual, 1.0) / norm;
      for (int32_t t = 0; t < times; ++t) {
        if (binding[t]) lambda[t] = std::max(0.0, lambda[t] + step * g[t]);
      }
    }
    return certified;
  }

  // Whether the branch holds one strategy per node; then *plan is its plan.
  bool single_plan(const std::vector<uint8_t>& allowed, std::vector<int32_t>* plan) const {
    plan->assign(core.num_nodes(), -1);
    for (int32_t x = 0; x < core.num_nodes(); ++x) {
      for (int32_t s = 0; s < core.num_strategies(x); ++s) {
        if (!allowed[core.strategy_begin[x] + s]) continue;
        if ((*plan)[x] >= 0) return false;
        (*plan)[x] = s;
      }
    }
    return true;
  }

  // Files a child (bound at least the parent's) unless it is closed.
  void file(Branch* child, int64_t parent_bound) {
    std::vector<int32_t> plan;
    if (single_plan(child->allowed, &plan)) {
      const CoreEvaluation check = evaluate_core(core, plan);
      if (!check.feasible() || check.cost >= ub) {
        delete child;
        return;
      }
      child->leaf = true;
      child->bound = check.cost;
      child->plan = std::move(plan);
    } else {
      child->bound = std::max(child->bound, parent_bound);
    }
    open.push(child);
  }

  void expand(Branch* node, int64_t* work) {
    ++expanded;
    mp.reset_messages();
    const int64_t fresh = evaluate(node, kExpandRounds, work);
    if (fresh >= ub) {
      delete node;
      return;
    }
    if (interrupted(node, fresh)) return;
    // Exact solves of small regions of the reparametrised branch: where its
    // relaxation is not tight, they close most of the gap.
    int64_t* budget = work;
    const RegionSolver solve = [budget](const CoreModel& region) {
      const ExhaustiveResult exact = solve_exhaustively(region, kRegionSearch);
      *budget -= 16 * exact.nodes;
      return exact.complete && exact.found ? exact.cost : int64_t{0};
    };
    *work -= 3 * entries;
    const int64_t tightened = certify_bound(core, node->lambda, mp.messages(), mp.message_begins(),
                                            &node->allowed, nullptr, &regions, &solve);
    if (tightened >= ub) {
      delete node;
      return;
    }
    if (interrupted(node, std::max(fresh, tightened))) return;
    const int64_t node_bound = std::max({node->bound, fresh, tightened});
    // Children: the usage classes of the first item with two or more, or
    // else the decoded strategy of the node with most strategies against
    // its other strategies.
    std::vector<std::vector<uint8_t>> kids;
    int32_t pick = -1;
    for (int32_t x : items) {
      int32_t first = -1;
      for (int32_t s = 0; s < core.num_strategies(x) && pick < 0; ++s) {
        const int64_t i = core.strategy_begin[x] + s;
        if (!node->allowed[i]) continue;
        if (first < 0) first = cls[i];
        if (cls[i] != first) pick = x;
      }
      if (pick >= 0) break;
    }
    if (pick >= 0) {
      int32_t classes = 0;
      for (int32_t s = 0; s < core.num_strategies(pick); ++s) {
        classes = std::max(classes, cls[core.strategy_begin[pick] + s] + 1);
      }
      for (int32_t k = 0; k < classes; ++k) {
        std::vector<uint8_t> allowed = node->allowed;
        bool any = false;
        for (int32_t s = 0; s < core.num_strategies(pick); ++s) {
          const int64_t i = core.strategy_begin[pick] + s;
          allowed[i] = allowed[i] && cls[i] == k;
          any = any || allowed[i];
        }
        if (any) kids.push_back(std::move(allowed));
      }
    } else {
      std::vector<int32_t> plan;
      mp.decode(&plan);
      int32_t widest = -1;
      int32_t width = 1;
      for (int32_t x = 0; x < core.num_nodes(); ++x) {
        int32_t count = 0;
        for (int32_t s = 0; s < core.num_strategies(x); ++s) {
          count += node->allowed[core.strategy_begin[x] + s];
        }
        if (count > width) width = count, widest = x;
      }
      if (widest < 0) {  // a single plan (propagation left one strategy each)
        Branch* leaf = new Branch(*node);
        delete node;
        file(leaf, node_bound);
        return;
      }
      int64_t chosen = core.strategy_begin[widest] + plan[widest];
      if (!node->allowed[chosen]) {  // decoded outside the branch: take the first allowed
        for (int32_t s = 0; s < core.num_strategies(widest); ++s) {
          if (node->allowed[core.strategy_begin[widest] + s]) {
            chosen = core.strategy_begin[widest] + s;
            break;
          }
        }
      }
      std::vector<uint8_t> only = node->allowed;
      std::vector<uint8_t> rest = node->allowed;
      for (int32_t s = 0; s < core.num_strategies(widest); ++s) {
        const int64_t i = core.strategy_begin[widest] + s;
        only[i] = node->allowed[i] && i == chosen;
        rest[i] = node->allowed[i] && i != chosen;
      }
      kids.push_back(std::move(only));
      kids.push_back(std::move(rest));
    }
    const std::vector<double> messages = mp.messages();
    for (std::vector<uint8_t>& allowed : kids) {
      auto* child = new Branch();
      child->depth = node->depth + 1;
      child->allowed = std::move(allowed);
      child->lambda = node->lambda;
      mp.set_messages(messages);
      const int64_t b = evaluate(child, kRounds, work);
      if (b >= ub) {
        delete child;
        continue;
      }
      child->bound = b;
      file(child, node_bound);
    }
    delete node;
  }

  // A deadline (run's `expired`) that passed in the middle of an expansion:
  // the branch goes back to the open set with the bound found so far. Its
  // propagation only removed strategies that cannot beat ub, so it is still
  // a sound branch; the expansion is redone on the next run.
  bool interrupted(Branch* node, int64_t bound_so_far) {
    if (!expired || !(*expired)()) return false;
    node->bound = std::max(node->bound, bound_so_far);
    open.push(node);
    --expanded;
    return true;
  }

  void run(int64_t incumbent, int64_t* work, const std::function<bool()>& expired_now) {
    expired = expired_now ? &expired_now : nullptr;
    ub = std::min(ub, incumbent);
    if (!started) {
      started = true;
      auto* root = new Branch();
      root->allowed.assign(core.unary.size(), 1);
      root->lambda.assign(core.num_times(), 0.0);
      root->bound = kNoBound;
      if (propagate(&root->allowed, work)) {
        file(root, kNoBound);
      } else {
        delete root;
      }
    }
    *work -= 64;  // a floor: every call costs something
    while (*work > 0 && !open.empty()) {
      Branch* top = open.top();
      if (top->bound >= ub) {  // every open branch is closed by the incumbent
        while (!open.empty()) {
          delete open.top();
          open.pop();
        }
        break;
      }
      if (top->leaf || open.size() >= kMaxOpen) break;
      if (expired && (*expired)()) break;
      open.pop();
      expand(top, work);
    }
    expired = nullptr;
  }

  const CoreModel& core;
  MessagePassing mp;
  std::vector<double> unary = std::vector<double>(core.unary.size(), 0.0);
  std::vector<uint8_t> binding;               // per core time: can the memory bind there
  std::vector<int32_t> cls;                   // per core strategy: its usage class
  std::vector<int32_t> items;                 // nodes with two or more classes, widest first
  std::vector<std::vector<int32_t>> regions;  // tightening regions
  int64_t entries = 1;
  double mask_cost = 1e12;
  int64_t ub = INT64_MAX / 2;
  bool started = false;
  int64_t expanded = 0;
  const std::function<bool()>* expired = nullptr;  // during run() only
  std::priority_queue<Branch*, std::vector<Branch*>, Later> open;
  std::vector<int32_t> no_plan;
};

ClassBranch::ClassBranch(const CoreModel& core) : impl_(std::make_unique<Impl>(core)) {}

ClassBranch::~ClassBranch() = default;

void ClassBranch::run(int64_t incumbent, int64_t* work, const std::function<bool()>& expired) {
  impl_->run(incumbent, work, expired);
}

int64_t ClassBranch::bound() const {
  const Impl& s = *impl_;
  if (!s.started) return kNoBound;
  if (s.open.empty()) return s.ub;
  return std::min(s.open.top()->bound, s.ub);
}

bool ClassBranch::over() const {
  const Impl& s = *impl_;
  return s.started && (s.open.empty() || s.open.top()->leaf);
}

bool ClassBranch::full() const { return impl_->open.size() >= kMaxOpen; }

const std::vector<int32_t>& ClassBranch::leaf_plan() const {
  const Impl& s = *impl_;
  if (s.started && !s.open.empty() && s.open.top()->leaf) return s.open.top()->plan;
  return s.no_plan;
}

int64_t ClassBranch::expanded() const { return impl_->expanded; }

int64_t ClassBranch::open_branches() const { return static_cast<int64_t>(impl_->open.size()); }

}  // namespace shardlab
