// ZB-H1 and ZB-H2, the handcrafted zero-bubble schedules of Qi et al.
// ("Zero Bubble Pipeline Parallelism", ICLR 2024, Fig. 3 and 4): the
// backward is split into B (input gradient, on the critical path) and W
// (weight gradient), and W's are deferred (oldest first) to fill what would
// be bubbles. ZB-H1 keeps 1F1B's warm-up (peak memory p M_B); ZB-H2 warms up
// with 2(p - d) - 1 forwards (peak 2p - 1) to remove the bubble entirely
// when F = B = W.
#include <algorithm>

#include "core/pipeline/order_builder.h"
#include "core/pipeline/schedules.h"

namespace shardlab::pipeline {
// Device d: 1F1B's warm-up; in steady step k an F, a B, and from step d on
// the oldest pending W; in the cool-down each B is followed by a W; then the
// rest of the W's.
Order zb_h1_order(const Expansion& e) {
  OrderBuilder out(e);
  const int32_t p = e.devices, m = e.microbatches;
  for (int32_t d = 0; d < p; ++d) {
    const int32_t warmup = std::min(p - d - 1, m);
    for (int32_t k = 0; k < warmup; ++k) out.run(chain_op(e, k, d, OpKind::kF));
    for (int32_t k = 0; k < m - warmup; ++k) {
      out.run(chain_op(e, warmup + k, d, OpKind::kF));
      out.split_backward(chain_op(e, k, d, OpKind::kB));
      if (k >= d) out.run_oldest_w(d);
    }
    for (int32_t k = m - warmup; k < m; ++k) {
      out.split_backward(chain_op(e, k, d, OpKind::kB));
      out.run_oldest_w(d);
    }
    out.flush_w(d);
  }
  return out.take();
}

// Device d: 2(p - d) - 1 warm-up forwards; then for every micro-batch k a B,
// the oldest W once k >= 2d, and the next F while any is left; then the rest
// of the W's.
Order zb_h2_order(const Expansion& e) {
  OrderBuilder out(e);
  const int32_t p = e.devices, m = e.microbatches;
  for (int32_t d = 0; d < p; ++d) {
    const int32_t warmup = std::min(2 * (p - d) - 1, m);
    int32_t next_f = 0;
    while (next_f < warmup) out.run(chain_op(e, next_f++, d, OpKind::kF));
    for (int32_t k = 0; k < m; ++k) {
      out.split_backward(chain_op(e, k, d, OpKind::kB));
      if (k >= 2 * d) out.run_oldest_w(d);
      if (next_f < m) out.run(chain_op(e, next_f++, d, OpKind::kF));
    }
    out.flush_w(d);
  }
  return out.take();
}

}  // namespace shardlab::pipeline
