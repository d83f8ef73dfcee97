// Memory as trainers count it (core/pipeline/memory.h): the transformer
// layer's bytes, the problem file's "transformer" and the --transformer
// flag, and the memory columns of DualPipe's README table and the
// zero-bubble papers' (peak activations per device in stage activations,
// parameters per device in stage copies) reproduced by simulation.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "core/pipeline/memory.h"
#include "core/pipeline/pipeline.h"
#include "helpers.h"

namespace shardlab::pipeline {
namespace {

TransformerSpec layer(double layers = 1) {
  TransformerSpec t;
  t.hidden = 4096;
  t.seq = 2048;
  t.heads = 32;
  t.layers = layers;
  return t;
}

TEST_CASE("pipeline memory: a transformer layer's bytes") {
  // 34 s b h + 5 a s^2 b = 34 * 2048 * 4096 + 5 * 32 * 2048^2.
  CHECK(layer_activation_bytes(layer()) == 285212672.0 + 671088640.0);
  CHECK(layer_keep_bytes(layer()) == 32.0 * 2048 * 4096);
  CHECK(layer_static_bytes(layer()) == (12.0 * 4096 * 4096 + 13 * 4096) * 16);
  TransformerSpec tp = layer();
  tp.tensor_parallel = 8;
  tp.micro_batch = 2;
  CHECK(layer_activation_bytes(tp) == 2 * (285212672.0 + 671088640.0) / 8);
  CHECK(layer_keep_bytes(tp) == 2 * 32.0 * 2048 * 4096 / 8);
  CHECK(layer_static_bytes(tp) == (12.0 * 4096 * 4096 + 13 * 4096) * 16 / 8);
  StageSpec share;
  apply_transformer(layer(4), &share);
  CHECK(share.act == 4 * layer_activation_bytes(layer()));
  CHECK(share.keep == 4 * layer_keep_bytes(layer()));
  CHECK(share.param == 4 * layer_static_bytes(layer()));
}

TEST_CASE("pipeline memory: the problem file and the flag") {
  const std::string text =
      R"({"devices": 8, "microbatches": 20, "FB": 3, "mem_cap": 80e9,
          "transformer": {"h": 4096, "s": 2048, "a": 32, "layers": 4}})";
  Result<Problem> p = read_problem_json("t.json", text);
  REQUIRE_MESSAGE(p.is_ok(), p.status().message());
  REQUIRE(p.value().transformer.has_value());
  CHECK(p.value().stages[0].act == 4 * layer_activation_bytes(layer()));
  CHECK(p.value().stages[0].keep == 4 * layer_keep_bytes(layer()));
  CHECK(p.value().stages[0].param == 4 * layer_static_bytes(layer()));
  // Written back with every value and read again: the same problem.
  Result<Problem> again = read_problem_json("n.json", problem_json(p.value()));
  REQUIRE(again.is_ok());
  CHECK(problem_json(again.value()) == problem_json(p.value()));
  // Explicit values win over the derived ones.
  Result<Problem> own = read_problem_json("o.json", R"({"devices": 2, "microbatches": 2, "param": 5,
                    "transformer": {"h": 4096, "s": 2048, "a": 32}})");
  REQUIRE(own.is_ok());
  CHECK(own.value().stages[0].param == 5);
  CHECK(own.value().stages[0].act == layer_activation_bytes(layer()));
  Result<Problem> bad = read_problem_json(
      "b.json", R"({"devices": 2, "microbatches": 2, "transformer": {"h": 4096, "a": 32}})");
  REQUIRE_FALSE(bad.is_ok());
  CHECK(bad.status().message().rfind("b.json:1:", 0) == 0);
  CHECK(bad.status().message().find("transformer") != std::string::npos);

  Result<TransformerSpec> flag = parse_transformer("h=4096,s=2048,a=32,t=8,b=2,layers=4");
  REQUIRE(flag.is_ok());
  CHECK(flag.value().tensor_parallel == 8);
  CHECK(flag.value().micro_batch == 2);
  CHECK(flag.value().layers == 4);
  CHECK(parse_transformer("h=4096,s=2048").status().message() ==
        "--transformer: h, s and a are required, e.g. h=4096,s=2048,a=32");
  CHECK(parse_transformer("h=4096,s=2048,a=32,x=1").status().message() ==
        "--transformer: unknown key 'x' (h, s, b, a, t, layers, bytes_per_param)");
  CHECK(parse_transformer("h=4096.5,s=2048,a=32").status().message() ==
        "--transformer: h needs a whole number, got '4096.5'");
  CHECK(parse_transformer("h=0,s=2048,a=32").status().message() ==
        "--transformer: h needs a number above 0 and at most 1e7, got '0'");
}

// Peaks over devices, in units of one stage's activation and parameters.
struct Peaks {
  double activation = 0, parameter = 0;
};
Peaks peaks(const Problem& problem, const std::string& schedule, double stage_share) {
  Result<ScheduleResult> s = run_schedule(problem, schedule);
  REQUIRE_MESSAGE(s.is_ok(), s.status().message());
  const Expansion& e = s.value().expansion;
  const StageSpec& share = problem.stages[0];
  const Metrics& m = s.value().metrics;
  return {e.mem_value(*std::max_element(m.peak_activation.begin(), m.peak_activation.end())) /
              (share.act * stage_share),
          e.mem_value(*std::max_element(m.peak_parameter.begin(), m.peak_parameter.end())) /
              (share.param * stage_share)};
}

