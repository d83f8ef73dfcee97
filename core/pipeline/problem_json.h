// The pipeline problem file (JSON) and the uniform problem of the command
// line's flags. Format (every key optional unless said; README has the full
// description and examples/pipeline/ has examples):
//   {"format": "shardlab-pipeline-problem", "version": 1, "name": "...",
//    "devices": P, "microbatches": M (required), "comm": C,
//    "mem_cap": K | [K per device] | null,
//    "F": 1, "B": 1, "W": 1, "FB": F+B+W, "act": 1, "keep": 0, "param": 0,
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

#include <string>
#include <string_view>

#include "core/pipeline/model.h"
#include "core/status.h"

namespace shardlab::pipeline {

Result<Problem> read_problem_json(const std::string& source, std::string_view text);

// The problem with every default written out (what the page's editor shows).
std::string problem_json(const Problem& problem, int indent = 2);

// The uniform problem of `--stages P --microbatches M --F --B --W [--FB]`.
Problem uniform_problem(int32_t devices, int32_t microbatches, const StageSpec& share);

}  // namespace shardlab::pipeline
