// Tree-block dynamic programming (see tree_block.h). Conditioning on the
// nodes outside the block turns their edges into unary costs, and a tree of
// pairwise costs is solved exactly by one leaves-to-root pass of min-sum
// messages and one root-to-leaves pass of argmins (Pearl 1988; the block
// version of iterated conditional modes, Besag 1986).
#include "core/sharding/search/tree_block.h"

#include <algorithm>
#include <limits>

namespace shardlab {

TreeBlock::TreeBlock(const CoreModel& core)
    : core_(core), in_block_(core.num_nodes(), 0), position_(core.num_nodes(), -1) {}

void TreeBlock::clear() {
  for (int32_t x : nodes_) in_block_[x] = 0;
  nodes_.clear();
  parent_.clear();
  parent_edge_.clear();
}

int32_t TreeBlock::grow(int32_t root, int32_t max_nodes, Rng* rng,
                        const std::vector<uint8_t>& eligible) {
  auto ok = [&](int32_t x) { return eligible.empty() || eligible[x] != 0; };
  if (!ok(root) || in_block_[root] || static_cast<int32_t>(nodes_.size()) >= max_nodes) return 0;
  for (int32_t i = core_.adj_begin[root]; i < core_.adj_begin[root + 1]; ++i) {
    if (in_block_[core_.other(core_.adj_edge[i], root)]) return 0;
  }
  const size_t first = nodes_.size();
  position_[root] = static_cast<int32_t>(nodes_.size());
  nodes_.push_back(root);
  parent_.push_back(-1);
  parent_edge_.push_back(-1);
  in_block_[root] = 1;
  for (size_t head = first; head < nodes_.size() && static_cast<int32_t>(nodes_.size()) < max_nodes;
       ++head) {
    const int32_t x = nodes_[head];
    // Visit x's edges in a random rotation so blocks differ between calls.
    const int32_t begin = core_.adj_begin[x];
    const int32_t degree = core_.adj_begin[x + 1] - begin;
    if (degree == 0) continue;
    const int32_t offset = static_cast<int32_t>(rng->below(static_cast<uint32_t>(degree)));
    for (int32_t j = 0; j < degree && static_cast<int32_t>(nodes_.size()) < max_nodes; ++j) {
      const int32_t e = core_.adj_edge[begin + (j + offset) % degree];
      const int32_t y = core_.other(e, x);
      if (in_block_[y] || !ok(y)) continue;
      int32_t links = 0;
      for (int32_t i = core_.adj_begin[y]; i < core_.adj_begin[y + 1] && links < 2; ++i) {
        links += in_block_[core_.other(core_.adj_edge[i], y)];
      }
      if (links != 1) continue;
      position_[y] = static_cast<int32_t>(nodes_.size());
      nodes_.push_back(y);
      parent_.push_back(static_cast<int32_t>(head));
      parent_edge_.push_back(e);
      in_block_[y] = 1;
    }
  }
  return static_cast<int32_t>(nodes_.size() - first);
}

int32_t TreeBlock::links(int32_t x) const {
  int32_t count = 0;
  for (int32_t i = core_.adj_begin[x]; i < core_.adj_begin[x + 1] && count < 2; ++i) {
    count += in_block_[core_.other(core_.adj_edge[i], x)];
  }
  return count;
}

bool TreeBlock::add(int32_t x) {
  if (in_block_[x]) return false;
  int32_t parent = -1;
  int32_t parent_edge = -1;
  for (int32_t i = core_.adj_begin[x]; i < core_.adj_begin[x + 1]; ++i) {
    const int32_t e = core_.adj_edge[i];
    const int32_t y = core_.other(e, x);
    if (!in_block_[y]) continue;
    if (parent >= 0) return false;
    parent = position_[y];
    parent_edge = e;
  }
  position_[x] = static_cast<int32_t>(nodes_.size());
  nodes_.push_back(x);
  parent_.push_back(parent);
  parent_edge_.push_back(parent_edge);
  in_block_[x] = 1;
  return true;
}

template <typename T>
T TreeBlock::solve(const std::vector<T>& unary, const std::vector<uint8_t>& allowed, T infinity,
                   std::vector<int32_t>* plan, const std::vector<uint8_t>& relaxed) {
  const int32_t size = static_cast<int32_t>(nodes_.size());
  last_work_ = 0;
  if (size == 0) return 0;
  // table[p] holds, per strategy of node p, the best value of p's subtree.
  std::vector<std::vector<T>> table(size);
  // choice[p][s_parent] = best strategy of p given its parent's strategy.
  std::vector<std::vector<int32_t>> choice(size);
  auto edge_entry = [&](int32_t e, int32_t x, int32_t sx, int32_t so) -> T {
    const int64_t c = core_.edge_cost_from(e, x, sx, so);
    return c >= kForbidden ? infinity : static_cast<T>(c);
  };
  for (int32_t p = 0; p < size; ++p) {
    const int32_t x = nodes_[p];
    const int32_t k = core_.num_strategies(x);
    std::vector<T>& f = table[p];
    f.assign(k, 0);
    for (int32_t s = 0; s < k; ++s) {
      const int64_t index = core_.strategy_begin[x] + s;
      f[s] = (!allowed.empty() && !allowed[index]) ? infinity : unary[index];
    }
    // Edges to fixed nodes become unary costs.
    for (int32_t i = core_.adj_begin[x]; i < core_.adj_begin[x + 1]; ++i) {
      const int32_t e = core_.adj_edge[i];
      const int32_t y = core_.other(e, x);
      if (in_block_[y]) continue;
      if (!relaxed.empty() && relaxed[y]) {
        const int32_t ky = core_.num_strategies(y);
        const int32_t base = core_.strategy_begin[y];
        for (int32_t s = 0; s < k; ++s) {
          if (f[s] >= infinity) continue;
          T least = infinity;
          for (int32_t t = 0; t < ky; ++t) {
            if (!allowed.empty() && !allowed[base + t]) continue;
            least = std::min(least, edge_entry(e, x, s, t));
          }
          f[s] = least >= infinity ? infinity : f[s] + least;
        }
        last_work_ += static_cast<int64_t>(k) * ky;
        continue;
      }
      const int32_t sy = (*plan)[y];
      for (int32_t s = 0; s < k; ++s) {
        if (f[s] >= infinity) continue;
        const T c = edge_entry(e, x, s, sy);
        f[s] = c >= infinity ? infinity : f[s] + c;
      }
      last_work_ += k;
    }
  }
  // Leaves to roots: fold each node into its parent.
  for (int32_t p = size - 1; p >= 0; --p) {
    if (parent_[p] < 0) continue;
    const int32_t x = nodes_[p];
    const int32_t q = parent_[p];
    const int32_t y = nodes_[q];
    const int32_t e = parent_edge_[p];
    const int32_t kx = core_.num_strategies(x);
    const int32_t ky = core_.num_strategies(y);
    std::vector<int32_t>& arg = choice[p];
    arg.assign(ky, 0);
    std::vector<T>& fy = table[q];
    const std::vector<T>& fx = table[p];
    // Entry (sx, sy) of the edge is column[sx * stride] with column at sy.
    const bool x_is_u = core_.edge_u[e] == x;
    const int64_t stride = x_is_u ? ky : 1;
    for (int32_t sy = 0; sy < ky; ++sy) {
      if (fy[sy] >= infinity) continue;
      T best = infinity;
      int32_t best_s = 0;
      const int64_t* column = core_.edge_costs(e) + (x_is_u ? sy : static_cast<int64_t>(sy) * kx);
      for (int32_t sx = 0; sx < kx; ++sx) {
        if (fx[sx] >= infinity) continue;
        const int64_t entry = column[sx * stride];
        if (entry >= kForbidden) continue;
        const T v = fx[sx] + static_cast<T>(entry);
        if (v < best) {
          best = v;
          best_s = sx;
        }
      }
      arg[sy] = best_s;
      fy[sy] = best >= infinity ? infinity : fy[sy] + best;
    }
    last_work_ += static_cast<int64_t>(kx) * ky;
  }
  // Roots to leaves (a parent is always decided before its children).
  T value = 0;
  for (int32_t p = 0; p < size; ++p) {
    if (parent_[p] >= 0) {
      (*plan)[nodes_[p]] = choice[p][(*plan)[nodes_[parent_[p]]]];
      continue;
    }
    const std::vector<T>& f = table[p];
    const int32_t best = static_cast<int32_t>(std::min_element(f.begin(), f.end()) - f.begin());
    if (f[best] >= infinity) return infinity;
    value += f[best];
    (*plan)[nodes_[p]] = best;
  }
  return value;
}

template double TreeBlock::solve<double>(const std::vector<double>&, const std::vector<uint8_t>&,
                                         double, std::vector<int32_t>*,
                                         const std::vector<uint8_t>&);
template int64_t TreeBlock::solve<int64_t>(const std::vector<int64_t>&, const std::vector<uint8_t>&,
                                           int64_t, std::vector<int32_t>*,
                                           const std::vector<uint8_t>&);

}  // namespace shardlab
