// GPipe, 1F1B and interleaved 1F1B: the per-device orders of Huang et al.
// (GPipe, 2019: all forwards, then all backwards), PipeDream-flush / Megatron
// 1F1B (Narayanan et al. 2021: warm-up forwards, one forward one backward,
// cool-down) and Megatron's interleaved schedule with v model chunks per
// device (forward_backward_pipelining_with_interleaving). A backward here is
// a full one: B and its W back to back.
#include <algorithm>

#include "core/pipeline/order_builder.h"
#include "core/pipeline/schedules.h"

namespace shardlab::pipeline {
Order gpipe_order(const Expansion& e) {
  OrderBuilder out(e);
  for (int32_t d = 0; d < e.devices; ++d) {
    for (int32_t k = 0; k < e.microbatches; ++k) out.run(chain_op(e, k, d, OpKind::kF));
    for (int32_t k = 0; k < e.microbatches; ++k) {
      out.full_backward(chain_op(e, k, d, OpKind::kB));
    }
  }
  return out.take();
}

Order one_f_one_b_order(const Expansion& e) {
  OrderBuilder out(e);
  const int32_t p = e.devices, m = e.microbatches;
  for (int32_t d = 0; d < p; ++d) {
    const int32_t warmup = std::min(p - d - 1, m);
    for (int32_t k = 0; k < warmup; ++k) out.run(chain_op(e, k, d, OpKind::kF));
    for (int32_t k = 0; k < m - warmup; ++k) {
      out.run(chain_op(e, warmup + k, d, OpKind::kF));
      out.full_backward(chain_op(e, k, d, OpKind::kB));
    }
    for (int32_t k = m - warmup; k < m; ++k) out.full_backward(chain_op(e, k, d, OpKind::kB));
  }
  return out.take();
}

// Megatron's interleaved order: virtual micro-batch i of device d runs the
// forward of chunk (i mod pv) div p for micro-batch (i div pv) p + i mod p;
// backwards walk the chunks in reverse. Warm-up: all m v forwards when
// m == p, else (p - d - 1) 2 + (v - 1) p of them.
Order interleaved_order(const Expansion& e) {
  OrderBuilder out(e);
  const int32_t p = e.devices, m = e.microbatches, v = e.chunks;
  const int32_t total = m * v;
  auto op_at = [&](int32_t d, int32_t i, bool forward) {
    const int32_t group = i % (p * v);
    int32_t chunk = group / p;
    if (!forward) chunk = v - 1 - chunk;
    const int32_t mb = (i / (p * v)) * p + i % p;
    return chain_op(e, mb, chunk * p + d, forward ? OpKind::kF : OpKind::kB);
  };
  for (int32_t d = 0; d < p; ++d) {
    const int32_t warmup = m == p ? total : std::min((p - d - 1) * 2 + (v - 1) * p, total);
    for (int32_t i = 0; i < warmup; ++i) out.run(op_at(d, i, true));
    for (int32_t i = 0; i < total - warmup; ++i) {
      out.run(op_at(d, warmup + i, true));
      out.full_backward(op_at(d, i, false));
    }
    for (int32_t i = total - warmup; i < total; ++i) out.full_backward(op_at(d, i, false));
  }
  return out.take();
}

}  // namespace shardlab::pipeline
