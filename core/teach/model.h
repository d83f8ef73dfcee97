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
constexpr int64_t kMaxModelBytes = int64_t{16} << 20;

struct MeshSpec {
  std::vector<int32_t> shape;          // devices along each axis
  std::vector<std::string> axes;       // axis names (default x, y, z, w)
  std::vector<double> bandwidth_GBps;  // per axis: beta, 1e9 bytes per second
  std::vector<double> latency_us;      // per axis: alpha, microseconds
  double device_tflops = 0;            // dense throughput of one device
  bool has_memory = false;             // device_memory_GB given
  double device_memory_GB = 0;         // the usage limit, 1e9 bytes

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
  int32_t output = -1;       // the tensor it produces (named like the op)
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
  char batch = 0;                   // the batch letter (for naming data parallelism)
  std::vector<TensorSpec> tensors;  // declared tensors first, then one per op
  std::vector<OpSpec> ops;          // in the order given (a topological order)

  int32_t find_tensor(std::string_view name) const;  // -1 when absent
};

// Parses and validates a model description. source_name appears in errors.
Result<ModelSpec> read_model(const std::string& source_name, std::string_view text);

}  // namespace shardlab::teach
