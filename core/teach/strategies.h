// The strategy space of the teaching generator, GSPMD/Alpa style: a strategy
// maps every mesh axis to one of the node's letters (split that loop over
// the axis) or to none (replicate along the axis); each axis is used at
// most once per node, a letter may take several axes, and only splits that
// divide the letter's size are offered. Parameters add a ZeRO stage for the
// axes their layout leaves replicated. This file also says what layout each
// strategy produces and needs, and what it costs on its own (compute, the
// op's own collectives) and holds (bytes per device).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/teach/collectives.h"
#include "core/teach/graph.h"
#include "core/teach/model.h"

namespace shardlab::teach {

struct Strategy {
  std::vector<int8_t> axis_letter;  // per mesh axis: index into node.letters, or -1
  int8_t zero = 0;                  // parameters: ZeRO stage 0..3 over the other axes
  // Shared outputs (and the sum of their gradients): a bit per mesh axis over
  // which the gradient sum takes partial terms and all-reduces once.
  uint8_t partial = 0;
  // Partial sums left to the consumers ("defer"): the node does not
  // all-reduce what its split contracted letters (or, for a gradient sum,
  // its partial terms) leave partial; its output stays partial there and
  // each edge reduces it into the layout its reader needs, a reduce-scatter
  // where the reader splits (Megatron's sequence parallelism: reduce-scatter
  // after the row-parallel matmul, all-gather before the column-parallel
  // one), an all-reduce otherwise. The generator offers it after the other
  // strategies, for groups where some member would all-reduce, in models
  // that name their sequence letter.
  bool defer = false;
  bool operator==(const Strategy& other) const = default;
};

// Every strategy of a node, replication first. Inputs with a pinned layout
// get that one; parameters get every layout times the ZeRO stages that
// apply (training: 0-3 when some axis is left replicated; inference: 0 or 3;
// none when model.zero is false); shared outputs that sum gradients get
// every subset of the axes their layout leaves free as partial-sum axes.
std::vector<Strategy> enumerate_strategies(const GraphNode& node, const ModelSpec& model);

// "replicated", "f:x", "b:data,h:model", "b:x+y", "f:x,zero3", "zero2",
// "b:data,sum:model" (a gradient sum taking partial terms over model),
// "f:x,defer" (partial sums left to the consumers).
std::string strategy_name(const GraphNode& node, const Strategy& strategy, const MeshSpec& mesh);
// Parses a name in that form (tokens in any order) into a strategy of the
// node's list; errors name the node and list its strategies.
Result<int32_t> find_strategy(const GraphNode& node, const std::vector<Strategy>& strategies,
                              const std::string& text, const MeshSpec& mesh);

// The mesh axes a parameter's ZeRO stage shards over: those of size > 1 its
// layout leaves replicated.
std::vector<int32_t> zero_axes(const Strategy& strategy, const MeshSpec& mesh);

TensorShape output_shape(const GraphNode& node);
// The layout a node hands to its consumers (partial over contracted axes for
// a parameter's gradient; flat over the ZeRO axes for a ZeRO-3 parameter).
Layout output_layout(const GraphNode& node, const Strategy& strategy);
// The layout a node needs for its operand k under its strategy.
Layout operand_layout(const GraphNode& node, const Strategy& strategy, size_t operand);
// Where a parameter wants its gradient: its layout, flat over the ZeRO axes
// from stage 1 on (the gradient is reduce-scattered to the optimizer shard).
Layout gradient_layout(const GraphNode& param, const Strategy& strategy);

// True when the node, under this strategy (without defer), all-reduces
// partial sums itself: a split contracted letter, or a gradient sum's
// partial terms. Only then does deferring change anything.
bool reduces_partial_sums(const GraphNode& node, const Strategy& strategy, const MeshSpec& mesh);

// A strategy's own cost and memory: compute (flops over the shards of its
// work letters), the all-reduce of partial sums over contracted axes (not
// for a parameter's gradient: its edge reduces it; not when deferred), the all-reduce of
// row statistics when a softmax/layernorm letter is split, and for ZeRO-1/2
// parameters the all-gather of the updated weights after the step.
struct NodeCost {
  int64_t compute_ns = 0;
  std::vector<Collective> collectives;
  int64_t total_ns = 0;
  int64_t usage_bytes = 0;
};
NodeCost node_cost(const GraphNode& node, const Strategy& strategy, const ModelSpec& model,
                   const CostTable& costs);

// A parameter's bytes per device under a layout with `shards` devices per
// copy, `zero_ways` ways of ZeRO sharding and the stage, as ZeRO counts them
// (weights + gradients + optimizer state; Rajbhandari et al., SC 2020).
int64_t parameter_bytes(int64_t elements, int64_t shards, int64_t zero_ways, int32_t stage,
                        const ModelSpec& model, int32_t dtype_bytes);

}  // namespace shardlab::teach
