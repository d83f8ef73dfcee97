// The independent checker: evaluate() recomputes a plan's cost and memory from
// scratch with the contest's semantics (google/iopddl's Evaluate): half-open
// intervals, cost = chosen node costs + chosen edge matrix entries, and the
// plan is over the limit when the live usage at some time exceeds it.
// IncrementalEvaluator keeps the same quantities under one-node changes in
// O(degree + log T); tests check that the two always agree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/sharding/model.h"
#include "core/sharding/segment_tree.h"

namespace shardlab {

enum class Verdict {
  kFeasible = 0,
  kWrongLength,         // the solution has != num_nodes entries
  kStrategyOutOfRange,  // some entry is < 0 or >= K(v)
  kForbidden,           // a chosen node or edge cost is 1e18 ("forbidden")
  kOverLimit,           // live usage exceeds usage_limit at some time
};

const char* verdict_name(Verdict v);

struct Evaluation {
  Verdict verdict = Verdict::kFeasible;
  std::string message;  // why, for every verdict but kFeasible
  // Valid unless kWrongLength / kStrategyOutOfRange:
  Int128 cost = 0;              // sum of the chosen finite costs
  int64_t forbidden_count = 0;  // chosen entries that are forbidden
  Int128 peak_usage = 0;        // max over time of the live usage
  Time peak_time = 0;           // earliest time the peak is reached
  bool feasible() const { return verdict == Verdict::kFeasible; }
};

Evaluation evaluate(const Problem& problem, const std::vector<int32_t>& solution);

// Live usage as a step function: usage[i] holds on [time[i], time[i + 1]),
// and the last entry holds until horizon_end (it is 0 there). Consecutive
// equal steps are merged. Requires an in-range solution.
struct UsageProfile {
  std::vector<Time> time;
  std::vector<int64_t> usage;
};
UsageProfile usage_profile(const Problem& problem, const std::vector<int32_t>& solution);

// The per-time minimum: every node at its smallest usage. No plan can peak
// below this profile's peak.
UsageProfile min_usage_profile(const Problem& problem);
int64_t min_possible_peak(const Problem& problem);

class IncrementalEvaluator {
 public:
  // solution must be in range (every entry in [0, K(v))).
  IncrementalEvaluator(const Problem& problem, std::vector<int32_t> solution);

  const std::vector<int32_t>& solution() const { return solution_; }
  int64_t cost() const { return cost_; }  // finite part
  int64_t forbidden_count() const { return forbidden_; }
  int64_t peak() const { return usage_.max_all(); }
  bool over_limit() const;
  bool feasible() const { return forbidden_ == 0 && !over_limit(); }

  struct Delta {
    int64_t cost = 0;       // change of the finite cost
    int64_t forbidden = 0;  // change of the forbidden count
    int64_t peak = 0;       // the peak after the change
  };
  // What set(v, s) would do, without doing it: O(degree + log T).
  Delta delta(int32_t v, int32_t s) const;
  void set(int32_t v, int32_t s);

  const MaxSegmentTree& usage() const { return usage_; }

 private:
  const Problem* problem_;
  std::vector<int32_t> solution_;
  int64_t cost_ = 0;
  int64_t forbidden_ = 0;
  MaxSegmentTree usage_;  // live usage at each checkpoint
};

}  // namespace shardlab
