// Chrome trace export and the PyTorch pipelining CSV writer (see export.h);
// the reader is csv_reader.cpp.
#include "core/pipeline/export.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "core/pipeline/numbers.h"

namespace shardlab::pipeline {
namespace {

using nlohmann::ordered_json;

const auto num = json_number;

std::string slot_name(const Expansion& e, const Slot& slot) {
  auto label = [&](int32_t op) {
    const Op& o = e.ops[op];
    const Unit& u = e.units[o.unit];
    std::string text = kind_name(o.kind) + std::to_string(o.microbatch);
    if (e.form == Form::kOperators) return text + " " + e.operator_names[u.stage];
    text += " s" + std::to_string(u.stage);
    if (e.copies == 2) text += u.copy ? " up" : " down";
    return text;
  };
  switch (slot.kind) {
    case SlotKind::kPair:
      return label(slot.op) + " & " + label(slot.partner) + "W";
    case SlotKind::kFullBackward:
      return label(slot.op) + "W";
    case SlotKind::kSingle:
      break;
  }
  return label(slot.op);
}

}  // namespace

std::string chrome_trace_json(const ScheduleResult& s) {
  const Expansion& e = s.expansion;
  ordered_json events = ordered_json::array();
  for (int32_t d = 0; d < e.devices; ++d) {
    events.push_back({{"name", "process_name"},
                      {"ph", "M"},
                      {"pid", d},
                      {"tid", d},
                      {"args", {{"name", "device " + std::to_string(d)}}}});
    events.push_back({{"name", "process_sort_index"},
                      {"ph", "M"},
                      {"pid", d},
                      {"tid", d},
                      {"args", {{"sort_index", d}}}});
  }
  // One problem time unit = 1 ms = 1000 trace microseconds.
  auto us = [&](int64_t ticks) { return num(e.time_value(ticks) * 1000.0); };
  for (const TimedSlot& ts : s.timeline.slots) {
    const Op& o = e.ops[ts.slot.op];
    const Unit& u = e.units[o.unit];
    ordered_json args;
    args["kind"] = slot_kind_name(e, ts.slot);
    args["microbatch"] = o.microbatch;
    if (e.form == Form::kOperators) {
      args["operator"] = e.operator_names[u.stage];
    } else {
      args["stage"] = u.stage;
    }
    args["chunk"] = u.chunk;
    args["direction"] = u.copy;
    args["start"] = num(e.time_value(ts.start));
    args["end"] = num(e.time_value(ts.end));
    events.push_back({{"name", slot_name(e, ts.slot)},
                      {"cat", slot_kind_name(e, ts.slot)},
                      {"ph", "X"},
                      {"pid", ts.device},
                      {"tid", ts.device},
                      {"ts", us(ts.start)},
                      {"dur", us(ts.end - ts.start)},
                      {"args", args}});
  }
  for (int32_t d = 0; d < static_cast<int32_t>(s.metrics.memory.size()); ++d) {
    const MemoryProfile& m = s.metrics.memory[d];
    for (size_t i = 0; i < m.time.size(); ++i) {
      events.push_back({{"name", "activation memory"},
                        {"ph", "C"},
                        {"pid", d},
                        {"tid", d},
                        {"ts", us(m.time[i])},
                        {"args", {{"activation", num(e.mem_value(m.activation[i]))}}}});
    }
  }
  ordered_json out;
  out["traceEvents"] = events;
  out["displayTimeUnit"] = "ms";
  out["otherData"] = {{"generator", "shardlab pipeline"},
                      {"schedule", s.name},
                      {"makespan", num(e.time_value(s.metrics.makespan))},
                      {"time_unit", "1 problem time unit = 1 ms"}};
  return out.dump();
}

bool parse_csv_format(std::string_view text, CsvFormat* format) {
  if (text == "compute_only") {
    *format = CsvFormat::kComputeOnly;
  } else if (text == "compute_comms") {
    *format = CsvFormat::kComputeComms;
  } else {
    return false;
  }
  return true;
}

Result<TorchRows> pytorch_rows(const ScheduleResult& s) {
  const Expansion& e = s.expansion;
  if (e.form == Form::kOperators) {
    return Status(StatusCode::kInvalidArgument,
                  "the PyTorch schedule CSV describes a chain of stages; an operator graph "
                  "cannot be written in it");
  }
  if (e.copies == 2) {
    int32_t first_up = e.microbatches;
    for (int32_t k = 0; k < e.microbatches; ++k) {
      if (e.microbatch_copy[k] == 1) {
        first_up = k;
        break;
      }
    }
    return Status(StatusCode::kInvalidArgument,
                  "the PyTorch schedule CSV cannot hold " + s.name +
                      ": it runs two parameter copies in opposite directions (micro-batches 0.." +
                      std::to_string(first_up - 1) + " through copy 0, " +
                      std::to_string(first_up) + ".." + std::to_string(e.microbatches - 1) +
                      " through copy 1, so each stage sits on two devices), while PyTorch runs "
                      "every micro-batch through every stage and each stage on one rank; "
                      "torch:DualPipeV, DualPipe cut in half onto a V, is the form PyTorch runs");
  }
  const Order order = order_of(e, s.timeline);
  if (is_torch_schedule(s.name)) {
    // PyTorch's own order, idle steps and all, when the timeline still
    // follows it (a schedule JSON edited by hand may not).
    const int32_t v = e.placement == PlacementKind::kVShape ? 2 : e.chunks;
    Result<TorchRows> rows = torch_schedule_rows(s.name, e.devices, e.microbatches, v);
    bool same = rows.is_ok() && static_cast<int32_t>(rows.value().size()) == e.devices;
    for (int32_t d = 0; same && d < e.devices; ++d) {
      size_t k = 0;
      for (const std::optional<TorchAction>& a : rows.value()[d]) {
        if (!a) continue;
        if (k >= order.device_slots[d].size() ||
            !(*a == torch_action_of(e, order.device_slots[d][k]))) {
          same = false;
          break;
        }
        ++k;
      }
      same = same && k == order.device_slots[d].size();
    }
    if (same) return rows;
  }
  return torch_lockstep_rows(e, order);
}

Result<std::string> pytorch_csv(const ScheduleResult& s, CsvFormat format) {
  Result<TorchRows> rows = pytorch_rows(s);
  if (!rows.is_ok()) return rows.status();
  if (format == CsvFormat::kComputeComms) {
    const Expansion& e = s.expansion;
    std::vector<int32_t> stage_rank(e.stages);
    for (int32_t st = 0; st < e.stages; ++st) {
      stage_rank[st] = s.timeline.unit_device[e.unit_at(0, st)];
    }
    Result<TorchRows> lowered = torch_lower(rows.value(), stage_rank, e.microbatches);
    if (!lowered.is_ok()) return lowered.status();
    rows = std::move(lowered);
  }
  std::string text = torch_csv_text(rows.value());
  if (text.size() > kMaxCsvBytes) {
    return Status(StatusCode::kInvalidArgument,
                  "the PyTorch schedule CSV would take " + std::to_string(text.size()) +
                      " bytes, more than the " + std::to_string(kMaxCsvBytes >> 20) +
                      " MiB its reader takes");
  }
  return text;
}

}  // namespace shardlab::pipeline
