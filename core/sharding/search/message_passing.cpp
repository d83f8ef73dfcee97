// TRW-S (Kolmogorov, "Convergent tree-reweighted message passing for energy
// minimization", PAMI 2006) written as block-coordinate moves on a
// reparametrisation, the form of SRMP (Kolmogorov, "A new look at reweighted
// message passing", PAMI 2015). Visiting node i in the pass direction:
//   1. pull: each edge to an already-visited neighbour hands its min-marginal
//      to i (m(e, i) = min over the other end of edge - m(e, other)); the
//      edge's minimum becomes 0 along every strategy of i;
//   2. push: a fraction w = 1 / max(#earlier, #later neighbours) of i's
//      reparametrised unary moves into each edge to a not-yet-visited
//      neighbour (m(e, i) -= w * unary'(i)).
// Both moves never decrease the dual (min(A + B) >= min A + min B), so the
// bound is monotone for fixed unary costs; changing the penalties only
// changes unary(), and the old messages remain a valid warm start.
#include "core/sharding/search/message_passing.h"

#include <algorithm>
#include <limits>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace shardlab {
namespace {

// The two inner loops of message passing. A minimum is exact whatever the
// order of comparisons, so these may run in lanes: the results are the same
// as the plain loops (std::min(a, b) is b < a ? b : a, which is exactly wasm's
// f64x2.pmin), natively and in wasm, where the compiler leaves floating-point
// loops like these unvectorised on its own.

// acc[b] = min(acc[b], row[b] - shift) for b < n.
inline void min_shifted(double* acc, const double* row, double shift, int32_t n) {
  int32_t b = 0;
#if defined(__wasm_simd128__)
  const v128_t s = wasm_f64x2_splat(shift);
  for (; b + 1 < n; b += 2) {
    const v128_t r = wasm_f64x2_sub(wasm_v128_load(row + b), s);
    wasm_v128_store(acc + b, wasm_f64x2_pmin(wasm_v128_load(acc + b), r));
  }
#endif
  for (; b < n; ++b) acc[b] = std::min(acc[b], row[b] - shift);
}

// min over b < n of row[b] - sub[b] (infinity when n = 0).
inline double min_difference(const double* row, const double* sub, int32_t n) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  int32_t b = 0;
#if defined(__wasm_simd128__)
  v128_t lanes0 = wasm_f64x2_splat(kInf);
  v128_t lanes1 = lanes0;
  for (; b + 3 < n; b += 4) {
    lanes0 =
        wasm_f64x2_pmin(lanes0, wasm_f64x2_sub(wasm_v128_load(row + b), wasm_v128_load(sub + b)));
    lanes1 = wasm_f64x2_pmin(
        lanes1, wasm_f64x2_sub(wasm_v128_load(row + b + 2), wasm_v128_load(sub + b + 2)));
  }
  const v128_t lanes = wasm_f64x2_pmin(lanes0, lanes1);
  double best = std::min(wasm_f64x2_extract_lane(lanes, 0), wasm_f64x2_extract_lane(lanes, 1));
#else
  double b0 = kInf, b1 = kInf, b2 = kInf, b3 = kInf;
  for (; b + 3 < n; b += 4) {
    b0 = std::min(b0, row[b] - sub[b]);
    b1 = std::min(b1, row[b + 1] - sub[b + 1]);
    b2 = std::min(b2, row[b + 2] - sub[b + 2]);
    b3 = std::min(b3, row[b + 3] - sub[b + 3]);
  }
  double best = std::min(std::min(b0, b1), std::min(b2, b3));
#endif
  for (; b < n; ++b) best = std::min(best, row[b] - sub[b]);
  return best;
}

}  // namespace

MessagePassing::MessagePassing(const CoreModel& core) : core_(core) {
  matrix_.assign(core.matrix_cost.begin(), core.matrix_cost.end());
  unary_.assign(core.unary.begin(), core.unary.end());
  msg_begin_.resize(2 * static_cast<size_t>(core.num_edges()) + 1);
  int64_t offset = 0;
  for (int32_t e = 0; e < core.num_edges(); ++e) {
    msg_begin_[2 * e] = offset;
    offset += core.num_strategies(core.edge_u[e]);
    msg_begin_[2 * e + 1] = offset;
    offset += core.num_strategies(core.edge_v[e]);
  }
  msg_begin_.back() = offset;
  msg_.assign(offset, 0.0);
  const int32_t n = core.num_nodes();
  weight_fwd_.assign(n, 0.0);
  weight_bwd_.assign(n, 0.0);
  for (int32_t x = 0; x < n; ++x) {
    int32_t earlier = 0;
    int32_t later = 0;
    for (int32_t i = core.adj_begin[x]; i < core.adj_begin[x + 1]; ++i) {
      const int32_t y = core.other(core.adj_edge[i], x);
      (y < x ? earlier : later) += 1;
    }
    const int32_t most = std::max(earlier, later);
    if (most > 0) {
      weight_fwd_[x] = 1.0 / most;
      weight_bwd_[x] = 1.0 / most;
    }
  }
}

void MessagePassing::set_unary(const std::vector<double>& unary) { unary_ = unary; }

void MessagePassing::reset_messages() { std::fill(msg_.begin(), msg_.end(), 0.0); }

void MessagePassing::set_messages(const std::vector<double>& messages) {
  if (messages.size() == msg_.size()) msg_ = messages;
}

