// Recombination of the incumbent with a second plan, component by
// component. Where the two plans differ, the differing nodes fall into
// connected components of the core graph; no edge joins two components, so
// the cost changes of taking several of them from the second plan simply
// add up, and so do their usage changes. Choosing which components to take
// is then a small multi-dimensional knapsack: gains that need more memory
// at some times, paid for by components that free memory there.
//
// This is the move a region search misses when a cheaper plan needs two
// changes far apart in the graph that are coupled only through memory
// (one frees memory at a tight time at a small cost, the other spends it).
// The second plan is the Lagrangian round's decoded plan: the penalised
// optimum is where the multipliers say memory is worth freeing.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/sharding/search/core_state.h"

namespace shardlab {

class Relink {
 public:
  explicit Relink(const CoreModel& core);

  // Writes into *out the incumbent with a set of components of `other`
  // taken over, and returns true, when that set makes the plan strictly
  // cheaper while staying within capacity. The incumbent must be feasible;
  // other must be in range. *work is decreased by the entry visits spent.
  bool recombine(const CoreState& incumbent, const std::vector<int32_t>& other,
                 std::vector<int32_t>* out, int64_t* work);

  // The components of the last recombine() call (all of them, useful or
  // not): how many, and the nodes of component k (valid until the next call).
  int32_t num_components() const { return static_cast<int32_t>(components_.size()); }
  std::span<const int32_t> component(int32_t k) const {
    const Component& c = components_[k];
    return std::span<const int32_t>(nodes_).subspan(c.first, c.size);
  }

 private:
  struct Component {
    int64_t delta = 0;  // cost change when taken alone
    int32_t first = 0;  // its nodes: nodes_[first .. first + size)
    int32_t size = 0;
    bool frees = false;  // lowers the usage at some time
  };

  // Cost change of component c (into c->delta; false if it hits a forbidden
  // entry) and its usage change per core time (added to usage[t]).
  bool measure(const CoreState& incumbent, const std::vector<int32_t>& other, Component* c,
               int64_t* usage, int64_t* work) const;

  const CoreModel& core_;
  std::vector<int32_t> component_of_;  // per node: component or -1
  std::vector<int32_t> nodes_;
  std::vector<Component> components_;
};

}  // namespace shardlab
