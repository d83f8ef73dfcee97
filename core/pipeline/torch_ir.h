// PyTorch pipelining's schedule IR (torch.distributed.pipelining, as in
// pytorch/pytorch torch/distributed/pipelining/schedules.py at commit 00722e6
// on main, a snapshot after the 2.9 release): actions and their text, the
// compute-only orders of four of its schedules, the lowering passes that turn
// a compute-only schedule into its compute_comms form, and the step grid our
// own schedules are written on. Written from the rules of that file, not
// from its code; export.cpp (CSV files), schedule_torch.cpp (the orders) and
// torch_lowering.cpp (the passes) implement it.
//
// Vocabulary (PyTorch's, used in every CSV message): F forward, I input
// gradient (our B), W weight gradient, B full backward (our BW block: I and
// W in one), (sF;sB)OVERLAP_F_B an F and a full backward run as one action.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/pipeline/model.h"
#include "core/pipeline/simulate.h"
#include "core/status.h"

namespace shardlab::pipeline {

enum class TorchType : uint8_t {
  kF,
  kI,
  kW,
  kB,
  kOverlap,
  kUnshard,
  kReshard,
  kReduceGrad,
  kSendF,
  kRecvF,
  kSendB,
  kRecvB,
};
// "F", "I", "W", "B", "OVERLAP_F_B", "UNSHARD", "RESHARD", "REDUCE_GRAD",
// "SEND_F", "RECV_F", "SEND_B", "RECV_B".
const char* torch_type_text(TorchType type);
// F, I, W, B and OVERLAP_F_B (PyTorch's is_compute_op).
bool is_torch_compute(TorchType type);

struct TorchAction {
  TorchType type = TorchType::kF;
  int32_t stage = 0;  // -1 for OVERLAP_F_B (PyTorch's placeholder)
  int32_t mb = -1;    // -1: none (UNSHARD, RESHARD, REDUCE_GRAD, OVERLAP_F_B)
  // OVERLAP_F_B: its forward (f_stage, f_mb) and full backward (b_stage, b_mb).
  int32_t f_stage = -1, f_mb = -1, b_stage = -1, b_mb = -1;
  bool operator==(const TorchAction& other) const = default;

  static TorchAction make(TorchType type, int32_t stage, int32_t mb = -1) {
    TorchAction a;
    a.type = type;
    a.stage = stage;
    a.mb = mb;
    return a;
  }
  static TorchAction overlap(int32_t f_stage, int32_t f_mb, int32_t b_stage, int32_t b_mb) {
    TorchAction a;
    a.type = TorchType::kOverlap;
    a.stage = -1;
    a.f_stage = f_stage;
    a.f_mb = f_mb;
    a.b_stage = b_stage;
    a.b_mb = b_mb;
    return a;
  }
};

// "2F0", "1UNSHARD", "3SEND_F1", "(0F7;7B3)OVERLAP_F_B" (PyTorch's _Action repr).
std::string torch_action_text(const TorchAction& action);

// One rank's actions step by step; an empty optional is an idle step (None).
using TorchRow = std::vector<std::optional<TorchAction>>;
using TorchRows = std::vector<TorchRow>;

// The rows as Python's csv.writer writes them in PyTorch's _dump_csv (the
// excel dialect): cells joined by ',', an empty cell for None, "\r\n" after
// every row, a row of one empty cell written as "" (Python quotes it so that
// it reads back as a cell). No action text needs quoting.
std::string torch_csv_text(const TorchRows& rows);

// ---- PyTorch's own orders --------------------------------------------------

// "torch:Interleaved1F1B", "torch:InterleavedZeroBubble", "torch:ZBVZeroBubble",
// "torch:DualPipeV" (PyTorch's Schedule* classes without the prefix).
bool is_torch_schedule(std::string_view name);

// Why PyTorch's constructor refuses (ranks, microbatches, local_stages), in
// its own terms; "" when it accepts. Interleaved schedules need m a multiple
// of their rounds max(1, m div p); the V schedules 2 stages per rank;
// DualPipeV at least 2p micro-batches.
std::string torch_schedule_reason(std::string_view name, int32_t ranks, int32_t microbatches,
                                  int32_t local_stages);

// The schedule's pipeline_order: stage s on rank s mod p (interleaved) or the
// V (rank r: stages r and 2p-1-r), with PyTorch's idle steps. Fails with the
// reason above, or when the order PyTorch builds fails its own
// _validate_schedule (every stage: each micro-batch's F once, as many I as W,
// and m backwards in all).
Result<TorchRows> torch_schedule_rows(std::string_view name, int32_t ranks, int32_t microbatches,
                                      int32_t local_stages);

// The order of the rows on an expansion whose stage s sits where the rows run
// it (kInvalidArgument naming the cell otherwise).
Result<Order> torch_rows_order(const Expansion& e, const TorchRows& rows);

// ---- our schedules on PyTorch's step grid ----------------------------------

// The action of a slot: F, I and W for single ops, B for a full backward,
// OVERLAP_F_B for a pair. Stages form only.
TorchAction torch_action_of(const Expansion& e, const Slot& slot);

// The rows of an order on PyTorch's lock-step grid: at every step each rank
// runs its next action when every action it depends on ran at an earlier
// step, and is idle otherwise (the rule ScheduleInterleavedZeroBubble uses
// to add bubbles, applied to every kind). The order must simulate.
TorchRows torch_lockstep_rows(const Expansion& e, const Order& order);

// ---- lowering to compute_comms (PipelineScheduleRuntime) --------------------

// The passes of _prepare_schedule_with_comms, each as PyTorch runs it:
// per rank _add_unshard_reshard (FSDP prefetch of at most `max_active` stages,
// set order as CPython iterates a set of small ints), then _add_reduce_grad
// (after a stage's m-th W or B), then _add_send_recv across ranks (a SEND
// after the action that produces a tensor another rank needs, the RECV placed
// on the receiver's row at that moment). `stage_rank[s]` is stage s's rank.
TorchRows torch_add_unshard_reshard(const TorchRows& rows, int32_t max_active = 3);
TorchRows torch_add_reduce_grad(const TorchRows& rows, int32_t microbatches);
Result<TorchRows> torch_add_send_recv(const TorchRows& rows,
                                      const std::vector<int32_t>& stage_rank);
// All three, as _prepare_schedule_with_comms(format="compute_only") does.
Result<TorchRows> torch_lower(const TorchRows& compute, const std::vector<int32_t>& stage_rank,
                              int32_t microbatches);

}  // namespace shardlab::pipeline
