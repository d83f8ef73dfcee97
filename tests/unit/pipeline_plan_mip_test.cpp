// The planner's MIP mode without a solver: a small reader of the emitted
// CPLEX-LP text evaluates every row at the column values of a schedule. A
// valid schedule must satisfy every row (so the MIP never cuts off a
// schedule), one that breaks a memory cap must violate some row (so the
// memory rows bite), and a solution's columns must map back to a schedule
// no longer than the solution. Solving the text with CBC and HiGHS is in
// tests/wasm/pipeline_mip.test.mjs.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/pipeline/check.h"
#include "core/pipeline/model.h"
#include "core/pipeline/plan/mip.h"
#include "core/pipeline/plan/problem.h"
#include "core/pipeline/planner.h"
#include "core/rng.h"

namespace shardlab::pipeline {
namespace {

struct Row {
  std::vector<std::pair<double, std::string>> terms;
  std::string sense;
  double rhs = 0;
};

struct Lp {
  std::vector<Row> rows;
  std::map<std::string, std::pair<double, double>> bounds;
  std::vector<std::string> binaries;
};

// Reads the subset of CPLEX-LP that emit_lp writes.
Lp read_lp(const std::string& text) {
  Lp lp;
  std::istringstream in(text);
  std::string line, section;
  std::string pending;
  auto flush = [&]() {
    if (pending.empty()) return;
    std::istringstream row(pending.substr(pending.find(':') + 1));
    Row r;
    std::string tok;
    double sign = 1, coef = 1;
    bool have_coef = false;
    while (row >> tok) {
      if (tok == "+" || tok == "-") {
        sign = tok == "-" ? -1 : 1;
      } else if (tok == ">=" || tok == "<=" || tok == "=") {
        r.sense = tok;
        row >> r.rhs;
      } else if (std::isdigit(static_cast<unsigned char>(tok[0])) || tok[0] == '.') {
        coef = std::stod(tok);
        have_coef = true;
      } else {
        r.terms.push_back({sign * (have_coef ? coef : 1.0), tok});
        sign = 1;
        have_coef = false;
      }
    }
    lp.rows.push_back(r);
    pending.clear();
  };
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '\\') continue;
    if (line == "Minimize" || line == "Subject To" || line == "Bounds" || line == "Binaries" ||
        line == "End") {
      flush();
      section = line;
      continue;
    }
    if (section == "Subject To") {
      if (line.find(':') != std::string::npos) flush();
      pending += line + " ";
    } else if (section == "Bounds") {
      std::istringstream b(line);
      double lo, hi;
      std::string le1, name, le2;
      b >> lo >> le1 >> name >> le2 >> hi;
      lp.bounds[name] = {lo, hi};
    } else if (section == "Binaries") {
      std::istringstream b(line);
      std::string name;
      while (b >> name) lp.binaries.push_back(name);
    }
  }
  flush();
  return lp;
}

// The rows and bounds the columns break (0 when feasible).
int32_t violations(const Lp& lp, const std::map<std::string, double>& cols) {
  auto value = [&](const std::string& name) {
    auto it = cols.find(name);
    REQUIRE_MESSAGE(it != cols.end(), "no value for " << name);
    return it->second;
  };
  int32_t bad = 0;
  for (const Row& r : lp.rows) {
    double lhs = 0;
    for (const auto& [c, name] : r.terms) lhs += c * value(name);
    const bool ok = r.sense == ">="   ? lhs >= r.rhs - 1e-6
                    : r.sense == "<=" ? lhs <= r.rhs + 1e-6
                                      : std::fabs(lhs - r.rhs) <= 1e-6;
    if (!ok) {
      std::string text;
      for (const auto& [c, name] : r.terms)
        text += " " + std::to_string(c) + "*" + name + "=" + std::to_string(value(name));
      MESSAGE("violated: lhs " << lhs << " " << r.sense << " " << r.rhs << text);
    }
    bad += !ok;
  }
  for (const auto& [name, b] : lp.bounds) {
    const double v = value(name);
    bad += v < b.first - 1e-6 || v > b.second + 1e-6;
  }
  for (const std::string& name : lp.binaries) {
    const double v = value(name);
    bad += v != 0 && v != 1;
  }
  return bad;
}

