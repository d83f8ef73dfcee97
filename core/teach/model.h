// The teaching lab's model description: a small network (tensors and ops in
// einsum vocabulary) on a device mesh, read from JSON by read_model() with
// core/json_doc.h, so every bad model gets FILE:LINE:COL (byte B), the JSON
// path and what was expected. The reader validates everything the generator
// relies on (names, shapes, einsum letters and their sizes, mesh arrays);
// graph.h builds the training graph from a ModelSpec.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace shardlab::teach {

constexpr int32_t kMaxMeshRank = 4;
// The largest model file read (course models take a few kilobytes).
constexpr int64_t kMaxModelFileBytes = int64_t{16} << 20;

// One level of an interconnect: `devices` along it, each sending and
// receiving at bandwidth_GBps (per device, per direction; 1e9 bytes per
// second) after latency_us. The cost model (collectives.h) prices a
// collective over several levels hierarchically.
struct AxisLink {
  int64_t devices = 1;
  double bandwidth_GBps = 0;
  double latency_us = 0;
};

struct MeshSpec {
  std::vector<int32_t> shape;          // devices along each axis
  std::vector<std::string> axes;       // axis names (default x, y, z, w)
  std::vector<double> bandwidth_GBps;  // per axis: beta, 1e9 bytes per second
  std::vector<double> latency_us;      // per axis: alpha, microseconds
  double device_tflops = 0;            // dense throughput of one device
  bool has_memory = false;             // device_memory_GB given
  double device_memory_GB = 0;         // the usage limit, 1e9 bytes
  // Achievable fractions of the peaks (the plan lab passes its cluster's;
  // 1 by default, so that a model file's figures are the textbook's):
  double matmul_efficiency = 1;  // of device_tflops, for every op's FLOPs
  double comm_efficiency = 1;    // of every axis's bandwidth
  // Set by the plan lab, never by a model file: an axis whose devices span
  // several interconnect levels (an expert-parallel axis partly inside a
  // node, partly across nodes) is priced over these levels (the product of
  // their devices is shape[a]) instead of bandwidth_GBps[a] and
  // latency_us[a]. Empty, or one entry per axis (an empty entry: the axis's own).
  std::vector<std::vector<AxisLink>> axis_levels;

  int32_t rank() const { return static_cast<int32_t>(shape.size()); }
  int64_t devices() const;
};

enum class OpKind { kEinsum, kElementwise, kReduce, kSoftmax, kLayernorm, kEmbedding };
const char* op_kind_name(OpKind kind);  // the model's key: "einsum", "elementwise", ...

struct TensorSpec {
  std::string name;
  std::vector<int64_t> shape;
  std::string dims;  // one letter per dimension (declared, inferred, or an op's output)
  int32_t dtype_bytes = 2;
  bool parameter = false;
  int32_t producer = -1;  // the op that computes it; -1 for a declared tensor
  // An input's fixed layout ("layout": {"g": "x"}): pinned[axis] is the
  // dimension split on that axis, or -1. Empty when the layout is free.
  std::vector<int32_t> pinned;
  // Set by the reader or the plan lab (not a key of the format): a declared
  // input whose gradient is wanted (the input of a repeated block, which the
  // previous repetition produced), and an output whose gradient arrives from
  // outside (the next block's input gradient), so no loss work is counted.
  bool requires_grad = false;
  bool gradient_given = false;
};

struct OpSpec {
  std::string name;
  OpKind kind = OpKind::kEinsum;
  std::string text;             // the einsum/embedding signature, or the elementwise function
  std::vector<int32_t> inputs;  // tensor indices
  std::vector<std::string> input_letters;  // per input, one letter per dimension
  std::string output_letters;
  char along = 0;            // reduce, softmax, layernorm: the named dimension
  double flops_per_element;  // elementwise, reduce, softmax, layernorm
  // An einsum's forward work when given ("flops"), instead of 2 (two inputs)
  // or 1 times the loop nest's points; each input gradient costs as much.
  // For einsums that real systems run as a gather (MoE dispatch, combine).
  double flops = -1;
  int32_t output = -1;  // the tensor it produces (named like the op)
};

// A block of consecutive ops that the model repeats ("repeat": {"first",
// "last", "times", "input"}): repetition r + 1 reads the output of `last` of
// repetition r where the block reads `input`; each repetition has its own
// parameters. The teaching lab solves the model as written (one repetition)
// with the re-partitioning from the block's output into its input's layout
// priced once (what every later repetition pays); the plan lab solves the
// block once and repeats it.
struct RepeatSpec {
  int32_t first = -1;  // op indices, inclusive; -1: no repeated block
  int32_t last = -1;
  int32_t input = -1;  // tensor index
  int64_t times = 1;
  bool present() const { return first >= 0; }
};

// "alpha-beta": compute + alpha + bytes/beta (the default); "bandwidth":
// compute + bytes/beta (no latency); "communication": alpha + bytes/beta only
// (Alpa's ILP objective, which leaves compute out).
enum class CostModel { kAlphaBeta, kBandwidth, kCommunication };
const char* cost_model_name(CostModel model);
Result<CostModel> parse_cost_model(const std::string& name);

struct ModelSpec {
  std::string name;
  std::string description;
  MeshSpec mesh;
  bool training = false;
  int32_t dtype_bytes = 2;
  int32_t optimizer_state_bytes = 12;  // per parameter (mixed-precision Adam: 12)
  bool zero = true;                    // offer ZeRO stages for parameters
  CostModel cost_model = CostModel::kAlphaBeta;
  char batch = 0;     // the batch letter (for naming data parallelism)
  char sequence = 0;  // the sequence letter, when named ("sequence"): the plan lab resizes it
  RepeatSpec repeat;
  std::vector<TensorSpec> tensors;  // declared tensors first, then one per op
  std::vector<OpSpec> ops;          // in the order given (a topological order)

  int32_t find_tensor(std::string_view name) const;  // -1 when absent
};

// Parses and validates a model description. source_name appears in errors.
Result<ModelSpec> read_model(const std::string& source_name, std::string_view text);

}  // namespace shardlab::teach
