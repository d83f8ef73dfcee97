// Explains a plan of a generated teaching instance in the course's words:
// each node's strategy as a map from its letters to mesh axes, the
// collectives it pays (on the op itself or on an edge, with kind, axis and
// bytes), the cost breakdown (compute, op collectives, edge collectives;
// they add up to the instance's cost of the plan exactly), the memory per
// device at the peak, the textbook strategy the plan matches per mesh axis,
// JAX PartitionSpecs for every tensor, and (training) ZeRO's memory table
// as the generator's own accounting gives it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/teach/teach.h"

namespace shardlab::teach {

struct PlacedCollective {
  Collective collective;
  std::string on;                 // "op y" or "edge y.grad.W2 -> W2"
  std::string pass;               // "forward", "backward" or "optimizer"
  Phase phase = Phase::kForward;  // the backward split into B (input gradients) and W (weights)
};

// Compute and collectives of one phase of the step (graph.h's Phase).
struct PhaseTime {
  int64_t compute_ns = 0;
  int64_t collective_ns = 0;
};

// Per mesh axis: "data_parallel", "zero1", "zero2", "zero3", "zero_mixed", "megatron",
// "megatron_sp", "tensor_parallel", "expert_parallel", "replicated" or "mixed".
struct AxisRole {
  std::string key;
  std::string text;  // "Megatron tensor parallel on x"
};

struct ZeroRow {
  int32_t stage = 0;
  int64_t generator_bytes = 0;  // the generator's parameter usages, summed
  int64_t formula_bytes = 0;    // ZeRO's table: (2+2+12)P, 4P + 12P/N, 2P + 14P/N, 16P/N
};

struct Explanation {
  std::vector<int32_t> plan;                // per instance node (as solved)
  std::vector<int32_t> node_plan;           // per graph node (Generated::node_plan)
  std::vector<std::string> strategy_names;  // per graph node
  std::vector<PlacedCollective> collectives;
  int64_t compute_ns = 0;
  int64_t op_collective_ns = 0;
  int64_t edge_collective_ns = 0;
  int64_t total_ns = 0;
  PhaseTime phases[4];  // by Phase: forward, B, W, optimizer; they add up to total_ns
  int64_t peak_bytes = 0;
  int64_t peak_time = 0;
  int64_t parameter_bytes_at_peak = 0;  // weights, gradients, optimizer state
  std::vector<AxisRole> axes;           // per mesh axis
  std::string textbook;                 // the axes' names joined, or "" when none matches
  int64_t parameters = 0;               // elements of all parameters
  int64_t zero_ways = 0;                // devices of the mesh (ZeRO's N)
  std::vector<ZeroRow> zero_table;      // training only
};

// The textbook strategy of each mesh axis (textbook.cpp), and their names
// joined ("" when an axis is mixed). These take a plan per graph node.
std::vector<AxisRole> name_axes(const Generated& gen, const std::vector<int32_t>& plan,
                                const std::vector<PlacedCollective>& collectives);
std::string textbook_name(const std::vector<AxisRole>& roles);
// A parameter's ZeRO stage along one axis: its strategy's stage, or 3 when it
// is stored split along the axis but gathered for use there (FSDP's form of
// ZeRO-3); 0 when it is replicated there or used split (tensor parallel).
int32_t zero_stage_on(const Generated& gen, const std::vector<int32_t>& plan, int32_t node,
                      int32_t axis);
int32_t zero_stage(const Generated& gen, const std::vector<int32_t>& plan, int32_t node);

// plan: one strategy index per instance node (a solver's answer). Errors when
// the plan has the wrong length or an index out of range. The collectives are
// listed per graph node: an op's backward ops show their own.
Result<Explanation> explain(const Generated& gen, const std::vector<int32_t>& plan);

// What the solver said, for the report.
struct SolveSummary {
  bool found = false;
  int64_t cost = 0;
  int64_t lower_bound = 0;
  bool proven_optimal = false;
  double seconds = 0;
  // With --force: the free optimum it is compared with.
  bool has_unforced = false;
  int64_t unforced_cost = 0;
  int64_t unforced_bound = 0;
  bool unforced_proven = false;
};

// The layout of every tensor as a JAX PartitionSpec ("P('x', None)"); a
// ZeRO-3 parameter is shown FSDP-style, its flat shards on its largest
// dimension that they divide.
std::string partition_spec(const Generated& gen, int32_t node, int32_t strategy);

// The CLI's --json (and the page's) document: {"model", "mesh", "training",
// "cost_model", "cost_unit": "ns", "usage_unit": "bytes", "instance", "cost",
// "lower_bound", "proven_optimal", "seconds", "plan" (a strategy per instance
// node), "breakdown", "phases" ({"forward", "backward_input",
// "backward_weight", "optimizer"}: each {"compute_ns", "collectives_ns"}),
// "repeat" (when the model repeats a block: {"first", "last", "input",
// "times", "solved": "one repetition"}), "peak_bytes_per_device", "peak_time",
// "parameter_bytes_per_device", "memory_limit_bytes", "textbook", "axes",
// "ops" (forward ops by name: "strategy", "dims", "detail", "compute_ns",
// "usage_bytes", "collectives"), "backward", "parameters" (+ "zero_stage",
// "partition_spec"), "inputs", "collectives" (each with kind, axis, bytes,
// ns, what, on, pass, phase), "partition_specs", "jax" (jax_export.h's
// runnable script), "zero_table" (training), and "force" when strategies
// were forced (compared with the free optimum)}.
std::string explanation_json(const Generated& gen, const Explanation& x, const SolveSummary& solve);
// The CLI's text report.
std::string explanation_text(const Generated& gen, const Explanation& x, const SolveSummary& solve);

}  // namespace shardlab::teach
