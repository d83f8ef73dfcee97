// The alpha-beta prices of collectives and the re-partitioning of a tensor
// from one layout to another. The ring algorithms behind the factors: an
// all-reduce is a reduce-scatter followed by an all-gather, each moving
// (n-1)/n of the data per device (Patarasuk and Yuan 2009; Thakur, Rabenseifner
// and Gropp 2005; NCCL's "bus bandwidth" uses the same factors, nccl-tests
// doc/PERFORMANCE.md); Alpa's and XLA's auto-sharding cost models use the same
// per-axis alpha-beta terms on a logical device mesh (Zheng et al., OSDI 2022).
// Over several levels (NVLink inside a node, InfiniBand across) the
// collectives are hierarchical, as Horovod's hierarchical all-reduce (NCCL
// reduce-scatter, all-reduce across nodes, NCCL all-gather; Sergeev and Del
// Balso 2018), Jia et al.'s 2D all-reduce (2018) and Huawei HCCL's
// hierarchical collectives run them, and the all-to-all is Tutel's
// two-dimensional hierarchical one (one exchange inside the node, one
// across; Hwang et al., MLSys 2023). A ring over all the devices at the
// slowest link's bandwidth moves every byte over the slow link; the
// hierarchy sends only 1/n_fast of it there.
#include "core/teach/collectives.h"

#include <algorithm>
#include <cmath>

#include "core/sharding/types.h"

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

namespace {

// Rounds a non-negative time to whole nanoseconds; kForbidden when it does
// not fit (the generator reports that as an error rather than a choice).
int64_t to_ns(double ns) {
  if (!(ns < static_cast<double>(kForbidden))) return kForbidden;
  return std::llround(ns);
}

// The sum of the hierarchical collective's terms (collectives.h), before
// rounding. With one level it is exactly the single-axis formula.
double hierarchical_ns(CollectiveKind kind, double bytes, const AxisLink* given, size_t size) {
  // At most a few levels: sorted in place on the stack (a mesh has 4 axes,
  // each of a few levels; more than 16 are sorted in a copy on the heap).
  AxisLink local[16];
  std::vector<AxisLink> heap;
  AxisLink* levels = local;
  if (size > 16) {
    heap.resize(size);
    levels = heap.data();
  }
  size_t count = 0;
  for (size_t i = 0; i < size; ++i) {
    if (given[i].devices > 1) levels[count++] = given[i];
  }
  std::stable_sort(levels, levels + count, [](const AxisLink& a, const AxisLink& b) {
    return a.bandwidth_GBps > b.bandwidth_GBps;
  });
  double ns = 0;
  double shard = bytes;  // S_i: what one device holds entering level i
  for (size_t i = 0; i < count; ++i) {
    const double n = static_cast<double>(levels[i].devices);
    const bool last = i + 1 == count;
    // bytes / (GB/s) is nanoseconds; latency_us * 1000 is nanoseconds.
    const double alpha = levels[i].latency_us * 1e3;
    switch (kind) {
      case CollectiveKind::kAllReduce: {
        const double factor = 2.0 * (n - 1) / n;
        // Below the top level: a reduce-scatter and an all-gather (two
        // latencies); at the top, one all-reduce (one latency, as on one axis).
        ns += factor * shard / levels[i].bandwidth_GBps + (last ? alpha : 2 * alpha);
        shard /= n;
        break;
      }
      case CollectiveKind::kAllGather:
      case CollectiveKind::kReduceScatter: {
        const double factor = 1.0 * (n - 1) / n;
        ns += factor * shard / levels[i].bandwidth_GBps + alpha;
        shard /= n;
        break;
      }
      case CollectiveKind::kAllToAll: {
        const double factor = 1.0 * (n - 1) / n;
        ns += factor * bytes / levels[i].bandwidth_GBps + alpha;
        break;
      }
    }
  }
  return ns;
}

}  // namespace

int64_t collective_ns(CollectiveKind kind, int64_t bytes, const std::vector<AxisLink>& levels) {
  return to_ns(hierarchical_ns(kind, static_cast<double>(bytes), levels.data(), levels.size()));
}

int64_t p2p_ns(int64_t bytes, const AxisLink& link) {
  return to_ns(static_cast<double>(bytes) / link.bandwidth_GBps + link.latency_us * 1e3);
}

int64_t CostTable::compute_ns(double flops, int64_t shards) const {
  if (model_ == CostModel::kCommunication) return 0;
  // flops / (tflops * 1e12) seconds = flops / (tflops * 1e3) nanoseconds.
  return to_ns(flops / static_cast<double>(shards) /
               (mesh_.device_tflops * mesh_.matmul_efficiency * 1e3));
}

CostTable::CostTable(const MeshSpec& mesh, CostModel model) : mesh_(mesh), model_(model) {
  for (int32_t a = 0; a < mesh_.rank(); ++a) levels_.push_back(own_levels(a));
}

std::vector<AxisLink> CostTable::levels(int32_t axis) const { return levels_[axis]; }

