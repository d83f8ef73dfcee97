// The activations a schedule keeps in flight on each device, from the
// pipeline lab's own order (core/pipeline/generators.h), never from a
// formula. On one device operations run one at a time, an F allocates its
// micro-batch's activations when it starts and a B (a W for the part kept
// for the weight gradient) releases them when it ends, releases first at
// equal times; so the memory profile of a fixed order is the same for every
// set of stage times, and the simulator's peak (simulate.h measure()) is the
// largest of the counts below weighted by the stages' bytes (a unit test
// checks it against the simulator on random times). The stage DP and the
// bound price memory with these counts; the step model re-measures the
// simulated timeline.
//
// ZBV is the exception: its order comes from the zero-bubble authors' greedy,
// which reads the stage times, under a budget of 1F1B's peak (p micro-batches
// of both chunks). The plan lab charges a ZBV plan that budget, whatever the
// greedy then uses of it, so memory stays a function of the stages alone.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "core/pipeline/model.h"
#include "core/pipeline/simulate.h"
#include "core/plan/config.h"
#include "core/status.h"

namespace shardlab::plan {

struct InflightProfile {
  int32_t devices = 0;
  int32_t chunks = 1;
  std::vector<std::vector<int32_t>> stage_of;  // [device][chunk] -> stage
  // points[d]: the counts at every allocation of device d that no other
  // allocation dominates, each 2 x chunks numbers: micro-batches holding
  // their activations in chunk c (F started, B not ended), then micro-batches
  // holding only the part kept for W (B ended, W not).
  std::vector<std::vector<std::vector<int32_t>>> points;

  // Largest activation bytes of device d, with act/keep bytes per stage.
  int64_t peak_bytes(int32_t device, const std::vector<int64_t>& act_by_stage,
                     const std::vector<int64_t>& keep_by_stage) const;
  // Largest number of micro-batches whose activations device d holds at once
  // (over all its chunks), for reports.
  int32_t peak_microbatches(int32_t device) const;
};

// The profile of a generated order.
InflightProfile profile_of_order(const pipeline::Expansion& expansion,
                                 const pipeline::Order& order);
// ZBV's budget: p micro-batches of each of the two chunks on every device.
InflightProfile zbv_budget_profile(int32_t pp);

// Profiles by (schedule, pp, chunks, microbatches), generated once each on a
// problem with unit stages (fixed orders do not depend on the times).
class InflightCache {
 public:
  Result<const InflightProfile*> get(const ScheduleShape& shape, int32_t pp, int64_t microbatches);
  // get() would generate no order (memoised, or ZBV's budget).
  bool has(const ScheduleShape& shape, int32_t pp, int64_t microbatches) const;
  int64_t generated() const { return generated_; }
  int64_t generated_ops() const { return generated_ops_; }  // operations of those orders

 private:
  std::map<std::tuple<std::string, int32_t, int32_t, int64_t>,
           std::unique_ptr<Result<InflightProfile>>>
      cache_;
  int64_t generated_ = 0, generated_ops_ = 0;
};

}  // namespace shardlab::plan
