// Layouts of tensors on a device mesh and the collectives that move between
// them, priced in the alpha-beta model: the one cost model of the teaching
// and plan labs. With n devices along one axis, bandwidth beta (the link's,
// times the mesh's comm_efficiency) and latency alpha:
//   all-reduce       2(n-1)/n * bytes / beta + alpha
//   all-gather        (n-1)/n * bytes / beta + alpha   (bytes: the gathered result)
//   reduce-scatter    (n-1)/n * bytes / beta + alpha   (bytes: the unreduced input)
//   all-to-all        (n-1)/n * bytes / beta + alpha   (bytes: what one device holds)
// A collective over several axes is hierarchical: its levels (the axes, or
// an axis's own interconnect levels) are ordered by bandwidth, fastest
// first (1..k, n_i devices, beta_i, alpha_i; S_1 = bytes, S_{i+1} = S_i / n_i):
//   reduce-scatter   sum_i [(n_i-1)/n_i * S_i / beta_i + alpha_i]
//                    (scatter inside the fast level first, then each shard
//                    across the next, on 1/n_1 of the data)
//   all-gather       the same sum (the reverse order: across the slow level
//                    first, on the small pieces)
//   all-reduce       reduce-scatter over levels 1..k-1, an all-reduce of
//                    S_k over level k, all-gather over levels k-1..1:
//                    sum_{i<k} 2[(n_i-1)/n_i * S_i / beta_i + alpha_i]
//                    + 2(n_k-1)/n_k * S_k / beta_k + alpha_k
//   all-to-all       sum_i [(n_i-1)/n_i * bytes / beta_i + alpha_i]
//                    (one exchange per level, each moving the whole data)
// On one level each equals the single-axis row above. Compute takes
// flops / (shards * device_tflops * matmul_efficiency). Costs are integer
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

// The nanoseconds of one collective of `bytes` (per device, as in the table
// above) over the group of devices that `levels` span (the product of their
// devices), hierarchical over the levels as above, in any order given
// (sorted by bandwidth inside; levels of one device are skipped). Bandwidths
// are the effective ones (the plan lab multiplies its links by the
// cluster's comm_efficiency). This is what the plan lab calls for the
// collectives outside one block: data-parallel gradient reduction across
// nodes, ZeRO's gathers. Whole nanoseconds; 0 for a group of one device;
// kForbidden (core/sharding/types.h) when the time does not fit in int64.
int64_t collective_ns(CollectiveKind kind, int64_t bytes, const std::vector<AxisLink>& levels);
// A point-to-point transfer of `bytes` over one link (a pipeline stage's
// activations to the next stage): bytes / bandwidth + latency.
int64_t p2p_ns(int64_t bytes, const AxisLink& link);

// The prices of one mesh under one cost-model preset (model.h's CostModel).
class CostTable {
 public:
  CostTable(const MeshSpec& mesh, CostModel model);
  const MeshSpec& mesh() const { return mesh_; }
  CostModel model() const { return model_; }

  int64_t compute_ns(double flops, int64_t shards) const;
  // Over the mesh axes `axes` (their levels, hierarchical; no latency with
  // the "bandwidth" preset).
  int64_t collective_ns(CollectiveKind kind, const std::vector<int32_t>& axes, int64_t bytes) const;
  // The same over the axes of a bit mask (bit a: mesh axis a).
  int64_t collective_ns_mask(CollectiveKind kind, uint32_t axes, int64_t bytes) const;
  // The interconnect levels of mesh axis a (its own link, or axis_levels[a]),
  // at the effective bandwidth.
  std::vector<AxisLink> levels(int32_t axis) const;
  Collective make(CollectiveKind kind, std::vector<int32_t> axes, int64_t bytes,
                  std::string what) const;

 private:
  MeshSpec mesh_;
  CostModel model_;
  std::vector<AxisLink> own_levels(int32_t axis) const;
  std::vector<std::vector<AxisLink>> levels_;  // per axis, as levels() returns them
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
