// The teaching lab's facade: a small model on a device mesh becomes a
// contest-format sharding instance, the sharding solver (core/sharding/,
// which knows nothing of this folder) picks one strategy per node, and the
// plan is explained in the vocabulary of the course: which letter each op
// splits over which mesh axis, the collectives it pays, and the textbook
// strategy it matches.
//
// Lifecycle:
//   Result<ModelSpec> model = read_model("mlp.json", text);         // model.h
//   Result<Generated> gen = generate(model.value(), options);       // graph + costs
//   gen.value().problem                  // a finalized shardlab::Problem
//   instance_json(gen.value())           // the same, as contest JSON (--emit)
//   sidecar_json(gen.value())            // names of nodes and strategies
//   SolveResult r = shardlab::solve(gen.value().problem, ...);      // core/sharding/solver.h
//   Explanation x = explain(gen.value(), r.best.solution);          // explain.h
//   explanation_json(gen.value(), x, run) / explanation_text(...)
//
// What the generator builds (graph.h, strategies.h, collectives.h):
// - one instance node per input, parameter, forward op and (training) loss
//   gradient, backward op and gradient sum, live over its interval of a
//   topological schedule (forward ops in order, backward ops in reverse);
// - strategies: mesh axes mapped to the node's einsum letters, or none
//   (replication); parameters add ZeRO stages 1-3 over the axes their layout
//   leaves replicated;
// - node cost (integer nanoseconds): compute / shards + the node's own
//   collectives (alpha-beta); usage (bytes per device): the node's output, or
//   for a parameter its weights + gradients + optimizer state as ZeRO counts
//   them (2 + 2 + 12 bytes per parameter with mixed-precision Adam);
// - edge cost: the collectives that re-partition the producer's output into
//   the layout the consumer needs (and a gradient into its parameter's
//   layout: all-reduce, or reduce-scatter for ZeRO);
// - the usage limit: the mesh's device memory (1 GB = 1e9 bytes).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/sharding/model.h"
#include "core/status.h"
#include "core/teach/collectives.h"
#include "core/teach/graph.h"
#include "core/teach/model.h"
#include "core/teach/strategies.h"

namespace shardlab::teach {

struct GenerateOptions {
  bool override_cost_model = false;  // use cost_model instead of the model's
  CostModel cost_model = CostModel::kAlphaBeta;
  // Forced strategies ("why not data parallel here?"): node name -> strategy
  // name (strategies.h's form). The node's other strategies get the
  // contest's forbidden cost, so the instance keeps its shape.
  std::vector<std::pair<std::string, std::string>> forces;
};

// One instance edge: producer -> consumer, with what flows along it (one or
// more operands of the consumer, or the gradient of a parameter).
struct EdgeInfo {
  int32_t from = -1;
  int32_t to = -1;
  std::vector<int32_t> operands;  // operand indices of `to`; -1: a gradient into parameter `to`
};

struct Generated {
  ModelSpec model;
  Graph graph;
  CostTable costs{MeshSpec{}, CostModel::kAlphaBeta};
  std::vector<std::vector<Strategy>> strategies;  // per node (instance node = graph node)
  std::vector<std::vector<NodeCost>> node_costs;  // per node and strategy
  std::vector<int32_t> forced;                    // per node: the forced strategy, or -1
  std::vector<EdgeInfo> edges;                    // instance edge e
  Problem problem;                                // finalized
};

Result<Generated> generate(const ModelSpec& model, const GenerateOptions& options = {});

// The collectives a pair of strategies pays on edge e, and their total.
int64_t edge_collectives(const Generated& gen, int32_t edge, int32_t from_strategy,
                         int32_t to_strategy, std::vector<Collective>* out);

// Among plans of the same cost, the one that holds less: every node in turn
// moves to its least-usage strategy (the first in the list among equals)
// that keeps the plan's cost and feasibility, until none moves. Solvers return any optimum; this makes the
// explanation deterministic and shows inputs split as far as their
// consumers allow (a replicated input that every consumer slices costs the
// same, but is not what a course draws).
std::vector<int32_t> prefer_less_memory(const Generated& gen, std::vector<int32_t> plan);

// The contest instance (google/iopddl's JSON) and the sidecar that names its
// nodes and strategies: {"format": "shardlab-teach-sidecar", "cost_unit":
// "ns", "usage_unit": "bytes", "nodes": [{"name", "kind", "op", "detail",
// "letters", "sizes", "strategies": [names]}], "edges": [{"from", "to",
// "carries"}]}.
std::string instance_json(const Generated& gen);
std::string sidecar_json(const Generated& gen);

}  // namespace shardlab::teach
