// The problem file reader and writer (see problem_json.h). Reads through
// core/json_doc.h so that every error carries the file, line:column, byte
// and JSON path; the semantic checks (keep above act, a device out of range,
// a cycle in the operator graph, duplicate names) point at the offending
// value too.
#include "core/pipeline/problem_json.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "core/json_doc.h"
#include "core/pipeline/memory.h"
#include "core/pipeline/numbers.h"

namespace shardlab::pipeline {
namespace {

constexpr int64_t kMaxDevices = 1024;
constexpr int64_t kMaxMicrobatches = 100000;
constexpr int64_t kMaxItems = 100000;
constexpr size_t kMaxStages = kMaxDevices * 64;  // a chain, or an explicit placement
constexpr double kMaxTime = 1e9;
constexpr double kMaxMemory = 1e12;

using json::JsonAt;
using json::Kind;

// A time or memory value of the file: a number from 0 (or, for F and B,
// above 0) to max, exact at the lab's resolution of 6 decimals, so that the
// expansion's integer ticks never round it (or round it to 0).
Result<double> read_amount(const JsonAt& at, double fallback, double max, bool positive) {
  if (!at.exists()) return fallback;
  json::Errors errors;
  const double value = errors.take(at.number(0, max));
  if (!errors.ok()) return errors.status();
  if (positive && value == 0) {
    return at.error("a time above 0 (F and B take time; only W may be 0)");
  }
  if (!on_resolution(value)) {
    return at.error("a number with at most 6 decimals (times and memory are exact to 1e-6)");
  }
  return value;
}

// Reads F/B/W/FB/act/keep/param (and comm) of an object over defaults.
Status read_values(const JsonAt& at, StageSpec* s, bool with_comm) {
  json::Errors errors;
  s->f = errors.take(read_amount(at["F"], s->f, kMaxTime, true));
  s->b = errors.take(read_amount(at["B"], s->b, kMaxTime, true));
  s->w = errors.take(read_amount(at["W"], s->w, kMaxTime, false));
  if (at.has("FB")) s->fb = errors.take(read_amount(at["FB"], s->fb, kMaxTime, true));
  s->act = errors.take(read_amount(at["act"], s->act, kMaxMemory, false));
  s->keep = errors.take(read_amount(at["keep"], s->keep, kMaxMemory, false));
  s->param = errors.take(read_amount(at["param"], s->param, kMaxMemory, false));
  if (with_comm && at.has("comm")) {
    s->comm = errors.take(read_amount(at["comm"], s->comm, kMaxTime, false));
  }
  if (!errors.ok()) return errors.status();
  if (s->keep > s->act) {
    const JsonAt where = at.has("keep") ? at["keep"] : at["act"];
    return where.error("keep at most act (" + number_text(s->act) + ")");
  }
  return Status::ok();
}

// "transformer": {"h", "s", "b", "a", "t", "layers", "bytes_per_param"}
// (memory.h); h, s and a are required.
Result<TransformerSpec> read_transformer(const JsonAt& at) {
  Status keys = at.only_keys({"h", "s", "b", "a", "t", "layers", "bytes_per_param"});
  if (!keys.is_ok()) return keys;
  json::Errors errors;
  TransformerSpec t;
  t.hidden = static_cast<double>(errors.take(at["h"].integer(1, 10'000'000)));
  t.seq = static_cast<double>(errors.take(at["s"].integer(1, 10'000'000)));
  t.micro_batch = static_cast<double>(errors.take(at.integer_or("b", 1, 1, 10'000'000)));
  t.heads = static_cast<double>(errors.take(at["a"].integer(1, 1'000'000)));
  t.tensor_parallel = static_cast<double>(errors.take(at.integer_or("t", 1, 1, 1'000'000)));
  t.layers = errors.take(at.number_or("layers", 1, 0, 1'000'000));
  t.bytes_per_param = errors.take(at.number_or("bytes_per_param", 16, 0, 1'000));
  if (!errors.ok()) return errors.status();
  return t;
}

// A list of device indices (at most `max_items`, each below `devices`).
Result<std::vector<int32_t>> read_devices(const JsonAt& at, int32_t devices, size_t max_items) {
  Status status = at.expect_array(max_items, "device indices");
  if (!status.is_ok()) return status;
  std::vector<int32_t> out;
  out.reserve(at.size());
  json::Errors errors;
  for (size_t i = 0; i < at.size(); ++i) {
    out.push_back(static_cast<int32_t>(errors.take(at[i].integer(0, devices - 1))));
    if (!errors.ok()) return errors.status();
  }
  return out;
}

// "links": "parallel" (every transfer in flight on its own) or "serial"
// (one at a time per pair of devices); true for serial.
Result<bool> read_links(const JsonAt& at) {
  json::Errors errors;
  const std::string text = errors.take(at.string());
  if (!errors.ok()) return errors.status();
  if (text != "parallel" && text != "serial") return at.error("\"parallel\" or \"serial\"");
  return text == "serial";
}

Status read_placement(const JsonAt& at, Problem* problem) {
  if (at.is(Kind::kString)) {
    const std::string text = at.value().text;
    if (!parse_placement(text, &problem->placement.kind) ||
        problem->placement.kind == PlacementKind::kExplicit) {
      return at.error(
          "a placement: \"auto\", \"linear\", \"interleaved\", \"v-shape\", \"bidirectional\", "
          "\"free\", or a list of devices per stage");
    }
    return Status::ok();
  }
  if (!at.is(Kind::kArray) || at.size() == 0) {
    return at.error("a placement name or a non-empty list of devices per stage");
  }
  problem->placement.kind = PlacementKind::kExplicit;
  if (at[size_t{0}].is(Kind::kArray)) {
    if (at.size() > 2) return at.error("one list of devices per copy (at most 2)");
    for (size_t c = 0; c < at.size(); ++c) {
      Result<std::vector<int32_t>> list = read_devices(at[c], problem->devices, kMaxStages);
      if (!list.is_ok()) return list.status();
      if (list.value().empty()) return at[c].error("a non-empty list of devices per stage");
      problem->placement.devices.push_back(list.value());
    }
    return Status::ok();
  }
  Result<std::vector<int32_t>> list = read_devices(at, problem->devices, kMaxStages);
  if (!list.is_ok()) return list.status();
  problem->placement.devices.push_back(list.value());
  return Status::ok();
}

Status read_operators(const JsonAt& root, const StageSpec& defaults, Problem* problem) {
  const JsonAt ops = root["operators"];
  if (!ops.is(Kind::kArray) || ops.size() == 0 || ops.size() > static_cast<size_t>(kMaxItems)) {
    return ops.error("a non-empty array of operators");
  }
  std::map<std::string, int32_t> index;
  for (size_t i = 0; i < ops.size(); ++i) {
    const JsonAt at = ops[i];
    Status keys = at.only_keys({"name", "F", "B", "W", "act", "keep", "param", "devices"});
    if (!keys.is_ok()) return keys;
    OperatorSpec o;
    json::Errors errors;
    o.name = errors.take(at["name"].string());
    if (!errors.ok()) return errors.status();
    if (o.name.empty()) return at["name"].error("a non-empty name");
    if (index.count(o.name)) {
      return at["name"].error("a name not used before", json::quote(o.name) + " (also operators[" +
                                                            std::to_string(index[o.name]) + "])");
    }
    index[o.name] = static_cast<int32_t>(i);
    StageSpec v = defaults;
    Status values = read_values(at, &v, false);
    if (!values.is_ok()) return values;
    o.f = v.f;
    o.b = v.b;
    o.w = v.w;
    o.act = v.act;
    o.keep = v.keep;
    o.param = v.param;
    if (at.has("devices")) {
      Result<std::vector<int32_t>> devices =
          read_devices(at["devices"], problem->devices, static_cast<size_t>(problem->devices));
      if (!devices.is_ok()) return devices.status();
      o.devices = devices.value();
      if (o.devices.empty()) return at["devices"].error("at least one device");
      for (size_t k = 1; k < o.devices.size(); ++k) {
        if (o.devices[k] <= o.devices[k - 1]) {
          return at["devices"][k].error("devices in ascending order without repeats");
        }
      }
    }
    problem->operators.push_back(o);
  }
  const JsonAt edges = root["edges"];
  if (!edges.exists()) return Status::ok();
  if (!edges.is(Kind::kArray) || edges.size() > static_cast<size_t>(kMaxItems)) {
    return edges.error("an array of edges");
  }
  auto endpoint = [&](const JsonAt& at) -> Result<int32_t> {
    if (at.is(Kind::kString)) {
      auto it = index.find(at.value().text);
      if (it == index.end()) return at.error("the name of an operator");
      return it->second;
    }
    json::Errors errors;
    const int64_t i = errors.take(at.integer(0, static_cast<int64_t>(ops.size()) - 1));
    if (!errors.ok()) return at.error("an operator name or index");
    return static_cast<int32_t>(i);
  };
  for (size_t i = 0; i < edges.size(); ++i) {
    const JsonAt at = edges[i];
    JsonAt from = at[size_t{0}], to = at[size_t{1}];
    EdgeSpec edge;
    if (at.is(Kind::kObject)) {
      Status keys = at.only_keys({"from", "to", "comm"});
      if (!keys.is_ok()) return keys;
      from = at["from"];
      to = at["to"];
      if (at.has("comm")) {
        json::Errors errors;
        edge.comm = errors.take(read_amount(at["comm"], 0, kMaxTime, false));
        if (!errors.ok()) return errors.status();
      }
    } else if (!at.is(Kind::kArray) || at.size() != 2) {
      return at.error("an edge: {\"from\": A, \"to\": B} or [A, B]");
    }
    Result<int32_t> a = endpoint(from);
    if (!a.is_ok()) return a.status();
    Result<int32_t> b = endpoint(to);
    if (!b.is_ok()) return b.status();
    if (a.value() == b.value()) return to.error("an operator other than the edge's source");
    edge.from = a.value();
    edge.to = b.value();
    problem->edges.push_back(edge);
  }
  // A cycle: report the first edge among the operators left after peeling
  // every operator that can be ordered.
  const int32_t n = static_cast<int32_t>(problem->operators.size());
  std::vector<int32_t> indegree(n, 0);
  std::vector<std::vector<int32_t>> out(n);
  for (const EdgeSpec& e : problem->edges) {
    out[e.from].push_back(e.to);
    ++indegree[e.to];
  }
  std::vector<int32_t> ready;
  std::vector<char> ordered(n, 0);
  for (int32_t i = 0; i < n; ++i) {
    if (indegree[i] == 0) ready.push_back(i);
  }
  while (!ready.empty()) {
    const int32_t i = ready.back();
    ready.pop_back();
    ordered[i] = 1;
    for (int32_t j : out[i]) {
      if (--indegree[j] == 0) ready.push_back(j);
    }
  }
  for (size_t i = 0; i < problem->edges.size(); ++i) {
    const EdgeSpec& e = problem->edges[i];
    if (!ordered[e.from] && !ordered[e.to]) {
      return edges[i].error(
          "edges without a cycle",
          "an edge on a cycle through " + json::quote(problem->operators[e.from].name));
    }
  }
  return Status::ok();
}

}  // namespace

Result<Problem> read_problem_json(const std::string& source, std::string_view text) {
  json::Limits limits;
  limits.max_bytes = kMaxProblemBytes;
  Result<json::Document> doc = json::Document::parse(source, text, limits);
  if (!doc.is_ok()) return doc.status();
  const JsonAt root = doc.value().root();
  Status keys = root.only_keys(
      {"format",  "version", "name",      "devices", "microbatches", "comm",  "links",
       "mem_cap", "F",       "B",         "W",       "FB",           "act",   "keep",
       "param",   "chunks",  "placement", "stages",  "operators",    "edges", "transformer"});
  if (!keys.is_ok()) return keys;
  json::Errors errors;
  Problem problem;
  if (root.has("format")) {
    const std::string format = errors.take(root["format"].string());
    if (errors.ok() && format != "shardlab-pipeline-problem") {
      return root["format"].error("\"shardlab-pipeline-problem\"");
    }
  }
  errors.take(root.integer_or("version", 1, 1, 1));
  problem.name = errors.take(root.string_or("name", ""));
  problem.microbatches =
      static_cast<int32_t>(errors.take(root["microbatches"].integer(1, kMaxMicrobatches)));
  problem.comm = errors.take(read_amount(root["comm"], 0, kMaxTime, false));
  problem.placement.chunks = static_cast<int32_t>(errors.take(root.integer_or("chunks", 2, 1, 64)));
  if (!errors.ok()) return errors.status();
  if (root.has("links")) {
    Result<bool> serial = read_links(root["links"]);
    if (!serial.is_ok()) return serial.status();
    problem.serial_links = serial.value();
  }
  StageSpec defaults;
  if (root.has("transformer")) {
    Result<TransformerSpec> t = read_transformer(root["transformer"]);
    if (!t.is_ok()) return t.status();
    problem.transformer = t.value();
    apply_transformer(t.value(), &defaults);
  }
  Status values = read_values(root, &defaults, false);
  if (!values.is_ok()) return values;
  const bool has_stages = root.has("stages");
  const bool has_operators = root.has("operators");
  if (has_stages && has_operators) {
    return root["operators"].error("either \"stages\" or \"operators\" (this problem has both)");
  }
  if (!has_operators && root.has("edges")) {
    return root["edges"].error("\"edges\" only beside \"operators\"");
  }
  const JsonAt stages = root["stages"];
  if (has_stages && (!stages.is(Kind::kArray) || stages.size() == 0)) {
    return stages.error("a non-empty array of stages");
  }
  if (has_stages) {
    Status size = stages.expect_array(kMaxStages, "stages");
    if (!size.is_ok()) return size;
  }
  if (has_stages && !root.has("devices")) {
    problem.devices = static_cast<int32_t>(std::min<size_t>(stages.size(), kMaxDevices));
  } else {
    problem.devices = static_cast<int32_t>(errors.take(root["devices"].integer(1, kMaxDevices)));
  }
  if (!errors.ok()) return errors.status();
  if (root.has("mem_cap") && !root["mem_cap"].is(Kind::kNull)) {
    const JsonAt cap = root["mem_cap"];
    if (cap.is(Kind::kArray)) {
      if (static_cast<int32_t>(cap.size()) != problem.devices) {
        return cap.error(
            "an array of " + std::to_string(problem.devices) + " caps (one per device)",
            "an array of " + std::to_string(cap.size()));
      }
      for (size_t d = 0; d < cap.size() && errors.ok(); ++d) {
        problem.mem_cap.push_back(errors.take(read_amount(cap[d], 0, kMaxMemory, false)));
      }
    } else {
      problem.mem_cap.assign(problem.devices, errors.take(read_amount(cap, 0, kMaxMemory, false)));
    }
    if (!errors.ok()) return errors.status();
  }
  if (root.has("placement")) {
    Status placement = read_placement(root["placement"], &problem);
    if (!placement.is_ok()) return placement;
    if (has_operators && problem.placement.kind != PlacementKind::kAuto &&
        problem.placement.kind != PlacementKind::kFree) {
      return root["placement"].error(
          "\"auto\" or \"free\" (operators choose among their \"devices\")");
    }
  }
  if (has_operators) {
    problem.form = Form::kOperators;
    problem.uniform = false;
    Status ops = read_operators(root, defaults, &problem);
    if (!ops.is_ok()) return ops;
  } else if (has_stages) {
    problem.uniform = false;
    for (size_t s = 0; s < stages.size(); ++s) {
      const JsonAt at = stages[s];
      Status stage_keys = at.only_keys({"F", "B", "W", "FB", "act", "keep", "param", "comm"});
      if (!stage_keys.is_ok()) return stage_keys;
      StageSpec spec = defaults;
      Status stage_values = read_values(at, &spec, true);
      if (!stage_values.is_ok()) return stage_values;
      problem.stages.push_back(spec);
    }
  } else {
    problem.stages = {defaults};
  }
  if (problem.placement.kind == PlacementKind::kExplicit) {
    const size_t count =
        problem.uniform ? problem.placement.devices[0].size() : problem.stages.size();
    for (size_t c = 0; c < problem.placement.devices.size(); ++c) {
      if (problem.placement.devices[c].size() != count) {
        const JsonAt at =
            problem.placement.devices.size() == 2 ? root["placement"][c] : root["placement"];
        return at.error(
            "one device for each of the " + std::to_string(count) + " stages",
            "a list of " + std::to_string(problem.placement.devices[c].size()) + " devices");
      }
    }
  }
  // Totals that would leave 64-bit ticks, at the count that multiplies them.
  const Totals totals = exact_totals(problem);
  if (!totals.ok) return root["microbatches"].error(totals.expected, totals.found);
  Status valid = validate(problem);
  if (!valid.is_ok()) return Status(StatusCode::kInvalidInput, source + ": " + valid.message());
  return problem;
}

std::string problem_json(const Problem& problem, int indent) {
  nlohmann::ordered_json out;
  const auto num = json_number;
  auto values = [&](nlohmann::ordered_json* o, double f, double b, double w, double fb, double act,
                    double keep, double param) {
    (*o)["F"] = num(f);
    (*o)["B"] = num(b);
    (*o)["W"] = num(w);
    if (fb >= 0) (*o)["FB"] = num(fb);
    (*o)["act"] = num(act);
    (*o)["keep"] = num(keep);
    (*o)["param"] = num(param);
  };
  out["format"] = "shardlab-pipeline-problem";
  out["version"] = 1;
  out["name"] = problem.name;
  out["devices"] = problem.devices;
  out["microbatches"] = problem.microbatches;
  out["comm"] = num(problem.comm);
  if (problem.serial_links) out["links"] = "serial";
  out["mem_cap"] = caps_json(problem.mem_cap);
  out["chunks"] = problem.placement.chunks;
  if (problem.transformer) {
    const TransformerSpec& t = *problem.transformer;
    out["transformer"] = {{"h", num(t.hidden)},
                          {"s", num(t.seq)},
                          {"b", num(t.micro_batch)},
                          {"a", num(t.heads)},
                          {"t", num(t.tensor_parallel)},
                          {"layers", num(t.layers)},
                          {"bytes_per_param", num(t.bytes_per_param)}};
  }
  if (problem.placement.kind == PlacementKind::kExplicit) {
    out["placement"] = problem.placement.devices.size() == 1
                           ? nlohmann::ordered_json(problem.placement.devices[0])
                           : nlohmann::ordered_json(problem.placement.devices);
  } else {
    out["placement"] = placement_name(problem.placement.kind);
  }
  if (problem.form == Form::kOperators) {
    for (const OperatorSpec& o : problem.operators) {
      nlohmann::ordered_json op;
      op["name"] = o.name;
      values(&op, o.f, o.b, o.w, -1, o.act, o.keep, o.param);
      if (!o.devices.empty()) op["devices"] = o.devices;
      out["operators"].push_back(op);
    }
    out["edges"] = nlohmann::ordered_json::array();
    for (const EdgeSpec& e : problem.edges) {
      nlohmann::ordered_json edge;
      edge["from"] = problem.operators[e.from].name;
      edge["to"] = problem.operators[e.to].name;
      if (e.comm >= 0) edge["comm"] = num(e.comm);
      out["edges"].push_back(edge);
    }
  } else if (problem.uniform) {
    const StageSpec& s = problem.stages[0];
    values(&out, s.f, s.b, s.w, s.fb < 0 ? s.f + s.b + s.w : s.fb, s.act, s.keep, s.param);
  } else {
    for (const StageSpec& s : problem.stages) {
      nlohmann::ordered_json stage;
      values(&stage, s.f, s.b, s.w, s.fb < 0 ? s.f + s.b + s.w : s.fb, s.act, s.keep, s.param);
      if (s.comm >= 0) stage["comm"] = num(s.comm);
      out["stages"].push_back(stage);
    }
  }
  return out.dump(indent);
}

Problem uniform_problem(int32_t devices, int32_t microbatches, const StageSpec& share) {
  Problem problem;
  problem.devices = devices;
  problem.microbatches = microbatches;
  problem.stages = {share};
  return problem;
}

Status apply_flags(const ProblemFlags& flags, const std::string& source, Problem* problem) {
  auto invalid = [](const std::string& m) { return Status(StatusCode::kInvalidArgument, m); };
  if (flags.has_share() && !(problem->form == Form::kStages && problem->uniform)) {
    return invalid(
        "--F, --B, --W, --FB, --act, --keep, --param and --transformer set a uniform "
        "problem; " +
        source + " lists its " + (problem->form == Form::kStages ? "stages" : "operators"));
  }
  if (flags.devices) problem->devices = static_cast<int32_t>(*flags.devices);
  if (flags.microbatches) problem->microbatches = static_cast<int32_t>(*flags.microbatches);
  if (flags.chunks) problem->placement.chunks = static_cast<int32_t>(*flags.chunks);
  if (flags.comm) problem->comm = *flags.comm;
  if (!flags.links.empty()) {
    if (flags.links != "parallel" && flags.links != "serial") {
      return invalid("--links takes parallel or serial, not '" + flags.links + "'");
    }
    problem->serial_links = flags.links == "serial";
  }
  if (flags.mem_cap) problem->mem_cap.assign(problem->devices, *flags.mem_cap);
  if (!problem->mem_cap.empty() &&
      static_cast<int32_t>(problem->mem_cap.size()) != problem->devices) {
    return invalid("the problem lists " + std::to_string(problem->mem_cap.size()) +
                   " memory caps but --stages sets " + std::to_string(problem->devices) +
                   " devices; give --mem-cap too");
  }
  if (!flags.placement.empty()) {
    PlacementKind kind;
    if (!parse_placement(flags.placement, &kind) || kind == PlacementKind::kExplicit) {
      return invalid(
          "--placement takes auto, linear, interleaved, v-shape, bidirectional or free, not '" +
          flags.placement + "'");
    }
    problem->placement.kind = kind;
  }
  // F and B of 0 would be refused by validate() as "stage 0: ..."; name the flag.
  const std::pair<const char*, const std::optional<double>*> times[] = {{"--F", &flags.f},
                                                                        {"--B", &flags.b}};
  for (const auto& [flag, value] : times) {
    if (*value && !(**value > 0)) {
      char text[32];
      std::snprintf(text, sizeof text, "%g", **value);
      return invalid(std::string(flag) + " " + text +
                     ": expected a time above 0 (F and B take time; W may be 0), found " + text);
    }
  }
  if (problem->form == Form::kStages && problem->uniform) {
    StageSpec& s = problem->stages[0];
    if (flags.transformer) {
      problem->transformer = *flags.transformer;
      apply_transformer(*flags.transformer, &s);
    }
    if (flags.f) s.f = *flags.f;
    if (flags.b) s.b = *flags.b;
    if (flags.w) s.w = *flags.w;
    if (flags.fb) s.fb = *flags.fb;
    if (flags.act) s.act = *flags.act;
    if (flags.keep) s.keep = *flags.keep;
    if (flags.param) s.param = *flags.param;
  }
  return validate(*problem);
}

Result<Problem> problem_from_flags_json(const std::string& source, std::string_view text) {
  json::Limits limits;
  limits.max_bytes = kMaxProblemBytes;
  Result<json::Document> doc = json::Document::parse(source, text, limits);
  if (!doc.is_ok()) return doc.status();
  const JsonAt root = doc.value().root();
  Status keys =
      root.only_keys({"stages", "devices", "microbatches", "F", "B", "W", "FB", "comm", "links",
                      "mem_cap", "act", "keep", "param", "chunks", "placement", "transformer"});
  if (!keys.is_ok()) return keys;
  json::Errors errors;
  ProblemFlags flags;
  const JsonAt devices = root.has("stages") ? root["stages"] : root["devices"];
  flags.devices = errors.take(devices.integer(1, kMaxDevices));
  flags.microbatches = errors.take(root["microbatches"].integer(1, kMaxMicrobatches));
  if (root.has("chunks")) flags.chunks = errors.take(root["chunks"].integer(1, 64));
  const std::pair<const char*, std::optional<double>*> reals[] = {
      {"F", &flags.f},       {"B", &flags.b},         {"W", &flags.w},
      {"FB", &flags.fb},     {"comm", &flags.comm},   {"act", &flags.act},
      {"keep", &flags.keep}, {"param", &flags.param}, {"mem_cap", &flags.mem_cap}};
  for (const auto& [key, slot] : reals) {
    if (root.has(key) && !root[key].is(Kind::kNull)) {
      *slot =
          errors.take(root[key].number(0, std::string(key) == "mem_cap" ? kMaxMemory : kMaxTime));
    }
  }
  if (root.has("placement")) flags.placement = errors.take(root["placement"].string());
  if (root.has("links")) {
    Result<bool> serial = read_links(root["links"]);
    if (!serial.is_ok()) return serial.status();
    flags.links = serial.value() ? "serial" : "parallel";
  }
  if (!errors.ok()) return errors.status();
  if (root.has("transformer")) {
    Result<TransformerSpec> t = read_transformer(root["transformer"]);
    if (!t.is_ok()) return t.status();
    flags.transformer = t.value();
  }
  Problem problem = uniform_problem(1, 1, StageSpec{});
  const Status applied = apply_flags(flags, source, &problem);
  if (!applied.is_ok()) return Status(StatusCode::kInvalidInput, source + ": " + applied.message());
  return problem;
}

}  // namespace shardlab::pipeline
