// Component-wise recombination (see relink.h). The knapsack is solved
// greedily: components that only help are taken at once; then each gain,
// most valuable first, is tried together with the payers that remove its
// overflow best per unit of cost, and kept when the group still gains.
#include "core/sharding/search/relink.h"

#include <algorithm>

namespace shardlab {

namespace {

// Components measured per call, at most: the knapsack stays small.
constexpr int32_t kMaxComponents = 64;

}  // namespace

Relink::Relink(const CoreModel& core) : core_(core), component_of_(core.num_nodes(), -1) {}

bool Relink::measure(const CoreState& incumbent, const std::vector<int32_t>& other, Component* c,
                     int64_t* usage, int64_t* work) const {
  int64_t delta = 0;
  for (int32_t j = c->first; j < c->first + c->size; ++j) {
    const int32_t x = nodes_[j];
    const int32_t own = component_of_[x];
    const int32_t to = other[x];
    const int32_t from = incumbent.at(x);
    delta += core_.node_cost(x, to) - core_.node_cost(x, from);
    for (int32_t i = core_.adj_begin[x]; i < core_.adj_begin[x + 1]; ++i) {
      const int32_t e = core_.adj_edge[i];
      const int32_t y = core_.other(e, x);
      const bool inside = component_of_[y] == own;
      if (inside && y < x) continue;  // counted from y
      const int64_t now = core_.edge_cost_from(e, x, to, inside ? other[y] : incumbent.at(y));
      if (now >= kForbidden) return false;
      delta += now - core_.edge_cost_from(e, x, from, incumbent.at(y));
    }
    *work -= core_.adj_begin[x + 1] - core_.adj_begin[x] + 1;
    for (int32_t i = core_.term_begin[x]; i < core_.term_begin[x + 1]; ++i) {
      const int64_t d = core_.term_use(i, to) - core_.term_use(i, from);
      if (d == 0) continue;
      for (int32_t t = core_.term_lo[i]; t < core_.term_hi[i]; ++t) usage[t] += d;
      *work -= core_.term_hi[i] - core_.term_lo[i];
    }
  }
  c->delta = delta;
  return true;
}

bool Relink::recombine(const CoreState& incumbent, const std::vector<int32_t>& other,
                       std::vector<int32_t>* out, int64_t* work) {
  const int32_t n = core_.num_nodes();
  const int32_t times = core_.num_times();
  // Components of the differing nodes, breadth-first.
  nodes_.clear();
  components_.clear();
  for (int32_t root = 0; root < n; ++root) {
    if (other[root] == incumbent.at(root) || component_of_[root] >= 0) continue;
    Component c;
    c.first = static_cast<int32_t>(nodes_.size());
    const int32_t id = static_cast<int32_t>(components_.size());
    component_of_[root] = id;
    nodes_.push_back(root);
    for (size_t head = c.first; head < nodes_.size(); ++head) {
      const int32_t x = nodes_[head];
      for (int32_t i = core_.adj_begin[x]; i < core_.adj_begin[x + 1]; ++i) {
        const int32_t y = core_.other(core_.adj_edge[i], x);
        if (component_of_[y] < 0 && other[y] != incumbent.at(y)) {
          component_of_[y] = id;
          nodes_.push_back(y);
        }
      }
    }
    c.size = static_cast<int32_t>(nodes_.size()) - c.first;
    components_.push_back(c);
  }
  *work -= n;
  // Measure them; keep the useful ones (a gain, or memory freed) with their
  // usage changes as sparse (time, change) lists.
  std::vector<int64_t> dense(times, 0);
  std::vector<int32_t> useful;
  std::vector<int32_t> list_begin{0};
  std::vector<std::pair<int32_t, int64_t>> changes;
  for (size_t k = 0; k < components_.size() && useful.size() < kMaxComponents; ++k) {
    Component& c = components_[k];
    std::fill(dense.begin(), dense.end(), 0);
    *work -= times;
    if (!measure(incumbent, other, &c, dense.data(), work)) continue;
    for (int32_t t = 0; t < times; ++t) c.frees = c.frees || dense[t] < 0;
    if (c.delta >= 0 && !c.frees) continue;
    useful.push_back(static_cast<int32_t>(k));
    for (int32_t t = 0; t < times; ++t) {
      if (dense[t] != 0) changes.push_back({t, dense[t]});
    }
    list_begin.push_back(static_cast<int32_t>(changes.size()));
  }
  for (int32_t x : nodes_) component_of_[x] = -1;
  if (useful.empty()) return false;
  // Room per time, and the usage taken from it by the chosen components.
  std::vector<int64_t> room(times);
  for (int32_t t = 0; t < times; ++t) room[t] = -incumbent.excess_tree().at(t);
  *work -= 4 * static_cast<int64_t>(times);
  std::vector<int64_t> load(times, 0);
  const int32_t m = static_cast<int32_t>(useful.size());
  std::vector<uint8_t> chosen(m, 0);
  auto overflow_change = [&](int32_t j) {
    // Change of the total overflow sum_t max(0, load - room) if j is added.
    int64_t change = 0;
    for (int32_t p = list_begin[j]; p < list_begin[j + 1]; ++p) {
      const auto [t, d] = changes[p];
      const int64_t before = std::max<int64_t>(0, load[t] - room[t]);
      const int64_t after = std::max<int64_t>(0, load[t] + d - room[t]);
      change += after - before;
    }
    *work -= list_begin[j + 1] - list_begin[j] + 1;
    return change;
  };
  auto add = [&](int32_t j, int64_t sign) {
    for (int32_t p = list_begin[j]; p < list_begin[j + 1]; ++p) {
      load[changes[p].first] += sign * changes[p].second;
    }
    chosen[j] = sign > 0;
  };
  // Every set kept has no overflow, so each group starts from none.
  int64_t overflow = 0;
  int64_t total = 0;
  // Helpful alone: a gain that does not add overflow.
  for (int32_t j = 0; j < m; ++j) {
    if (components_[useful[j]].delta < 0 && overflow_change(j) == 0) {
      add(j, 1);
      total += components_[useful[j]].delta;
    }
  }
  // Each remaining gain with the payers that clear its overflow.
  std::vector<int32_t> gains;
  for (int32_t j = 0; j < m; ++j) {
    if (!chosen[j] && components_[useful[j]].delta < 0) gains.push_back(j);
  }
  std::sort(gains.begin(), gains.end(), [&](int32_t a, int32_t b) {
    return components_[useful[a]].delta < components_[useful[b]].delta;
  });
  std::vector<int32_t> group;
  for (int32_t g : gains) {
    if (chosen[g]) continue;
    group.assign(1, g);
    overflow += overflow_change(g);
    add(g, 1);
    int64_t sum = components_[useful[g]].delta;
    while (overflow > 0 && sum < 0) {
      int32_t best = -1;
      int64_t best_gain = 0;
      int64_t best_cost = 1;
      for (int32_t j = 0; j < m; ++j) {
        if (chosen[j] || !components_[useful[j]].frees) continue;
        const int64_t cleared = -overflow_change(j);
        if (cleared <= 0) continue;
        const int64_t cost = std::max<int64_t>(1, components_[useful[j]].delta);
        // cleared / cost, best first, compared without division.
        if (best < 0 ||
            static_cast<__int128>(cleared) * best_cost > static_cast<__int128>(best_gain) * cost) {
          best = j;
          best_gain = cleared;
          best_cost = cost;
        }
      }
      if (best < 0) break;
      overflow += overflow_change(best);
      add(best, 1);
      sum += components_[useful[best]].delta;
      group.push_back(best);
    }
    if (overflow == 0 && sum < 0) {
      total += sum;
      continue;
    }
    for (int32_t j : group) add(j, -1);
    overflow = 0;
  }
  if (total >= 0) return false;
  *out = incumbent.plan();
  for (int32_t j = 0; j < m; ++j) {
    if (!chosen[j]) continue;
    const Component& c = components_[useful[j]];
    for (int32_t i = c.first; i < c.first + c.size; ++i) (*out)[nodes_[i]] = other[nodes_[i]];
  }
  *work -= n;
  return true;
}

}  // namespace shardlab
