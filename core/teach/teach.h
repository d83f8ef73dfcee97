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
//   plan = prefer_less_memory(gen.value(), r.best.solution);        // ties -> less memory
//   Explanation x = explain(gen.value(), plan);                     // explain.h
//   explanation_json(gen.value(), x, summary) / explanation_text(...)
// session.h does all of it in one call (solve_model), for the CLI and wasm.
//
// What the generator builds (graph.h, strategies.h, collectives.h):
// - a training graph of inputs, parameters, forward ops and (training) loss
//   gradients, backward ops and gradient sums in a topological schedule
//   (forward ops in order, backward ops in reverse);
// - one instance node per forward op (its backward ops run in its layout:
//   same letters, same axes), input and parameter, and per output read by
//   several ops (re-partitioned once for all readers); the op's node holds
//   its output from the forward until the last backward use (the activation
//   memory of training);
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
  // Letters pinned to mesh axes (the plan lab: the batch on the
  // expert-parallel axis, which is data parallelism): every op, input and
  // parameter that has the letter splits it on that axis; nodes without it
  // are free there, and so are shared outputs (copies in their readers' layout).
  std::vector<std::pair<char, int32_t>> pinned_letters;
  // Mesh axes every parameter must be split on (the plan lab's memory-lean
  // layouts: weights sharded over the whole tensor-parallel group, as
  // Megatron's are). A parameter's strategies that leave one of them unsplit
  // get the forbidden cost, unless none splits them all (then all stay).
  std::vector<int32_t> sharded_parameter_axes;
};

// One use of a node's output by another node: operand `operand` of `to`,
// or (operand kGradientLink) the gradient flowing from `from` into parameter
// `to`, or between repetitions of a repeated block (model.h's RepeatSpec):
// kCarry, the output of the block's last op (`from`) becoming the next
// repetition's input (`to`, in the layout the block reads it), and
// kCarryGradient, that input's gradient (`from`: the input's holder) going
// back into the last op's layout (`to`).
constexpr int32_t kGradientLink = -1;
constexpr int32_t kCarry = -2;
constexpr int32_t kCarryGradient = -3;
struct Link {
  int32_t from = -1;
  int32_t to = -1;
  int32_t operand = kGradientLink;
};

// One instance edge between two instance nodes (groups), with the links
// between their members that it prices. A backward op that reads an
// activation its forward op already read in the same layout pays nothing
// again (the re-partitioned copy is what is saved for the backward), so such
// links are left out; a parameter gathered for the forward is gathered again
// for the backward, as ZeRO-3 and FSDP do.
struct EdgeInfo {
  int32_t from = -1;  // instance node
  int32_t to = -1;
  std::vector<Link> links;
};

struct Generated {
  ModelSpec model;
  Graph graph;
  CostTable costs{MeshSpec{}, CostModel::kAlphaBeta};
  // Per graph node: its strategies and what each costs on its own.
  std::vector<std::vector<Strategy>> strategies;
  std::vector<std::vector<NodeCost>> node_costs;
  // Instance node g is the group of graph nodes groups[g] (its lead first: a
  // forward op with its loss gradient, gradient sum and backward ops, or an
  // input, or a parameter); its strategies are the lead's, and
  // member_strategy[v][s] is the strategy of member v under the lead's s.
  std::vector<std::vector<int32_t>> groups;
  std::vector<int32_t> group_of;  // graph node -> instance node
  std::vector<std::vector<int32_t>> member_strategy;
  std::vector<std::vector<Link>> internal_links;  // per group: links inside it
  std::vector<int32_t> forced;                    // per instance node: the forced strategy, or -1
  std::vector<EdgeInfo> edges;                    // instance edge e
  Problem problem;                                // finalized

  // The strategy of every graph node under an instance plan.
  std::vector<int32_t> node_plan(const std::vector<int32_t>& plan) const;
};

Result<Generated> generate(const ModelSpec& model, const GenerateOptions& options = {});

// The collectives one link pays under the strategies of its two graph
// nodes, and their total.
int64_t link_collectives(const Generated& gen, const Link& link, int32_t from_strategy,
                         int32_t to_strategy, std::vector<Collective>* out);
// The layout a link's source hands over under its strategy, and the one its
// target needs (what link_collectives re-partitions between).
Layout link_source_layout(const Generated& gen, const Link& link, int32_t from_strategy);
Layout link_target_layout(const Generated& gen, const Link& link, int32_t to_strategy);
// F, B or W: where a link's collectives fall in the step (graph.h's Phase):
// a gradient into its parameter is W, a carried gradient B, otherwise the
// phase of the node that reads.
Phase link_phase(const Generated& gen, const Link& link);

// Among plans of the same cost, the one that holds less: every node in turn
// moves to its least-usage strategy (the first in the list among equals)
// that keeps the plan's cost and feasibility, until none moves. Solvers return any optimum; this
// makes the explanation deterministic and shows inputs split as far as their consumers allow (a
// replicated input that every consumer slices costs the same, but is not what a course draws).
std::vector<int32_t> prefer_less_memory(const Generated& gen, std::vector<int32_t> plan);

// The contest instance (google/iopddl's JSON) and the sidecar that names its
// nodes and strategies: {"format": "shardlab-teach-sidecar", "cost_unit":
// "ns", "usage_unit": "bytes", "nodes": [{"name", "kind", "op", "detail",
// "letters", "sizes", "strategies": [names]}], "edges": [{"from", "to",
// "carries"}]}.
std::string instance_json(const Generated& gen);
std::string sidecar_json(const Generated& gen);

}  // namespace shardlab::teach
