// Best-first branch and bound for lower bounds on small cores whose memory is
// tight. The Lagrangian dual stays far below the optimum on such cores (on V
// about 20%): its relaxation mixes the usage classes of the nodes that fill
// the tightest times. Once those classes are fixed, the penalised message
// passing bound is nearly exact. So this search branches first on the usage
// class of those nodes (biggest usage range first), then on single strategies
// (the decoded one against the rest), and bounds every branch by masked
// message passing with its own multipliers, certified in exact arithmetic
// (certify_bound with a mask). Memory propagation (minimum loads) and
// reduced-cost fixing shrink each branch.
//
// The bound is the least certified bound of the open branches, so it rises as
// the search goes; with nothing left open below the incumbent it equals the
// incumbent (optimality proven). A branch reduced to a single plan is a leaf:
// its plan is feasible and its exact cost is its bound.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/sharding/presolve.h"

namespace shardlab {

class ClassBranch {
 public:
  // Whether the search is meant for this core: at most max_nodes nodes and
  // some time where the memory can bind.
  static bool applicable(const CoreModel& core, int32_t max_nodes);

  explicit ClassBranch(const CoreModel& core);
  ~ClassBranch();
  ClassBranch(const ClassBranch&) = delete;
  ClassBranch& operator=(const ClassBranch&) = delete;

  // Expands branches until *work (cost-table entries visited) is spent or
  // the search is over. `incumbent` is the best known core cost (without
  // core.constant): branches that cannot beat it are closed. `expired`
  // (optional) is asked between expansions; when it answers true the run
  // returns early, every open branch kept (a page's wall-clock limit).
  void run(int64_t incumbent, int64_t* work, const std::function<bool()>& expired = {});
  // No core plan costs less than this (certified; core cost, no constant).
  // Before the first run() it is the root's bound or kNoBound.
  int64_t bound() const;
  // True when no branch below the incumbent is left (bound() == incumbent),
  // or the cheapest open branch is a leaf (its plan is optimal).
  bool over() const;
  // True when the open branches reached their memory cap: run() does no more.
  bool full() const;
  // The plan of the cheapest leaf, when over() because of it; else empty.
  const std::vector<int32_t>& leaf_plan() const;
  int64_t expanded() const;
  int64_t open_branches() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace shardlab
