// Exchange formats of a schedule:
// - Chrome trace JSON (chrome://tracing, ui.perfetto.dev): one complete
//   event ("ph": "X") per slot, pid and tid = device, named by process
//   metadata "device D"; one time unit of the problem = 1 ms; activation
//   memory as a counter track per device.
// - PyTorch pipelining's schedule CSV (torch.distributed.pipelining, the
//   _dump_csv / _load_csv of PipelineScheduleMulti and its runtime; the IR is
//   in torch_ir.h), byte for byte as Python's csv module writes it: one row
//   per rank, one cell per step, "\r\n" after each row, an empty cell for an
//   idle step. Two forms:
//   * compute_only: cells "{stage}{F|I|W|B}{microbatch}" (I = our B, the
//     input gradient; B = our BW block, a full backward) and
//     "({s}F{k};{s}B{k})OVERLAP_F_B" pairs. PyTorch's own schedules
//     (torch:...) are written exactly as PyTorch builds them, idle steps
//     included; every other schedule on PyTorch's lock-step grid (an action
//     runs one step after the actions it needs).
//   * compute_comms: the same actions lowered as PyTorch's runtime lowers
//     them (UNSHARD/RESHARD, REDUCE_GRAD, SEND_F/RECV_F/SEND_B/RECV_B), with
//     no idle steps.
//   Stages are the chain's stage indices (virtual stages for interleaved and
//   V-shape placements). The CSV has no times; importing simulates the
//   per-rank orders exactly on the problem. Bidirectional schedules (two
//   parameter copies: DualPipe, Chimera) and operator graphs have no CSV
//   form and are refused with the reason.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/pipeline/pipeline.h"
#include "core/pipeline/torch_ir.h"
#include "core/status.h"

namespace shardlab::pipeline {

std::string chrome_trace_json(const ScheduleResult& schedule);

enum class CsvFormat : uint8_t { kComputeOnly, kComputeComms };
// "compute_only" or "compute_comms" (PyTorch's names); false when unknown.
bool parse_csv_format(std::string_view text, CsvFormat* format);

// The compute-only rows of a schedule (see above). Fails (kInvalidArgument)
// for schedules the format cannot express.
Result<TorchRows> pytorch_rows(const ScheduleResult& schedule);

// The CSV text in either form.
Result<std::string> pytorch_csv(const ScheduleResult& schedule,
                                CsvFormat format = CsvFormat::kComputeOnly);

// The largest CSV the reader takes (and the writer writes): 32 MiB.
constexpr size_t kMaxCsvBytes = size_t{32} << 20;

// Reads a PyTorch schedule CSV (either form: a CSV with communication cells
// is compute_comms; `format` insists on one) as a schedule on `problem`
// (stage -> rank mapping inferred from the rows: linear, interleaved,
// V-shape or explicit). The text must be UTF-8 (a byte-order mark is
// skipped) and at most kMaxCsvBytes; memory stays below about 8 bytes per
// input byte, empty cells cost none. Errors name the cell in PyTorch's
// vocabulary: "FILE:LINE:COL (rank R, step S): ...".
Result<ScheduleResult> read_pytorch_csv(const Problem& problem, const std::string& source,
                                        std::string_view text,
                                        std::optional<CsvFormat> format = std::nullopt);

}  // namespace shardlab::pipeline
