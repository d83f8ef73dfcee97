// Exact minimisation over a tree-shaped block of core nodes with every other
// node held at its current strategy (block coordinate descent, as in ICM
// generalised to trees). grow() builds a block whose induced subgraph is a
// tree; solve() runs dynamic programming over it in O(sum of K(x) * K(y)
// over block edges). Used for penalised descent (double costs, no memory)
// and for hard-feasible large-neighbourhood moves (int64 costs, each block
// node restricted to strategies that fit its share of the memory slack).
#pragma once

#include <cstdint>
#include <vector>

#include "core/rng.h"
#include "core/sharding/presolve.h"

namespace shardlab {

class TreeBlock {
 public:
  explicit TreeBlock(const CoreModel& core);

  // Empties the block.
  void clear();
  // Adds a tree grown breadth-first from root over nodes with eligible[x]
  // != 0 (empty = all), in a seeded random order, adding a node only when
  // exactly one of its edges leads into the block (the root: none), until
  // the block has max_nodes. The block stays a forest whose induced
  // subgraph has no other edges. Returns the number of nodes added.
  int32_t grow(int32_t root, int32_t max_nodes, Rng* rng, const std::vector<uint8_t>& eligible);
  // Adds x when at most one of its edges leads into the block (as a child of
  // that neighbour, or as a new root); returns false and leaves the block
  // unchanged otherwise.
  bool add(int32_t x);
  // Number of x's edges into the block (stops counting at 2).
  int32_t links(int32_t x) const;
  int32_t size() const { return static_cast<int32_t>(nodes_.size()); }
  const std::vector<int32_t>& nodes() const { return nodes_; }
  bool contains(int32_t x) const { return in_block_[x] != 0; }

  // Minimises sum over block nodes of unary(x, s) + all edges touching the
  // block (edges to outside nodes use plan's strategies). allowed (empty =
  // all) masks strategies per core strategy index. An edge to an outside
  // node y with relaxed[y] != 0 (relaxed may be empty) counts its cheapest
  // entry over y's allowed strategies instead: the value is then a lower
  // bound. Writes the block's optimal strategies into *plan and returns the
  // optimal block value, or `infinity` when some node has no allowed
  // strategy. T is double or int64_t.
  template <typename T>
  T solve(const std::vector<T>& unary, const std::vector<uint8_t>& allowed, T infinity,
          std::vector<int32_t>* plan, const std::vector<uint8_t>& relaxed = {});

  // Entry visits of the last solve (for work accounting).
  int64_t last_work() const { return last_work_; }

 private:
  const CoreModel& core_;
  std::vector<int32_t> nodes_;   // BFS order per tree; a parent comes before its children
  std::vector<int32_t> parent_;  // per block position: parent position (-1 for a root)
  std::vector<int32_t> parent_edge_;
  std::vector<uint8_t> in_block_;
  std::vector<int32_t> position_;  // node -> position in nodes_ (valid when in block)
  std::vector<int32_t> scratch_;
  int64_t last_work_ = 0;
};

}  // namespace shardlab
