// Sequential reweighted min-sum message passing (TRW-S) on the pairwise cost
// function network of a core, with unary costs supplied by the caller (the
// Lagrangian-penalised costs). It improves a dual bound monotonically, keeps
// its messages between calls (warm start when the penalties change) and
// decodes a primal plan. Used by the Lagrangian engine and the lower bound.
//
// Convention: edge e has one message vector per end, m(e, side). The
// reparametrised costs are
//   unary'(x, s)   = unary(x, s) + sum over edges e of x of m(e, side of x)(s)
//   edge'(e, a, b) = edge(e, a, b) - m(e, 0)(a) - m(e, 1)(b)
// so every plan has the same total under both, and for ANY messages
//   dual = sum_x min_s unary'(x, s) + sum_e min_ab edge'(e, a, b)
// is a lower bound on the minimum. (Certified in exact arithmetic by bound.h.)
#pragma once

#include <cstdint>
#include <vector>

#include "core/sharding/presolve.h"

namespace shardlab {

class MessagePassing {
 public:
  explicit MessagePassing(const CoreModel& core);

  // Costs per core strategy (size = number of core strategies). Forbidden
  // entries of the model count as kForbidden (1e18), which never wins a min.
  void set_unary(const std::vector<double>& unary);
  const std::vector<double>& unary() const { return unary_; }
  // One iteration = a forward and a backward pass over the node order.
  void run(int32_t iterations);
  // The dual value of the current messages (double arithmetic).
  double dual() const;
  // Sequential decoding in the node order: each node takes the strategy that
  // is cheapest given the nodes already decoded and the messages from the
  // rest (the TRW-S rounding rule).
  void decode(std::vector<int32_t>* plan) const;
  // Reparametrised unary of node x (size K(x)).
  void reparametrised(int32_t x, std::vector<double>* out) const;
  void reset_messages();
  // Restores messages saved from messages() (same core; sizes must match).
  void set_messages(const std::vector<double>& messages);

  const std::vector<double>& messages() const { return msg_; }
  int64_t message_begin(int32_t e, int side) const { return msg_begin_[2 * e + side]; }
  // Where each edge side's messages begin in messages(), 2 per edge, then
  // messages().size(): the layout certify_bound takes.
  const std::vector<int64_t>& message_begins() const { return msg_begin_; }
  int64_t sweeps() const { return sweeps_; }

 private:
  // m(e, to) = min over the other end of edge(e) - m(e, other).
  void pull(int32_t e, int to);
  void pass(bool forward);

  const CoreModel& core_;
  std::vector<double> matrix_;  // core.matrix_cost as doubles
  std::vector<double> unary_;   // per core strategy
  std::vector<double> msg_;     // per (edge, side, strategy)
  std::vector<int64_t> msg_begin_;
  std::vector<double> weight_fwd_;  // push fraction per node, forward pass
  std::vector<double> weight_bwd_;
  std::vector<double> scratch_;
  int64_t sweeps_ = 0;
};

}  // namespace shardlab
