// PyTorch's action text, the CSV text its _dump_csv writes, the mapping
// between our slots and its actions, and the lock-step grid our own
// schedules are written on (see torch_ir.h).
#include "core/pipeline/torch_ir.h"

#include <algorithm>

namespace shardlab::pipeline {

const char* torch_type_text(TorchType type) {
  switch (type) {
    case TorchType::kF:
      return "F";
    case TorchType::kI:
      return "I";
    case TorchType::kW:
      return "W";
    case TorchType::kB:
      return "B";
    case TorchType::kOverlap:
      return "OVERLAP_F_B";
    case TorchType::kUnshard:
      return "UNSHARD";
    case TorchType::kReshard:
      return "RESHARD";
    case TorchType::kReduceGrad:
      return "REDUCE_GRAD";
    case TorchType::kSendF:
      return "SEND_F";
    case TorchType::kRecvF:
      return "RECV_F";
    case TorchType::kSendB:
      return "SEND_B";
    case TorchType::kRecvB:
      return "RECV_B";
  }
  return "?";
}

bool is_torch_compute(TorchType type) {
  return type == TorchType::kF || type == TorchType::kI || type == TorchType::kW ||
         type == TorchType::kB || type == TorchType::kOverlap;
}

std::string torch_action_text(const TorchAction& a) {
  if (a.type == TorchType::kOverlap) {
    return "(" + std::to_string(a.f_stage) + "F" + std::to_string(a.f_mb) + ";" +
           std::to_string(a.b_stage) + "B" + std::to_string(a.b_mb) + ")OVERLAP_F_B";
  }
  std::string text = std::to_string(a.stage) + torch_type_text(a.type);
  if (a.mb >= 0) text += std::to_string(a.mb);
  return text;
}

std::string torch_csv_text(const TorchRows& rows) {
  std::string out;
  for (const TorchRow& row : rows) {
    // Python's csv writer quotes a record that is one empty field, so that
    // it reads back as a field rather than as an empty line.
    if (row.size() == 1 && !row[0]) {
      out += "\"\"\r\n";
      continue;
    }
    for (size_t i = 0; i < row.size(); ++i) {
      if (i) out += ',';
      if (row[i]) out += torch_action_text(*row[i]);
    }
    out += "\r\n";
  }
  return out;
}

TorchAction torch_action_of(const Expansion& e, const Slot& slot) {
  const Op& op = e.ops[slot.op];
  const int32_t stage = e.units[op.unit].stage;
  switch (slot.kind) {
    case SlotKind::kPair: {
      const Op& b = e.ops[slot.partner];
      return TorchAction::overlap(stage, op.microbatch, e.units[b.unit].stage, b.microbatch);
    }
    case SlotKind::kFullBackward:
      return TorchAction::make(TorchType::kB, stage, op.microbatch);
    case SlotKind::kSingle:
      break;
  }
  const TorchType type = op.kind == OpKind::kF   ? TorchType::kF
                         : op.kind == OpKind::kB ? TorchType::kI
                                                 : TorchType::kW;
  return TorchAction::make(type, stage, op.microbatch);
}

TorchRows torch_lockstep_rows(const Expansion& e, const Order& order) {
  const int32_t p = static_cast<int32_t>(order.device_slots.size());
  constexpr int64_t kNotYet = INT64_MAX;
  std::vector<int64_t> step_of(e.num_ops(), kNotYet);
  std::vector<size_t> next(p, 0);
  TorchRows rows(p);
  size_t left = 0;
  for (const std::vector<Slot>& slots : order.device_slots) left += slots.size();
  for (int64_t step = 0; left > 0; ++step) {
    bool progress = false;
    for (int32_t d = 0; d < p; ++d) {
      if (next[d] >= order.device_slots[d].size()) continue;
      const Slot& slot = order.device_slots[d][next[d]];
      int32_t ops[3];
      const int32_t count = slot_ops(e, slot, ops);
      bool ready = true;
      for (int32_t i = 0; i < count && ready; ++i) {
        for (int32_t a = e.pred_begin[ops[i]]; a < e.pred_begin[ops[i] + 1]; ++a) {
          const int32_t from = e.arcs[e.pred_arcs[a]].from;
          if (std::find(ops, ops + count, from) != ops + count) continue;  // inside the slot
          if (step_of[from] >= step) {
            ready = false;
            break;
          }
        }
      }
      if (!ready) {
        rows[d].push_back(std::nullopt);
        continue;
      }
      for (int32_t i = 0; i < count; ++i) step_of[ops[i]] = step;
      rows[d].push_back(torch_action_of(e, slot));
      ++next[d];
      --left;
      progress = true;
    }
    // An order that simulates always moves on; a guard against a cycle.
    if (!progress) break;
  }
  return rows;
}

Result<Order> torch_rows_order(const Expansion& e, const TorchRows& rows) {
  Order order;
  order.unit_device.resize(e.num_units());
  for (int32_t u = 0; u < e.num_units(); ++u) order.unit_device[u] = e.units[u].devices[0];
  order.device_slots.assign(e.devices, {});
  auto op_at = [&](int32_t stage, int32_t mb, OpKind kind) -> int32_t {
    if (stage < 0 || stage >= e.stages || mb < 0 || mb >= e.microbatches) return -1;
    return e.op_of(mb, e.unit_at(0, stage), kind);
  };
  for (int32_t r = 0; r < static_cast<int32_t>(rows.size()) && r < e.devices; ++r) {
    for (size_t k = 0; k < rows[r].size(); ++k) {
      if (!rows[r][k]) continue;
      const TorchAction& a = *rows[r][k];
      Slot slot;
      if (a.type == TorchType::kOverlap) {
        slot = {op_at(a.f_stage, a.f_mb, OpKind::kF), op_at(a.b_stage, a.b_mb, OpKind::kB),
                SlotKind::kPair};
      } else if (is_torch_compute(a.type)) {
        const OpKind kind = a.type == TorchType::kF   ? OpKind::kF
                            : a.type == TorchType::kW ? OpKind::kW
                                                      : OpKind::kB;
        slot = {op_at(a.stage, a.mb, kind), -1,
                a.type == TorchType::kB ? SlotKind::kFullBackward : SlotKind::kSingle};
      } else {
        continue;
      }
      if (slot.op < 0 || (slot.is_pair() && slot.partner < 0) ||
          order.unit_device[e.ops[slot.op].unit] != r) {
        return Status(StatusCode::kInvalidArgument,
                      "rank " + std::to_string(r) + ", step " + std::to_string(k) + ": \"" +
                          torch_action_text(a) + "\" does not run on this rank here");
      }
      order.device_slots[r].push_back(slot);
    }
  }
  return order;
}

}  // namespace shardlab::pipeline