Problem random_problem(Rng* rng, bool capped) {
  Problem problem;
  if (rng->below(2)) {
    problem.devices = 2 + static_cast<int32_t>(rng->below(3));
    problem.microbatches = 2 + static_cast<int32_t>(rng->below(3));
    StageSpec s;
    s.f = 1 + rng->below(2);
    s.b = 1 + rng->below(3);
    s.w = rng->below(2);
    s.keep = rng->below(2) ? 0.5 : 0;
    s.param = rng->below(2);
    problem.stages = {s};
    problem.comm = rng->below(2) * 0.5;
    if (problem.devices % 2 == 0 && rng->below(2)) {
      problem.placement.kind = PlacementKind::kBidirectional;
      problem.microbatches = 2 * problem.devices;
    }
    if (capped) problem.mem_cap.assign(problem.devices, 2 + s.param * 2);
  } else {
    problem.form = Form::kOperators;
    problem.devices = 2 + static_cast<int32_t>(rng->below(2));
    problem.microbatches = 1 + static_cast<int32_t>(rng->below(2));
    const int32_t n = 3 + static_cast<int32_t>(rng->below(3));
    for (int32_t i = 0; i < n; ++i) {
      OperatorSpec op;
      op.name = "op" + std::to_string(i);
      op.f = 1 + rng->below(3);
      op.b = 1 + rng->below(3);
      op.w = rng->below(2);
      op.act = 1 + rng->below(2);
      op.param = rng->below(2);
      if (rng->below(3) == 0) op.devices = {static_cast<int32_t>(rng->below(problem.devices))};
      problem.operators.push_back(op);
    }
    for (int32_t i = 1; i < n; ++i) {
      problem.edges.push_back({static_cast<int32_t>(rng->below(i)), i, 0.5 * rng->below(3)});
    }
    if (capped) problem.mem_cap.assign(problem.devices, 4);
  }
  return problem;
}

TEST_CASE("pipeline plan mip: schedules satisfy every row, and map back no later") {
  Rng rng(2503);
  int32_t tested = 0;
  for (int32_t trial = 0; trial < 40; ++trial) {
    const Problem problem = random_problem(&rng, rng.below(2) == 1);
    PlannerOptions options;
    Planner planner(problem, options);
    REQUIRE_MESSAGE(planner.status().is_ok(), planner.status().message());
    planner.step(3000);
    if (!planner.has_best()) continue;
    const MipModel model = planner.emit_lp();
    const Lp lp = read_lp(model.lp);
    CHECK(static_cast<int64_t>(lp.rows.size()) == model.rows);
    CHECK(static_cast<int64_t>(lp.binaries.size()) == model.binaries);
    Result<std::map<std::string, double>> start = planner.mip_start(planner.best());
    REQUIRE(start.is_ok());
    INFO("trial " << trial);
    CHECK(violations(lp, start.value()) == 0);
    CHECK(start.value().at("Cmax") == doctest::Approx(planner.best_makespan()));
    Result<Timeline> back = planner.schedule_from_mip(start.value());
    REQUIRE_MESSAGE(back.is_ok(), back.status().message());
    const CheckReport report = check_schedule(planner.expansion(), back.value());
    CHECK(report.valid);
    CHECK(measure(planner.expansion(), back.value()).makespan <= planner.best_ticks());
    ++tested;
  }
  CHECK(tested >= 30);
}

TEST_CASE("pipeline plan mip: a schedule above a memory cap breaks a row") {
  Rng rng(57);
  int32_t tested = 0;
  for (int32_t trial = 0; trial < 40 && tested < 10; ++trial) {
    Problem capped = random_problem(&rng, true);
    Problem free = capped;
    free.mem_cap.clear();
    // GPipe-like: the uncapped planner's schedule, when it breaks the cap.
    PlannerOptions options;
    options.warm_start = 0;
    Planner loose(free, options);
    loose.step(2000);
    REQUIRE(loose.has_best());
    const Metrics m = measure(loose.expansion(), loose.best());
    Planner tight(capped, options);
    REQUIRE(tight.status().is_ok());
    const Expansion& e = tight.expansion();
    bool over = false;
    for (int32_t d = 0; d < e.devices; ++d) {
      over |= m.peak_activation[d] + m.peak_parameter[d] > e.mem_cap[d];
    }
    if (!over) continue;
    // The uncapped schedule as it is (the planner would re-time it).
    Result<PlanGraph> graph = plan_graph_of(e);
    REQUIRE(graph.is_ok());
    PlanSchedule s;
    s.device.assign(e.num_ops(), 0);
    s.start.assign(e.num_ops(), 0);
    for (const TimedSlot& slot : loose.best().slots) {
      s.device[slot.slot.op] = slot.device;
      s.start[slot.slot.op] = slot.start;
      s.makespan = std::max(s.makespan, slot.end);
    }
    const MipUnits units{1.0 / static_cast<double>(e.time_scale),
                         1.0 / static_cast<double>(e.mem_scale)};
    const auto start = mip_start(graph.value(), units, s);
    // Bounds may differ (the horizon): raise them, keep the rows.
    Lp lp = read_lp(tight.emit_lp().lp);
    for (auto& [name, b] : lp.bounds) b.second = 1e9;
    CHECK(violations(lp, start) > 0);
    ++tested;
  }
  CHECK(tested >= 5);
}

}  // namespace
}  // namespace shardlab::pipeline
