// The independent checker: every generator's schedule passes it on problems
// with delays, caps, kept activations, parameters, uneven stages and DAGs,
// and its recomputed metrics equal the simulator's; each kind of broken
// schedule is caught with an exact message.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/pipeline/pipeline.h"

namespace shardlab::pipeline {
namespace {

Problem uniform(int32_t p, int32_t m) { return uniform_problem(p, m, StageSpec{}); }

void expect_same_metrics(const ScheduleResult& s) {
  CHECK(s.check.makespan == s.metrics.makespan);
  CHECK(s.check.busy == s.metrics.busy);
  CHECK(s.check.global_idle == s.metrics.global_idle);
  CHECK(s.check.span_idle == s.metrics.span_idle);
  CHECK(s.check.peak_activation == s.metrics.peak_activation);
  CHECK(s.check.peak_parameter == s.metrics.peak_parameter);
}

TEST_CASE("pipeline check: every generated schedule passes, metrics agree") {
  std::vector<Problem> problems;
  {
    Problem p = uniform(4, 8);
    p.comm = 0.5;
    problems.push_back(p);
  }
  {
    Problem p = uniform(6, 12);
    p.stages[0].b = 2;
    p.stages[0].keep = 0.5;
    p.stages[0].param = 1;
    p.stages[0].fb = 2.5;
    problems.push_back(p);
  }
  {
    Problem p;
    p.devices = 4;
    p.microbatches = 8;
    p.uniform = false;
    p.comm = 0.25;
    for (double f : {1.5, 1.0, 1.0, 1.25}) {
      StageSpec s;
      s.f = f;
      s.b = f + 0.5;
      s.act = f;
      s.param = 1;
      p.stages.push_back(s);
    }
    problems.push_back(p);
  }
  {
    Problem p;
    p.form = Form::kOperators;
    p.uniform = false;
    p.devices = 3;
    p.microbatches = 3;
    p.comm = 0.5;
    for (const char* name : {"a", "b", "c", "d"}) {
      OperatorSpec o;
      o.name = name;
      p.operators.push_back(o);
    }
    p.operators[1].devices = {1, 2};
    p.edges = {{0, 1, -1}, {0, 2, -1}, {1, 3, 1.0}, {2, 3, -1}};
    p.mem_cap.assign(3, 6);
    problems.push_back(p);
  }
  int checked = 0;
  for (const Problem& problem : problems) {
    REQUIRE(validate(problem).is_ok());
    for (const ScheduleInfo& info : list_schedules(problem)) {
      if (!info.applicable) continue;
      Result<ScheduleResult> s = run_schedule(problem, info.name);
      REQUIRE_MESSAGE(s.is_ok(), info.name, ": ", s.status().message());
      INFO(info.name, " on ", problem.devices, " devices");
      CHECK(s.value().check.valid);
      expect_same_metrics(s.value());
      ++checked;
    }
  }
  // The published schedules, and PyTorch's four orders on the two problems they fit.
  CHECK(checked == 10 + 10 + 7 + 1 + 2 * 4);
}

// A timed 1F1B on 2 devices, 2 micro-batches to break in different ways.
ScheduleResult base() {
  Problem p = uniform(2, 2);
  p.comm = 0.5;
  Result<ScheduleResult> s = run_schedule(p, "1F1B");
  REQUIRE(s.is_ok());
  return std::move(s).value();
}

std::vector<std::string> violations(const ScheduleResult& s, const Timeline& t) {
  return check_schedule(s.expansion, t).violations;
}

TEST_CASE("pipeline check: a dependency with its delay") {
  ScheduleResult s = base();
  Timeline t = s.timeline;
  // Device 1's first slot is F0 of stage 1; its input ends at 1 and needs 0.5.
  auto it = std::find_if(t.slots.begin(), t.slots.end(),
                         [](const TimedSlot& x) { return x.device == 1; });
  REQUIRE(it != t.slots.end());
  it->start -= s.expansion.time_scale;  // one time unit earlier
  it->end -= s.expansion.time_scale;
  CHECK(violations(s, t) ==
        std::vector<std::string>{
            "F0 stage 1 starts at 0.5 but its input F0 stage 0 ends at 1 and needs 0.5 to arrive"});
}

TEST_CASE("pipeline check: two blocks at once, wrong length, missing and misplaced ops") {
  ScheduleResult s = base();
  {
    Timeline t = s.timeline;
    t.slots[1].start = t.slots[0].start;  // device 0: F1 during F0
    t.slots[1].end = t.slots[0].end;
    const std::vector<std::string> v = violations(s, t);
    REQUIRE(!v.empty());
    CHECK(std::find(v.begin(), v.end(),
                    "device 0 runs F0 stage 0 [0, 1) and F1 stage 0 [0, 1) at the same time") !=
          v.end());
  }
  {
    Timeline t = s.timeline;
    t.slots[0].end += s.expansion.time_scale;
    CHECK(violations(s, t)[0] == "F0 stage 0 on device 0 lasts 2 but takes 1");
  }
  {
    Timeline t = s.timeline;
    t.slots.pop_back();
    CHECK(violations(s, t) ==
          std::vector<std::string>{"B1 stage 1 never runs", "W1 stage 1 never runs"});
  }
  {
    Timeline t = s.timeline;
    t.slots[0].device = 1;
    CHECK(violations(s, t)[0] == "F0 stage 0 runs on device 1 but its unit sits on device 0");
  }
  {
    Timeline t = s.timeline;
    t.unit_device[0] = 1;
    CHECK(violations(s, t)[0] == "unit 0 sits on device 1, which it may not use");
  }
}

TEST_CASE("pipeline check: memory above the cap, with parameters") {
  Problem p = uniform(4, 8);
  p.stages[0].param = 0.5;
  p.mem_cap.assign(4, 4);
  Result<ScheduleResult> s = run_schedule(p, "1F1B");
  REQUIRE(s.is_ok());
  CHECK_FALSE(s.value().check.valid);
  CHECK(s.value().check.violations ==
        std::vector<std::string>{
            "device 0 holds 4.5 (activations 4 + parameters 0.5) at time 3, above its cap 4"});
  p.mem_cap.assign(4, 4.5);
  CHECK(run_schedule(p, "1F1B").value().check.valid);
  // Parameters alone above the cap.
  p.stages[0].param = 5;
  p.mem_cap.assign(4, 4);
  const CheckReport report = run_schedule(p, "GPipe").value().check;
  CHECK(report.violations[0] ==
        "device 0 holds 6 (activations 1 + parameters 5) at time 0, above its cap 4");
}

TEST_CASE("pipeline check: a pair must not hold its own dependency") {
  Problem p = uniform(2, 4);
  p.stages[0].fb = 2.5;
  Result<Generated> g = generate(p, "DualPipe");
  REQUIRE(g.is_ok());
  Result<Timeline> t = simulate(g.value().expansion, g.value().order);
  REQUIRE(t.is_ok());
  Timeline broken = t.value();
  // Turn the first pair into a pair of an F with the B of its own micro-batch.
  auto pair = std::find_if(broken.slots.begin(), broken.slots.end(),
                           [](const TimedSlot& x) { return x.slot.is_pair(); });
  REQUIRE(pair != broken.slots.end());
  const Expansion& e = g.value().expansion;
  const Op& f = e.ops[pair->slot.op];
  pair->slot.partner = e.op_of(f.microbatch, f.unit, OpKind::kB);
  const CheckReport report = check_schedule(e, broken);
  CHECK_FALSE(report.valid);
  CHECK(report.violation_count >= 1);
}

}  // namespace
}  // namespace shardlab::pipeline
