// Chrome trace export and the PyTorch pipelining CSV in both directions (see
// export.h). The CSV reader validates cell by cell and points at the cell:
// its line and column, and the rank and step it stands for.
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

// ---- CSV reading ----

struct Cell {
  int32_t line = 0, column = 0;  // 1-based
  int32_t rank = 0, step = 0;
  std::string text;
};

// Splits CSV text into rows of cells (RFC 4180 quoting), keeping positions.
std::vector<std::vector<Cell>> split_csv(std::string_view text) {
  std::vector<std::vector<Cell>> rows;
  size_t i = 0;
  int32_t line = 1;
  while (i < text.size()) {
    std::vector<Cell> row;
    size_t line_start = i;
    int32_t step = 0;
    while (true) {
      Cell cell;
      cell.line = line;
      cell.column = static_cast<int32_t>(i - line_start) + 1;
      cell.step = step++;
      if (i < text.size() && text[i] == '"') {
        ++i;
        while (i < text.size()) {
          if (text[i] == '"' && i + 1 < text.size() && text[i + 1] == '"') {
            cell.text += '"';
            i += 2;
          } else if (text[i] == '"') {
            ++i;
            break;
          } else {
            if (text[i] == '\n') {
              ++line;
              line_start = i + 1;
            }
            cell.text += text[i++];
          }
        }
      }
      while (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
        cell.text += text[i++];
      }
      row.push_back(cell);
      if (i < text.size() && text[i] == ',') {
        ++i;
        continue;
      }
      break;
    }
    if (i < text.size() && text[i] == '\r') ++i;
    if (i < text.size() && text[i] == '\n') ++i;
    ++line;
    rows.push_back(row);
  }
  // Trailing empty lines are not ranks.
  while (!rows.empty() && rows.back().size() == 1 && rows.back()[0].text.empty()) rows.pop_back();
  return rows;
}

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

enum class Act { kF, kI, kB, kW, kComm, kPair };

struct Action {
  Act act = Act::kF;
  int64_t stage = 0, mb = 0;
  int64_t stage2 = 0, mb2 = 0;  // the backward of a pair
  Cell cell;
};

Status cell_error(const std::string& source, const Cell& c, const std::string& message) {
  return Status(StatusCode::kInvalidInput,
                source + ":" + std::to_string(c.line) + ":" + std::to_string(c.column) + " (rank " +
                    std::to_string(c.rank) + ", step " + std::to_string(c.step) + "): " + message);
}

// Parses "{stage}{type}{mb}"; false when malformed.
bool parse_single(const std::string& s, Act* act, int64_t* stage, int64_t* mb, bool* has_mb) {
  size_t i = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i == 0 || i > 9) return false;
  *stage = std::stoll(s.substr(0, i));
  size_t j = i;
  while (j < s.size() && !std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
  const std::string type = s.substr(i, j - i);
  const std::string digits = s.substr(j);
  if (digits.size() > 9) return false;
  for (char c : digits) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  *has_mb = !digits.empty();
  *mb = digits.empty() ? -1 : std::stoll(digits);
  if (type == "F") {
    *act = Act::kF;
  } else if (type == "I") {
    *act = Act::kI;
  } else if (type == "B") {
    *act = Act::kB;
  } else if (type == "W") {
    *act = Act::kW;
  } else if (type == "SEND_F" || type == "RECV_F" || type == "SEND_B" || type == "RECV_B" ||
             type == "UNSHARD" || type == "RESHARD" || type == "REDUCE_GRAD") {
    *act = Act::kComm;
  } else {
    return false;
  }
  return true;
}

