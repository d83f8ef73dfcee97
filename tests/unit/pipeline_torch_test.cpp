// PyTorch parity (core/pipeline/torch_ir.h, export.h): PyTorch's own orders
// and CSV bytes against reference dumps (tests/data/pytorch/, one of them
// PyTorch's own test artifact, the others derived by hand from its source;
// see the README there), its lowering passes against the expectations of
// its own tests (test/distributed/pipelining/test_schedule.py,
// TestScheduleLowering), and the CSV reader on both forms and on hostile
// input (positions, PyTorch's vocabulary, encodings, sizes).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/pipeline/export.h"
#include "core/pipeline/pipeline.h"
#include "core/pipeline/torch_ir.h"
#include "core/rng.h"
#include "tests/unit/helpers.h"

namespace shardlab::pipeline {
namespace {

std::string data(const std::string& name) {
  return test::read_bytes(test::source_path("tests/data/pytorch/" + name));
}

// Rows from cell texts ("" = idle step), through the reader's own parser:
// a one-rank CSV line each.
TorchRow row_of(const std::vector<std::string>& cells) {
  TorchRow row;
  for (const std::string& text : cells) {
    if (text.empty() || text == "   ") {
      row.push_back(std::nullopt);
      continue;
    }
    TorchAction a;
    if (text[0] == '(') {
      // (sF k;sB k)OVERLAP_F_B
      int fs = 0, fm = 0, bs = 0, bm = 0;
      REQUIRE(std::sscanf(text.c_str(), "(%dF%d;%dB%d)", &fs, &fm, &bs, &bm) == 4);
      a = TorchAction::overlap(fs, fm, bs, bm);
    } else {
      size_t i = 0;
      while (std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
      size_t j = text.size();
      while (j > i && std::isdigit(static_cast<unsigned char>(text[j - 1]))) --j;
      const std::string type = text.substr(i, j - i);
      a.stage = std::stoi(text.substr(0, i));
      a.mb = j < text.size() ? std::stoi(text.substr(j)) : -1;
      bool known = false;
      for (TorchType t :
           {TorchType::kF, TorchType::kI, TorchType::kW, TorchType::kB, TorchType::kUnshard,
            TorchType::kReshard, TorchType::kReduceGrad, TorchType::kSendF, TorchType::kRecvF,
            TorchType::kSendB, TorchType::kRecvB}) {
        if (type == torch_type_text(t)) {
          a.type = t;
          known = true;
        }
      }
      REQUIRE_MESSAGE(known, text);
    }
    CHECK(torch_action_text(a) == text);
    row.push_back(a);
  }
  return row;
}

std::vector<std::string> texts(const TorchRow& row) {
  std::vector<std::string> out;
  for (const auto& a : row) out.push_back(a ? torch_action_text(*a) : "");
  return out;
}

std::string csv_of(const Problem& problem, const std::string& schedule,
                   CsvFormat format = CsvFormat::kComputeOnly) {
  Result<ScheduleResult> s = run_schedule(problem, schedule);
  REQUIRE_MESSAGE(s.is_ok(), s.status().message());
  Result<std::string> csv = pytorch_csv(s.value(), format);
  REQUIRE_MESSAGE(csv.is_ok(), csv.status().message());
  return csv.value();
}

Problem uniform(int32_t p, int32_t m, int32_t chunks = 2) {
  Problem problem = uniform_problem(p, m, StageSpec{});
  problem.placement.chunks = chunks;
  return problem;
}

TEST_CASE("pipeline torch: PyTorch's own artifact, DualPipeV on 4 ranks and 10 micro-batches") {
  const std::string want = data("dualpipev_4rank_10mb.csv");
  CHECK(csv_of(uniform(4, 10), "torch:DualPipeV") == want);
  // Our DualPipeV follows DeepSeek's step() and gives the same order; on
  // PyTorch's lock-step grid it idles where it waits.
  const std::string ours = csv_of(uniform(4, 10), "DualPipeV");
  std::string squeezed, cell;
  for (char c : ours) {
    if (c == ',' || c == '\r') {
      if (!cell.empty())
        squeezed += (squeezed.empty() || squeezed.back() == '\n' ? "" : ",") + cell;
      cell.clear();
      if (c == '\r') squeezed += "\r";
    } else if (c == '\n') {
      squeezed += "\n";
    } else {
      cell += c;
    }
  }
  CHECK(ours != want);
  CHECK(squeezed == want);
}

TEST_CASE("pipeline torch: reference dumps derived by hand from PyTorch's rules") {
  CHECK(csv_of(uniform(2, 3), "torch:Interleaved1F1B") ==
        data("interleaved1f1b_2rank_3mb_compute.csv"));
  CHECK(csv_of(uniform(2, 3), "torch:Interleaved1F1B", CsvFormat::kComputeComms) ==
        data("interleaved1f1b_2rank_3mb_comms.csv"));
  CHECK(csv_of(uniform(2, 1), "torch:InterleavedZeroBubble") ==
        data("interleavedzb_2rank_1mb_compute.csv"));
  CHECK(csv_of(uniform(2, 2), "torch:ZBVZeroBubble") == data("zbv_2rank_2mb_compute.csv"));
  CHECK(csv_of(uniform(2, 2), "1F1B") == data("lockstep_1f1b_2rank_2mb_compute.csv"));
}

TEST_CASE("pipeline torch: where PyTorch's constructors refuse") {
  // Interleaved: m a multiple of the rounds max(1, m div p); 9 on 4 ranks is 2 rounds.
  Result<ScheduleResult> nine = run_schedule(uniform(4, 9), "torch:Interleaved1F1B");
  REQUIRE_FALSE(nine.is_ok());
  CHECK(nine.status().message() ==
        "torch:Interleaved1F1B (PyTorch) needs the micro-batches to be a multiple of its rounds "
        "max(1, m div p) = 2; m = 9, p = 4");
  // ... but 10 on 4 (2 rounds of 5) and 3 on 4 (1 round) run; Megatron's does not.
  CHECK(run_schedule(uniform(4, 10), "torch:Interleaved1F1B").is_ok());
  CHECK(run_schedule(uniform(4, 3), "torch:InterleavedZeroBubble").is_ok());
  CHECK_FALSE(run_schedule(uniform(4, 10), "Interleaved1F1B").is_ok());
  Result<ScheduleResult> dpv = run_schedule(uniform(4, 7), "torch:DualPipeV");
  REQUIRE_FALSE(dpv.is_ok());
  CHECK(dpv.status().message() ==
        "torch:DualPipeV (PyTorch) needs at least as many micro-batches as stages (8); m = 7");
  // ZBV takes any m: the pattern is built for 2p-1 and the rest idles.
  CHECK(run_schedule(uniform(4, 1), "torch:ZBVZeroBubble").is_ok());
}

TEST_CASE("pipeline torch: every order runs and is valid over a grid") {
  int checked = 0;
  for (int32_t p = 1; p <= 6; ++p) {
    for (int32_t m = 1; m <= 14; ++m) {
      for (int32_t v = 1; v <= 3; ++v) {
        for (const char* name : {"torch:Interleaved1F1B", "torch:InterleavedZeroBubble",
                                 "torch:ZBVZeroBubble", "torch:DualPipeV"}) {
          const bool v_shape = std::string(name).find("V") != std::string::npos &&
                               std::string(name) != "torch:Interleaved1F1B";
          if (v_shape && v != 2) continue;
          const Problem problem = uniform(p, m, v);
          if (!torch_schedule_reason(name, p, m, v_shape ? 2 : v).empty()) continue;
          Result<ScheduleResult> s = run_schedule(problem, name);
          INFO(name, " p ", p, " m ", m, " v ", v);
          REQUIRE_MESSAGE(s.is_ok(), s.status().message());
          CHECK(s.value().check.valid);
          // Written and read back: the same schedule.
          for (CsvFormat format : {CsvFormat::kComputeOnly, CsvFormat::kComputeComms}) {
            Result<std::string> csv = pytorch_csv(s.value(), format);
            REQUIRE(csv.is_ok());
            Result<ScheduleResult> back = read_pytorch_csv(problem, "x.csv", csv.value(), format);
            REQUIRE_MESSAGE(back.is_ok(), back.status().message());
            CHECK(back.value().metrics.makespan == s.value().metrics.makespan);
            CHECK(pytorch_rows(back.value()).is_ok());
          }
          ++checked;
        }
      }
    }
  }
  CHECK(checked > 300);
}

TEST_CASE("pipeline torch: PyTorch's TestScheduleLowering expectations") {
  // test_unshard_reshard
  CHECK(texts(torch_add_unshard_reshard({row_of({"0F0", "0F1", "   ", "0B0", "0B1"})})[0]) ==
        std::vector<std::string>{"0UNSHARD", "0F0", "0F1", "0B0", "0B1", "0RESHARD"});
  const TorchRow two = row_of({"0F0", "0F1", "1F0", "1F1", "1B0", "1B1", "0B0", "0B1"});
  CHECK(texts(torch_add_unshard_reshard({two})[0]) ==
        std::vector<std::string>{"0UNSHARD", "1UNSHARD", "0F0", "0F1", "1F0", "1F1", "1B0", "1B1",
                                 "1RESHARD", "0B0", "0B1", "0RESHARD"});
  // test_reduce_grad (2 micro-batches)
  CHECK(texts(torch_add_reduce_grad({row_of({"0F0", "0F1", "   ", "0B0", "0B1"})}, 2)[0]) ==
        std::vector<std::string>{"0F0", "0F1", "0B0", "0B1", "0REDUCE_GRAD"});
  CHECK(texts(torch_add_reduce_grad({two}, 2)[0]) ==
        std::vector<std::string>{"0F0", "0F1", "1F0", "1F1", "1B0", "1B1", "1REDUCE_GRAD", "0B0",
                                 "0B1", "0REDUCE_GRAD"});
  // test_send_recv, "simple_2_rank_2_stage"
  Result<TorchRows> simple =
      torch_add_send_recv({row_of({"0F0", "0F1", "   ", "0B0", "   ", "0B1"}),
                           row_of({"   ", "1F0", "1B0", "1F1", "1B1", "   "})},
                          {0, 1});
  REQUIRE(simple.is_ok());
  CHECK(texts(simple.value()[0]) == std::vector<std::string>{"0F0", "0SEND_F0", "0F1", "0SEND_F1",
                                                             "0RECV_B0", "0B0", "0RECV_B1", "0B1"});
  CHECK(texts(simple.value()[1]) == std::vector<std::string>{"1RECV_F0", "1RECV_F1", "1F0", "1B0",
                                                             "1SEND_B0", "1F1", "1B1", "1SEND_B1"});
  // test_send_recv, "v_2_rank_4_stage" (stage -> rank 0, 1, 1, 0)
  Result<TorchRows> v =
      torch_add_send_recv({row_of({"0F0", "0F1", "   ", "3F0", "3B0", "3F1", "3B1", "0B0", "3W0",
                                   "0B1", "3W1", "0W0", "0W1"}),
                           row_of({"   ", "1F0", "2F0", "1F1", "2F1", "2B0", "1B0", "2B1", "1B1",
                                   "2W0", "2W1", "1W0", "1W1"})},
                          {0, 1, 1, 0});
  REQUIRE(v.is_ok());
  CHECK(texts(v.value()[0]) == std::vector<std::string>{"0F0",      "0SEND_F0", "0F1", "0SEND_F1",
                                                        "3RECV_F0", "3F0",      "3B0", "3SEND_B0",
                                                        "3RECV_F1", "3F1",      "3B1", "3SEND_B1",
                                                        "0RECV_B0", "0B0",      "3W0", "0RECV_B1",
                                                        "0B1",      "3W1",      "0W0", "0W1"});
  CHECK(texts(v.value()[1]) ==
        std::vector<std::string>{"1RECV_F0", "1RECV_F1", "1F0",      "2F0",      "2SEND_F0",
                                 "1F1",      "2RECV_B0", "2F1",      "2SEND_F1", "2B0",
                                 "2RECV_B1", "1B0",      "1SEND_B0", "2B1",      "1B1",
                                 "1SEND_B1", "2W0",      "2W1",      "1W0",      "1W1"});
}

TEST_CASE("pipeline torch: FSDP releases follow CPython's set order") {
  // An OVERLAP_F_B keeps stages 8 and 0 active; the next step needs neither,
  // so both are released at once in the order CPython iterates {8, 0, 2}:
  // 8 sits in slot 0 of the 8-slot table and 0, colliding, in slot 1.
  const TorchRow row = row_of({"(8F0;0B0)OVERLAP_F_B", "2F0", "3F0", "5F0"});
  CHECK(texts(torch_add_unshard_reshard({row})[0]) ==
        std::vector<std::string>{"8UNSHARD", "0UNSHARD", "2UNSHARD", "(8F0;0B0)OVERLAP_F_B",
                                 "8RESHARD", "0RESHARD", "3UNSHARD", "5UNSHARD", "2F0", "2RESHARD",
                                 "3F0", "3RESHARD", "5F0", "5RESHARD"});
}

TEST_CASE("pipeline torch: Python's csv writer") {
  CHECK(torch_csv_text({row_of({"0F0", "", "1I2"}), row_of({""}), {}, row_of({"", ""})}) ==
        "0F0,,1I2\r\n\"\"\r\n\r\n,\r\n");
}

TEST_CASE("pipeline torch: the bidirectional plan has no CSV form, and says why") {
  Problem problem = uniform(8, 20);
  Result<ScheduleResult> dual = run_schedule(problem, "DualPipe");
  REQUIRE(dual.is_ok());
  Result<std::string> csv = pytorch_csv(dual.value());
  REQUIRE_FALSE(csv.is_ok());
  CHECK(csv.status().message() ==
        "the PyTorch schedule CSV cannot hold DualPipe: it runs two parameter copies in opposite "
        "directions (micro-batches 0..9 through copy 0, 10..19 through copy 1, so each stage sits "
        "on two devices), while PyTorch runs every micro-batch through every stage and each stage "
        "on one rank; torch:DualPipeV, DualPipe cut in half onto a V, is the form PyTorch runs");
}

TEST_CASE("pipeline torch: the reader's messages") {
  const Problem two = uniform(2, 2);
  auto error = [&](const std::string& csv, std::optional<CsvFormat> format = std::nullopt) {
    Result<ScheduleResult> s = read_pytorch_csv(two, "s.csv", csv, format);
    REQUIRE_FALSE(s.is_ok());
    CHECK(s.status().code() == StatusCode::kInvalidInput);
    return s.status().message();
  };
  const std::string ok = "0F0,0F1,0B0,0B1\r\n1F0,1B0,1F1,1B1\r\n";
  CHECK(read_pytorch_csv(two, "s.csv", ok).is_ok());
  CHECK(read_pytorch_csv(two, "s.csv", "\xEF\xBB\xBF" + ok).is_ok());  // a UTF-8 byte-order mark
  CHECK(error("rank,step\r\n" + ok) ==
        "s.csv:1:1 (rank 0, step 0): expected an action such as 2F0, 1I3, 0W3, 1B2 (B: a full "
        "backward) or (0F4;3B1)OVERLAP_F_B, found \"rank\" (PyTorch's CSV has no header row: one "
        "row per rank, one cell per step)");
  CHECK(error(std::string("\xFF\xFE", 2) + "0\0F\0", std::nullopt) ==
        "s.csv:1:1 (byte 0): expected UTF-8 text (PyTorch writes UTF-8; save the file as UTF-8), "
        "found a UTF-16 (little-endian) byte-order mark");
  CHECK(error(std::string("0\0F\0", 4)) ==
        "s.csv:1:1 (byte 0): expected UTF-8 text (PyTorch writes UTF-8; save the file as UTF-8), "
        "found UTF-16 (little-endian) text (every other byte is 0x00)");
  CHECK(error(std::string("0F0,\0", 5)) ==
        "s.csv:1:5 (byte 4): expected UTF-8 text (PyTorch writes UTF-8; save the file as UTF-8), "
        "found a NUL byte (0x00): the file is binary or UTF-16 without a byte-order mark");
  CHECK(error("0F0,0F\xC3(\r\n") ==
        "s.csv:1:7 (byte 6): expected UTF-8 text (PyTorch writes UTF-8; save the file as UTF-8), "
        "found the bytes 0xc3 0x28 (an incomplete UTF-8 character)");
  CHECK(error("0F0,0F1,0B0,0B1\r\n1F0,1B0,1F1,1B1\r\n2F0\r\n") ==
        "s.csv:3:1 (rank 2): expected one row per rank, 2 for the problem's 2 devices (ranks "
        "0..1), found a row for rank 2");
  // An idle rank is a blank row, as the writer writes it (found by libFuzzer:
  // a schedule with rank 1 idle wrote back as "0F0,0F1,0B0,0B1\r\n\r\n" and
  // was then refused as one row short).
  CHECK(read_pytorch_csv(two, "s.csv", "0F0,0F1,0B0,0B1\r\n\r\n").is_ok());
  // Blank lines after the last rank are not rows; a row after them is.
  CHECK(read_pytorch_csv(two, "s.csv", ok + "\r\n\n\r\n").is_ok());
  CHECK(error(ok + "\r\n\n2F0\r\n") ==
        "s.csv:5:1 (rank 4): expected one row per rank, 2 for the problem's 2 devices (ranks "
        "0..1), found a row for rank 4");
  CHECK(error("0F0,0F1,0B0,0B1\r\n") ==
        "s.csv:2:1: expected one row per rank, 2 for the problem's 2 devices, found 1 row (rank "
        "1's row is missing)");
  CHECK(error("0F0,9F0\r\n1F0\r\n") ==
        "s.csv:1:5 (rank 0, step 1): expected a cell running each of stages 0..9 (the highest "
        "this CSV names), found \"9F0\" but no cell running stage 2");
  // A quoted cell may hold line breaks; the message stays on one line.
  CHECK(error("\"1\r\n\x01"
              "F\"\r\n") ==
        "s.csv:1:1 (rank 0, step 0): expected an action such as 2F0, 1I3, 0W3, 1B2 (B: a full "
        "backward) or (0F4;3B1)OVERLAP_F_B, found \"1\\r\\n\\u0001F\"");
  CHECK(error("0F0,0F1,0BW0\r\n1F0\r\n") ==
        "s.csv:1:9 (rank 0, step 2): expected an action in PyTorch's vocabulary since 2.5 (F, I "
        "= input gradient, W, B = full backward; older releases wrote BW for a full backward and "
        "B for the input gradient), found \"0BW0\"");
  CHECK(error("0F0,0F,0B0,0B1\r\n1F0\r\n") ==
        "s.csv:1:5 (rank 0, step 1): expected F with its micro-batch, e.g. 0F0, found \"0F\"");
  CHECK(error("0F0,0F1,0B0,0B1\r\n1F0,1I0,1F1,1B1,1W0,1B0\r\n") ==
        "s.csv:2:21 (rank 1, step 5): expected each computation once, found \"1B0\" running the "
        "input gradient (I) of stage 1, micro-batch 0 a second time (first in \"1I0\" at line 2, "
        "column 5)");
  CHECK(error("0F0,0F1,0B0,0B1\r\n1F0,1B0,1F1\r\n") ==
        "s.csv:2:12 (rank 1): expected 1I1 (or 1B1), the input gradient (I) of stage 1, "
        "micro-batch 1, on this row, found the end of the row");
  CHECK(error("0B0,0F0,0F1,0B1\r\n1F0,1B0,1F1,1B1\r\n") ==
        "s.csv:1:1 (rank 0, step 0): expected an order that can run, found a deadlock here: "
        "\"0B0\" waits for \"1B0\" (line 2, column 5, rank 1) and no rank can move on");
  CHECK(error("0F0,0F1,0B0,0B1\r\n1F0,1B0,1F1,1B1\r\n", CsvFormat::kComputeComms) ==
        "s.csv:1:9 (rank 0, step 2): expected \"0RECV_B0\" earlier on rank 0's row, found \"0B0\" "
        "before its input (PyTorch's runtime stops here: computing before receiving input)");
}

}  // namespace
}  // namespace shardlab::pipeline
