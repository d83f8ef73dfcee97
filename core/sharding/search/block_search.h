// Large-neighbourhood search that re-optimises a small region of the core
// exactly, memory included. The region is a forest of nodes (solved by tree
// dynamic programming, search/tree_block.h) plus a few "cutset" nodes that
// would close cycles and are enumerated. Memory is handled by branch and
// bound over the usage classes of the region's memory nodes (strategies with
// identical usage vectors form one class): once every memory node's class is
// fixed the region's usage is fixed, and the DP optimum is exact. Further
// memory nodes may join as "monotone" nodes restricted to strategies that
// never use more memory than their current one. Improves a feasible
// CoreState in place and never makes it infeasible.
#pragma once

#include <cstdint>
#include <vector>

#include "core/rng.h"
#include "core/sharding/search/core_state.h"
#include "core/sharding/search/tree_block.h"

namespace shardlab {

class BlockSearch {
 public:
  struct Params {
    int32_t max_nodes = 24;     // forest + cutset
    int32_t max_key_nodes = 8;  // memory nodes branched on
    bool monotone = true;       // admit further memory nodes as monotone
    int32_t max_cutset = 2;
    int64_t max_cutset_product = 64;  // strategies of the cutset nodes, multiplied
    int64_t max_search_nodes = 400;   // branch-and-bound nodes per call
    // Key slots kept for memory partners: memory nodes live where the
    // region is tightest, wherever they sit in the graph.
    int32_t partners = 3;
  };

  BlockSearch(const CoreModel& core, uint64_t seed);

  // Grows a region from root, solves it, applies the result when strictly
  // cheaper. Returns true on improvement. *work is decreased by the entry
  // visits spent. Requires a plan within capacity.
  bool improve(CoreState* state, int32_t root, const Params& params, int64_t* work);

  // The same on a given region: nodes are taken in order, each joining the
  // forest when at most one of its edges leads into it, else the cutset
  // (within the params' limits; nodes that fit neither are left out).
  bool improve_region(CoreState* state, const std::vector<int32_t>& nodes, const Params& params,
                      int64_t* work);

  // The last region: forest nodes, then cutset nodes; and which are keys.
  std::vector<int32_t> region() const;
  const std::vector<int32_t>& key_nodes() const { return key_; }
  const std::vector<int32_t>& cutset() const { return cut_; }

  int64_t attempts() const { return attempts_; }
  int64_t successes() const { return successes_; }
  int64_t search_nodes() const { return search_nodes_; }

 private:
  void grow(const CoreState& state, int32_t root, const Params& params);
  void clear_region();
  // Adds x to the forest (as key, monotone or free node) or the cutset.
  bool admit(int32_t x, const Params& params, int32_t key_limit, int64_t* product);
  bool solve_region(CoreState* state, const Params& params, int64_t* work);
  void add_partners(const CoreState& state, const Params& params, int32_t t);
  int32_t tightest_time(const CoreState& state) const;
  int32_t overflow_time();
  void set_monotone(const std::vector<int32_t>& plan, bool restrict);
  void prepare_cut_costs();
  int64_t cut_value() const;
  void prepare_intervals(const CoreState& state);
  int64_t block_value(const std::vector<int32_t>& plan) const;
  bool fits(const std::vector<int32_t>& plan) const;
  void branch(int32_t depth);
  int64_t usage(int32_t local, int32_t interval, int32_t s) const;

  const CoreModel& core_;
  Rng rng_;
  TreeBlock forest_;
  // Usage classes: class_of_[strategy index], class_begin_[x] .. for node x.
  std::vector<int32_t> class_of_;
  std::vector<int32_t> memory_nodes_;
  std::vector<int32_t> num_classes_;

  // ---- per call ----
  const CoreState* state_ = nullptr;
  const Params* params_ = nullptr;
  std::vector<int32_t> cut_;                   // cutset nodes
  std::vector<int32_t> key_;                   // memory nodes branched on (in the forest)
  std::vector<int32_t> monotone_;              // memory nodes restricted to lighter strategies
  std::vector<int32_t> members_;               // every region node with memory: cut, key, monotone
  std::vector<uint8_t> in_region_;             // cutset membership
  std::vector<uint8_t> seen_;                  // breadth-first marks, reset after each grow
  std::vector<uint8_t> relaxed_;               // unassigned cutset nodes (per core node)
  std::vector<uint8_t> cut_assigned_;          // per cutset position
  std::vector<std::vector<int64_t>> cut_own_;  // per cutset position and strategy
  std::vector<int32_t> interval_lo_;           // elementary intervals of the region's segments
  std::vector<int32_t> interval_hi_;
  std::vector<int64_t> slack_;       // room for the region's usage per interval
  std::vector<int32_t> segment_of_;  // [member * intervals + interval] -> segment or -1
  std::vector<uint8_t> allowed_;     // per core strategy (1 outside the region)
  std::vector<int32_t> assigned_;    // per key node: class or -1
  std::vector<int32_t> work_plan_;
  std::vector<int32_t> best_plan_;
  int64_t best_value_ = 0;
  int64_t nodes_left_ = 0;
  int64_t spent_ = 0;

  int64_t attempts_ = 0;
  int64_t successes_ = 0;
  int64_t search_nodes_ = 0;
};

}  // namespace shardlab