Result<Action> parse_action(const std::string& source, const Cell& cell) {
  const std::string text = trim(cell.text);
  Action a;
  a.cell = cell;
  const std::string expected =
      "expected an action such as 2F0, 1I3, 0W3, 1B2 or (0F4;3B1)OVERLAP_F_B";
  if (!text.empty() && text[0] == '(') {
    const size_t close = text.find(')');
    const size_t semi = text.find(';');
    if (close == std::string::npos || semi == std::string::npos || semi > close ||
        text.substr(close + 1) != "OVERLAP_F_B") {
      return cell_error(source, cell, "\"" + text + "\": " + expected);
    }
    Act f, b;
    bool has_f, has_b;
    if (!parse_single(trim(text.substr(1, semi - 1)), &f, &a.stage, &a.mb, &has_f) ||
        !parse_single(trim(text.substr(semi + 1, close - semi - 1)), &b, &a.stage2, &a.mb2,
                      &has_b) ||
        f != Act::kF || b != Act::kB || !has_f || !has_b) {
      return cell_error(source, cell,
                        "\"" + text +
                            "\": an overlapped pair holds a forward and a full "
                            "backward, e.g. (0F4;3B1)OVERLAP_F_B");
    }
    a.act = Act::kPair;
    return a;
  }
  bool has_mb = false;
  if (!parse_single(text, &a.act, &a.stage, &a.mb, &has_mb)) {
    return cell_error(source, cell, "\"" + text + "\": " + expected);
  }
  if (a.act != Act::kComm && !has_mb) {
    return cell_error(source, cell, "\"" + text + "\": a computation needs its micro-batch");
  }
  return a;
}

std::string action_text(int64_t stage, const char* type, int64_t mb) {
  return std::to_string(stage) + type + std::to_string(mb);
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

Result<std::string> pytorch_csv(const ScheduleResult& s) {
  const Expansion& e = s.expansion;
  if (e.form == Form::kOperators) {
    return Status(StatusCode::kInvalidArgument,
                  "the PyTorch schedule CSV describes a chain of stages; an operator graph "
                  "cannot be written in it");
  }
  if (e.copies == 2) {
    return Status(StatusCode::kInvalidArgument,
                  "the PyTorch schedule CSV has one direction; " + s.name +
                      " runs two parameter copies in opposite directions and cannot be written "
                      "in it");
  }
  std::vector<std::vector<std::string>> rows(e.devices);
  for (const TimedSlot& ts : s.timeline.slots) {
    const Op& o = e.ops[ts.slot.op];
    const int64_t stage = e.units[o.unit].stage;
    std::string cell;
    switch (ts.slot.kind) {
      case SlotKind::kPair: {
        const Op& b = e.ops[ts.slot.partner];
        cell = "(" + action_text(stage, "F", o.microbatch) + ";" +
               action_text(e.units[b.unit].stage, "B", b.microbatch) + ")OVERLAP_F_B";
        break;
      }
      case SlotKind::kFullBackward:
        cell = action_text(stage, "B", o.microbatch);
        break;
      case SlotKind::kSingle:
        cell = action_text(stage,
                           o.kind == OpKind::kF   ? "F"
                           : o.kind == OpKind::kB ? "I"
                                                  : "W",
                           o.microbatch);
        break;
    }
    rows[ts.device].push_back(cell);
  }
  std::string out;
  for (const std::vector<std::string>& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) out += (i ? "," : "") + row[i];
    out += "\n";
  }
  return out;
}

