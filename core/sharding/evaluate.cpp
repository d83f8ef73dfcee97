// From-scratch evaluation (the checker every solver result passes through) and
// the incremental evaluator. evaluate() deliberately shares no state with the
// solvers: it walks the raw arrays and sums in 128 bits.
#include "core/sharding/evaluate.h"

#include <algorithm>

namespace shardlab {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kFeasible:
      return "feasible";
    case Verdict::kWrongLength:
      return "wrong_length";
    case Verdict::kStrategyOutOfRange:
      return "strategy_out_of_range";
    case Verdict::kForbidden:
      return "forbidden";
    case Verdict::kOverLimit:
      return "over_limit";
  }
  return "unknown";
}

namespace {

// Adds c to the finite total, or counts it as forbidden.
inline void accumulate(Cost c, Int128* total, int64_t* forbidden) {
  if (is_forbidden(c)) {
    ++*forbidden;
  } else {
    *total += c;
  }
}

// Step function from (time, +delta) events.
UsageProfile profile_from_events(std::vector<std::pair<Time, int64_t>> events) {
  std::sort(events.begin(), events.end());
  UsageProfile profile;
  int64_t live = 0;
  for (size_t i = 0; i < events.size();) {
    const Time t = events[i].first;
    while (i < events.size() && events[i].first == t) live += events[i++].second;
    if (!profile.usage.empty() && profile.usage.back() == live) continue;
    profile.time.push_back(t);
    profile.usage.push_back(live);
  }
  return profile;
}

template <typename UsageOf>
UsageProfile build_profile(const Problem& problem, UsageOf usage_of) {
  std::vector<std::pair<Time, int64_t>> events;
  events.reserve(2 * static_cast<size_t>(problem.num_nodes()));
  for (int32_t v = 0; v < problem.num_nodes(); ++v) {
    if (problem.interval_lo[v] >= problem.interval_hi[v]) continue;
    const int64_t u = usage_of(v);
    events.emplace_back(problem.interval_lo[v], u);
    events.emplace_back(problem.interval_hi[v], -u);
  }
  return profile_from_events(std::move(events));
}

}  // namespace

Evaluation evaluate(const Problem& problem, const std::vector<int32_t>& solution) {
  Evaluation result;
  const int32_t n = problem.num_nodes();
  if (static_cast<int64_t>(solution.size()) != n) {
    result.verdict = Verdict::kWrongLength;
    result.message = "the solution has " + std::to_string(solution.size()) +
                     " entries but the instance has " + std::to_string(n) + " nodes";
    return result;
  }
  for (int32_t v = 0; v < n; ++v) {
    if (solution[v] < 0 || solution[v] >= problem.num_strategies(v)) {
      result.verdict = Verdict::kStrategyOutOfRange;
      result.message = "node " + std::to_string(v) + " has strategy " +
                       std::to_string(solution[v]) + " but only " +
                       std::to_string(problem.num_strategies(v)) + " strategies (0.." +
                       std::to_string(problem.num_strategies(v) - 1) + ")";
      return result;
    }
  }
  int32_t first_forbidden_node = -1;
  int32_t first_forbidden_edge = -1;
  for (int32_t v = 0; v < n; ++v) {
    const Cost c = problem.node_cost(v, solution[v]);
    if (is_forbidden(c) && first_forbidden_node < 0) first_forbidden_node = v;
    accumulate(c, &result.cost, &result.forbidden_count);
  }
  for (int32_t e = 0; e < problem.num_edges(); ++e) {
    const Cost c = problem.edge_cost(e, solution[problem.edge_u[e]], solution[problem.edge_v[e]]);
    if (is_forbidden(c) && first_forbidden_edge < 0) first_forbidden_edge = e;
    accumulate(c, &result.cost, &result.forbidden_count);
  }
  // Memory: sweep the interval starts and ends in time order.
  const UsageProfile profile = usage_profile(problem, solution);
  for (size_t i = 0; i < profile.usage.size(); ++i) {
    if (profile.usage[i] > result.peak_usage) {
      result.peak_usage = profile.usage[i];
      result.peak_time = profile.time[i];
    }
  }
  if (result.forbidden_count > 0) {
    result.verdict = Verdict::kForbidden;
    result.message = std::to_string(result.forbidden_count) +
                     " chosen cost(s) are forbidden (first: " +
                     (first_forbidden_node >= 0 ? "node " + std::to_string(first_forbidden_node)
                                                : "edge " + std::to_string(first_forbidden_edge)) +
                     ")";
  } else if (problem.has_usage_limit && result.peak_usage > problem.usage_limit) {
    result.verdict = Verdict::kOverLimit;
    result.message = "usage " + to_decimal(result.peak_usage) + " at time " +
                     std::to_string(result.peak_time) + " exceeds the limit " +
                     std::to_string(problem.usage_limit);
  }
  return result;
}

