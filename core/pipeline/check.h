// The independent validity checker of a timed pipeline schedule. It trusts
// nothing but the expansion (the problem's data): it recounts every
// operation, recomputes every slot's length, every dependency with its
// delay (with serial links, the transfer's turn on its link, recomputed
// from the senders' slot order: simulate.h's rule), the one-slot-at-a-time
// rule per device and the memory step
// function against the cap, and recomputes the metrics from scratch with
// its own code (tests compare them with simulate.h's measure()). Every
// schedule the CLI writes and the wasm module returns has passed it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/pipeline/model.h"
#include "core/pipeline/simulate.h"

namespace shardlab::pipeline {

struct CheckReport {
  bool valid = false;
  std::vector<std::string> violations;   // the first kMaxViolations, readable
  std::vector<int32_t> violation_slots;  // the timeline slot of each (-1: a device's memory)
  int64_t violation_count = 0;           // all of them
  static constexpr int kMaxViolations = 20;
  // Recomputed from the timeline (when the structure allows it).
  int64_t makespan = 0;
  std::vector<int64_t> busy, global_idle, span_idle, peak_activation, peak_parameter;
  // Serial links: when each arc's result reaches its op, indexed like
  // Expansion::arcs (an arc within a device: its producer's end). Empty
  // with parallel links.
  std::vector<int64_t> arrival;
};

CheckReport check_schedule(const Expansion& expansion, const Timeline& timeline);

}  // namespace shardlab::pipeline
