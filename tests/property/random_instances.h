// Seeded random IOPDDL instances and a brute-force optimum, for the property
// tests of presolve, bounds and the solver (tests/property, tests/unit).
// Instances mix the structures presolve reduces (identity and functional
// edges, forbidden entries, leaves, cycles, empty intervals) with a usage
// limit chosen between the lightest and the heaviest possible peak.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/rng.h"
#include "core/sharding/model.h"

namespace shardlab::test {

struct RandomInstanceOptions {
  int32_t max_nodes = 10;
  int32_t max_strategies = 4;
  int64_t max_plans = 20000;  // product of the K(v), so brute force stays fast
  int32_t extra_edges = -1;   // -1: random
  bool forbidden = true;      // forbidden entries, identity and functional edges
  int32_t horizon = 12;       // interval starts in [0, horizon)
  int32_t min_nodes = 1;
  double limit_fraction = -1;  // >= 0: limit = lightest + fraction * (heaviest - lightest) peak
};

inline Problem random_instance(uint64_t seed, const RandomInstanceOptions& options = {}) {
  Rng rng(seed);
  ProblemBuilder b;
  const int32_t n = options.min_nodes + static_cast<int32_t>(rng.below(static_cast<uint32_t>(
                                            options.max_nodes - options.min_nodes + 1)));
  std::vector<int32_t> k(n);
  int64_t plans = 1;
  for (int32_t v = 0; v < n; ++v) {
    k[v] = 1 + static_cast<int32_t>(rng.below(static_cast<uint32_t>(options.max_strategies)));
    while (k[v] > 1 && plans * k[v] > options.max_plans) --k[v];
    plans *= k[v];
  }
  for (int32_t v = 0; v < n; ++v) {
    const Time lo = rng.below(static_cast<uint32_t>(options.horizon));
    const Time hi = rng.below(8) == 0 ? lo : lo + 1 + rng.below(8);
    std::vector<Cost> costs(k[v]);
    std::vector<Usage> usages(k[v]);
    for (int32_t s = 0; s < k[v]; ++s) {
      costs[s] = options.forbidden && rng.below(20) == 0 ? kForbidden : rng.below(100);
      usages[s] = rng.below(20);
    }
    b.add_node(lo, hi, costs, usages);
  }
  auto add_edge = [&](int32_t u, int32_t v) {
    std::vector<Cost> m(static_cast<size_t>(k[u]) * k[v]);
    const uint32_t kind = options.forbidden ? rng.below(4) : 3;
    if (kind == 0 && k[u] == k[v]) {  // identity: equal strategies only
      for (int32_t a = 0; a < k[u]; ++a) {
        for (int32_t c = 0; c < k[v]; ++c) m[a * k[v] + c] = a == c ? rng.below(3) : kForbidden;
      }
    } else if (kind == 1) {  // functional: one allowed partner per row
      for (int32_t a = 0; a < k[u]; ++a) {
        const int32_t pick = static_cast<int32_t>(rng.below(static_cast<uint32_t>(k[v])));
        for (int32_t c = 0; c < k[v]; ++c) m[a * k[v] + c] = c == pick ? rng.below(50) : kForbidden;
      }
    } else {
      for (Cost& c : m) c = options.forbidden && rng.below(10) == 0 ? kForbidden : rng.below(60);
    }
    b.add_edge(u, v, m);
  };
  for (int32_t v = 1; v < n; ++v) {
    add_edge(static_cast<int32_t>(rng.below(static_cast<uint32_t>(v))), v);
  }
  const int32_t extra = options.extra_edges >= 0
                            ? options.extra_edges
                            : static_cast<int32_t>(rng.below(static_cast<uint32_t>(n)));
  for (int32_t i = 0; i < extra && n >= 2; ++i) {
    const int32_t u = static_cast<int32_t>(rng.below(static_cast<uint32_t>(n)));
    const int32_t v = static_cast<int32_t>(rng.below(static_cast<uint32_t>(n)));
    if (u != v) add_edge(u, v);
  }
  // A limit between the lightest and the heaviest possible peak (sometimes
  // none, sometimes just below the lightest: infeasible).
  std::vector<Usage> light(n), heavy(n);
  for (int32_t v = 0; v < n; ++v) {
    const auto& p = b.problem;
    light[v] = *std::min_element(p.strategy_usage.begin() + p.strategy_begin[v],
                                 p.strategy_usage.begin() + p.strategy_begin[v + 1]);
    heavy[v] = *std::max_element(p.strategy_usage.begin() + p.strategy_begin[v],
                                 p.strategy_usage.begin() + p.strategy_begin[v + 1]);
  }
  auto peak = [&](const std::vector<Usage>& use) {
    Usage best = 0;
    for (Time t = 0; t < options.horizon + 16; ++t) {
      Usage live = 0;
      for (int32_t v = 0; v < n; ++v) {
        if (b.problem.interval_lo[v] <= t && t < b.problem.interval_hi[v]) live += use[v];
      }
      best = std::max(best, live);
    }
    return best;
  };
  const Usage low = peak(light);
  const Usage high = peak(heavy);
  const uint32_t mode = rng.below(10);
  if (options.limit_fraction >= 0) {
    b.set_usage_limit(low +
                      static_cast<Usage>(options.limit_fraction * static_cast<double>(high - low)));
  } else if (mode == 0) {
    // no limit
  } else if (mode == 1 && low > 0) {
    b.set_usage_limit(low - 1);
  } else {
    b.set_usage_limit(low + static_cast<Usage>(rng.below(static_cast<uint32_t>(high - low + 1))));
  }
  return std::move(b.build()).value();
}

// The optimum by enumeration: -1 when no plan is feasible.
inline int64_t brute_force_optimum(const Problem& p, std::vector<int32_t>* best_plan = nullptr) {
  const int32_t n = p.num_nodes();
  std::vector<int32_t> plan(n, 0);
  int64_t best = -1;
  std::vector<int64_t> live(p.num_checkpoints() + 1);
  while (true) {
    int64_t cost = 0;
    bool ok = true;
    for (int32_t v = 0; v < n && ok; ++v) {
      const Cost c = p.node_cost(v, plan[v]);
      ok = c < kForbidden;
      cost += c;
    }
    for (int32_t e = 0; e < p.num_edges() && ok; ++e) {
      const Cost c = p.edge_cost(e, plan[p.edge_u[e]], plan[p.edge_v[e]]);
      ok = c < kForbidden;
      cost += c;
    }
    if (ok && p.has_usage_limit && (best < 0 || cost < best)) {
      std::fill(live.begin(), live.end(), 0);
      for (int32_t v = 0; v < n; ++v) {
        live[p.checkpoint_lo[v]] += p.node_usage(v, plan[v]);
        live[p.checkpoint_hi[v]] -= p.node_usage(v, plan[v]);
      }
      int64_t running = 0;
      for (int32_t t = 0; t < p.num_checkpoints() && ok; ++t) {
        running += live[t];
        ok = running <= p.usage_limit;
      }
    }
    if (ok && (best < 0 || cost < best)) {
      best = cost;
      if (best_plan != nullptr) *best_plan = plan;
    }
    int32_t v = 0;
    while (v < n && ++plan[v] == p.num_strategies(v)) plan[v++] = 0;
    if (v == n) break;
  }
  return best;
}

}  // namespace shardlab::test
