// Writing result JSON and reading solutions back (nlohmann/json: these are
// small documents). No exceptions: parsing uses nlohmann's non-throwing mode
// and every value's type is checked before it is read.
#include "core/sharding/result.h"

#include <limits>
#include <nlohmann/json.hpp>

#include "core/json_doc.h"
#include "core/progress_json.h"
#include "core/sharding/evaluate.h"
#include "core/version.h"

namespace shardlab {

std::string solution_line(const std::vector<int32_t>& solution) {
  std::string line = "[";
  for (size_t i = 0; i < solution.size(); ++i) {
    if (i > 0) line += ", ";
    line += std::to_string(solution[i]);
  }
  return line + "]";
}

std::string result_json(const Problem& problem, const SolveResult& result, const RunInfo& run) {
  using nlohmann::ordered_json;
  ordered_json j;
  j["format"] = "shardlab-result";
  j["format_version"] = kResultFormatVersion;
  j["version"] = kVersion;
  ordered_json instance;
  instance["name"] = problem.name;
  instance["file"] = run.instance_file;
  instance["sha256"] = run.sha256;
  instance["nodes"] = problem.num_nodes();
  instance["edges"] = problem.num_edges();
  j["instance"] = instance;
  if (result.best.found()) {
    const Evaluation check = evaluate(problem, result.best.solution);
    j["cost"] = to_decimal(check.cost);
    j["feasible"] = check.feasible();
    j["verdict"] = verdict_name(check.verdict);
    j["peak_usage"] = to_decimal(check.peak_usage);
    j["peak_time"] = check.peak_time;
  } else {
    j["cost"] = nullptr;
    j["feasible"] = false;
    j["verdict"] = "none_found";
    j["peak_usage"] = nullptr;
    j["peak_time"] = nullptr;
  }
  j["usage_limit"] = problem.has_usage_limit ? ordered_json(std::to_string(problem.usage_limit))
                                             : ordered_json(nullptr);
  j["lower_bound"] = std::to_string(result.lower_bound);
  j["proven_optimal"] = result.proven_optimal;
  j["solution"] = result.best.solution;
  j["settings"] = options_json(run.options);
  j["wall_time_s"] = run.wall_time_s;
  ordered_json trace = ordered_json::array();
  for (const SolveEvent& event : result.trace) {
    trace.push_back({event.seconds,
                     event.found ? ordered_json(std::to_string(event.cost)) : ordered_json(nullptr),
                     std::to_string(event.bound)});
  }
  j["trace"] = trace;
  j["stats"] = counters_to_json(run.counters);
  return j.dump(2);
}

namespace {

Status read_trace_row(const json::JsonAt& row, SolveEvent* event) {
  Status s = row.expect(json::Kind::kArray);
  if (!s.is_ok()) return s;
  if (row.size() != 5) {
    return row.error("a row [seconds, engine, found, cost, bound]",
                     "a row of " + std::to_string(row.size()) + " entries");
  }
  json::Errors errors;
  event->seconds = errors.take(row[0].number(0, 1e9));
  event->engine = static_cast<int32_t>(errors.take(row[1].integer(-1, 1 << 20)));
  event->found = errors.take(row[2].boolean());
  if (event->found || !row[3].is(json::Kind::kNull))
    event->cost = errors.take(json::decimal_integer(row[3]));
  event->bound = errors.take(json::decimal_integer(row[4]));
  return errors.status();
}

}  // namespace

Result<std::string> result_json_of_run(const Problem& problem, const std::vector<int32_t>& plan,
                                       const std::string& source, const std::string& run_text) {
  Result<json::Document> doc = json::Document::parse(source, run_text);
  if (!doc.is_ok()) return doc.status();
  const json::JsonAt run = doc.value().root();
  Status s = run.only_keys(
      {"file", "sha256", "options", "wall_time_s", "stats", "lower_bound", "seconds", "trace"});
  if (!s.is_ok()) return s;
  SolveResult result;
  RunInfo info;
  json::Errors errors;
  info.instance_file = errors.take(run.string_or("file", ""));
  info.sha256 = errors.take(run.string_or("sha256", ""));
  info.wall_time_s = errors.take(run.number_or("wall_time_s", 0, 0, 1e9));
  result.seconds = errors.take(run.number_or("seconds", 0, 0, 1e9));
  if (run.has("lower_bound"))
    result.lower_bound = errors.take(json::decimal_integer(run["lower_bound"]));
  if (run.has("options")) errors.add(options_from_json(run["options"], &info.options));
  if (run.has("stats")) info.counters = errors.take(counters_from_json(run["stats"]));
  if (run.has("trace")) {
    const json::JsonAt trace = run["trace"];
    errors.add(trace.expect(json::Kind::kArray));
    for (size_t i = 0; errors.ok() && i < trace.size(); ++i) {
      SolveEvent event;
      errors.add(read_trace_row(trace[i], &event));
      result.trace.push_back(event);
    }
  }
  if (!errors.ok()) return errors.status();
  if (!plan.empty()) {
    const Evaluation e = evaluate(problem, plan);
    if (e.feasible()) {
      result.best.solution = plan;
      result.best.cost = static_cast<int64_t>(e.cost);
    }
  }
  result.proven_optimal = result.best.found() && result.lower_bound >= result.best.cost;
  result.counters = info.counters;
  return result_json(problem, result, info);
}

namespace {

Status bad(const std::string& source, const std::string& message) {
  return Status(StatusCode::kInvalidInput, source + ": " + message);
}

Result<std::vector<int32_t>> read_list(const std::string& where, const nlohmann::json& list) {
  if (!list.is_array())
    return bad(where, "expected a list like [0, 2, 1], found " + std::string(list.type_name()));
  std::vector<int32_t> solution;
  solution.reserve(list.size());
  for (size_t i = 0; i < list.size(); ++i) {
    const nlohmann::json& entry = list[i];
    if (!entry.is_number_integer() || entry.get<int64_t>() < std::numeric_limits<int32_t>::min() ||
        entry.get<int64_t>() > std::numeric_limits<int32_t>::max()) {
      return bad(where, "entry " + std::to_string(i) + ": expected a strategy index, found " +
                            entry.dump());
    }
    solution.push_back(static_cast<int32_t>(entry.get<int64_t>()));
  }
  return solution;
}

}  // namespace

Result<ParsedSolution> parse_solution_text(const std::string& source, const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return bad(source, "expected a solution, found an empty file");
  ParsedSolution parsed;
  if (text[first] == '{') {
    const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_discarded())
      return bad(source, "expected a result JSON object, found malformed JSON");
    if (!doc.contains("solution"))
      return bad(source, "expected the key \"solution\" in the result JSON");
    Result<std::vector<int32_t>> list = read_list(source + ": at solution", doc["solution"]);
    if (!list.is_ok()) return list.status();
    parsed.solution = std::move(list).value();
    if (doc.contains("instance") && doc["instance"].is_object() &&
        doc["instance"].contains("sha256") && doc["instance"]["sha256"].is_string()) {
      parsed.sha256 = doc["instance"]["sha256"].get<std::string>();
    }
    return parsed;
  }
  // The last non-empty line, as the contest's harness reads program output.
  size_t end = text.find_last_not_of(" \t\r\n") + 1;
  size_t begin = text.rfind('\n', end - 1);
  begin = begin == std::string::npos ? 0 : begin + 1;
  int64_t line_number = 1;
  for (size_t i = 0; i < begin; ++i) line_number += text[i] == '\n';
  const std::string line = text.substr(begin, end - begin);
  const std::string where = source + ": line " + std::to_string(line_number);
  const nlohmann::json list = nlohmann::json::parse(line, nullptr, false);
  if (list.is_discarded()) {
    return bad(where, "expected a list like [0, 2, 1], found '" +
                          (line.size() > 40 ? line.substr(0, 40) + "..." : line) + "'");
  }
  Result<std::vector<int32_t>> values = read_list(where, list);
  if (!values.is_ok()) return values.status();
  parsed.solution = std::move(values).value();
  return parsed;
}

}  // namespace shardlab
