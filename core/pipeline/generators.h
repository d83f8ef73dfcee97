// Schedule generators: each builds the per-device operation order of one
// published pipeline schedule (GPipe, 1F1B, interleaved 1F1B, ZB-H1, ZB-H2,
// ZBV, DualPipe, DualPipeV, Chimera) on the placement it needs, plus "list",
// a priority list schedule for operator graphs and free placements. The
// simulator (simulate.h) then times the order exactly; no generator decides
// a start time.
//
// A generator applies only where its published order is defined; otherwise
// it says why (e.g. "DualPipe needs an even number of devices; the problem
// has 5"). Orders depend only on the problem's shape (p, m, placement),
// except ZBV's, which is built by the zero-bubble authors' greedy from the
// problem's times and memory.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/pipeline/model.h"
#include "core/pipeline/simulate.h"
#include "core/status.h"

namespace shardlab::pipeline {

struct ScheduleInfo {
  std::string name;     // canonical name, e.g. "1F1B"
  std::string summary;  // one line on what it is and where it comes from
  bool applicable = false;
  std::string reason;  // why not, when it does not apply
};

// Canonical names in display order.
const std::vector<std::string>& schedule_names();
// Finds a schedule by name, ignoring case, '-', '_' and spaces, with the
// usual aliases (zb1p = ZB-H1, zb2p = ZB-H2, vpp/interleaved = Interleaved1F1B,
// afab = GPipe, pipedream-flush = 1F1B). False when unknown.
bool find_schedule(std::string_view text, std::string* canonical);

// Every schedule with whether it applies to the problem.
std::vector<ScheduleInfo> list_schedules(const Problem& problem);

struct Generated {
  Expansion expansion;  // the problem under the schedule's placement
  Order order;
};

// Builds the named schedule's order (kInvalidArgument with the reason when
// it does not apply or the name is unknown).
Result<Generated> generate(const Problem& problem, std::string_view name);

}  // namespace shardlab::pipeline
