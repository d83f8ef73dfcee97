// The published closed forms of each schedule's bubble and peak activation
// memory, evaluated on a problem, with the assumptions under which they are
// exact. "holds" says whether the problem meets the assumptions; the
// simulated value is compared by the caller (tests assert holds => equal).
// The assumptions were established by simulation over grids of (p, m, F, B,
// W, F&B) and are stricter than some sources state: DualPipe's
// (PP/2-1)(F&B+B-3W) needs F = B = W here (F = W with the full backward
// 2W in DualPipe's notation) and max(F, B+W) <= F&B <= F+B+W, not F = W
// alone; ZB-H1 needs m >= p and W <= F; ZB-H2 needs m >= 2p-1, W <= F and
// W <= B.
//
// Notation: p devices, m micro-batches, v chunks per device; F, B, W are the
// times of one device's share of the model for one micro-batch (B is the
// input gradient only; DualPipe's B is the full backward B + W), F&B the time
// of an F overlapped with a full backward. Bubbles are per device: the
// metric "global" is makespan - busy, "span" is last end - first start -
// busy; the formula is compared with the largest over devices. Peaks are in
// activation memory, the largest over devices.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/pipeline/model.h"

namespace shardlab::pipeline {

struct ClosedForm {
  std::string formula;          // "(p-1)(F+B+W)"
  std::string metric;           // "global" or "span"
  std::string assumption;       // when the formula is exact
  bool holds = false;           // the problem meets the assumption
  int64_t value = 0;            // ticks of the expansion
  std::string peak_formula;     // "p", in units of one device's activation per micro-batch
  std::string peak_assumption;  // "m >= p"
  bool peak_holds = false;
  int64_t peak_value = 0;  // mem ticks
};

// The closed form of a schedule (canonical name) on its expansion, or none
// when the schedule has none ("list").
std::optional<ClosedForm> closed_form(const std::string& schedule, const Expansion& expansion);

}  // namespace shardlab::pipeline