// DualPipe's README, "Pipeline Bubbles and Memory Usage Comparison (based on
// the same number of PP stages)": parameters per device 1x (1F1B, ZB1P),
// 2x (DualPipe, DualPipeV); activations per device PP (1F1B, ZB1P), PP+1
// (DualPipe, DualPipeV on PP/2 devices). The zero-bubble paper: ZB-H1 p M_B,
// ZB-H2 (2p-1) M_B; the sail-sg README: ZB-V 1x 1F1B's activations.
TEST_CASE("pipeline memory: the published memory columns, reproduced") {
  for (int32_t pp : {4, 8}) {
    Problem problem = uniform_problem(pp, 20, StageSpec{});
    problem.stages[0].fb = 3;
    apply_transformer(layer(4), &problem.stages[0]);
    INFO("PP = ", pp);
    const Peaks one_f_one_b = peaks(problem, "1F1B", 1);
    CHECK(one_f_one_b.activation == pp);
    CHECK(one_f_one_b.parameter == 1);
    const Peaks zb1p = peaks(problem, "ZB-H1", 1);
    CHECK(zb1p.activation == pp);
    CHECK(zb1p.parameter == 1);
    CHECK(peaks(problem, "ZB-H2", 1).activation == 2 * pp - 1);
    CHECK(peaks(problem, "ZBV", 1).activation == pp);
    CHECK(peaks(problem, "torch:ZBVZeroBubble", 1).activation == pp);
    const Peaks dualpipe = peaks(problem, "DualPipe", 1);
    CHECK(dualpipe.activation == pp + 1);
    CHECK(dualpipe.parameter == 2);
    // DualPipeV: the same PP stages on PP/2 devices, two stages a device.
    Problem half = uniform_problem(pp / 2, 20, StageSpec{});
    half.stages[0].fb = 3;
    apply_transformer(layer(8), &half.stages[0]);
    for (const char* name : {"DualPipeV", "torch:DualPipeV"}) {
      const Peaks v = peaks(half, name, 0.5);
      CHECK(v.activation == pp + 1);
      CHECK(v.parameter == 2);
    }
  }
}

TEST_CASE("pipeline memory: a cap in bytes") {
  // Room for 1F1B's 8 activations and one parameter copy, not for
  // DualPipe's 9 and two copies.
  Problem problem = uniform_problem(8, 20, StageSpec{});
  problem.stages[0].fb = 3;
  apply_transformer(layer(4), &problem.stages[0]);
  const StageSpec& s = problem.stages[0];
  problem.mem_cap.assign(8, 8 * s.act + s.param);
  CHECK(run_schedule(problem, "1F1B").value().check.valid);
  CHECK(run_schedule(problem, "ZB-H1").value().check.valid);
  CHECK_FALSE(run_schedule(problem, "DualPipe").value().check.valid);
  CHECK_FALSE(run_schedule(problem, "ZB-H2").value().check.valid);
}

// The README's table: examples/pipeline/transformer_memory.json (8 devices,
// 20 micro-batches, 4 layers of h 4096, s 2048, 32 heads a device, 64 GB),
// peaks in bytes, and which schedules the cap admits.
TEST_CASE("pipeline memory: the README's table in bytes") {
  const std::string file = test::source_path("examples/pipeline/transformer_memory.json");
  Result<Problem> read = read_problem_json("transformer_memory.json", test::read_bytes(file));
  REQUIRE_MESSAGE(read.is_ok(), read.status().message());
  const Problem& problem = read.value();
  CHECK(problem.stages[0].act == 3825205248.0);
  CHECK(problem.stages[0].keep == 1073741824.0);
  CHECK(problem.stages[0].param == 12888309760.0);
  struct Row {
    const char* name;
    double activation_bytes, parameter_bytes;
    bool fits;
  };
  for (const Row& row : {Row{"GPipe", 76504104960.0, 12888309760.0, false},
                         Row{"1F1B", 30601641984.0, 12888309760.0, true},
                         Row{"ZB-H1", 30601641984.0, 12888309760.0, true},
                         Row{"ZB-H2", 57378078720.0, 12888309760.0, false},
                         Row{"ZBV", 30601641984.0, 12888309760.0, true},
                         Row{"DualPipe", 34426847232.0, 25776619520.0, true}}) {
    INFO(row.name);
    Result<ScheduleResult> s = run_schedule(problem, row.name);
    REQUIRE(s.is_ok());
    const Expansion& e = s.value().expansion;
    const Metrics& m = s.value().metrics;
    CHECK(e.mem_value(*std::max_element(m.peak_activation.begin(), m.peak_activation.end())) ==
          row.activation_bytes);
    CHECK(e.mem_value(*std::max_element(m.peak_parameter.begin(), m.peak_parameter.end())) ==
          row.parameter_bytes);
    CHECK(s.value().check.valid == row.fits);
  }
  // ZB-H1's second device holds (p - i + 1) M_B + (i - 1) M_W with i = 2,
  // as the zero-bubble paper says: the part kept until W shows.
  Result<ScheduleResult> zb = run_schedule(problem, "ZB-H1");
  REQUIRE(zb.is_ok());
  CHECK(zb.value().expansion.mem_value(zb.value().metrics.peak_activation[1]) ==
        7 * 3825205248.0 + 1073741824.0);
}

}  // namespace
}  // namespace shardlab::pipeline
