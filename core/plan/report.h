// What the plan lab reports beside the plan: the textbook alternatives (the
// why-not table), sizing (the smallest GPU count that fits, and a sweep over
// GPU counts), and the JSON document every front end prints (plan.h's
// plan_json is defined here). Each alternative and sizing point is a search
// of its own (search.h) with some decisions pinned, on a deterministic work
// budget (PlanOptions::side_work); PlanRun (plan.h) steps them one bounded
// slice at a time.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/plan/plan.h"

namespace shardlab::plan {

// A side search (an alternative's, a sweep point's): a Planner with some
// decisions pinned, started from the best plans other searches timed that
// satisfy its pins, stepped in bounded slices up to options.side_work.
struct Pinned {
  bool finished = false;  // the search ended: its best is the best with these pins
  bool found = false;
  StepResult best;
  int64_t needs_bytes = 0;  // finished without a plan: the least memory any needs
  std::vector<TimedPlan> timed;
};
class PinnedSearch {
 public:
  PinnedSearch(PlanCosts* costs, const Cluster& cluster, const Training& training, const Fix& fix,
               const PlanOptions& options, SearchCaches* caches,
               const std::vector<TimedPlan>* seeds = nullptr, const Plan* near = nullptr);
  // One slice: an offered plan timed, at most 64 units of search, or a
  // slice of the least-memory hunt when nothing fits; true when done.
  // `yield` as Planner::step's: the slice ends, or its unit is put off,
  // when it says true after a long part.
  bool step(const std::function<bool()>& yield = nullptr);
  bool done() const { return done_; }
  Pinned result() const;

 private:
  Planner planner_;
  int64_t budget_;
  std::vector<Plan> offers_;  // timed first, one a step
  size_t next_offer_ = 0;
  bool done_ = false;
  int64_t needs_bytes_ = 0;
};

// A textbook alternative before its search: its name, what it pins, and why
// it does not apply here (empty when it does).
struct AlternativeSpec {
  std::string name;
  Fix pins;
  std::string not_applicable;
};
// Pure data parallelism, ZeRO-3 (FSDP), TP across nodes, more and fewer
// stages, each other recomputation setting, 1F1B and interleaved 1F1B
// instead of the chosen schedule, no sequence parallelism, ZeRO on or off;
// those that equal the chosen plan's decisions are left out.
std::vector<AlternativeSpec> alternative_specs(const ModelFacts& facts, const Cluster& cluster,
                                               const Plan& best);
// The alternative's row before its search, and the fix to search with; no
// fix when it does not apply (the row says why, and is final).
std::optional<Fix> prepare_alternative(const AlternativeSpec& spec, const Fix& user,
                                       const ModelFacts& facts, const Cluster& cluster,
                                       const Training& training, Alternative* row);
// The chosen plan with a fix's decisions put in (dp and the micro-batch
// count following the GPUs and the batch), its split left to the DP: the
// first plan an alternative's search times. nullopt when they do not divide.
std::optional<Plan> with_pins(const Plan& plan, const Fix& fix, int64_t gpus, int64_t batch);
// Fills the row from its finished (or budget-stopped) search.
void complete_alternative(const Pinned& run, const StepResult& best, Alternative* row);

// The smallest GPU count (whole nodes) where some plan of the fix (its dp
// left free) fits, by bisection over 1, 2, 3, 4, 6, 8, ... nodes (memory
// needs fall as GPUs are added), one candidate count per step.
class SizingSearch {
 public:
  SizingSearch(PlanCosts* costs, const Cluster& cluster, const Training& training, const Fix& fix,
               const PlanOptions& options, bool cluster_fits, SearchCaches* caches);
  ~SizingSearch();
  // A slice of one candidate count's least-memory hunt (`yield` as
  // Planner::step's); true when done.
  bool step(const std::function<bool()>& yield = nullptr);
  bool done() const { return lo_ >= hi_; }
  int64_t smallest_gpus() const { return smallest_gpus_; }  // 0: none (so far)

 private:
  PlanCosts* costs_;
  Cluster cluster_;
  Training training_;
  Fix free_;
  SearchOptions search_;
  bool cluster_fits_;
  SearchCaches* caches_;
  std::vector<int32_t> counts_;
  size_t lo_ = 0, hi_ = 0;
  int64_t smallest_gpus_ = 0;
  std::unique_ptr<Planner> probe_;  // the hunt at counts_[(lo + hi) / 2]
};
// The node counts of the sweep (1, 2, 4, ... up to twice the cluster) and
// the fix each is searched with (dp left free).
std::vector<int32_t> sweep_nodes(const Cluster& cluster);
Fix sizing_fix(const Fix& fix);

// "93.1 GB" (1e9 bytes, one decimal).
std::string gigabytes(int64_t bytes);

}  // namespace shardlab::plan
