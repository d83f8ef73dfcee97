// The facade (pipeline.h): running a named schedule end to end, evaluating
// a timeline found elsewhere, and the schedule JSON in both directions.
#include "core/pipeline/pipeline.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "core/json_doc.h"
#include "core/pipeline/numbers.h"
#include "core/progress_json.h"

namespace shardlab::pipeline {
namespace {

using nlohmann::ordered_json;

// Integral numbers as JSON integers, so that "start": 4 reads as written
// and native and wasm print the same bytes.
ordered_json num(double value) { return json_number(value); }

ordered_json times(const Expansion& e, const std::vector<int64_t>& ticks) {
  ordered_json out = ordered_json::array();
  for (int64_t t : ticks) out.push_back(num(e.time_value(t)));
  return out;
}

ordered_json mems(const Expansion& e, const std::vector<int64_t>& ticks) {
  ordered_json out = ordered_json::array();
  for (int64_t t : ticks) out.push_back(num(e.mem_value(t)));
  return out;
}

ordered_json problem_summary(const Problem& problem, const Expansion& e) {
  ordered_json out;
  out["name"] = problem.name;
  out["form"] = problem.form == Form::kStages ? "stages" : "operators";
  out["devices"] = e.devices;
  out["stages"] = e.stages;
  out["microbatches"] = e.microbatches;
  out["placement"] = placement_name(e.placement);
  out["chunks"] = e.chunks;
  out["copies"] = e.copies;
  out["uniform"] = problem.form == Form::kStages && problem.uniform;
  if (problem.form == Form::kStages && problem.uniform) {
    const StageSpec& s = problem.stages[0];
    out["F"] = num(s.f);
    out["B"] = num(s.b);
    out["W"] = num(s.w);
    out["FB"] = num(s.fb < 0 ? s.f + s.b + s.w : s.fb);
    out["act"] = num(s.act);
    out["keep"] = num(s.keep);
    out["param"] = num(s.param);
  } else {
    for (const char* key : {"F", "B", "W", "FB", "act", "keep", "param"}) out[key] = nullptr;
  }
  out["comm"] = num(problem.comm);
  if (problem.serial_links) out["links"] = "serial";
  out["mem_cap"] = caps_json(problem.mem_cap);
  out["time_scale"] = e.time_scale;
  out["mem_scale"] = e.mem_scale;
  return out;
}

// The op-identifying fields of one operation.
void describe_op(const Expansion& e, int32_t op, ordered_json* out) {
  const Op& o = e.ops[op];
  const Unit& u = e.units[o.unit];
  if (e.form == Form::kOperators) {
    (*out)["operator"] = e.operator_names[u.stage];
  } else {
    (*out)["stage"] = u.stage;
  }
  (*out)["chunk"] = u.chunk;
  (*out)["direction"] = u.copy;
  (*out)["microbatch"] = o.microbatch;
}

// Multiplies every time of an expansion by `factor` (a finer tick), so that
// times read from a schedule file stay exact.
void refine_ticks(Expansion* e, int64_t factor) {
  if (factor == 1) return;
  e->time_scale *= factor;
  for (Op& op : e->ops) op.duration *= factor;
  for (Unit& u : e->units) u.fb *= factor;
  for (Arc& a : e->arcs) a.delay *= factor;
}

// The factor (a power of ten up to 10^6) that makes every time integral.
int64_t tick_factor(const std::vector<double>& times, int64_t scale) {
  int64_t factor = 1;
  for (int k = 0; k <= 6; ++k, factor *= 10) {
    bool integral = true;
    for (double t : times) {
      const double x = t * static_cast<double>(scale * factor);
      if (std::fabs(x - std::nearbyint(x)) > 1e-9 * std::max(1.0, std::fabs(x))) {
        integral = false;
        break;
      }
    }
    if (integral) return factor;
  }
  return 1'000'000;
}

}  // namespace

ScheduleResult evaluate_timeline(const Problem& problem, Expansion expansion, Timeline timeline,
                                 std::string name) {
  ScheduleResult out;
  out.name = std::move(name);
  out.problem = problem;
  out.expansion = std::move(expansion);
  out.timeline = std::move(timeline);
  out.check = check_schedule(out.expansion, out.timeline);
  if (out.check.violation_count == 0 || !out.timeline.slots.empty()) {
    out.metrics = measure(out.expansion, out.timeline);
  }
  out.closed = closed_form(out.name, out.expansion);
  return out;
}

Result<ScheduleResult> run_schedule(const Problem& problem, std::string_view name) {
  Result<Generated> generated = generate(problem, name);
  if (!generated.is_ok()) return generated.status();
  std::string canonical;
  find_schedule(name, &canonical);
  Result<Timeline> timeline = simulate(generated.value().expansion, generated.value().order);
  if (!timeline.is_ok()) {
    // A generator's order that does not simulate is a bug, not bad input.
    return Status(StatusCode::kInternal, canonical + ": " + timeline.status().message());
  }
  return evaluate_timeline(problem, std::move(generated.value().expansion),
                           std::move(timeline).value(), canonical);
}

std::string schedule_json(const ScheduleResult& s, int indent) {
  const Expansion& e = s.expansion;
  const Metrics& m = s.metrics;
  const int32_t p = e.devices;
  ordered_json out;
  out["format"] = "shardlab-pipeline-schedule";
  out["version"] = 1;
  out["name"] = s.name;
  out["problem"] = problem_summary(s.problem, e);
  out["makespan"] = num(e.time_value(m.makespan));
  out["busy"] = times(e, m.busy);
  ordered_json bubble;
  bubble["global"] = times(e, m.global_idle);
  bubble["span"] = times(e, m.span_idle);
  bubble["global_total"] = num(e.time_value(m.global_total()));
  bubble["span_total"] = num(e.time_value(m.span_total()));
  const double capacity = static_cast<double>(m.makespan) * p;
  bubble["global_rate"] = capacity > 0 ? static_cast<double>(m.global_total()) / capacity : 0.0;
  int64_t spans = 0;
  for (int32_t d = 0; d < p; ++d) spans += m.busy[d] + m.span_idle[d];
  bubble["span_rate"] = spans > 0 ? static_cast<double>(m.span_total()) / spans : 0.0;
  out["bubble"] = bubble;
  out["peak_activation"] = mems(e, m.peak_activation);
  out["peak_parameter"] = mems(e, m.peak_parameter);
  std::vector<int64_t> total(p);
  for (int32_t d = 0; d < p; ++d) total[d] = m.peak_activation[d] + m.peak_parameter[d];
  out["peak_memory"] = mems(e, total);
  out["mem_cap"] = out["problem"]["mem_cap"];
  if (s.closed) {
    const ClosedForm& c = *s.closed;
    ordered_json cf;
    cf["formula"] = c.formula;
    cf["value"] = num(e.time_value(c.value));
    cf["metric"] = c.metric;
    cf["assumption"] = c.assumption;
    cf["holds"] = c.holds;
    const std::vector<int64_t>& idle = c.metric == "span" ? m.span_idle : m.global_idle;
    const int64_t worst = idle.empty() ? 0 : *std::max_element(idle.begin(), idle.end());
    cf["simulated"] = num(e.time_value(worst));
    cf["matches"] = worst == c.value;
    cf["peak_activation_formula"] = c.peak_formula;
    cf["peak_activation_value"] = num(e.mem_value(c.peak_value));
    cf["peak_activation_assumption"] = c.peak_assumption;
    cf["peak_activation_holds"] = c.peak_holds;
    const int64_t peak = m.peak_activation.empty() ? 0
                                                   : *std::max_element(m.peak_activation.begin(),
                                                                       m.peak_activation.end());
    cf["peak_activation_simulated"] = num(e.mem_value(peak));
    cf["peak_activation_matches"] = peak == c.peak_value;
    out["closed_form"] = cf;
  } else {
    out["closed_form"] = nullptr;
  }
  out["lower_bound"] = s.lower_bound ? ordered_json(num(*s.lower_bound)) : ordered_json(nullptr);
  out["optimal"] = s.optimal ? ordered_json(*s.optimal) : ordered_json(nullptr);
  if (s.planner_counters) out["planner"] = counters_to_json(*s.planner_counters);
  if (s.seconds) out["seconds"] = *s.seconds;
  ordered_json units = ordered_json::array();
  for (int32_t u = 0; u < e.num_units(); ++u) {
    ordered_json unit;
    if (e.form == Form::kOperators) {
      unit["operator"] = e.operator_names[e.units[u].stage];
    } else {
      unit["stage"] = e.units[u].stage;
    }
    unit["direction"] = e.units[u].copy;
    unit["chunk"] = e.units[u].chunk;
    unit["device"] = s.timeline.unit_device[u];
    units.push_back(unit);
  }
  out["units"] = units;
  // Ops: one entry per slot, device by device in time order.
  const int32_t n = e.num_ops();
  std::vector<int32_t> slot_of(n, -1);
  int32_t ops[3];
  for (int32_t i = 0; i < static_cast<int32_t>(s.timeline.slots.size()); ++i) {
    const int32_t count = slot_ops(e, s.timeline.slots[i].slot, ops);
    for (int32_t k = 0; k < count; ++k) {
      if (ops[k] >= 0 && ops[k] < n) slot_of[ops[k]] = i;
    }
  }
  const std::vector<int64_t>& arrival = s.check.arrival;  // serial links only
  ordered_json list = ordered_json::array();
  for (int32_t i = 0; i < static_cast<int32_t>(s.timeline.slots.size()); ++i) {
    const TimedSlot& ts = s.timeline.slots[i];
    ordered_json op;
    op["id"] = i;
    op["device"] = ts.device;
    describe_op(e, ts.slot.op, &op);
    op["kind"] = slot_kind_name(e, ts.slot);
    op["start"] = num(e.time_value(ts.start));
    op["end"] = num(e.time_value(ts.end));
    if (ts.slot.is_pair()) {
      ordered_json backward;
      describe_op(e, ts.slot.partner, &backward);
      op["backward"] = backward;
    }
    // Predecessor slots with the delay that applies (0 on the same device;
    // with serial links the wait for the link too; the largest when several
    // arcs join the two slots).
    std::map<int32_t, int64_t> deps;
    const int32_t count = slot_ops(e, ts.slot, ops);
    for (int32_t k = 0; k < count; ++k) {
      for (int32_t a = e.pred_begin[ops[k]]; a < e.pred_begin[ops[k] + 1]; ++a) {
        const Arc& arc = e.arcs[e.pred_arcs[a]];
        const int32_t from = slot_of[arc.from];
        if (from < 0 || from == i) continue;
        const bool crosses = s.timeline.unit_device[e.ops[arc.from].unit] !=
                             s.timeline.unit_device[e.ops[ops[k]].unit];
        int64_t& delay = deps[from];
        const int64_t wait = !crosses ? 0
                             : !arrival.empty()
                                 ? arrival[e.pred_arcs[a]] - s.timeline.slots[from].end
                                 : arc.delay;
        delay = std::max(delay, wait);
      }
    }
    ordered_json dep_ids = ordered_json::array(), delays = ordered_json::array();
    for (const auto& [from, delay] : deps) {
      dep_ids.push_back(from);
      delays.push_back(num(e.time_value(delay)));
    }
    op["deps"] = dep_ids;
    op["delays"] = delays;
    list.push_back(op);
  }
  out["ops"] = list;
  ordered_json memory = ordered_json::array();
  for (const MemoryProfile& profile : m.memory) {
    ordered_json track;
    track["t"] = times(e, profile.time);
    track["activation"] = mems(e, profile.activation);
    memory.push_back(track);
  }
  out["memory"] = memory;
  out["valid"] = s.check.valid;
  out["violations"] = s.check.violations;
  out["violation_count"] = s.check.violation_count;
  return out.dump(indent);
}

std::string compare_json(const Problem& problem) {
  ordered_json rows = ordered_json::array();
  auto largest = [](const std::vector<int64_t>& v) {
    return v.empty() ? int64_t{0} : *std::max_element(v.begin(), v.end());
  };
  for (const ScheduleInfo& info : list_schedules(problem)) {
    ordered_json row;
    row["name"] = info.name;
    row["summary"] = info.summary;
    Result<ScheduleResult> run =
        info.applicable ? run_schedule(problem, info.name)
                        : Result<ScheduleResult>(Status(StatusCode::kInvalidArgument, info.reason));
    row["applicable"] = run.is_ok();
    if (!run.is_ok()) {
      row["reason"] = run.status().message();
      rows.push_back(row);
      continue;
    }
    const ScheduleResult& s = run.value();
    const Expansion& e = s.expansion;
    const Metrics& m = s.metrics;
    row["reason"] = "";
    row["makespan"] = num(e.time_value(m.makespan));
    row["global_idle_max"] = num(e.time_value(largest(m.global_idle)));
    row["span_idle_max"] = num(e.time_value(largest(m.span_idle)));
    row["peak_activation_max"] = num(e.mem_value(largest(m.peak_activation)));
    row["peak_parameter_max"] = num(e.mem_value(largest(m.peak_parameter)));
    row["devices"] = e.devices;
    row["valid"] = s.check.valid;
    row["violation"] = s.check.violations.empty() ? "" : s.check.violations[0];
    if (s.closed) {
      const int64_t simulated = largest(s.closed->metric == "span" ? m.span_idle : m.global_idle);
      row["closed_form"] = {{"formula", s.closed->formula},
                            {"value", num(e.time_value(s.closed->value))},
                            {"metric", s.closed->metric},
                            {"holds", s.closed->holds},
                            {"matches", simulated == s.closed->value}};
    } else {
      row["closed_form"] = nullptr;
    }
    rows.push_back(row);
  }
  return rows.dump();
}

Result<ScheduleResult> read_schedule_json(const Problem& problem, const std::string& source,
                                          std::string_view text) {
  Result<json::Document> doc = json::Document::parse(source, text);
  if (!doc.is_ok()) return doc.status();
  const json::Document& document = doc.value();
  const json::JsonAt root = document.root();
  json::Errors errors;
  errors.add(root.expect(json::Kind::kObject));
  if (!errors.ok()) return errors.status();
  const std::string format = errors.take(root.string_or("format", "shardlab-pipeline-schedule"));
  if (errors.ok() && format != "shardlab-pipeline-schedule") {
    return root["format"].error("\"shardlab-pipeline-schedule\"");
  }
  const std::string name = errors.take(root.string_or("name", "imported"));
  // The placement the schedule was made on.
  Placement placement;
  const json::JsonAt summary = root["problem"];
  if (summary.exists()) {
    errors.add(summary.expect(json::Kind::kObject));
    const std::string kind = errors.take(summary.string_or("placement", "auto"));
    if (errors.ok() && !parse_placement(kind, &placement.kind)) {
      return summary["placement"].error(
          "a placement name (linear, interleaved, v-shape, "
          "bidirectional, free, explicit)");
    }
    if (placement.kind == PlacementKind::kExplicit) placement = problem.placement;
    placement.chunks = static_cast<int32_t>(
        errors.take(summary.integer_or("chunks", problem.placement.chunks, 1, 64)));
  }
  if (!errors.ok()) return errors.status();
  Result<Expansion> expansion = expand(problem, placement);
  if (!expansion.is_ok()) {
    // The schedule's placement does not fit this problem: say where it is set.
    const json::JsonAt at = summary.has("placement") ? summary["placement"] : root;
    return at.error("a placement that fits the problem", expansion.status().message());
  }
  const json::JsonAt ops = root["ops"];
  Status listed = ops.expect_array(static_cast<size_t>(expansion.value().num_ops()),
                                   "entries (one per operation of the problem)");
  if (!listed.is_ok()) return listed;
  // A schedule may use times finer than the problem's own values, down to
  // the lab's resolution; finer ones would be rounded, so they are refused.
  std::vector<double> stamps;
  for (size_t i = 0; i < ops.size(); ++i) {
    for (const char* key : {"start", "end"}) {
      if (ops[i][key].is(json::Kind::kNumber)) stamps.push_back(ops[i][key].value().number);
    }
  }
  refine_ticks(&expansion.value(), tick_factor(stamps, expansion.value().time_scale));
  const Expansion& e = expansion.value();
  const double scale = static_cast<double>(e.time_scale);
  // Every sum over the timeline (busy time over devices) stays in int64.
  const double max_ticks = 4.6e18 / std::max(1, e.devices) / 4;
  auto read_time = [&](const json::JsonAt& at) -> Result<int64_t> {
    Result<double> t = at.number(0, max_ticks / scale);
    if (!t.is_ok()) return t.status();
    const double x = t.value() * scale;
    if (std::fabs(x - std::nearbyint(x)) > 1e-9 * std::max(1.0, std::fabs(x))) {
      return at.error("a time with at most 6 decimals beyond the problem's own (a multiple of " +
                      number_text(1.0 / scale) + ")");
    }
    return static_cast<int64_t>(std::llround(x));
  };
  Timeline timeline;
  timeline.unit_device.assign(e.num_units(), -1);
  std::vector<int32_t> unit_entry(e.num_units(), -1);  // the entry that placed each unit
  std::vector<int32_t> op_entry(e.num_ops(), -1);      // the entry that runs each op
  std::vector<int32_t> slot_entry;                     // the entry of each slot
  // Reads the op fields of an entry (or its "backward" part) to an op id.
  auto op_at = [&](const json::JsonAt& at, OpKind kind) -> Result<int32_t> {
    int32_t stage = 0;
    if (e.form == Form::kOperators) {
      const std::string op_name = errors.take(at["operator"].string());
      if (!errors.ok()) return errors.status();
      auto it = std::find(e.operator_names.begin(), e.operator_names.end(), op_name);
      if (it == e.operator_names.end()) return at["operator"].error("an operator of the problem");
      stage = static_cast<int32_t>(it - e.operator_names.begin());
    } else {
      stage = static_cast<int32_t>(errors.take(at["stage"].integer(0, e.stages - 1)));
    }
    const int32_t copy =
        static_cast<int32_t>(errors.take(at.integer_or("direction", 0, 0, e.copies - 1)));
    const int32_t mb =
        static_cast<int32_t>(errors.take(at["microbatch"].integer(0, e.microbatches - 1)));
    if (!errors.ok()) return errors.status();
    const int32_t unit = e.form == Form::kOperators ? stage : e.unit_at(copy, stage);
    const int32_t op = e.op_of(mb, unit, kind);
    if (op < 0) {
      return at["direction"].error("the direction micro-batch " + std::to_string(mb) +
                                   " runs in (" + std::to_string(e.microbatch_copy[mb]) + ")");
    }
    return op;
  };
  for (size_t i = 0; i < ops.size(); ++i) {
    const json::JsonAt entry = ops[i];
    errors.add(entry.expect(json::Kind::kObject));
    if (!errors.ok()) return errors.status();
    const int32_t device =
        static_cast<int32_t>(errors.take(entry["device"].integer(0, e.devices - 1)));
    const std::string kind = errors.take(entry["kind"].string());
    const int64_t start = errors.take(read_time(entry["start"]));
    const int64_t end = errors.take(read_time(entry["end"]));
    if (!errors.ok()) return errors.status();
    TimedSlot slot;
    slot.device = device;
    slot.start = start;
    slot.end = end;
    OpKind first = OpKind::kF;
    if (kind == "F") {
      slot.slot.kind = SlotKind::kSingle;
    } else if (kind == "B") {
      first = OpKind::kB;
    } else if (kind == "W") {
      first = OpKind::kW;
    } else if (kind == "BW") {
      first = OpKind::kB;
      slot.slot.kind = SlotKind::kFullBackward;
    } else if (kind == "FB") {
      slot.slot.kind = SlotKind::kPair;
    } else {
      return entry["kind"].error("one of \"F\", \"B\", \"W\", \"BW\", \"FB\"");
    }
    Result<int32_t> op = op_at(entry, first);
    if (!op.is_ok()) return op.status();
    slot.slot.op = op.value();
    if (slot.slot.kind == SlotKind::kPair) {
      // The overlapped backward half names its own stage and micro-batch.
      const json::JsonAt backward = entry["backward"];
      Status is_object = backward.expect(json::Kind::kObject);
      if (!is_object.is_ok()) return is_object;
      Result<int32_t> b = op_at(backward, OpKind::kB);
      if (!b.is_ok()) return b.status();
      slot.slot.partner = b.value();
    }
    // Each operation once, and each stage copy (or operator) on one device.
    int32_t members[3];
    const int32_t count = slot_ops(e, slot.slot, members);
    for (int32_t k = 0; k < count; ++k) {
      const int32_t member = members[k];
      if (op_entry[member] >= 0) {
        return entry.error("each operation once", e.op_label(member) + " again (also ops[" +
                                                      std::to_string(op_entry[member]) + "])");
      }
      op_entry[member] = static_cast<int32_t>(i);
      const int32_t unit = e.ops[member].unit;
      if (timeline.unit_device[unit] < 0) {
        timeline.unit_device[unit] = device;
        unit_entry[unit] = static_cast<int32_t>(i);
      } else if (timeline.unit_device[unit] != device) {
        return entry["device"].error(
            "device " + std::to_string(timeline.unit_device[unit]) + " (" +
                e.op_label(member).substr(e.op_label(member).find(' ') + 1) +
                " runs there in ops[" + std::to_string(unit_entry[unit]) +
                "]; a stage copy's operations share its device)",
            std::to_string(device));
      }
    }
    const int64_t length = slot_duration(e, slot.slot);
    if (slot.end - slot.start != length) {
      return entry["end"].error(
          "start + " + time_text(e, length) + " = " + time_text(e, slot.start + length) + " (" +
              (kind == "FB" ? std::string("an F&B pair") : kind) + " of " +
              e.op_label(slot.slot.op) + " takes " + time_text(e, length) + ")",
          time_text(e, slot.end));
    }
    timeline.slots.push_back(slot);
    slot_entry.push_back(static_cast<int32_t>(i));
  }
  int32_t missing = 0, first_missing = -1;
  for (int32_t op = 0; op < e.num_ops(); ++op) {
    if (op_entry[op] >= 0) continue;
    if (first_missing < 0) first_missing = op;
    ++missing;
  }
  if (missing > 0) {
    return ops.error(
        "an entry for every operation of the problem (" + std::to_string(e.num_ops()) + ")",
        "none for " + e.op_label(first_missing) +
            (missing > 1 ? " and " + std::to_string(missing - 1) + " more" : ""));
  }
  for (int32_t u = 0; u < e.num_units(); ++u) {
    if (timeline.unit_device[u] < 0) timeline.unit_device[u] = e.units[u].devices[0];
  }
  // Device by device, by start; the entries follow their slots.
  std::vector<int32_t> order(timeline.slots.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = static_cast<int32_t>(k);
  std::stable_sort(order.begin(), order.end(), [&](int32_t x, int32_t y) {
    const TimedSlot& a = timeline.slots[x];
    const TimedSlot& b = timeline.slots[y];
    return a.device != b.device ? a.device < b.device : a.start < b.start;
  });
  std::vector<TimedSlot> sorted;
  std::vector<int32_t> sorted_entry;
  for (int32_t k : order) {
    sorted.push_back(timeline.slots[k]);
    sorted_entry.push_back(slot_entry[k]);
  }
  timeline.slots = std::move(sorted);
  ScheduleResult result =
      evaluate_timeline(problem, std::move(expansion).value(), std::move(timeline), name);
  // The checker's findings, at the entries they are about.
  CheckReport& report = result.check;
  for (size_t k = 0; k < report.violations.size() && k < report.violation_slots.size(); ++k) {
    const int32_t slot = report.violation_slots[k];
    if (slot < 0 || slot >= static_cast<int32_t>(sorted_entry.size())) continue;
    const json::JsonAt entry = ops[static_cast<size_t>(sorted_entry[slot])];
    report.violations[k] =
        document.where(entry.offset()) + ": at " + entry.path() + ": " + report.violations[k];
  }
  return result;
}

}  // namespace shardlab::pipeline
