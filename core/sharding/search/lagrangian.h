// Lagrangian relaxation of the per-time memory constraints of a core: one
// multiplier lambda_t >= 0 per core time, the penalised unary costs it
// induces (cost + usage priced by lambda), and the subgradient update with a
// Polyak step towards the incumbent's cost. The message-passing engine
// minimises the penalised network; bound.h certifies the resulting dual.
#pragma once

#include <cstdint>
#include <vector>

#include "core/sharding/presolve.h"

namespace shardlab {

class Lagrangian {
 public:
  explicit Lagrangian(const CoreModel& core);

  const std::vector<double>& lambda() const { return lambda_; }
  void set_lambda(const std::vector<double>& lambda) { lambda_ = lambda; }
  // cost(x, s) + sum over x's segments of usage(s) * (sum of lambda over it).
  void penalised_unary(std::vector<double>* unary) const;
  // sum_t lambda_t * capacity_t: subtract from the penalised minimum.
  double capacity_term() const;
  // Subgradient step from `plan` (usage - capacity per time): Polyak's
  // step mu * (target - dual) / |g|^2, projected onto lambda >= 0. mu is
  // halved after `patience` rounds without a better dual; once it falls
  // below 1e-3 the multipliers go back to those of the best dual and mu to
  // 0.25 (a frozen method otherwise stops the bound for good: on M, engine
  // 0's bound rose from a 0.18% to a 0.012% gap with this restart).
  void update(const std::vector<int32_t>& plan, double dual, double target);
  double step_factor() const { return mu_; }
  void set_step_factor(double mu) { mu_ = mu; }
  void set_patience(int32_t rounds) { patience_ = rounds; }
  int64_t rounds() const { return rounds_; }

 private:
  const CoreModel& core_;
  std::vector<double> lambda_;
  std::vector<double> gradient_;
  std::vector<double> best_lambda_;
  double mu_ = 1.0;
  double best_dual_ = -1e300;
  int32_t patience_ = 20;
  int32_t stalled_ = 0;
  int64_t rounds_ = 0;
};

}  // namespace shardlab