std::vector<AxisLink> CostTable::own_levels(int32_t axis) const {
  std::vector<AxisLink> out;
  if (static_cast<size_t>(axis) < mesh_.axis_levels.size() && !mesh_.axis_levels[axis].empty()) {
    out = mesh_.axis_levels[axis];
  } else {
    out.push_back({mesh_.shape[axis], mesh_.bandwidth_GBps[axis], mesh_.latency_us[axis]});
  }
  for (AxisLink& l : out) {
    l.bandwidth_GBps *= mesh_.comm_efficiency;
    if (model_ == CostModel::kBandwidth) l.latency_us = 0;
  }
  return out;
}

int64_t CostTable::collective_ns(CollectiveKind kind, const std::vector<int32_t>& axes,
                                 int64_t bytes) const {
  uint32_t mask = 0;
  for (int32_t a : axes) mask |= 1u << a;
  return collective_ns_mask(kind, mask, bytes);
}

int64_t CostTable::collective_ns_mask(CollectiveKind kind, uint32_t axes, int64_t bytes) const {
  AxisLink local[16];
  std::vector<AxisLink> heap;
  size_t count = 0;
  for (int32_t a = 0; a < mesh_.rank(); ++a) {
    if (!(axes & (1u << a))) continue;
    for (const AxisLink& l : levels_[a]) {
      if (count < 16) {
        local[count++] = l;
      } else {
        if (heap.empty()) heap.assign(local, local + 16);
        heap.push_back(l);
      }
    }
  }
  if (!heap.empty()) return teach::collective_ns(kind, bytes, heap);
  return to_ns(hierarchical_ns(kind, static_cast<double>(bytes), local, count));
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
  // Called for every pair of strategies of every edge: the state lives on
  // the stack, and collectives are built only when asked for.
  const MeshSpec& mesh = costs.mesh();
  const int32_t rank = mesh.rank();
  int8_t state[kMaxMeshRank];
  for (int32_t a = 0; a < rank; ++a) state[a] = from[a];
  int64_t elements_bytes = shape.dtype_bytes;
  for (int64_t d : shape.dims) elements_bytes *= d;
  // Bytes per device in the current state (bytes_per_device's rule).
  const auto held = [&]() {
    int64_t bytes = elements_bytes;
    int64_t flat = 1;
    for (int32_t a = 0; a < rank; ++a) {
      if (state[a] >= 0) bytes /= mesh.shape[a];
      if (state[a] == kFlat) flat *= mesh.shape[a];
    }
    return (bytes + flat - 1) / flat;
  };
  int64_t total = 0;
  const auto emit = [&](CollectiveKind kind, uint32_t group, int64_t bytes) {
    if (!group) return;
    const int64_t ns = costs.collective_ns_mask(kind, group, bytes);
    total = total >= kForbidden - ns ? kForbidden : total + ns;
    if (!out) return;
    std::vector<int32_t> axes;
    for (int32_t a = 0; a < rank; ++a) {
      if (group & (1u << a)) axes.push_back(a);
    }
    Collective c;
    c.kind = kind;
    c.axes = std::move(axes);
    c.bytes = bytes;
    c.ns = ns;
    c.what = what;
    out->push_back(std::move(c));
  };
  const auto splits = [](int8_t s) { return s >= 0 || s == kFlat; };
  // Axes where the consumer adds partial terms itself: anything is a term
  // (a slice padded with zeros, or one device's copy), at no cost here.
  for (int32_t a = 0; a < rank; ++a) {
    if (to[a] == kPartial) state[a] = kPartial;
  }
  // Partial sums: scatter onto the axes `to` splits, then add up the rest.
  const int64_t unreduced = held();
  uint32_t group = 0;
  for (int32_t a = 0; a < rank; ++a) {
    if (state[a] == kPartial && splits(to[a])) {
      group |= 1u << a;
      state[a] = to[a];
    }
  }
  emit(CollectiveKind::kReduceScatter, group, unreduced);
  group = 0;
  for (int32_t a = 0; a < rank; ++a) {
    if (state[a] == kPartial && to[a] == kReplicated) {
      group |= 1u << a;
      state[a] = kReplicated;
    }
  }
  emit(CollectiveKind::kAllReduce, group, held());
  group = 0;
  for (int32_t a = 0; a < rank; ++a) {  // new splits: each device keeps its slice
    if (state[a] == kReplicated && splits(to[a])) state[a] = to[a];
  }
  for (int32_t a = 0; a < rank; ++a) {  // splits that move to another dimension
    if (splits(state[a]) && splits(to[a]) && state[a] != to[a]) {
      group |= 1u << a;
      state[a] = to[a];
    }
  }
  emit(CollectiveKind::kAllToAll, group, held());
  group = 0;
  for (int32_t a = 0; a < rank; ++a) {  // dropped splits
    if (splits(state[a]) && to[a] == kReplicated) {
      group |= 1u << a;
      state[a] = kReplicated;
    }
  }
  emit(CollectiveKind::kAllGather, group, held());
  return total;
}

}  // namespace shardlab::teach
