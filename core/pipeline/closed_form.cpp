// Closed forms per schedule (see closed_form.h for the notation and where
// the assumptions come from). Values are computed in the expansion's ticks
// from one unit's times: under the assumptions every unit is identical.
#include "core/pipeline/closed_form.h"

#include <algorithm>
#include <vector>

namespace shardlab::pipeline {
namespace {

struct UnitTimes {
  int64_t f = -1, b = -1, w = -1, fb = 0, act = 0, keep = 0;
  bool operator==(const UnitTimes& o) const {
    return f == o.f && b == o.b && w == o.w && fb == o.fb && act == o.act && keep == o.keep;
  }
};

// Every unit's times; identical when all are equal and no arc that crosses
// devices has a delay.
bool identical_and_no_delay(const Expansion& e, UnitTimes* first) {
  std::vector<UnitTimes> units(e.num_units());
  for (const Op& op : e.ops) {
    UnitTimes& u = units[op.unit];
    if (op.kind == OpKind::kF) {
      u.f = op.duration;
      u.act = op.alloc;
    } else if (op.kind == OpKind::kB) {
      u.b = op.duration;
    } else {
      u.w = op.duration;
      u.keep = op.release;
    }
  }
  for (int32_t i = 0; i < e.num_units(); ++i) units[i].fb = e.units[i].fb;
  *first = units[0];
  bool same = true;
  for (const UnitTimes& u : units) same = same && u == units[0];
  for (const Arc& arc : e.arcs) {
    const int32_t from = e.fixed_device(e.ops[arc.from].unit);
    const int32_t to = e.fixed_device(e.ops[arc.to].unit);
    if (arc.delay > 0 && (from < 0 || to < 0 || from != to)) same = false;
  }
  return same;
}

}  // namespace

std::optional<ClosedForm> closed_form(const std::string& schedule, const Expansion& e) {
  // PyTorch's ScheduleDualPipeV runs DeepSeek's order, so DualPipeV's form.
  const std::string name = schedule == "torch:DualPipeV" ? "DualPipeV" : schedule;
  UnitTimes t;
  const bool base = identical_and_no_delay(e, &t);
  const int64_t p = e.devices, m = e.microbatches, v = e.chunks;
  const int64_t f = t.f, b = t.b, w = t.w, fb = t.fb, act = t.act;
  const std::string common = "identical stages, no communication delay";
  ClosedForm c;
  c.metric = "global";
  c.assumption = common;
  c.holds = base;
  c.peak_holds = base;
  if (name == "GPipe" || name == "1F1B") {
    c.formula = "(p-1)(F+B+W)";
    c.value = (p - 1) * (f + b + w);
    if (name == "GPipe") {
      c.peak_formula = "m";
      c.peak_assumption = "identical stages";
      c.peak_value = m * act;
    } else {
      c.peak_formula = "p";
      c.peak_assumption = "identical stages, m >= p";
      c.peak_holds = base && m >= p;
      c.peak_value = p * act;
    }
  } else if (name == "Interleaved1F1B") {
    // F, B, W of a device's share are v chunk times: (p-1)(vf+vb+vw)/v.
    c.formula = "(p-1)(F+B+W)/v";
    c.value = (p - 1) * (f + b + w);
    c.peak_formula = "p+(p-1)/v";
    c.peak_assumption = "identical stages, m > p";
    c.peak_holds = base && m > p;
    c.peak_value = (p * v + p - 1) * act;
  } else if (name == "ZB-H1") {
    c.formula = "(p-1)(F+B-W)";
    c.metric = "span";
    c.assumption = common + ", m >= p, W <= F";
    c.holds = base && m >= p && w <= f;
    c.value = (p - 1) * (f + b - w);
    c.peak_formula = "p";
    c.peak_assumption = "identical stages, m >= p";
    c.peak_holds = base && m >= p;
    c.peak_value = p * act;
  } else if (name == "ZB-H2") {
    c.formula = "(p-1)(F+B-2W)";
    c.metric = "span";
    c.assumption = common + ", m >= 2p-1, W <= F, W <= B";
    c.holds = base && m >= 2 * p - 1 && w <= f && w <= b;
    c.value = (p - 1) * (f + b - 2 * w);
    c.peak_formula = "2p-1";
    c.peak_assumption = "identical stages, m >= 2p-1";
    c.peak_holds = base && m >= 2 * p - 1;
    c.peak_value = (2 * p - 1) * act;
  } else if (name == "ZBV") {
    c.formula = "0";
    c.metric = "span";
    c.assumption = common + ", F = B = W, m >= 2p";
    c.holds = base && f == b && b == w && m >= 2 * p;
    c.value = 0;
    c.peak_formula = "p";
    c.peak_assumption = "identical stages, m >= p (2p chunks of half a share)";
    c.peak_holds = base && m >= p;
    c.peak_value = 2 * p * act;
  } else if (name == "DualPipe" || name == "DualPipeV") {
    // DualPipe's B is the full backward b + w. DualPipeV: PP = 2p stages of
    // half a device's share, so the formula runs on chunk times.
    const int64_t pp = name == "DualPipe" ? p : 2 * p;
    c.formula = "(PP/2-1)(F&B+B-3W)";
    c.assumption = common +
                   ", F = B = W (DualPipe's notation: F = W, full backward 2W), "
                   "max(F, B+W) <= F&B <= F+B+W" +
                   (name == "DualPipeV" ? ", PP = 2p stages of half a device's share" : "");
    c.holds = base && f == b && b == w && fb >= std::max(f, b + w) && fb <= f + b + w;
    c.value = (pp / 2 - 1) * (fb + b + w - 3 * w);
    c.peak_formula = name == "DualPipe" ? "PP+1" : "(PP+1)/2 = p+1/2";
    c.peak_assumption =
        name == "DualPipe" ? "identical stages" : "identical stages; PP+1 chunks of half a share";
    c.peak_value = (pp + 1) * act;
  } else if (name == "Chimera") {
    c.formula = "(D-2)F";
    c.assumption = common + ", F = B+W (a backward as long as a forward, as the paper counts)";
    c.holds = base && f == b + w;
    c.value = (p - 2) * f;
    c.peak_formula = "D";
    c.peak_assumption = "identical stages (D/2+1 on the end devices, D in the middle)";
    c.peak_value = p * act;
  } else {
    return std::nullopt;
  }
  return c;
}

}  // namespace shardlab::pipeline
