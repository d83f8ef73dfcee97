// Chimera (Li and Hoefler, SC'21): two pipelines in opposite directions over
// the same D devices (copy 0: stage s on device s; copy 1: stage s on device
// D-1-s), each carrying D/2 micro-batches of a "basic unit". The order comes
// from the step model of the authors' implementation
// (chimera_pipeline_rank.py): in a wave, micro-batch x enters at step 2x,
// moves one stage per step forward, turns at the last stage and moves back,
// so it runs F of stage j at step 2x + j and its backward of stage j at step
// 2x + 2D - 1 - j. With N > D the units are concatenated: the next unit's
// waves start when the previous unit's first micro-batch has finished (step
// 2D of that unit), as the authors' code does for D = 4; their code starts
// a further wave at every later completion too, which makes waves collide
// from D = 6 on, so we start one unit at a time. Each device runs its passes
// in step order; backwards are full (B and W).
#include <algorithm>
#include <tuple>
#include <vector>

#include "core/pipeline/order_builder.h"
#include "core/pipeline/schedules.h"

namespace shardlab::pipeline {

Order chimera_order(const Expansion& e) {
  OrderBuilder out(e);
  const int32_t D = e.devices, N = e.microbatches;
  const int32_t per_wave = D / 2;
  const int32_t units = N / D;
  const int32_t per_copy = N / 2;
  // (step, wave index, op) per device; waves are numbered in creation order
  // (unit u: copy 0 then copy 1), which breaks ties at equal steps.
  std::vector<std::vector<std::tuple<int64_t, int32_t, int32_t>>> passes(D);
  for (int32_t u = 0; u < units; ++u) {
    const int64_t start = static_cast<int64_t>(u) * 2 * D;
    for (int32_t copy = 0; copy < 2; ++copy) {
      const int32_t wave = 2 * u + copy;
      for (int32_t x = 0; x < per_wave; ++x) {
        const int32_t mb = copy * per_copy + u * per_wave + x;
        for (int32_t j = 0; j < D; ++j) {
          const int32_t unit = e.unit_at(copy, j);
          const int32_t device = e.units[unit].devices[0];
          passes[device].emplace_back(start + 2 * x + j, wave, e.op_of(mb, unit, OpKind::kF));
          passes[device].emplace_back(start + 2 * x + 2 * D - 1 - j, wave,
                                      e.op_of(mb, unit, OpKind::kB));
        }
      }
    }
  }
  for (int32_t d = 0; d < D; ++d) {
    std::sort(passes[d].begin(), passes[d].end());
    for (const auto& [step, wave, op] : passes[d]) {
      if (e.ops[op].kind == OpKind::kF) {
        out.run(op);
      } else {
        out.full_backward(op);
      }
    }
  }
  return out.take();
}

}  // namespace shardlab::pipeline