Result<ScheduleResult> read_pytorch_csv(const Problem& problem, const std::string& source,
                                        std::string_view text) {
  if (problem.form != Form::kStages) {
    return Status(StatusCode::kInvalidInput,
                  source +
                      ": the PyTorch schedule CSV describes a chain of stages; this problem "
                      "is an operator graph");
  }
  std::vector<std::vector<Cell>> rows = split_csv(text);
  const int32_t p = problem.devices;
  if (static_cast<int32_t>(rows.size()) != p) {
    const int32_t line = rows.empty() ? 1 : rows.back().back().line;
    return Status(StatusCode::kInvalidInput, source + ":" + std::to_string(line) +
                                                 ":1: the CSV has " + std::to_string(rows.size()) +
                                                 " rows (one per rank) but the problem has " +
                                                 std::to_string(p) + " devices");
  }
  std::vector<std::vector<Action>> actions(p);
  int64_t max_stage = -1;
  std::map<int64_t, const Action*> first_seen;  // stage -> first action naming it
  for (int32_t r = 0; r < p; ++r) {
    for (Cell& cell : rows[r]) {
      cell.rank = r;
      if (trim(cell.text).empty()) continue;
      Result<Action> a = parse_action(source, cell);
      if (!a.is_ok()) return a.status();
      if (a.value().act == Act::kComm) continue;
      actions[r].push_back(a.value());
    }
  }
  // Stage -> rank, from every stage an action names.
  std::map<int64_t, std::pair<int32_t, Cell>> stage_rank;
  for (int32_t r = 0; r < p; ++r) {
    for (const Action& a : actions[r]) {
      for (int64_t stage : {a.stage, a.act == Act::kPair ? a.stage2 : a.stage}) {
        if (stage > 64 * 1024)
          return cell_error(source, a.cell, "stage " + std::to_string(stage) + " is out of range");
        auto it = stage_rank.find(stage);
        if (it == stage_rank.end()) {
          stage_rank[stage] = {r, a.cell};
        } else if (it->second.first != r) {
          return cell_error(source, a.cell,
                            "stage " + std::to_string(stage) + " runs on rank " +
                                std::to_string(r) + " here but on rank " +
                                std::to_string(it->second.first) + " at line " +
                                std::to_string(it->second.second.line) + ", column " +
                                std::to_string(it->second.second.column));
        }
        max_stage = std::max(max_stage, stage);
      }
    }
  }
  if (max_stage < 0) {
    return Status(StatusCode::kInvalidInput, source + ":1:1: the CSV holds no computation");
  }
  const int64_t S = max_stage + 1;
  std::vector<int32_t> map(S, -1);
  for (const auto& [stage, where] : stage_rank) map[stage] = where.first;
  for (int64_t s = 0; s < S; ++s) {
    if (map[s] < 0) {
      return Status(StatusCode::kInvalidInput, source + ": no rank runs stage " +
                                                   std::to_string(s) + " (stages 0.." +
                                                   std::to_string(S - 1) + " appear)");
    }
  }
  Placement placement;
  auto matches = [&](auto device_of) {
    for (int64_t s = 0; s < S; ++s) {
      if (map[s] != device_of(s)) return false;
    }
    return true;
  };
  if (S == p && matches([](int64_t s) { return s; })) {
    placement.kind = PlacementKind::kLinear;
  } else if (S % p == 0 && S / p >= 2 && matches([&](int64_t s) { return s % p; })) {
    placement.kind = PlacementKind::kInterleaved;
    placement.chunks = static_cast<int32_t>(S / p);
  } else if (S == 2 * p && matches([&](int64_t s) { return s < p ? s : 2 * p - 1 - s; })) {
    placement.kind = PlacementKind::kVShape;
  } else {
    placement.kind = PlacementKind::kExplicit;
    placement.devices = {map};
  }
  Problem target = problem;
  if (problem.placement.kind == PlacementKind::kAuto) {
    target.placement = placement;
  } else if (problem.placement.kind != placement.kind ||
             (placement.kind == PlacementKind::kInterleaved &&
              problem.placement.chunks != placement.chunks) ||
             (placement.kind == PlacementKind::kExplicit &&
              problem.placement.devices != placement.devices)) {
    return Status(StatusCode::kInvalidInput,
                  source + ": the CSV places stages " + placement_name(placement.kind) +
                      " but the problem fixes the " + placement_name(problem.placement.kind) +
                      " placement");
  }
  Result<Expansion> expansion = expand(target, target.placement);
  if (!expansion.is_ok()) {
    return Status(StatusCode::kInvalidInput, source + ": " + expansion.status().message());
  }
  const Expansion& e = expansion.value();
  Order order;
  order.unit_device.resize(e.num_units());
  for (int32_t u = 0; u < e.num_units(); ++u) order.unit_device[u] = e.units[u].devices[0];
  order.device_slots.assign(p, {});
  std::vector<const Cell*> cell_of_op(e.num_ops(), nullptr);
  std::vector<std::vector<const Cell*>> cell_of_slot(p);
  auto op_at = [&](const Action& a, int64_t stage, int64_t mb, OpKind kind) -> Result<int32_t> {
    if (mb >= e.microbatches) {
      return cell_error(source, a.cell,
                        "micro-batch " + std::to_string(mb) + " is out of range (the problem has " +
                            std::to_string(e.microbatches) + ": 0.." +
                            std::to_string(e.microbatches - 1) + ")");
    }
    return e.op_of(static_cast<int32_t>(mb), e.unit_at(0, static_cast<int32_t>(stage)), kind);
  };
  for (int32_t r = 0; r < p; ++r) {
    for (const Action& a : actions[r]) {
      Slot slot;
      std::vector<int32_t> members;
      if (a.act == Act::kPair) {
        Result<int32_t> f = op_at(a, a.stage, a.mb, OpKind::kF);
        if (!f.is_ok()) return f.status();
        Result<int32_t> b = op_at(a, a.stage2, a.mb2, OpKind::kB);
        if (!b.is_ok()) return b.status();
        slot = {f.value(), b.value(), SlotKind::kPair};
      } else {
        const OpKind kind = a.act == Act::kF   ? OpKind::kF
                            : a.act == Act::kW ? OpKind::kW
                                               : OpKind::kB;
        Result<int32_t> op = op_at(a, a.stage, a.mb, kind);
        if (!op.is_ok()) return op.status();
        slot = {op.value(), -1, a.act == Act::kB ? SlotKind::kFullBackward : SlotKind::kSingle};
      }
      int32_t ops[3];
      const int32_t count = slot_ops(e, slot, ops);
      for (int32_t k = 0; k < count; ++k) {
        if (cell_of_op[ops[k]]) {
          const Cell* before = cell_of_op[ops[k]];
          return cell_error(source, a.cell,
                            e.op_label(ops[k]) + " runs a second time (first at line " +
                                std::to_string(before->line) + ", column " +
                                std::to_string(before->column) + ")");
        }
        cell_of_op[ops[k]] = &a.cell;
      }
      order.device_slots[r].push_back(slot);
      cell_of_slot[r].push_back(&a.cell);
    }
  }
  for (int32_t op = 0; op < e.num_ops(); ++op) {
    if (cell_of_op[op]) continue;
    const int32_t r = order.unit_device[e.ops[op].unit];
    const Cell& last = rows[r].back();
    const Op& o = e.ops[op];
    const int64_t stage = e.units[o.unit].stage;
    const std::string hint = o.kind == OpKind::kF ? action_text(stage, "F", o.microbatch)
                             : o.kind == OpKind::kB
                                 ? action_text(stage, "I", o.microbatch) + " (or " +
                                       action_text(stage, "B", o.microbatch) + ")"
                                 : action_text(stage, "W", o.microbatch) + " (or " +
                                       action_text(stage, "B", o.microbatch) + ")";
    return Status(StatusCode::kInvalidInput,
                  source + ":" + std::to_string(last.line) + ":" +
                      std::to_string(last.column + static_cast<int32_t>(last.text.size())) +
                      " (rank " + std::to_string(r) + "): the row never runs " + hint);
  }
  std::vector<size_t> blocked;
  Result<Timeline> timeline = simulate(e, order, &blocked);
  if (!timeline.is_ok()) {
    if (blocked.empty()) {
      return Status(StatusCode::kInvalidInput, source + ": " + timeline.status().message());
    }
    // Point at the first rank that waits, and at what it waits for.
    std::vector<char> done(e.num_ops(), 0);
    for (int32_t r = 0; r < p; ++r) {
      for (size_t k = 0; k < blocked[r]; ++k) {
        int32_t ops[3];
        const int32_t count = slot_ops(e, order.device_slots[r][k], ops);
        for (int32_t i = 0; i < count; ++i) done[ops[i]] = 1;
      }
    }
    for (int32_t r = 0; r < p; ++r) {
      if (blocked[r] >= order.device_slots[r].size()) continue;
      const Slot& slot = order.device_slots[r][blocked[r]];
      int32_t ops[3];
      const int32_t count = slot_ops(e, slot, ops);
      for (int32_t i = 0; i < count; ++i) {
        for (int32_t a = e.pred_begin[ops[i]]; a < e.pred_begin[ops[i] + 1]; ++a) {
          const int32_t from = e.arcs[e.pred_arcs[a]].from;
          if (done[from] || (i > 0 && from == ops[i - 1])) continue;
          const Cell* where = cell_of_op[from];
          return cell_error(source, *cell_of_slot[r][blocked[r]],
                            "the schedule deadlocks here: \"" +
                                trim(cell_of_slot[r][blocked[r]]->text) + "\" waits for \"" +
                                trim(where->text) + "\" (line " + std::to_string(where->line) +
                                ", column " + std::to_string(where->column) + ", rank " +
                                std::to_string(where->rank) + ") and no rank can move on");
        }
      }
    }
    return Status(StatusCode::kInvalidInput, source + ": " + timeline.status().message());
  }
  return evaluate_timeline(target, std::move(expansion).value(), std::move(timeline).value(),
                           "imported");
}

}  // namespace shardlab::pipeline
