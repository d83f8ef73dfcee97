// Local search on the device orders of a schedule (fixed placements): late
// acceptance hill climbing (Burke and Bykov 2017) over moves that shift a
// slot within its device's order, split an overlapped pair into its ops or
// join a lone F and a lone full backward into one, and swap the backwards
// of two pairs. Each candidate is timed semi-actively (the same timing as
// time_orders in plan/graph.h); memory depends only on a device's order, so
// a cap is a check on the moved device's prefix levels, never a reason to
// stay near the schedule it started from (the neighbourhood search of
// plan/lns.h keeps every unfreed op in its order, and so the lock step of
// the schedule it starts from).
//
// Contract: every schedule reported passes check_plan(); the same graph,
// seed and calls give the same results on every platform (integer costs,
// no clock); work is counted in moves.
#pragma once

#include <cstdint>
#include <memory>

#include "core/pipeline/plan/graph.h"
#include "core/rng.h"

namespace shardlab::pipeline {

class OrderSearch {
 public:
  // With `symmetry`, the ops of a class keep rank order on every device
  // whose order followed it when the run started (plan/search.cpp's rule).
  explicit OrderSearch(const PlanGraph& graph, bool symmetry = true);
  ~OrderSearch();
  OrderSearch(const OrderSearch&) = delete;
  OrderSearch& operator=(const OrderSearch&) = delete;

  // False when the technique does not apply: a free group, or no device
  // with two ops to order.
  bool useful() const;
  // Starts again from `schedule` (its device orders and pairs). With
  // `mirrored`, when the graph has a valid mirror (PlanGraph::mirror) and
  // the schedule's orders are their own mirror image, every move is made
  // on a device and, mirrored, on its mirror device, so the run searches
  // mirror-symmetric orders only (half as many choices).
  void reset(const PlanSchedule& schedule, bool mirrored = false);
  // Whether the graph has a valid mirror, and whether the current run keeps it.
  bool can_mirror() const;
  bool mirrored() const;
  bool started() const;
  // Makespan of the best schedule of the current run (kNoCap before reset).
  int64_t best_makespan() const;
  // Tries up to `moves` moves. Returns true with *found when the run's best
  // falls below `upper` (a schedule that passes check_plan()).
  bool run(int64_t moves, int64_t upper, Rng* rng, PlanSchedule* found);
  // Moves since the run's best last improved.
  int64_t stalled() const;
  int64_t moves() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace shardlab::pipeline
