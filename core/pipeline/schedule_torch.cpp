// PyTorch's own orders (torch.distributed.pipelining, schedules.py at
// 00722e6; see torch_ir.h): the pipeline_order that ScheduleInterleaved1F1B,
// ScheduleInterleavedZeroBubble, ScheduleZBVZeroBubble and ScheduleDualPipeV
// build in their constructors, idle steps (None) included, since _dump_csv
// writes them. Each rule below is restated from that file:
// - Interleaved (both): m micro-batches in rounds of m / max(1, m div p);
//   rank r warms up with (v-1) per-round + k (p-1-r) forwards (k = 2, or 1
//   with zero bubble), capped at m v; then one forward and one backward per
//   step, then the remaining backwards. Forward step i runs local stage
//   (i div per-round) mod v, backward step i local stage v-1-((i-warm-up)
//   div per-round) mod v. Without zero bubble each rank starts after r idle
//   steps, idles until the first backward can arrive, and idles before every
//   cool-down backward; with it, a W (oldest backward first) follows every
//   backward from step r of the steady phase on, and idle steps are then
//   added where a forward's input was not produced at an earlier step
//   (_add_bubbles_to_actions: forwards and full backwards only).
// - ZBVZeroBubble: rank r holds stages r and 2p-1-r; a fixed warm-up of
//   2(p-r)-1 forwards of the first, r pairs of forwards, p-r of F I W on the
//   second, a steady F I W on both, and cool-downs, built for max(2p-1, m)
//   micro-batches; the extra ones become idle steps.
// - DualPipeV: DeepSeek's eight steps (see schedule_dualpipe.cpp) on the V.
#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <tuple>

#include "core/pipeline/order_builder.h"
#include "core/pipeline/schedules.h"
#include "core/pipeline/torch_ir.h"

