// The pipeline lab's formats: the bundled problem files, the problem JSON
// written back with defaults (and read again to the same problem), the
// schedule JSON read back to the same schedule, PyTorch CSV round trips with
// the placement inferred from the rows, and the Chrome trace's events.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "core/pipeline/export.h"
#include "core/pipeline/pipeline.h"
#include "tests/unit/helpers.h"

namespace shardlab::pipeline {
namespace {

Problem read_example(const std::string& name) {
  const std::string path = test::source_path("examples/pipeline/" + name);
  Result<Problem> p = read_problem_json(path, test::read_bytes(path));
  REQUIRE_MESSAGE(p.is_ok(), p.status().message());
  return p.value();
}

TEST_CASE("pipeline io: the bundled problems") {
  const Problem dual = read_example("dualpipe_example.json");
  CHECK(dual.devices == 8);
  CHECK(dual.microbatches == 20);
  CHECK(dual.uniform);
  CHECK(dual.stages[0].fb == 3);
  const Problem uneven = read_example("uneven_stages.json");
  CHECK_FALSE(uneven.uniform);
  CHECK(uneven.devices == 4);
  CHECK(uneven.stages[0].keep == 0.5);
  CHECK(uneven.stages[3].param == 1.5);
  CHECK(uneven.mem_cap == std::vector<double>(4, 7.5));
  const Problem moe = read_example("moe_layer.json");
  CHECK(moe.form == Form::kOperators);
  CHECK(moe.operators.size() == 8);
  CHECK(moe.edges.size() == 10);
  CHECK(moe.operators[2].devices == std::vector<int32_t>{1, 2});
  const Problem towers = read_example("two_towers.json");
  CHECK(towers.edges[6].comm == 0);
  CHECK(towers.edges[0].comm < 0);
  for (const char* name : {"dualpipe_example.json", "uneven_stages.json", "moe_layer.json",
                           "two_towers.json", "uniform_4x8.json"}) {
    const Problem p = read_example(name);
    // Written with every default, read again: the same problem.
    const std::string text = problem_json(p);
    Result<Problem> again = read_problem_json("normalized.json", text);
    REQUIRE(again.is_ok());
    CHECK(problem_json(again.value()) == text);
  }
}

TEST_CASE("pipeline io: the DualPipe example's schedule") {
  Result<ScheduleResult> s = run_schedule(read_example("dualpipe_example.json"), "DualPipe");
  REQUIRE(s.is_ok());
  CHECK(s.value().expansion.time_value(s.value().metrics.makespan) == 66);
  const nlohmann::json j = nlohmann::json::parse(schedule_json(s.value()));
  CHECK(j["bubble"]["global"] == nlohmann::json::array({6, 6, 6, 6, 6, 6, 6, 6}));
  CHECK(j["bubble"]["global_total"] == 48);
  CHECK(j["peak_activation"][0] == 9);
  CHECK(j["problem"]["copies"] == 2);
  CHECK(j["valid"] == true);
  // Every op of the expansion appears once across the slots.
  int atomic = 0;
  for (const auto& op : j["ops"]) {
    const std::string kind = op["kind"];
    atomic += kind == "FB" ? 3 : kind == "BW" ? 2 : 1;
  }
  CHECK(atomic == 8 * 20 * 3);
}

TEST_CASE("pipeline io: the schedule JSON reads back to the same schedule") {
  Problem p = uniform_problem(4, 8, StageSpec{});
  p.comm = 0.5;
  p.stages[0].fb = 2.5;
  for (const char* name : {"1F1B", "ZB-H2", "Interleaved1F1B", "ZBV", "DualPipe", "Chimera"}) {
    Result<ScheduleResult> s = run_schedule(p, name);
    REQUIRE(s.is_ok());
    const std::string json = schedule_json(s.value());
    Result<ScheduleResult> back = read_schedule_json(p, "s.json", json);
    REQUIRE_MESSAGE(back.is_ok(), back.status().message());
    CHECK(back.value().check.valid);
    CHECK(schedule_json(back.value()) == json);
  }
  Result<ScheduleResult> bad = read_schedule_json(p, "s.json", "{\"ops\": [{\"device\": 9}]}");
  CHECK(bad.status().message() ==
        "s.json:1:21 (byte 20): at ops[0].device: expected an integer from 0 to 3, found the "
        "number 9");
}

TEST_CASE("pipeline io: PyTorch CSV round trips and the inferred placement") {
  Problem p = uniform_problem(4, 8, StageSpec{});
  p.stages[0].b = 2;
  p.placement.chunks = 3;
  struct Case {
    const char* name;
    PlacementKind placement;
  };
  for (const Case& c :
       {Case{"1F1B", PlacementKind::kLinear}, Case{"ZB-H1", PlacementKind::kLinear},
        Case{"Interleaved1F1B", PlacementKind::kInterleaved}, Case{"ZBV", PlacementKind::kVShape},
        Case{"DualPipeV", PlacementKind::kVShape}}) {
    Result<ScheduleResult> s = run_schedule(p, c.name);
    REQUIRE(s.is_ok());
    Result<std::string> csv = pytorch_csv(s.value());
    REQUIRE(csv.is_ok());
    Result<ScheduleResult> back = read_pytorch_csv(p, "s.csv", csv.value());
    REQUIRE_MESSAGE(back.is_ok(), back.status().message());
    CHECK(back.value().expansion.placement == c.placement);
    CHECK(back.value().expansion.chunks == s.value().expansion.chunks);
    CHECK(back.value().metrics.makespan == s.value().metrics.makespan);
    CHECK(back.value().check.valid);
    CHECK(pytorch_csv(back.value()).value() == csv.value());
  }
  // An explicit placement: stages 0 and 2 on rank 0, 1 and 3 on rank 1, read
  // on a 2-device problem whose share splits in two.
  Problem two = uniform_problem(2, 2, StageSpec{});
  Result<ScheduleResult> mixed = read_pytorch_csv(
      two, "x.csv", "0F0,0F1,2F0,2F1,2B0,2B1,0B0,0B1\n1F0,1F1,3F0,3B0,3F1,3B1,1B0,1B1\n");
  REQUIRE_MESSAGE(mixed.is_ok(), mixed.status().message());
  CHECK(mixed.value().expansion.placement == PlacementKind::kInterleaved);
  Result<ScheduleResult> explicit_map = read_pytorch_csv(
      two, "x.csv", "0F0,0F1,3F0,3B0,3F1,3B1,0B0,0B1\n1F0,1F1,2F0,2F1,2B0,2B1,1B0,1B1\n");
  REQUIRE_MESSAGE(explicit_map.is_ok(), explicit_map.status().message());
  CHECK(explicit_map.value().expansion.placement == PlacementKind::kVShape);
  Result<ScheduleResult> odd =
      read_pytorch_csv(two, "x.csv", "0F0,0F1,1F0,1F1,1B0,1B1,0B0,0B1\n2F0,2F1,2B0,2B1\n");
  REQUIRE_MESSAGE(odd.is_ok(), odd.status().message());
  CHECK(odd.value().expansion.placement == PlacementKind::kExplicit);
  CHECK(odd.value().expansion.units[1].devices == std::vector<int32_t>{0});
  CHECK(odd.value().check.valid);
  // A pair in PyTorch's notation.
  Result<ScheduleResult> pair = read_pytorch_csv(
      two, "x.csv",
      "0F0,0F1,3F0,(3F1;3B0)OVERLAP_F_B,3B1,0B0,0B1\n1F0,1F1,2F0,2F1,2B0,2B1,1B0,1B1\n");
  REQUIRE_MESSAGE(pair.is_ok(), pair.status().message());
  CHECK(pair.value().timeline.slots[3].slot.is_pair());
}

TEST_CASE("pipeline io: the Chrome trace") {
  Result<ScheduleResult> s = run_schedule(uniform_problem(2, 3, StageSpec{}), "ZB-H1");
  REQUIRE(s.is_ok());
  const nlohmann::json t = nlohmann::json::parse(chrome_trace_json(s.value()));
  int complete = 0, counters = 0, names = 0;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] == "X") {
      ++complete;
      CHECK(e["pid"] == e["tid"]);
    }
    if (e["ph"] == "C") ++counters;
    if (e["ph"] == "M" && e["name"] == "process_name") ++names;
  }
  CHECK(complete == 2 * 3 * 3);
  CHECK(names == 2);
  CHECK(counters > 0);
  CHECK(t["traceEvents"][4]["name"] == "F0 s0");
  CHECK(t["traceEvents"][4]["dur"] == 1000);
}

}  // namespace
}  // namespace shardlab::pipeline