UsageProfile usage_profile(const Problem& problem, const std::vector<int32_t>& solution) {
  return build_profile(problem, [&](int32_t v) { return problem.node_usage(v, solution[v]); });
}

UsageProfile min_usage_profile(const Problem& problem) {
  return build_profile(problem, [&](int32_t v) {
    int64_t least = problem.node_usage(v, 0);
    for (int32_t s = 1; s < problem.num_strategies(v); ++s) {
      least = std::min(least, problem.node_usage(v, s));
    }
    return least;
  });
}

int64_t min_possible_peak(const Problem& problem) {
  const UsageProfile profile = min_usage_profile(problem);
  int64_t peak = 0;
  for (int64_t u : profile.usage) peak = std::max(peak, u);
  return peak;
}

IncrementalEvaluator::IncrementalEvaluator(const Problem& problem, std::vector<int32_t> solution)
    : problem_(&problem), solution_(std::move(solution)) {
  std::vector<int64_t> diff(problem.num_checkpoints() + 1, 0);
  for (int32_t v = 0; v < problem.num_nodes(); ++v) {
    const Cost c = problem.node_cost(v, solution_[v]);
    if (is_forbidden(c)) {
      ++forbidden_;
    } else {
      cost_ += c;
    }
    const int64_t u = problem.node_usage(v, solution_[v]);
    diff[problem.checkpoint_lo[v]] += u;
    diff[problem.checkpoint_hi[v]] -= u;
  }
  for (int32_t e = 0; e < problem.num_edges(); ++e) {
    const Cost c = problem.edge_cost(e, solution_[problem.edge_u[e]], solution_[problem.edge_v[e]]);
    if (is_forbidden(c)) {
      ++forbidden_;
    } else {
      cost_ += c;
    }
  }
  std::vector<int64_t> live(problem.num_checkpoints());
  int64_t running = 0;
  for (int32_t t = 0; t < problem.num_checkpoints(); ++t) live[t] = running += diff[t];
  usage_.assign(live);
}

bool IncrementalEvaluator::over_limit() const {
  return problem_->has_usage_limit && peak() > problem_->usage_limit;
}

IncrementalEvaluator::Delta IncrementalEvaluator::delta(int32_t v, int32_t s) const {
  Delta d;
  const int32_t old = solution_[v];
  if (old == s) {
    d.peak = peak();
    return d;
  }
  auto add = [&](Cost before, Cost after) {
    d.forbidden += (is_forbidden(after) ? 1 : 0) - (is_forbidden(before) ? 1 : 0);
    d.cost += (is_forbidden(after) ? 0 : after) - (is_forbidden(before) ? 0 : before);
  };
  add(problem_->node_cost(v, old), problem_->node_cost(v, s));
  for (int32_t i = problem_->adj_begin[v]; i < problem_->adj_begin[v + 1]; ++i) {
    const int32_t e = problem_->adj_edge[i];
    if (problem_->edge_u[e] == v) {
      const int32_t other = solution_[problem_->edge_v[e]];
      add(problem_->edge_cost(e, old, other), problem_->edge_cost(e, s, other));
    } else {
      const int32_t other = solution_[problem_->edge_u[e]];
      add(problem_->edge_cost(e, other, old), problem_->edge_cost(e, other, s));
    }
  }
  const int64_t du = problem_->node_usage(v, s) - problem_->node_usage(v, old);
  const int32_t lo = problem_->checkpoint_lo[v];
  const int32_t hi = problem_->checkpoint_hi[v];
  if (du == 0 || lo >= hi) {
    d.peak = peak();
  } else {
    d.peak = std::max(
        {usage_.max(0, lo), usage_.max(lo, hi) + du, usage_.max(hi, problem_->num_checkpoints())});
  }
  return d;
}

void IncrementalEvaluator::set(int32_t v, int32_t s) {
  const int32_t old = solution_[v];
  if (old == s) return;
  const Delta d = delta(v, s);
  cost_ += d.cost;
  forbidden_ += d.forbidden;
  usage_.add(problem_->checkpoint_lo[v], problem_->checkpoint_hi[v],
             problem_->node_usage(v, s) - problem_->node_usage(v, old));
  solution_[v] = s;
}

}  // namespace shardlab
