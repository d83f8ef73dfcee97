// DualPipe and DualPipeV (DeepSeek-V3 technical report; deepseek-ai/DualPipe,
// step() of dualpipe.py and dualpipev.py). Both run two "phases" per rank and
// follow the same eight steps: forwards to fill the pipe, zero-bubble
// backwards (B now, W queued first in first out) at the edges, and in the
// middle overlapped pairs "F&B" of one phase's forward with the other
// phase's full backward.
// - DualPipe: PP ranks hold two copies of the model running in opposite
//   directions (rank r: stage r of copy 0 and stage PP-1-r of copy 1); phase
//   0 is the copy in whose first half the rank sits. N/2 micro-batches per
//   direction.
// - DualPipeV: n ranks, 2n stages in a V (rank r: stage r, phase 0, and stage
//   2n-1-r, phase 1); every micro-batch passes both phases.
#include <algorithm>

#include "core/pipeline/order_builder.h"
#include "core/pipeline/schedules.h"

namespace shardlab::pipeline {
namespace {

// One rank's view: which unit and which micro-batches each phase runs, and
// the next forward and backward of each phase (in micro-batch order).
class Phases {
 public:
  Phases(OrderBuilder* out, int32_t device, const int32_t unit[2], const int32_t first_mb[2])
      : out_(*out), e_(out->expansion()), device_(device) {
    for (int ph = 0; ph < 2; ++ph) {
      unit_[ph] = unit[ph];
      next_f_[ph] = next_b_[ph] = first_mb[ph];
    }
  }
  int32_t next_f(int ph) { return e_.op_of(next_f_[ph]++, unit_[ph], OpKind::kF); }
  int32_t next_b(int ph) { return e_.op_of(next_b_[ph]++, unit_[ph], OpKind::kB); }
  void forward(int ph) { out_.run(next_f(ph)); }
  void backward(int ph, bool zero_bubble) {
    if (zero_bubble) {
      out_.split_backward(next_b(ph));
    } else {
      out_.full_backward(next_b(ph));
    }
  }
  void weight() { out_.run_oldest_w(device_); }
  void forward_backward(int ph_f, int ph_b) {
    const int32_t f = next_f(ph_f);
    out_.pair(f, next_b(ph_b));
  }

 private:
  OrderBuilder& out_;
  const Expansion& e_;
  int32_t device_;
  int32_t unit_[2];
  int32_t next_f_[2], next_b_[2];
};

// The eight steps of step(). `half` is the ranks per half (DualPipe: PP/2;
// DualPipeV: n), `hr` the rank's distance from the nearer end (DualPipeV: the
// rank itself), `main` the count of step 4, `unoverlapped_first` whether the
// first pair of step 4 runs as F then a full B (the middle ranks of DualPipe,
// the last rank of DualPipeV: "to further reduce bubble size").
void eight_steps(Phases& ph, int32_t half, int32_t hr, int32_t main, bool unoverlapped_first) {
  for (int32_t i = 0; i < (half - hr - 1) * 2; ++i) ph.forward(0);
  for (int32_t i = 0; i < hr + 1; ++i) {
    ph.forward(0);
    ph.forward(1);
  }
  for (int32_t i = 0; i < half - hr - 1; ++i) {
    ph.backward(1, true);
    ph.weight();
    ph.forward(1);
  }
  for (int32_t i = 0; i < main; ++i) {
    if (i == 0 && unoverlapped_first) {
      ph.forward(0);
      ph.backward(1, false);
    } else {
      ph.forward_backward(0, 1);
    }
    ph.forward_backward(1, 0);
  }
  for (int32_t i = 0; i < half - hr - 1; ++i) {
    ph.backward(1, false);
    ph.forward_backward(1, 0);
  }
  // The second half of step 6 switches to zero-bubble backwards; odd and
  // even ranks switch one backward apart.
  bool zero_bubble = false;
  const int32_t step6 = hr + 1;
  for (int32_t i = 0; i < step6; ++i) {
    if (i == step6 / 2 && hr % 2 == 1) zero_bubble = true;
    ph.backward(1, zero_bubble);
    if (i == step6 / 2 && hr % 2 == 0) zero_bubble = true;
    ph.backward(0, zero_bubble);
  }
  for (int32_t i = 0; i < half - hr - 1; ++i) {
    ph.weight();
    ph.backward(0, true);
  }
  for (int32_t i = 0; i < hr + 1; ++i) ph.weight();
}

}  // namespace

Order dualpipe_order(const Expansion& e) {
  OrderBuilder out(e);
  const int32_t p = e.devices, m = e.microbatches, half = p / 2;
  const int32_t per_direction = m / 2;
  for (int32_t r = 0; r < p; ++r) {
    const int32_t hr = std::min(r, p - 1 - r);
    const int32_t phase0_copy = r < half ? 0 : 1;
    int32_t unit[2], first_mb[2];
    for (int ph = 0; ph < 2; ++ph) {
      const int32_t copy = ph == 0 ? phase0_copy : 1 - phase0_copy;
      unit[ph] = e.unit_at(copy, copy == 0 ? r : p - 1 - r);
      first_mb[ph] = copy == 0 ? 0 : per_direction;
    }
    Phases phases(&out, r, unit, first_mb);
    eight_steps(phases, half, hr, per_direction - p + hr + 1, hr == half - 1);
  }
  return out.take();
}

Order dualpipev_order(const Expansion& e) {
  OrderBuilder out(e);
  const int32_t n = e.devices, m = e.microbatches;
  for (int32_t r = 0; r < n; ++r) {
    const int32_t unit[2] = {e.unit_at(0, r), e.unit_at(0, 2 * n - 1 - r)};
    const int32_t first_mb[2] = {0, 0};
    Phases phases(&out, r, unit, first_mb);
    eight_steps(phases, n, r, m - 2 * n + r + 1, r == n - 1);
  }
  return out.take();
}

}  // namespace shardlab::pipeline
