// The pipeline problem file (JSON) and the uniform problem of the command
// line's flags. Format (every key optional unless said; README has the full
// description and examples/pipeline/ has examples):
//   {"format": "shardlab-pipeline-problem", "version": 1, "name": "...",
//    "devices": P, "microbatches": M (required), "comm": C,
//    "links": "parallel" | "serial" (one transfer at a time per pair of devices),
//    "mem_cap": K | [K per device] | null,
//    "F": 1, "B": 1, "W": 1, "FB": F+B+W, "act": 1, "keep": 0, "param": 0,
//    "transformer": {"h", "s", "b": 1, "a", "t": 1, "layers": 1, "bytes_per_param": 16}
//                   (memory.h: act, keep and param default to its bytes),
//    "chunks": 2, "placement": "auto" | "linear" | "interleaved" | "v-shape" |
//                 "bidirectional" | "free" | [device per stage] | [[copy 0], [copy 1]],
//    "stages": [{"F", "B", "W", "FB", "act", "keep", "param", "comm"}, ...],
//    "operators": [{"name", "F", "B", "W", "act", "keep", "param", "devices": [...]}, ...],
//    "edges": [{"from": name, "to": name, "comm": C} | [from, to], ...]}
// Without "stages" and "operators" the problem is uniform: F, B, W, ... are
// one device's share of the model per micro-batch and "devices" is required.
// With "stages" the top-level values are defaults for every stage and
// "devices" defaults to the stage count. With "operators" the problem is a
// DAG over "devices" devices. Every error names the file, line:column, byte,
// JSON path and what was expected.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/pipeline/model.h"
#include "core/status.h"

namespace shardlab::pipeline {

// The largest problem file read (a 100,000-operator graph takes about 10 MB).
constexpr int64_t kMaxProblemBytes = int64_t{16} << 20;

Result<Problem> read_problem_json(const std::string& source, std::string_view text);

// The problem with every default written out (what the page's editor shows).
std::string problem_json(const Problem& problem, int indent = 2);

// The uniform problem of `--stages P --microbatches M --F --B --W [--FB]`.
Problem uniform_problem(int32_t devices, int32_t microbatches, const StageSpec& share);

// The command line's problem flags (`shardlab pipeline --help`), also read
// from JSON by the page ({"stages": 4, "microbatches": 8, "F": 1, ...}), so
// that both build the same problem.
struct ProblemFlags {
  std::optional<int64_t> devices, microbatches, chunks;
  std::optional<double> f, b, w, fb, comm, mem_cap, act, keep, param;
  std::string placement;                       // empty: unchanged
  std::string links;                           // "parallel" or "serial"; empty: unchanged
  std::optional<TransformerSpec> transformer;  // act, keep and param from a layer (memory.h)
  bool has_share() const { return f || b || w || fb || act || keep || param || transformer; }
};

// Applies the flags over `problem` (a file's, or uniform_problem(1, 1, {})
// for flags alone); `source` names the file in errors ("" for none). Fails
// with kInvalidArgument for flags that do not fit (share flags on a problem
// that lists its stages or operators, an unknown placement, memory caps
// that no longer match the devices) and with the validation message.
Status apply_flags(const ProblemFlags& flags, const std::string& source, Problem* problem);

// {"stages" | "devices", "microbatches", "F", "B", "W", "FB", "comm",
//  "mem_cap", "act", "keep", "param", "chunks", "placement", "links"} -> the uniform
// problem the CLI builds from the same flags.
Result<Problem> problem_from_flags_json(const std::string& source, std::string_view text);

}  // namespace shardlab::pipeline
