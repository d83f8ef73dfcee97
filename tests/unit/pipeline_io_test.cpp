// The pipeline lab's formats: the bundled problem files, the problem JSON
// written back with defaults (and read again to the same problem), the
// schedule JSON read back to the same schedule, PyTorch CSV round trips with
// the placement inferred from the rows, and the Chrome trace's events.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "core/pipeline/export.h"
#include "core/pipeline/pipeline.h"
#include "core/rng.h"
#include "tests/unit/helpers.h"

namespace shardlab::pipeline {
namespace {

Problem read_example(const std::string& name) {
  const std::string path = test::source_path(std::string("examples/pipeline/") + name);
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

TEST_CASE("pipeline io: serial links in the problem, the flags and the schedule JSON") {
  const std::string text =
      R"({"devices": 2, "microbatches": 4, "comm": 2, "links": "serial", "placement": "linear"})";
  Result<Problem> p = read_problem_json("p.json", text);
  REQUIRE_MESSAGE(p.is_ok(), p.status().message());
  CHECK(p.value().serial_links);
  const std::string written = problem_json(p.value());
  CHECK(nlohmann::json::parse(written)["links"] == "serial");
  Result<Problem> again = read_problem_json("n.json", written);
  REQUIRE(again.is_ok());
  CHECK(again.value().serial_links);
  // Parallel links are the default and are not written.
  Result<Problem> plain = read_problem_json("q.json", R"({"devices": 2, "microbatches": 4})");
  REQUIRE(plain.is_ok());
  CHECK_FALSE(plain.value().serial_links);
  CHECK_FALSE(nlohmann::json::parse(problem_json(plain.value())).contains("links"));
  CHECK(read_problem_json("b.json", R"({"devices": 2, "microbatches": 4, "links": "both"})")
            .status()
            .message() ==
        "b.json:1:44 (byte 43): at links: expected \"parallel\" or \"serial\", found the string "
        "\"both\"");
  Result<Problem> flags =
      problem_from_flags_json("f.json", R"({"stages": 2, "microbatches": 4, "links": "serial"})");
  REQUIRE(flags.is_ok());
  CHECK(flags.value().serial_links);
  // The schedule JSON: the summary says so, and each dependency's delay is
  // the wait for the link too. GPipe's F's on device 1 start at 3, 5, 7 and
  // 9 (the second's input, ready at 2, is sent after the first's, which
  // holds the link until 3: a wait of 3); its full backwards end at 12, 14,
  // 16 and 18, reach device 0 two units later, and device 0 ends at 22.
  Result<ScheduleResult> s = run_schedule(p.value(), "GPipe");
  REQUIRE(s.is_ok());
  CHECK(s.value().check.valid);
  const nlohmann::json j = nlohmann::json::parse(schedule_json(s.value()));
  CHECK(j["problem"]["links"] == "serial");
  CHECK(j["makespan"] == 22);
  bool seen = false;
  for (const auto& op : j["ops"]) {
    if (op["device"] == 1 && op["kind"] == "F" && op["microbatch"] == 1) {
      CHECK(op["start"] == 5);
      CHECK(op["delays"] == nlohmann::json::array({3}));
      seen = true;
    }
  }
  CHECK(seen);
  Result<ScheduleResult> back = read_schedule_json(p.value(), "s.json", schedule_json(s.value()));
  REQUIRE(back.is_ok());
  CHECK(back.value().check.valid);
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

// ZBV's orders are the zero-bubble authors' greedy's (scheduler/zbv.py,
// try_v_schedule over the four fill settings): these were compared cell by
// cell with that code's output for p = 2..8, m = 4..32 and F/B/W/comm
// grids (with costs in ticks of half a device's share), and are kept here
// for two problems as a regression check.
TEST_CASE("pipeline io: ZBV's orders equal the reference greedy's") {
  Problem equal = uniform_problem(4, 8, StageSpec{});
  Problem uneven = equal;
  uneven.stages[0].f = 2;
  uneven.stages[0].b = 3;
  uneven.stages[0].w = 1;
  uneven.comm = 1;
  const char* const want_equal =
      "0F0,0F1,0F2,0F3,0F4,0F5,0F6,7F0,7I0,7F1,7I1,7F2,7I2,7F3,7I3,0F7,0I0,7F4,7I4,7W0,0I1,7F5,7I5,"
      "7W1,0I2,7F6,7I6,7W2,0I3,7F7,7I7,0I4,7W3,0I5,0W0,0I6,7W4,0I7,0W1,7W5,0W2,7W6,0W3,7W7,0W4,0W5,"
      "0W6,0W7\n"
      "1F0,1F1,1F2,1F3,1F4,6F0,1F5,6F1,6I0,6F2,6I1,6F3,6I2,1F6,1I0,6F4,6I3,1F7,1I1,6F5,6I4,6W0,1I2,"
      "6F6,6I5,6W1,1I3,6F7,6I6,1I4,6I7,1I5,6W2,1I6,1W0,1I7,6W3,1W1,6W4,1W2,6W5,1W3,6W6,1W4,6W7,1W5,"
      "1W6,1W7\n"
      "2F0,2F1,2F2,5F0,2F3,5F1,2F4,5F2,5I0,5F3,5I1,2F5,2I0,5F4,5I2,2F6,2I1,5F5,5I3,2F7,2I2,5F6,5I4,"
      "5W0,2I3,5F7,5I5,2I4,5I6,2I5,5I7,2I6,5W1,2I7,2W0,5W2,2W1,5W3,2W2,5W4,2W3,5W5,2W4,5W6,2W5,5W7,"
      "2W6,2W7\n"
      "3F0,4F0,3F1,4F1,3F2,4F2,3F3,4F3,4I0,3F4,3I0,4F4,4I1,3F5,3I1,4F5,4I2,3F6,3I2,4F6,4I3,3F7,3I3,"
      "4F7,4I4,3I4,4I5,3I5,4I6,3I6,4I7,3I7,4W0,3W0,4W1,3W1,4W2,3W2,4W3,3W3,4W4,3W4,4W5,3W5,4W6,3W6,"
      "4W7,3W7\n";
  const char* const want_uneven =
      "0F0,0F1,0F2,0F3,0F4,0F5,0F6,7F0,7I0,7F1,7I1,7W0,7W1,7F2,7I2,7W2,7F3,7I3,0F7,7W3,0I0,7F4,7I4,"
      "0W0,7W4,0I1,7F5,7I5,0W1,7W5,0I2,7F6,7I6,0W2,7W6,0I3,7F7,7I7,0I4,0W3,7W7,0W4,0I5,0W5,0I6,0W6,"
      "0I7,0W7\n"
      "1F0,1F1,1F2,1F3,1F4,6F0,1F5,6F1,6I0,6F2,6I1,6W0,6W1,6F3,6I2,1F6,6W2,1I0,6F4,6I3,1F7,1I1,6F5,"
      "6I4,1W0,6W3,1I2,6F6,6I5,1W1,6W4,1I3,6F7,6I6,1I4,1W2,6W5,1W3,6W6,6I7,1I5,1W4,6W7,1W5,1I6,1W6,"
      "1I7,1W7\n"
      "2F0,2F1,2F2,5F0,2F3,5F1,2F4,5F2,5I0,5F3,5I1,2F5,5W0,5W1,2I0,5F4,5I2,2F6,2I1,5F5,5I3,2F7,2I2,"
      "5F6,5I4,2W0,5W2,2I3,5F7,5I5,2I4,2W1,5W3,2W2,5W4,5I6,2I5,2W3,5W5,2W4,5W6,5I7,2I6,2W5,5W7,2W6,"
      "2I7,2W7\n"
      "3F0,4F0,3F1,4F1,3F2,4F2,3F3,4F3,4I0,3F4,3I0,4F4,4I1,3F5,3I1,4F5,4I2,3F6,3I2,4F6,4I3,3F7,3I3,"
      "4F7,4I4,3I4,4W0,3W0,4W1,3W1,4I5,3I5,4W2,3W2,4W3,3W3,4I6,3I6,4W4,3W4,4W5,3W5,4I7,3I7,4W6,3W6,"
      "4W7,3W7\n";
  // The orders without the CSV's idle steps and line ends.
  auto order = [](const std::string& csv) {
    std::string out, cell;
    for (char c : csv + "\n") {
      if (c == ',' || c == '\n') {
        if (!cell.empty()) out += (out.empty() || out.back() == '\n' ? "" : ",") + cell;
        if (c == '\n') out += '\n';
        cell.clear();
      } else if (c != '\r') {
        cell += c;
      }
    }
    while (out.size() > 1 && out[out.size() - 2] == '\n') out.pop_back();
    return out;
  };
  CHECK(order(pytorch_csv(run_schedule(equal, "ZBV").value()).value()) == want_equal);
  CHECK(order(pytorch_csv(run_schedule(uneven, "ZBV").value()).value()) == want_uneven);
}

// Mutated problem files and CSVs: every one is read or rejected with a
// positioned message, never a crash (the debug build runs this under ASan
// and UBSan); whatever is accepted expands, and its schedules pass the check.
TEST_CASE("pipeline io: mutated inputs are read or rejected, never crash") {
  Rng rng(18);
  const std::string alphabet = "{}[]:,\"0123456789.-eEaFBWxn \n";
  std::vector<std::string> sources;
  for (const char* name :
       {"dualpipe_example.json", "uneven_stages.json", "two_towers.json", "moe_layer.json"}) {
    sources.push_back(
        test::read_bytes(test::source_path(std::string("examples/pipeline/") + name)));
  }
  int accepted = 0, rejected = 0;
  for (int round = 0; round < 400; ++round) {
    std::string text = sources[rng.below(static_cast<uint32_t>(sources.size()))];
    const int edits = 1 + static_cast<int>(rng.below(3));
    for (int k = 0; k < edits && !text.empty(); ++k) {
      const size_t at = rng.below(static_cast<uint32_t>(text.size()));
      switch (rng.below(3)) {
        case 0:
          text[at] = alphabet[rng.below(static_cast<uint32_t>(alphabet.size()))];
          break;
        case 1:
          text.erase(at, 1);
          break;
        default:
          text.insert(at, 1, alphabet[rng.below(static_cast<uint32_t>(alphabet.size()))]);
      }
    }
    Result<Problem> p = read_problem_json("m.json", text);
    if (!p.is_ok()) {
      ++rejected;
      CHECK(p.status().message().rfind("m.json", 0) == 0);
      continue;
    }
    ++accepted;
    Problem small = p.value();
    small.microbatches = std::min(small.microbatches, 8);
    for (const char* name : {"1F1B", "list"}) {
      Result<ScheduleResult> s = run_schedule(small, name);
      if (s.is_ok()) CHECK(s.value().check.violation_count == s.value().check.violations.size());
    }
  }
  CHECK(accepted > 20);
  CHECK(rejected > 100);
  // CSVs: random cells over a 2-device problem.
  const Problem two = uniform_problem(2, 2, StageSpec{});
  const char* const cells[] = {"0F0", "0F1", "1F0", "1F1",     "0B0", "0B1",
                               "1B0", "1B1", "0I0", "1W1",     "",    "(0F1;1B0)OVERLAP_F_B",
                               "2F0", "0F9", "x",   "1SEND_F0"};
  for (int round = 0; round < 300; ++round) {
    std::string csv;
    for (int row = 0; row < 1 + static_cast<int>(rng.below(3)); ++row) {
      const int count = static_cast<int>(rng.below(9));
      for (int i = 0; i < count; ++i) csv += std::string(i ? "," : "") + cells[rng.below(16)];
      csv += "\n";
    }
    Result<ScheduleResult> s = read_pytorch_csv(two, "r.csv", csv);
    if (s.is_ok()) {
      CHECK(s.value().check.valid);
    } else {
      CHECK(s.status().message().rfind("r.csv", 0) == 0);
    }
  }
}

}  // namespace
}  // namespace shardlab::pipeline