namespace shardlab::pipeline {
namespace {

using T = TorchType;

std::optional<TorchAction> act(T type, int32_t stage, int32_t mb) {
  return TorchAction::make(type, stage, mb);
}

// _get_1f1b_rank_ops for one rank.
TorchRow one_f_one_b_rank(int32_t v, int32_t p, int32_t warmup, int32_t fwd_bwd, int32_t cooldown,
                          int32_t rank, int32_t per_round, bool zero_bubble) {
  const int32_t stages = v * p;
  std::vector<int32_t> fwd_mb(stages, 0), bwd_mb(stages, 0), w_mb(stages, 0);
  TorchRow row(rank, std::nullopt);
  int32_t post_warmup = v * p + 2 * (p - 1 - rank) - (warmup + rank);
  if (zero_bubble) post_warmup = p - rank - 1;
  const int32_t total = warmup + fwd_bwd + cooldown;
  const int32_t num_1f1b = zero_bubble ? rank : 0;
  auto forward_stage = [&](int32_t step) { return ((step / per_round) % v) * p + rank; };
  auto backward_stage = [&](int32_t step) {
    return (v - 1 - ((step - warmup) / per_round) % v) * p + rank;
  };
  const T backward = zero_bubble ? T::kI : T::kB;
  std::vector<int32_t> backward_ops;
  size_t weights = 0;
  auto weight = [&]() {
    const int32_t s = backward_stage(backward_ops[weights++]);
    row.push_back(act(T::kW, s, w_mb[s]++));
  };
  for (int32_t op = 0; op < total; ++op) {
    if (op < warmup) {
      const int32_t s = forward_stage(op);
      row.push_back(act(T::kF, s, fwd_mb[s]++));
      if (op == warmup - 1) row.insert(row.end(), std::max(0, post_warmup), std::nullopt);
    } else if (op < warmup + fwd_bwd) {
      const int32_t f = forward_stage(op);
      row.push_back(act(T::kF, f, fwd_mb[f]++));
      const int32_t b = backward_stage(op);
      row.push_back(act(backward, b, bwd_mb[b]++));
      backward_ops.push_back(op);
      if (zero_bubble && op - warmup >= num_1f1b) weight();
    } else {
      if (!zero_bubble) row.push_back(std::nullopt);
      const int32_t b = backward_stage(op);
      row.push_back(act(backward, b, bwd_mb[b]++));
      backward_ops.push_back(op);
      if (zero_bubble && op - warmup >= num_1f1b) weight();
    }
  }
  while (zero_bubble && weights < backward_ops.size()) weight();
  return row;
}

// _add_bubbles_to_actions: a forward waits (idle) until its input was made
// at an earlier step, a full backward until its gradient was; nothing else
// waits. Fails rather than loop when no rank can move.
Result<TorchRows> add_bubbles(const TorchRows& rows, int32_t stages) {
  std::set<std::tuple<int32_t, T, int32_t>> seen;
  auto need_bubble = [&](const TorchAction& a) {
    if (a.type == T::kF) return a.stage != 0 && !seen.count({a.stage - 1, T::kF, a.mb});
    if (a.type == T::kB) {
      if (a.stage == stages - 1) return !seen.count({a.stage, T::kF, a.mb});
      return !seen.count({a.stage + 1, T::kB, a.mb});
    }
    return false;
  };
  const size_t p = rows.size();
  TorchRows out(p);
  std::vector<size_t> next(p, 0);
  while (true) {
    bool done = true, moved = false;
    std::vector<std::tuple<int32_t, T, int32_t>> now;
    for (size_t r = 0; r < p; ++r) {
      if (next[r] >= rows[r].size()) continue;
      done = false;
      const std::optional<TorchAction>& a = rows[r][next[r]];
      if (a && need_bubble(*a)) {
        out[r].push_back(std::nullopt);
        continue;
      }
      out[r].push_back(a);
      if (a && a->mb >= 0) now.emplace_back(a->stage, a->type, a->mb);
      ++next[r];
      moved = true;
    }
    seen.insert(now.begin(), now.end());
    if (done) break;
    if (!moved) {
      return Status(
          StatusCode::kInvalidArgument,
          "PyTorch's _add_bubbles_to_actions never ends on this order (no rank can move)");
    }
  }
  return out;
}

Result<TorchRows> interleaved_rows(int32_t p, int32_t m, int32_t v, bool zero_bubble) {
  const int32_t rounds = std::max(1, m / p);
  const int32_t per_round = m / rounds;
  TorchRows rows(p);
  for (int32_t rank = 0; rank < p; ++rank) {
    const int32_t last_stage_warmup = (v - 1) * per_round;
    const int32_t warmup =
        std::min(last_stage_warmup + (zero_bubble ? 1 : 2) * (p - 1 - rank), m * v);
    const int32_t fwd_bwd = m * v - warmup;
    const int32_t cooldown = m * v - fwd_bwd;
    rows[rank] = one_f_one_b_rank(v, p, warmup, fwd_bwd, cooldown, rank, per_round, zero_bubble);
  }
  if (!zero_bubble) return rows;
  return add_bubbles(rows, v * p);
}

TorchRows zbv_rows(int32_t p, int32_t m) {
  const int32_t stages = 2 * p;
  const int32_t n = std::max(2 * p - 1, m);
  TorchRows rows(p);
  for (int32_t rank = 0; rank < p; ++rank) {
    TorchRow row(rank, std::nullopt);
    int32_t f0 = 0, f1 = 0, b0 = 0, b1 = 0;
    const int32_t s0 = rank, s1 = stages - 1 - rank;
    for (int32_t i = 0; i < 2 * (p - rank) - 1; ++i) row.push_back(act(T::kF, s0, f0++));
    for (int32_t i = 0; i < rank; ++i) {
      row.push_back(act(T::kF, s1, f1++));
      row.push_back(act(T::kF, s0, f0++));
    }
    for (int32_t i = 0; i < p - rank; ++i) {
      row.push_back(act(T::kF, s1, f1++));
      row.push_back(act(T::kI, s1, b1));
      row.push_back(act(T::kW, s1, b1++));
    }
    while (f1 < f0 || f0 < n) {
      if (f0 < n) row.push_back(act(T::kF, s0, f0++));
      row.push_back(act(T::kI, s0, b0));
      row.push_back(act(T::kW, s0, b0++));
      row.push_back(act(T::kF, s1, f1++));
      row.push_back(act(T::kI, s1, b1));
      row.push_back(act(T::kW, s1, b1++));
    }
    int32_t w0 = b0, w1 = b1;
    for (int32_t i = 0; i < rank; ++i) {
      row.push_back(act(T::kI, s0, b0++));
      row.push_back(act(T::kI, s1, b1++));
    }
    for (int32_t i = 0; i < p - rank; ++i) {
      row.push_back(act(T::kI, s0, b0++));
      row.push_back(act(T::kW, s0, w0++));
    }
    while (w1 < b1) row.push_back(act(T::kW, s1, w1++));
    while (w0 < b0) row.push_back(act(T::kW, s0, w0++));
    // Built for max(2p-1, m) micro-batches; the others are idle steps.
    for (std::optional<TorchAction>& a : row) {
      if (a && a->mb >= m) a.reset();
    }
    rows[rank] = std::move(row);
  }
  return rows;
}

TorchRows dualpipev_rows(int32_t p, int32_t m) {
  TorchRows rows(p);
  for (int32_t rank = 0; rank < p; ++rank) {
    TorchRow& row = rows[rank];
    const int32_t s0 = rank, s1 = 2 * p - 1 - rank;
    std::map<std::pair<int32_t, T>, int32_t> counter;
    std::deque<std::pair<int32_t, int32_t>> weights;
    auto backward_counts = [&](int32_t s) {
      ++counter[{s, T::kI}];
      ++counter[{s, T::kW}];
    };
    auto overlap = [&](int32_t fs, int32_t bs) {
      const int32_t fmb = counter[{fs, T::kF}], bmb = counter[{bs, T::kI}];
      row.push_back(TorchAction::overlap(fs, fmb, bs, bmb));
      ++counter[{fs, T::kF}];
      backward_counts(bs);
    };
    auto single = [&](int32_t s, T type) {
      const int32_t mb = counter[{s, type == T::kB ? T::kI : type}];
      row.push_back(act(type, s, mb));
      if (type == T::kB) {
        backward_counts(s);
        return;
      }
      if (type == T::kI) weights.emplace_back(s, mb);
      ++counter[{s, type}];
    };
    auto weight = [&]() {
      if (weights.empty()) return;
      const auto [s, mb] = weights.front();
      weights.pop_front();
      row.push_back(act(T::kW, s, mb));
      ++counter[{s, T::kW}];
    };
    for (int32_t i = 0; i < (p - rank - 1) * 2; ++i) single(s0, T::kF);
    for (int32_t i = 0; i < rank + 1; ++i) {
      single(s0, T::kF);
      single(s1, T::kF);
    }
    for (int32_t i = 0; i < p - rank - 1; ++i) {
      single(s1, T::kI);
      weight();
      single(s1, T::kF);
    }
    for (int32_t i = 0; i < m - 2 * p + rank + 1; ++i) {
      if (i == 0 && rank == p - 1) {
        single(s0, T::kF);
        single(s1, T::kB);
      } else {
        overlap(s0, s1);
      }
      overlap(s1, s0);
    }
    for (int32_t i = 0; i < p - rank - 1; ++i) {
      single(s1, T::kB);
      overlap(s1, s0);
    }
    bool zb = false;
    const int32_t step6 = rank + 1;
    for (int32_t i = 0; i < step6; ++i) {
      if (i == step6 / 2 && rank % 2 == 1) zb = true;
      single(s1, zb ? T::kI : T::kB);
      if (i == step6 / 2 && rank % 2 == 0) zb = true;
      single(s0, zb ? T::kI : T::kB);
    }
    for (int32_t i = 0; i < p - rank - 1; ++i) {
      weight();
      single(s0, zb ? T::kI : T::kB);
    }
    for (int32_t i = 0; i < rank + 1; ++i) weight();
  }
  return rows;
}

// _validate_schedule: every stage on one rank, each micro-batch's forward
// once, as many I as W, m backwards in all.
Status validate_rows(const TorchRows& rows, int32_t stages, int32_t m, const std::string& name) {
  std::vector<std::set<int32_t>> f(stages), b(stages), i(stages), w(stages);
  auto fail = [&](const std::string& why) {
    return Status(StatusCode::kInvalidArgument,
                  name + " builds an order that is not a schedule here (" + why + ")");
  };
  for (const TorchRow& row : rows) {
    for (const std::optional<TorchAction>& a : row) {
      if (!a) continue;
      auto add = [&](T type, int32_t s, int32_t mb) {
        if (s < 0 || s >= stages || mb < 0) return false;
        (type == T::kF ? f : type == T::kB ? b : type == T::kI ? i : w)[s].insert(mb);
        return true;
      };
      const bool ok = a->type == T::kOverlap
                          ? add(T::kF, a->f_stage, a->f_mb) && add(T::kB, a->b_stage, a->b_mb)
                          : add(a->type, a->stage, a->mb);
      if (!ok) return fail("\"" + torch_action_text(*a) + "\" is out of range");
    }
  }
  for (int32_t s = 0; s < stages; ++s) {
    const std::string at = "stage " + std::to_string(s);
    if (static_cast<int32_t>(f[s].size()) != m) {
      return fail(at + " runs " + std::to_string(f[s].size()) + " forwards");
    }
    if (*f[s].rbegin() != m - 1) return fail(at + " runs forwards beyond micro-batch m-1");
    if (i[s].size() != w[s].size()) return fail(at + " runs as many I as W");
    if (static_cast<int32_t>(b[s].size() + (i[s].size() + w[s].size()) / 2) != m) {
      return fail(at + " runs " + std::to_string(m) + " backwards");
    }
  }
  return Status::ok();
}

}  // namespace

bool is_torch_schedule(std::string_view name) {
  return name == "torch:Interleaved1F1B" || name == "torch:InterleavedZeroBubble" ||
         name == "torch:ZBVZeroBubble" || name == "torch:DualPipeV";
}

std::string torch_schedule_reason(std::string_view name, int32_t p, int32_t m, int32_t v) {
  const std::string n(name);
  if (name == "torch:Interleaved1F1B" || name == "torch:InterleavedZeroBubble") {
    const int32_t rounds = std::max(1, m / p);
    if (m % rounds != 0) {
      return n + " (PyTorch) needs the micro-batches to be a multiple of its rounds max(1, m div " +
             "p) = " + std::to_string(rounds) + "; m = " + std::to_string(m) +
             ", p = " + std::to_string(p);
    }
    return "";
  }
  if (v != 2) {
    return n + " (PyTorch) needs exactly 2 stages per rank; this has " + std::to_string(v);
  }
  if (name == "torch:DualPipeV" && m < 2 * p) {
    return n + " (PyTorch) needs at least as many micro-batches as stages (" +
           std::to_string(2 * p) + "); m = " + std::to_string(m);
  }
  return "";
}

Result<TorchRows> torch_schedule_rows(std::string_view name, int32_t p, int32_t m, int32_t v) {
  if (!is_torch_schedule(name)) {
    return Status(StatusCode::kInvalidArgument,
                  "unknown PyTorch schedule '" + std::string(name) + "'");
  }
  const std::string reason = torch_schedule_reason(name, p, m, v);
  if (!reason.empty()) return Status(StatusCode::kInvalidArgument, reason);
  Result<TorchRows> rows = TorchRows{};
  if (name == "torch:Interleaved1F1B") {
    rows = interleaved_rows(p, m, v, false);
  } else if (name == "torch:InterleavedZeroBubble") {
    rows = interleaved_rows(p, m, v, true);
  } else if (name == "torch:ZBVZeroBubble") {
    rows = zbv_rows(p, m);
  } else {
    rows = dualpipev_rows(p, m);
  }
  if (!rows.is_ok()) return rows.status();
  const Status valid = validate_rows(rows.value(), v * p, m, std::string(name));
  if (!valid.is_ok()) return valid;
  return rows;
}

Result<Order> torch_order(const Expansion& e, std::string_view name) {
  const int32_t v = e.placement == PlacementKind::kVShape ? 2 : e.chunks;
  Result<TorchRows> rows = torch_schedule_rows(name, e.devices, e.microbatches, v);
  if (!rows.is_ok()) return rows.status();
  Result<Order> order = torch_rows_order(e, rows.value());
  if (!order.is_ok()) return order.status();
  // PyTorch does not promise that every order it builds can run; say so
  // rather than hand on an order that deadlocks.
  Result<Timeline> runs = simulate(e, order.value());
  if (!runs.is_ok()) {
    return Status(
        StatusCode::kInvalidArgument,
        std::string(name) + " builds an order that deadlocks here: " + runs.status().message());
  }
  return order;
}

}  // namespace shardlab::pipeline
