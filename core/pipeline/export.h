// Exchange formats of a schedule:
// - Chrome trace JSON (chrome://tracing, ui.perfetto.dev): one complete
//   event ("ph": "X") per slot, pid and tid = device, named by process
//   metadata "device D"; one time unit of the problem = 1 ms; activation
//   memory as a counter track per device.
// - PyTorch pipelining's schedule CSV (torch.distributed.pipelining,
//   PipelineScheduleMulti._dump_csv / _load_csv, "compute_only" format): one
//   row per rank, each cell an action "{stage}{type}{microbatch}" with type
//   F (forward), I (input gradient, our B), W (weight gradient), B (full
//   backward, our BW block), an overlapped pair "({s}F{k};{s}B{k})OVERLAP_F_B",
//   or empty (an idle step). Stages are the chain's stage indices (virtual
//   stages for interleaved and V-shape placements). The CSV has no times;
//   importing simulates the per-rank orders exactly on the problem. It has
//   one direction only: bidirectional schedules (DualPipe, Chimera) and
//   operator graphs cannot be written.
#pragma once

#include <string>
#include <string_view>

#include "core/pipeline/pipeline.h"
#include "core/status.h"

namespace shardlab::pipeline {

std::string chrome_trace_json(const ScheduleResult& schedule);

// Fails (kInvalidArgument) for schedules the format cannot express.
Result<std::string> pytorch_csv(const ScheduleResult& schedule);

// Reads a PyTorch schedule CSV as a schedule on `problem` (stage -> rank
// mapping inferred from the rows: linear, interleaved, V-shape or explicit).
// Errors name the cell: "FILE:LINE:COL (rank R, step S): ...".
Result<ScheduleResult> read_pytorch_csv(const Problem& problem, const std::string& source,
                                        std::string_view text);

}  // namespace shardlab::pipeline
