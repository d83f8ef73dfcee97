// Subgradient optimisation of the memory multipliers (see lagrangian.h).
// The Polyak rule (Polyak 1969; Held, Wolfe and Crowder 1974) with a target
// equal to the best known cost needs no tuning of absolute step sizes, which
// matters because costs range from 1e5 (B) to 1e11 (M) across instances.
#include "core/sharding/search/lagrangian.h"

#include <algorithm>
#include <cmath>

namespace shardlab {

Lagrangian::Lagrangian(const CoreModel& core)
    : core_(core), lambda_(core.num_times(), 0.0), gradient_(core.num_times(), 0.0) {}

void Lagrangian::penalised_unary(std::vector<double>* unary) const {
  const int32_t t_count = core_.num_times();
  std::vector<double> prefix(t_count + 1, 0.0);
  for (int32_t t = 0; t < t_count; ++t) prefix[t + 1] = prefix[t] + lambda_[t];
  unary->assign(core_.unary.begin(), core_.unary.end());
  for (int32_t x = 0; x < core_.num_nodes(); ++x) {
    for (int32_t i = core_.term_begin[x]; i < core_.term_begin[x + 1]; ++i) {
      const double price = prefix[core_.term_hi[i]] - prefix[core_.term_lo[i]];
      if (price == 0.0) continue;
      double* u = unary->data() + core_.strategy_begin[x];
      for (int32_t s = 0; s < core_.num_strategies(x); ++s) {
        u[s] += price * static_cast<double>(core_.term_use(i, s));
      }
    }
  }
}

double Lagrangian::capacity_term() const {
  double total = 0;
  for (int32_t t = 0; t < core_.num_times(); ++t) {
    total += lambda_[t] * static_cast<double>(core_.capacity[t]);
  }
  return total;
}

void Lagrangian::update(const std::vector<int32_t>& plan, double dual, double target) {
  ++rounds_;
  if (dual > best_dual_ + 1e-9 * std::max(1.0, std::abs(best_dual_))) {
    best_dual_ = dual;
    best_lambda_ = lambda_;
    stalled_ = 0;
  } else if (++stalled_ >= patience_) {
    mu_ *= 0.5;
    stalled_ = 0;
    if (mu_ < 1e-3 && !best_lambda_.empty()) {
      lambda_ = best_lambda_;
      mu_ = 0.25;
      return;
    }
  }
  const int32_t t_count = core_.num_times();
  std::vector<double> diff(t_count + 1, 0.0);
  for (int32_t x = 0; x < core_.num_nodes(); ++x) {
    for (int32_t i = core_.term_begin[x]; i < core_.term_begin[x + 1]; ++i) {
      const double u = static_cast<double>(core_.term_use(i, plan[x]));
      diff[core_.term_lo[i]] += u;
      diff[core_.term_hi[i]] -= u;
    }
  }
  double live = 0;
  double norm = 0;
  for (int32_t t = 0; t < t_count; ++t) {
    live += diff[t];
    gradient_[t] = live - static_cast<double>(core_.capacity[t]);
    if (lambda_[t] > 0 || gradient_[t] > 0) norm += gradient_[t] * gradient_[t];
  }
  if (norm <= 0) return;
  // A target at or below the dual would stop the method; keep a small gap.
  const double gap = std::max(target - dual, 1e-4 * std::max(1.0, std::abs(dual)));
  const double step = mu_ * gap / norm;
  for (int32_t t = 0; t < t_count; ++t) {
    lambda_[t] = std::max(0.0, lambda_[t] + step * gradient_[t]);
  }
}

}  // namespace shardlab
