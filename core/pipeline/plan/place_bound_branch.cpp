// The placement branching's bookkeeping (see plan/place_bound_branch.h): the
// devices' twin classes, the heap of open nodes and the bound over them;
// the expanding loop is the header's template.
#include "core/pipeline/plan/place_bound_branch.h"

namespace shardlab::pipeline {
namespace {

// The heap's order: the least bound on top, then the oldest node.
constexpr auto kAfter = [](const auto& a, const auto& b) {
  return a.bound != b.bound ? a.bound > b.bound : a.id > b.id;
};

}  // namespace

PlacementBranching::PlacementBranching(const PlanGraph& graph, std::vector<int32_t> order,
                                       int64_t max_open)
    : graph_(graph),
      order_(std::move(order)),
      closed_min_(kNoCap),
      max_open_(std::max<int64_t>(1, max_open)) {
  fixed_used_.assign(graph_.devices, 0);
  for (int32_t g = 0; g < graph_.num_groups(); ++g) {
    if (graph_.fixed(g)) fixed_used_[graph_.groups[g].devices[0]] = 1;
  }
  twin_class_.assign(graph_.devices, 0);
  for (int32_t d = 0; d < graph_.devices; ++d) {
    twin_class_[d] = d;
    for (int32_t e = 0; e < d; ++e) {
      bool same = graph_.mem_cap[d] == graph_.mem_cap[e];
      for (int32_t g = 0; same && g < graph_.num_groups(); ++g) {
        const auto& allowed = graph_.groups[g].devices;
        same = std::binary_search(allowed.begin(), allowed.end(), d) ==
               std::binary_search(allowed.begin(), allowed.end(), e);
      }
      if (same) {
        twin_class_[d] = twin_class_[e];
        break;
      }
    }
  }
}

void PlacementBranching::start(int64_t bound) {
  push({bound, next_id_++, std::vector<int32_t>(order_.size(), -1)});
}

void PlacementBranching::push(Node node) {
  open_.push_back(std::move(node));
  std::push_heap(open_.begin(), open_.end(), kAfter);
}

PlacementBranching::Node PlacementBranching::pop() {
  std::pop_heap(open_.begin(), open_.end(), kAfter);
  Node node = std::move(open_.back());
  open_.pop_back();
  return node;
}

int64_t PlacementBranching::bound() const {
  const int64_t open = open_.empty() ? kNoCap : open_.front().bound;
  return std::min(open, closed_min_);
}

}  // namespace shardlab::pipeline
