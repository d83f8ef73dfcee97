// Operation merging (see merge.h). Each merge contracts one arc; groups that
// must then share a device are joined with a union-find whose allowed
// devices are the intersection. A merged op keeps the memory profile of its
// members run back to back: peak = max(peak_u, net_u + peak_v), net = net_u
// + net_v; the contracted arc's delay disappears (same device); parallel
// arcs keep the largest delay.
#include "core/pipeline/plan/merge.h"

#include <algorithm>
#include <numeric>
#include <queue>
#include <set>
#include <tuple>

namespace shardlab::pipeline {
namespace {

struct UnionFind {
  std::vector<int32_t> parent;
  explicit UnionFind(int32_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int32_t find(int32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
};

std::vector<int32_t> intersect(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
  std::vector<int32_t> out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

}  // namespace

Merged coarsen(const PlanGraph& g, int32_t target_ops) {
  const int32_t n = g.num_ops();
  // Working graph: adjacency sets over representatives.
  UnionFind ops(n), groups(g.num_groups());
  std::vector<std::vector<int32_t>> allowed(g.num_groups());
  for (int32_t gr = 0; gr < g.num_groups(); ++gr) allowed[gr] = g.groups[gr].devices;
  std::vector<std::vector<int32_t>> chain(n);  // members of a representative, in order
  for (int32_t i = 0; i < n; ++i) chain[i] = {i};
  std::vector<std::set<int32_t>> succ(n), pred(n);
  for (const PlanArc& a : g.arcs) succ[a.from].insert(a.to), pred[a.to].insert(a.from);
  std::vector<int64_t> duration(n), peak(n), net(n);
  for (int32_t i = 0; i < n; ++i) {
    duration[i] = g.ops[i].duration;
    peak[i] = g.ops[i].mem_peak;
    net[i] = g.ops[i].mem_net;
  }
  int32_t alive = n;
  // Candidate arcs: first those that leave placement as free as it was
  // (same group, or fixed groups on one device), then those that tie two
  // free groups together; shortest first within each; stale entries are
  // skipped when popped.
  using Item = std::tuple<int32_t, int64_t, int32_t, int32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
  auto consider = [&](int32_t u, int32_t v) {
    const int32_t gu = groups.find(g.ops[chain[u][0]].group);
    const int32_t gv = groups.find(g.ops[chain[v][0]].group);
    const bool free_join = gu != gv && (allowed[gu].size() > 1 || allowed[gv].size() > 1);
    queue.push({free_join ? 1 : 0, duration[u] + duration[v], u, v});
  };
  for (int32_t u = 0; u < n; ++u) {
    for (int32_t v : succ[u]) consider(u, v);
  }
  while (alive > target_ops && !queue.empty()) {
    auto [tier, len, u, v] = queue.top();
    queue.pop();
    if (ops.find(u) != u || ops.find(v) != v || !succ[u].count(v)) continue;
    if (len != duration[u] + duration[v]) continue;
    if (succ[u].size() != 1 && pred[v].size() != 1) continue;
    const int32_t gu = groups.find(g.ops[chain[u][0]].group);
    const int32_t gv = groups.find(g.ops[chain[v][0]].group);
    if (gu != gv) {
      std::vector<int32_t> common = intersect(allowed[gu], allowed[gv]);
      if (common.empty()) continue;
      groups.parent[gv] = gu;
      allowed[gu] = std::move(common);
    }
    // Contract v into u.
    ops.parent[v] = u;
    chain[u].insert(chain[u].end(), chain[v].begin(), chain[v].end());
    chain[v].clear();
    peak[u] = std::max(peak[u], net[u] + peak[v]);
    net[u] += net[v];
    duration[u] += duration[v];
    succ[u].erase(v);
    pred[v].erase(u);
    for (int32_t w : succ[v]) {
      pred[w].erase(v);
      pred[w].insert(u);
      succ[u].insert(w);
    }
    for (int32_t w : pred[v]) {
      succ[w].erase(v);
      succ[w].insert(u);
      pred[u].insert(w);
    }
    succ[v].clear();
    pred[v].clear();
    --alive;
    for (int32_t w : succ[u]) consider(u, w);
    for (int32_t w : pred[u]) consider(w, u);
  }

  Merged m;
  PlanGraph& c = m.graph;
  c.devices = g.devices;
  c.mem_cap = g.mem_cap;
  std::vector<int32_t> coarse_group(g.num_groups(), -1);
  m.fine_group_of.assign(g.num_groups(), -1);
  for (int32_t gr = 0; gr < g.num_groups(); ++gr) {
    const int32_t root = groups.find(gr);
    if (coarse_group[root] < 0) {
      coarse_group[root] = c.num_groups();
      c.groups.push_back({allowed[root], 0});
    }
    m.fine_group_of[gr] = coarse_group[root];
    c.groups[coarse_group[root]].mem_static += g.groups[gr].mem_static;
  }
  std::vector<int32_t> coarse_op(n, -1);
  for (int32_t i = 0; i < n; ++i) {
    if (ops.find(i) != i) continue;
    coarse_op[i] = c.num_ops();
    PlanOp op = g.ops[chain[i][0]];
    op.duration = duration[i];
    op.mem_peak = peak[i];
    op.mem_net = net[i];
    op.group = m.fine_group_of[g.ops[chain[i][0]].group];
    op.sym_class = -1;
    op.sym_rank = 0;
    op.weight = -1;  // merged ops never form overlapped pairs
    op.origin = chain[i][0];
    c.ops.push_back(op);
    m.members.push_back(chain[i]);
  }
  // Arcs between representatives, the largest delay of parallel ones.
  std::vector<std::pair<std::pair<int32_t, int32_t>, int64_t>> arcs;
  for (const PlanArc& a : g.arcs) {
    const int32_t u = coarse_op[ops.find(a.from)], v = coarse_op[ops.find(a.to)];
    if (u != v) arcs.push_back({{u, v}, a.delay});
  }
  std::sort(arcs.begin(), arcs.end());
  for (size_t k = 0; k < arcs.size(); ++k) {
    if (k + 1 < arcs.size() && arcs[k + 1].first == arcs[k].first) continue;  // keep the largest
    c.arcs.push_back({arcs[k].first.first, arcs[k].first.second, arcs[k].second});
  }
  c.finalize();
  return m;
}

PlanSchedule expand_merged(const PlanGraph& fine, const Merged& m, const PlanSchedule& coarse) {
  PlanSchedule s;
  s.device.assign(fine.num_ops(), -1);
  s.start.assign(fine.num_ops(), kUnset);
  for (int32_t k = 0; k < static_cast<int32_t>(m.members.size()); ++k) {
    int64_t at = coarse.start[k];
    for (int32_t i : m.members[k]) {
      s.device[i] = coarse.device[k];
      s.start[i] = at;
      at += fine.ops[i].duration;
    }
  }
  s.makespan = coarse.makespan;
  return s;
}

}  // namespace shardlab::pipeline
