// Memory as trainers count it: the per-micro-batch activation of a
// transformer layer, the part of it held until W, and the static memory of
// a stage copy, in bytes, as defaults for a problem's act, keep and param
// (problem_json.h reads them from "transformer", the CLI from --transformer).
//
// Activations are the zero-bubble authors' count for a GPT layer in 16-bit
// without recomputation (after Korthikanti et al. 2022, "Reducing
// activation recomputation in large transformer models"): F allocates
// 34sbh + 5as^2b bytes; W needs 32sbh of them (the inputs of the four linear
// layers and the gradients of their outputs: 2+2+2+8 and 6+2+8+2 sbh), so B
// frees the rest, 2sbh + 5as^2b (sail-sg/zero-bubble-pipeline-parallelism,
// megatron/core/pipeline_parallel/zerobubble/runtime.py: f_mem_approx =
// 34h + 5as, w_mem_approx = -32h per token of a micro-batch). t-way tensor
// parallelism with sequence parallelism divides all of it by t.
// Parameters: 12h^2 + 13h per layer (QKV, projection, two MLP matrices with
// biases, two layer norms), split t ways, at bytes_per_param each (16 for
// mixed-precision Adam: 2 weight + 2 gradient + 12 fp32 master weight and
// moments, Rajbhandari et al. 2020, ZeRO). A stage copy holds its layers'
// parameters with their gradients and optimizer state, so DualPipe's two
// copies per device hold twice that.
#pragma once

#include <string>
#include <string_view>

#include "core/pipeline/model.h"
#include "core/status.h"

namespace shardlab::pipeline {

// One layer, one micro-batch: the activation F allocates (bytes).
double layer_activation_bytes(const TransformerSpec& t);
// The part of it W needs, released when W ends (B releases the rest).
double layer_keep_bytes(const TransformerSpec& t);
// One layer's parameters, gradients and optimizer state (bytes).
double layer_static_bytes(const TransformerSpec& t);

// The act, keep and param of a share (or stage) of t.layers layers.
void apply_transformer(const TransformerSpec& t, StageSpec* share);

// "h=4096,s=2048,b=1,a=32,t=1,layers=4[,bytes_per_param=16]" (the CLI's
// --transformer; h, s and a are required). Fails with kInvalidArgument
// naming the bad item.
Result<TransformerSpec> parse_transformer(std::string_view text);

}  // namespace shardlab::pipeline
