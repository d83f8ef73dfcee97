// Exact certification of the Lagrangian / message-passing dual (bound.h).
// Everything is scaled by D = 2^32: multipliers become floor(lambda * D)
// (still >= 0, so still valid multipliers) and messages become rounded
// integers (any messages are valid). The dual is then a sum of exact
// __int128 minima, and ceil(dual / D) bounds the integral optimum.
#include "core/sharding/bound.h"

#include <algorithm>
#include <cmath>

namespace shardlab {
namespace {

using I128 = __int128;
constexpr double kScale = 4294967296.0;  // 2^32
constexpr double kMaxMagnitude = 1e24;   // keeps every product far inside 128 bits

I128 ceil_div(I128 a, I128 b) {  // b > 0
  I128 q = a / b;
  if (a % b != 0 && a > 0) ++q;
  return q;
}

}  // namespace

int64_t separable_bound(const CoreModel& core) {
  int64_t bound = 0;
  for (int32_t x = 0; x < core.num_nodes(); ++x) {
    int64_t least = kForbidden;
    for (int32_t s = 0; s < core.num_strategies(x); ++s) {
      least = std::min(least, core.node_cost(x, s));
    }
    if (least < kForbidden) bound += least;
  }
  for (int32_t e = 0; e < core.num_edges(); ++e) {
    const int64_t size = static_cast<int64_t>(core.num_strategies(core.edge_u[e])) *
                         core.num_strategies(core.edge_v[e]);
    int64_t least = kForbidden;
    for (int64_t i = 0; i < size; ++i) least = std::min(least, core.edge_costs(e)[i]);
    if (least < kForbidden) bound += least;
  }
  return bound;
}

int64_t certify_bound(const CoreModel& core, const std::vector<double>& lambda,
                      const std::vector<double>& messages,
                      const std::vector<int64_t>& message_begin,
                      const std::vector<uint8_t>* allowed, std::vector<int64_t>* forced,
                      const std::vector<std::vector<int32_t>>* regions, const RegionSolver* solve) {
  const bool tighten = regions && solve && !regions->empty();
  const int32_t t_count = core.num_times();
  const bool has_messages = !messages.empty();
  if (has_messages && message_begin.size() != 2 * static_cast<size_t>(core.num_edges()) + 1) {
    return kNoBound;
  }
  // Integer multipliers and their prefix sums.
  std::vector<I128> prefix(t_count + 1, 0);
  I128 capacity_term = 0;
  for (int32_t t = 0; t < t_count; ++t) {
    double l = t < static_cast<int32_t>(lambda.size()) ? lambda[t] : 0.0;
    if (!(l >= 0.0)) l = 0.0;  // also catches NaN
    if (l * kScale > kMaxMagnitude) return kNoBound;
    const I128 p = static_cast<I128>(std::floor(l * kScale));
    prefix[t + 1] = prefix[t] + p;
    capacity_term += p * static_cast<I128>(core.capacity[t]);
  }
  auto message = [&](int64_t index) -> I128 {
    return static_cast<I128>(std::round(messages[index] * kScale));
  };
  for (double m : messages) {
    if (!(std::fabs(m) * kScale <= kMaxMagnitude)) return kNoBound;
  }
  const I128 scale = static_cast<I128>(1) << 32;
  I128 dual = -capacity_term;
  std::vector<I128> rep;
  // Per strategy: its reparametrised unary minus its node's minimum.
  std::vector<I128> excess(forced || tighten ? core.unary.size() : 0, 0);
  std::vector<I128> edge_least(tighten ? core.num_edges() : 0, 0);
  auto usable = [&](int32_t x, int32_t s) {
    return core.node_cost(x, s) < kForbidden &&
           (!allowed || (*allowed)[core.strategy_begin[x] + s] != 0);
  };
  for (int32_t x = 0; x < core.num_nodes(); ++x) {
    const int32_t k = core.num_strategies(x);
    rep.assign(k, 0);
    for (int32_t s = 0; s < k; ++s) {
      const int64_t c = core.node_cost(x, s);
      if (c >= kForbidden) continue;  // never part of a feasible plan
      I128 v = scale * c;
      for (int32_t i = core.term_begin[x]; i < core.term_begin[x + 1]; ++i) {
        v += static_cast<I128>(core.term_use(i, s)) *
             (prefix[core.term_hi[i]] - prefix[core.term_lo[i]]);
      }
      rep[s] = v;
    }
    bool any = false;
    I128 best = 0;
    std::vector<uint8_t> ok(k, 1);
    for (int32_t s = 0; s < k; ++s) ok[s] = usable(x, s);
    if (has_messages) {
      for (int32_t i = core.adj_begin[x]; i < core.adj_begin[x + 1]; ++i) {
        const int32_t e = core.adj_edge[i];
        const int64_t b = message_begin[2 * e + (core.edge_u[e] == x ? 0 : 1)];
        for (int32_t s = 0; s < k; ++s) rep[s] += message(b + s);
      }
    }
    for (int32_t s = 0; s < k; ++s) {
      if (!ok[s]) continue;
      if (!any || rep[s] < best) best = rep[s];
      any = true;
    }
    if (!any) return kNoBound;  // no allowed strategy: nothing to bound
    dual += best;
    if (forced || tighten) {
      for (int32_t s = 0; s < k; ++s) excess[core.strategy_begin[x] + s] = rep[s] - best;
    }
  }
  for (int32_t e = 0; e < core.num_edges(); ++e) {
    const int32_t rows = core.num_strategies(core.edge_u[e]);
    const int32_t cols = core.num_strategies(core.edge_v[e]);
    const int64_t* m = core.edge_costs(e);
    std::vector<I128> m0(rows, 0);
    std::vector<I128> m1(cols, 0);
    if (has_messages) {
      for (int32_t a = 0; a < rows; ++a) m0[a] = message(message_begin[2 * e] + a);
      for (int32_t b = 0; b < cols; ++b) m1[b] = message(message_begin[2 * e + 1] + b);
    }
    bool any = false;
    I128 best = 0;
    const int32_t u = core.edge_u[e];
    const int32_t v = core.edge_v[e];
    for (int32_t a = 0; a < rows; ++a) {
      if (allowed && !(*allowed)[core.strategy_begin[u] + a]) continue;
      for (int32_t b = 0; b < cols; ++b) {
        const int64_t c = m[static_cast<int64_t>(a) * cols + b];
        if (c >= kForbidden || (allowed && !(*allowed)[core.strategy_begin[v] + b])) continue;
        const I128 v = scale * c - m0[a] - m1[b];
        if (!any || v < best) best = v;
        any = true;
      }
    }
    if (!any) return kNoBound;
    dual += best;
    if (tighten) edge_least[e] = best;
  }
  auto clamp = [](I128 b) {
    if (b > static_cast<I128>(INT64_MAX / 2)) return INT64_MAX / 2;
    if (b < static_cast<I128>(kNoBound)) return kNoBound;
    return static_cast<int64_t>(b);
  };
  if (forced) {
    forced->assign(core.unary.size(), kNoBound);
    for (int32_t x = 0; x < core.num_nodes(); ++x) {
      for (int32_t s = 0; s < core.num_strategies(x); ++s) {
        const int64_t i = core.strategy_begin[x] + s;
        if (usable(x, s)) (*forced)[i] = clamp(ceil_div(dual + excess[i], scale));
      }
    }
  }
  if (tighten) {
    // Region cores in units of 2^-8: residuals shifted right by 24 bits
    // (rounded down) and capped, both of which only lower them.
    constexpr int kShift = 24;
    constexpr int64_t kCap = int64_t{1} << 50;
    auto units = [&](I128 residual) {
      const I128 v = residual >> kShift;
      return static_cast<int64_t>(std::min<I128>(std::max<I128>(v, 0), kCap));
    };
    std::vector<int32_t> local(core.num_nodes(), -1);
    std::vector<std::pair<int64_t, size_t>> gains;  // (least total, region)
    for (size_t r = 0; r < regions->size(); ++r) {
      const std::vector<int32_t>& region = (*regions)[r];
      CoreModel sub;
      std::vector<std::vector<int32_t>> kept(region.size());
      sub.strategy_begin.push_back(0);
      for (size_t i = 0; i < region.size(); ++i) {
        const int32_t x = region[i];
        local[x] = static_cast<int32_t>(i);
        for (int32_t s = 0; s < core.num_strategies(x); ++s) {
          if (!usable(x, s)) continue;
          kept[i].push_back(s);
          sub.unary.push_back(units(excess[core.strategy_begin[x] + s]));
        }
        sub.strategy_begin.push_back(static_cast<int32_t>(sub.unary.size()));
      }
      sub.matrix_begin.push_back(0);
      for (int32_t e = 0; e < core.num_edges(); ++e) {
        const int32_t u = local[core.edge_u[e]];
        const int32_t v = local[core.edge_v[e]];
        if (u < 0 || v < 0) continue;
        const int32_t cols = core.num_strategies(core.edge_v[e]);
        const int64_t* m = core.edge_costs(e);
        sub.edge_u.push_back(u);
        sub.edge_v.push_back(v);
        sub.edge_matrix.push_back(static_cast<int32_t>(sub.matrix_begin.size()) - 1);
        for (int32_t a : kept[u]) {
          const I128 row = has_messages ? message(message_begin[2 * e] + a) : 0;
          for (int32_t b : kept[v]) {
            const int64_t c = m[static_cast<int64_t>(a) * cols + b];
            if (c >= kForbidden) {
              sub.matrix_cost.push_back(kForbidden);
              continue;
            }
            const I128 col = has_messages ? message(message_begin[2 * e + 1] + b) : 0;
            sub.matrix_cost.push_back(units(scale * c - row - col - edge_least[e]));
          }
        }
        sub.matrix_begin.push_back(static_cast<int64_t>(sub.matrix_cost.size()));
      }
      for (int32_t x : region) local[x] = -1;
      build_incidence(sub.num_nodes(), sub.edge_u, sub.edge_v, &sub.adj_begin, &sub.adj_edge);
      sub.term_begin.assign(sub.num_nodes() + 1, 0);
      sub.term_usage_begin.push_back(0);
      const int64_t least = (*solve)(sub);
      if (least > 0) gains.push_back({least, r});
    }
    // The regions' gains add up when they share no node: greedily, largest first.
    std::sort(gains.begin(), gains.end(), [](const auto& a, const auto& b) {
      return a.first > b.first || (a.first == b.first && a.second < b.second);
    });
    std::vector<uint8_t> taken(core.num_nodes(), 0);
    for (const auto& [least, r] : gains) {
      const std::vector<int32_t>& region = (*regions)[r];
      bool free = true;
      for (int32_t x : region) free = free && !taken[x];
      if (!free) continue;
      for (int32_t x : region) taken[x] = 1;
      dual += static_cast<I128>(least) << kShift;
    }
  }
  return clamp(ceil_div(dual, scale));
}

}  // namespace shardlab
