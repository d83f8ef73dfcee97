// Layouts of tensors on a device mesh and the collectives that move between
// them, priced in the alpha-beta model (the cost model of the teaching lab):
//   all-reduce       2(n-1)/n * bytes / beta + alpha
//   all-gather        (n-1)/n * bytes / beta + alpha   (bytes: the gathered result)
//   reduce-scatter    (n-1)/n * bytes / beta + alpha   (bytes: the unreduced input)
//   all-to-all        (n-1)/n * bytes / beta + alpha   (bytes: what one device holds)
// with n the devices along the axis, beta its bandwidth and alpha its latency.
// A collective over several axes is one collective over the group of all
// their devices (n the product of their sizes), as a ring through the
// group runs: at the slowest axis's bandwidth, with the largest latency.
// Compute takes flops / (shards * device_tflops). Costs are integer
// nanoseconds, each collective and each compute term rounded on its own so
// that explanations add up to the instance's costs exactly.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/teach/model.h"

namespace shardlab::teach {

enum class CollectiveKind { kAllReduce, kAllGather, kReduceScatter, kAllToAll };
const char* collective_name(CollectiveKind kind);  // "all-reduce", "all-gather", ...

struct Collective {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  std::vector<int32_t> axes;  // mesh axes of the group, in mesh order
  int64_t bytes = 0;          // per device, as in the table above
  int64_t ns = 0;
  std::string what;  // what moves: "output", "gradient", "statistics along t", ...
};

// The prices of one mesh under one cost-model preset (model.h's CostModel).
class CostTable {
 public:
  CostTable(const MeshSpec& mesh, CostModel model) : mesh_(mesh), model_(model) {}
  const MeshSpec& mesh() const { return mesh_; }
  CostModel model() const { return model_; }

  int64_t compute_ns(double flops, int64_t shards) const;
  int64_t collective_ns(CollectiveKind kind, const std::vector<int32_t>& axes, int64_t bytes) const;
  Collective make(CollectiveKind kind, std::vector<int32_t> axes, int64_t bytes,
                  std::string what) const;

 private:
  MeshSpec mesh_;
  CostModel model_;
};

// A tensor's layout: for every mesh axis, the tensor dimension it splits, or
// one of the states below.
using Layout = std::vector<int8_t>;
constexpr int8_t kReplicated = -1;  // every device along the axis holds the same data
constexpr int8_t kPartial = -2;     // devices hold partial sums still to be added
constexpr int8_t kFlat = -3;        // ZeRO: the flattened tensor is split evenly

struct TensorShape {
  std::vector<int64_t> dims;
  int32_t dtype_bytes = 2;
};

// Bytes one device holds: split dimensions divide exactly (strategies only
// split what divides), a flat split rounds up.
int64_t bytes_per_device(const TensorShape& shape, const Layout& layout, const MeshSpec& mesh);

// Appends the collectives that turn `from` into `to`, in this order: axes
// where `to` is kPartial (a consumer that adds partial terms itself) take
// anything as a term, for free; other partial sums are reduced (a reduce-scatter over the
// axes `to` splits, then an all-reduce over the others); new splits are
// local slices (free); moved splits are an all-to-all; dropped splits are an
// all-gather, last, so that every step moves as few bytes as it can.
// Returns the total ns.
int64_t reshard(const CostTable& costs, const TensorShape& shape, const Layout& from,
                const Layout& to, const std::string& what, std::vector<Collective>* out);

}  // namespace shardlab::teach