void MessagePassing::pull(int32_t e, int to) {
  const int32_t u = core_.edge_u[e];
  const int32_t v = core_.edge_v[e];
  const int32_t rows = core_.num_strategies(u);
  const int32_t cols = core_.num_strategies(v);
  const double* m = matrix_.data() + core_.matrix_begin[core_.edge_matrix[e]];
  double* m0 = msg_.data() + msg_begin_[2 * e];
  double* m1 = msg_.data() + msg_begin_[2 * e + 1];
  if (to == 1) {
    // m1[b] = min_a m[a][b] - m0[a]
    for (int32_t b = 0; b < cols; ++b) m1[b] = std::numeric_limits<double>::infinity();
    for (int32_t a = 0; a < rows; ++a) {
      min_shifted(m1, m + static_cast<int64_t>(a) * cols, m0[a], cols);
    }
  } else {
    for (int32_t a = 0; a < rows; ++a) {
      m0[a] = min_difference(m + static_cast<int64_t>(a) * cols, m1, cols);
    }
  }
}

void MessagePassing::reparametrised(int32_t x, std::vector<double>* out) const {
  const int32_t k = core_.num_strategies(x);
  const double* base = unary_.data() + core_.strategy_begin[x];
  out->assign(base, base + k);
  for (int32_t i = core_.adj_begin[x]; i < core_.adj_begin[x + 1]; ++i) {
    const int32_t e = core_.adj_edge[i];
    const double* m = msg_.data() + msg_begin_[2 * e + (core_.edge_u[e] == x ? 0 : 1)];
    for (int32_t s = 0; s < k; ++s) (*out)[s] += m[s];
  }
}

void MessagePassing::pass(bool forward) {
  const int32_t n = core_.num_nodes();
  for (int32_t step = 0; step < n; ++step) {
    const int32_t x = forward ? step : n - 1 - step;
    auto visited = [&](int32_t y) { return forward ? y < x : y > x; };
    for (int32_t i = core_.adj_begin[x]; i < core_.adj_begin[x + 1]; ++i) {
      const int32_t e = core_.adj_edge[i];
      if (visited(core_.other(e, x))) pull(e, core_.edge_u[e] == x ? 0 : 1);
    }
    const double w = forward ? weight_fwd_[x] : weight_bwd_[x];
    if (w == 0.0) continue;
    reparametrised(x, &scratch_);
    // Keep the numbers small: shifting unary' by a constant only moves the
    // constant between the node and its edges.
    const double low = *std::min_element(scratch_.begin(), scratch_.end());
    const int32_t k = core_.num_strategies(x);
    for (int32_t i = core_.adj_begin[x]; i < core_.adj_begin[x + 1]; ++i) {
      const int32_t e = core_.adj_edge[i];
      if (visited(core_.other(e, x))) continue;
      double* m = msg_.data() + msg_begin_[2 * e + (core_.edge_u[e] == x ? 0 : 1)];
      for (int32_t s = 0; s < k; ++s) m[s] -= w * (scratch_[s] - low);
    }
  }
}

void MessagePassing::run(int32_t iterations) {
  for (int32_t it = 0; it < iterations; ++it) {
    pass(true);
    pass(false);
    sweeps_ += 2;
  }
}

double MessagePassing::dual() const {
  double total = 0;
  std::vector<double> rep;
  for (int32_t x = 0; x < core_.num_nodes(); ++x) {
    reparametrised(x, &rep);
    total += *std::min_element(rep.begin(), rep.end());
  }
  for (int32_t e = 0; e < core_.num_edges(); ++e) {
    const int32_t rows = core_.num_strategies(core_.edge_u[e]);
    const int32_t cols = core_.num_strategies(core_.edge_v[e]);
    const double* m = matrix_.data() + core_.matrix_begin[core_.edge_matrix[e]];
    const double* m0 = msg_.data() + msg_begin_[2 * e];
    const double* m1 = msg_.data() + msg_begin_[2 * e + 1];
    double best = std::numeric_limits<double>::infinity();
    for (int32_t a = 0; a < rows; ++a) {
      const double* row = m + static_cast<int64_t>(a) * cols;
      for (int32_t b = 0; b < cols; ++b) best = std::min(best, row[b] - m0[a] - m1[b]);
    }
    total += best;
  }
  return total;
}

void MessagePassing::decode(std::vector<int32_t>* plan) const {
  const int32_t n = core_.num_nodes();
  plan->assign(n, 0);
  std::vector<double> score;
  for (int32_t x = 0; x < n; ++x) {
    const int32_t k = core_.num_strategies(x);
    const double* base = unary_.data() + core_.strategy_begin[x];
    score.assign(base, base + k);
    for (int32_t i = core_.adj_begin[x]; i < core_.adj_begin[x + 1]; ++i) {
      const int32_t e = core_.adj_edge[i];
      const int32_t y = core_.other(e, x);
      const int side = core_.edge_u[e] == x ? 0 : 1;
      if (y < x) {
        const int32_t sy = (*plan)[y];
        const int32_t cols = core_.num_strategies(core_.edge_v[e]);
        const double* m = matrix_.data() + core_.matrix_begin[core_.edge_matrix[e]];
        for (int32_t s = 0; s < k; ++s) {
          score[s] += side == 0 ? m[static_cast<int64_t>(s) * cols + sy]
                                : m[static_cast<int64_t>(sy) * cols + s];
        }
      } else {
        const double* m = msg_.data() + msg_begin_[2 * e + side];
        for (int32_t s = 0; s < k; ++s) score[s] += m[s];
      }
    }
    (*plan)[x] = static_cast<int32_t>(std::min_element(score.begin(), score.end()) - score.begin());
  }
}

}  // namespace shardlab
