// What the plan lab reports beside the plan: the textbook alternatives (the
// why-not table), sizing (the smallest GPU count that fits, and a sweep over
// GPU counts), and the JSON document every front end prints (plan.h's
// plan_json is defined here). Each alternative and sizing point is a search
// of its own (search.h) with some decisions pinned, on a deterministic work
// budget (PlanOptions::side_work).
#pragma once

#include <vector>

#include "core/plan/plan.h"

namespace shardlab::plan {

// Pure data parallelism, ZeRO-3 (FSDP), TP across nodes, more and fewer
// stages, each other recomputation setting, 1F1B and interleaved 1F1B
// instead of the chosen schedule, no sequence parallelism, ZeRO on or off;
// those that equal the chosen plan's decisions are left out.
std::vector<Alternative> alternatives(PlanCosts* costs, const Cluster& cluster,
                                      const Training& training, const Fix& fix,
                                      const PlanOptions& options, const StepResult& best,
                                      SearchCaches* caches, const std::vector<TimedPlan>& seeds);

// The smallest GPU count (whole nodes) where some plan of the fix (its dp
// left free) fits, and with options.sweep the best step time at 1, 2, 4, ...
// nodes up to twice the cluster.
Sizing sizing(PlanCosts* costs, const Cluster& cluster, const Training& training, const Fix& fix,
              const PlanOptions& options, const PlanResult& result, SearchCaches* caches);

// "93.1 GB" (1e9 bytes, one decimal).
std::string gigabytes(int64_t bytes);

}  // namespace shardlab::plan
