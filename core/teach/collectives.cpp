// The alpha-beta prices of collectives and the re-partitioning of a tensor
// from one layout to another. The ring algorithms behind the factors: an
// all-reduce is a reduce-scatter followed by an all-gather, each moving
// (n-1)/n of the data per device (Patarasuk and Yuan 2009; Thakur, Rabenseifner
// and Gropp 2005); Alpa's and XLA's auto-sharding cost models use the same
// per-axis alpha-beta terms on a logical device mesh (Zheng et al., OSDI 2022).
#include "core/teach/collectives.h"

#include <algorithm>
#include <cmath>

namespace shardlab::teach {

const char* collective_name(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce:
      return "all-reduce";
    case CollectiveKind::kAllGather:
      return "all-gather";
    case CollectiveKind::kReduceScatter:
      return "reduce-scatter";
    case CollectiveKind::kAllToAll:
      return "all-to-all";
  }
  return "?";
}

int64_t CostTable::compute_ns(double flops, int64_t shards) const {
  if (model_ == CostModel::kCommunication) return 0;
  // flops / (tflops * 1e12) seconds = flops / (tflops * 1e3) nanoseconds.
  return std::llround(flops / static_cast<double>(shards) / (mesh_.device_tflops * 1e3));
}

int64_t CostTable::collective_ns(CollectiveKind kind, const std::vector<int32_t>& axes,
                                 int64_t bytes) const {
  double n = 1;
  double bandwidth = 0;
  double latency = 0;
  for (int32_t a : axes) {
    n *= mesh_.shape[a];
    bandwidth =
        bandwidth == 0 ? mesh_.bandwidth_GBps[a] : std::min(bandwidth, mesh_.bandwidth_GBps[a]);
    latency = std::max(latency, mesh_.latency_us[a]);
  }
  if (n <= 1) return 0;
  const double factor = (kind == CollectiveKind::kAllReduce ? 2.0 : 1.0) * (n - 1) / n;
  // bytes / (GB/s) is nanoseconds; latency_us * 1000 is nanoseconds.
  double ns = factor * static_cast<double>(bytes) / bandwidth;
  if (model_ != CostModel::kBandwidth) ns += latency * 1e3;
  return std::llround(ns);
}

Collective CostTable::make(CollectiveKind kind, std::vector<int32_t> axes, int64_t bytes,
                           std::string what) const {
  Collective c;
  c.kind = kind;
  c.ns = collective_ns(kind, axes, bytes);
  c.axes = std::move(axes);
  c.bytes = bytes;
  c.what = std::move(what);
  return c;
}

int64_t bytes_per_device(const TensorShape& shape, const Layout& layout, const MeshSpec& mesh) {
  int64_t bytes = shape.dtype_bytes;
  for (int64_t d : shape.dims) bytes *= d;
  int64_t flat = 1;
  for (size_t a = 0; a < layout.size(); ++a) {
    if (layout[a] >= 0) bytes /= mesh.shape[a];
    if (layout[a] == kFlat) flat *= mesh.shape[a];
  }
  return (bytes + flat - 1) / flat;
}

int64_t reshard(const CostTable& costs, const TensorShape& shape, const Layout& from,
                const Layout& to, const std::string& what, std::vector<Collective>* out) {
  const MeshSpec& mesh = costs.mesh();
  Layout state = from;
  int64_t total = 0;
  auto emit = [&](CollectiveKind kind, std::vector<int32_t> axes, int64_t bytes) {
    if (axes.empty()) return;
    Collective c = costs.make(kind, std::move(axes), bytes, what);
    total += c.ns;
    if (out) out->push_back(std::move(c));
  };
  const int32_t rank = mesh.rank();
  const auto splits = [](int8_t s) { return s >= 0 || s == kFlat; };
  std::vector<int32_t> group;
  // Axes where the consumer adds partial terms itself: anything is a term
  // (a slice padded with zeros, or one device's copy), at no cost here.
  for (int32_t a = 0; a < rank; ++a) {
    if (to[a] == kPartial) state[a] = kPartial;
  }
  // Partial sums: scatter onto the axes `to` splits, then add up the rest.
  const int64_t unreduced = bytes_per_device(shape, state, mesh);
  for (int32_t a = 0; a < rank; ++a) {
    if (state[a] == kPartial && splits(to[a])) {
      group.push_back(a);
      state[a] = to[a];
    }
  }
  emit(CollectiveKind::kReduceScatter, std::move(group), unreduced);
  group.clear();
  for (int32_t a = 0; a < rank; ++a) {
    if (state[a] == kPartial && to[a] == kReplicated) {
      group.push_back(a);
      state[a] = kReplicated;
    }
  }
  emit(CollectiveKind::kAllReduce, std::move(group), bytes_per_device(shape, state, mesh));
  group.clear();
  for (int32_t a = 0; a < rank; ++a) {  // new splits: each device keeps its slice
    if (state[a] == kReplicated && splits(to[a])) state[a] = to[a];
  }
  for (int32_t a = 0; a < rank; ++a) {  // splits that move to another dimension
    if (splits(state[a]) && splits(to[a]) && state[a] != to[a]) {
      group.push_back(a);
      state[a] = to[a];
    }
  }
  emit(CollectiveKind::kAllToAll, std::move(group), bytes_per_device(shape, state, mesh));
  group.clear();
  for (int32_t a = 0; a < rank; ++a) {  // dropped splits
    if (splits(state[a]) && to[a] == kReplicated) {
      group.push_back(a);
      state[a] = kReplicated;
    }
  }
  emit(CollectiveKind::kAllGather, std::move(group), bytes_per_device(shape, state, mesh));
  return total;
}

}  // namespace shardlab::teach
