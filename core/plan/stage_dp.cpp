// The stage DP over cut points, the end-stage family of multi-chunk
// placements, and the best-first enumeration of splits (stage_dp.h).
#include "core/plan/stage_dp.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>

namespace shardlab::plan {
namespace {

constexpr double kInf = SplitSpace::kNone;

// The multi-chunk family: end stages a and b, middle stages q.
template <typename Visit>
void for_each_family_split(int32_t S, int32_t L, Visit visit) {
  std::vector<int32_t> layers(S, 0);
  if (S == 1) {
    layers[0] = L;
    visit(layers);
    return;
  }
  if (S == 2) {
    for (int32_t a = 1; a < L; ++a) {
      layers[0] = a;
      layers[1] = L - a;
      visit(layers);
    }
    return;
  }
  for (int32_t q = 1; (S - 2) * q + 2 <= L; ++q) {
    const int32_t ends = L - (S - 2) * q;
    for (int32_t a = 1; a < ends; ++a) {
      std::fill(layers.begin(), layers.end(), q);
      layers[0] = a;
      layers[S - 1] = ends - a;
      visit(layers);
    }
  }
}

// Stage costs by (first / middle / last, layers): a family's stages repeat.
class StageCache {
 public:
  explicit StageCache(const StageModel& model) : model_(model) {
    for (auto& kind : cache_) kind.assign(model.layers() + 1, std::nullopt);
  }
  const StageCost& get(int32_t k, int32_t n) {
    const int kind = k == 0 ? 0 : k == model_.stages() - 1 ? 2 : 1;
    std::optional<StageCost>& slot = cache_[kind][n];
    if (!slot) slot = model_.stage(k, n);
    return *slot;
  }
  void fill(const std::vector<int32_t>& layers, std::vector<StageCost>* out) {
    out->resize(layers.size());
    for (size_t k = 0; k < layers.size(); ++k) (*out)[k] = get(static_cast<int32_t>(k), layers[k]);
  }

 private:
  const StageModel& model_;
  std::vector<std::optional<StageCost>> cache_[3];
};

bool fits_memory(const StageModel& model, const InflightProfile* profile,
                 const std::vector<StageCost>& stages) {
  if (!profile) return true;
  for (const DeviceMemory& mem : device_memory(model, *profile, stages)) {
    if (mem.total() > model.memory_limit_bytes()) return false;
  }
  return true;
}

}  // namespace

SplitSpace::SplitSpace(const StageModel& model, const InflightProfile* profile) {
  S_ = model.stages();
  L_ = model.layers();
  m_ = model.microbatches();
  fused_ = !model.shape().split_backward;
  linear_ = model.shape().chunks == 1;
  if (linear_) {
    build_linear(model, profile);
  } else {
    build_family(model, profile);
  }
}

SplitSpace::SplitSpace(const StageModel& model, const std::vector<int32_t>& layers, double bound) {
  S_ = model.stages();
  L_ = model.layers();
  m_ = model.microbatches();
  linear_ = false;
  evaluated_ = 1;
  if (bound < kNone) {
    members_.push_back(layers);
    member_bound_.push_back(bound);
    bound_ = bound;
    Node root;
    root.bound = bound;
    nodes_.push_back(root);
  }
}

void SplitSpace::build_linear(const StageModel& model, const InflightProfile* profile) {
  // A stage's costs depend on its layers and on whether it holds the
  // embedding or the head, not on its position otherwise: three kinds, each
  // priced once per layer count (first, middle, last). Only whether a stage
  // fits depends on its device (the schedule's in-flight counts).
  const size_t row = static_cast<size_t>(L_) + 1;
  f_s_.assign(3 * row, 0);
  bw_s_.assign(3 * row, 0);
  work_s_.assign(3 * row, kInf);
  raw_work_s_.assign(3 * row, kInf);
  exposed_s_.assign(3 * row, 0);
  const int32_t most = L_ - (S_ - 1);
  std::vector<int64_t> state(profile ? 3 * row : 0, 0);
  std::vector<StageCost> costs(profile ? 3 * row : 0);
  for (int32_t kind = 0; kind < 3; ++kind) {
    const int32_t d = kind == 0 ? 0 : kind == 2 ? S_ - 1 : std::min(1, S_ - 1);
    if (kind_of(d) != kind) continue;  // fewer than three stages
    for (int32_t l = 1; l <= most; ++l) {
      const size_t c = kind * row + l;
      const StageCost s = model.stage(d, l);
      f_s_[c] = s.f_s;
      bw_s_[c] = s.b_s + s.w_s;
      work_s_[c] = s.work_s();
      // Without ZeRO-2/3's collectives: linear, so nondecreasing in l.
      raw_work_s_[c] = model.stage(d, l, false).work_s();
      exposed_s_[c] = model.exposed_dp_s(s.dense_parameters, s.expert_parameters, s.b_s + s.w_s);
      if (profile) {
        state[c] = model.state(s.dense_parameters, s.expert_parameters).total();
        costs[c] = s;
      }
    }
  }
  if (profile) {
    fits_.assign(static_cast<size_t>(S_) * row, 0);
    std::vector<int64_t> act(S_, 0), keep(S_, 0);
    for (int32_t d = 0; d < S_; ++d) {
      for (int32_t l = 1; l <= most; ++l) {
        const size_t c = kat(d, l);
        const StageCost& s = costs[c];
        act[d] = s.act_bytes;
        keep[d] = s.keep_bytes;
        fits_[at(d, l)] = state[c] + profile->peak_bytes(d, act, keep) + s.transient_bytes +
                              s.gathered_bytes[0] + s.gathered_bytes[1] <=
                          model.memory_limit_bytes();
      }
      act[d] = keep[d] = 0;
    }
  }
  edge_s_.assign(S_, 0);
  for (int32_t k = 0; k + 1 < S_; ++k) edge_s_[k] = model.edge_s(k);
  // The chains through the n layers before d, as a lower bound: the stages'
  // own work without ZeRO-2/3's collectives is linear in their layers.
  const StageCost e0 = model.stage(0, 0, false);
  const StageCost e1 = model.stage(0, 1, false);
  const double layer_f = e1.f_s - e0.f_s;
  const double layer_bw = (e1.b_s + e1.w_s) - (e0.b_s + e0.w_s);
  std::vector<double> edges_before(S_ + 1, 0);
  for (int32_t k = 1; k <= S_; ++k) edges_before[k] = edges_before[k - 1] + edge_s_[k - 1];
  const auto head = [&](int32_t d, int32_t n) {
    return d == 0 ? 0.0 : n * layer_f + e0.f_s + edges_before[d];
  };
  const auto tail = [&](int32_t d, int32_t n) {
    return !fused_ || d == 0 ? 0.0 : n * layer_bw + e0.b_s + e0.w_s + edges_before[d];
  };
  // f(d, .) needs only f(d + 1, .): without a profile (the bound alone is
  // asked, nothing is enumerated) two rows suffice; with one, the whole table
  // is kept for expand().
  const bool keep_table = profile != nullptr;
  f_.assign((keep_table ? static_cast<size_t>(S_ + 1) : 2) * row, kInf);
  const auto fi = [&](int32_t d, int32_t n) {
    return (keep_table ? static_cast<size_t>(d) : static_cast<size_t>(d & 1)) * row + n;
  };
  f_[fi(S_, L_)] = 0;
  for (int32_t d = S_ - 1; d >= 0; --d) {
    const double* next = &f_[fi(d + 1, 0)];
    double* here_row = &f_[fi(d, 0)];
    if (!keep_table) std::fill(here_row, here_row + row, kInf);
    const double* work = &work_s_[kat(d, 0)];
    const double* raw = &raw_work_s_[kat(d, 0)];
    const double* exposed = &exposed_s_[kat(d, 0)];
    const char* fits = profile ? &fits_[at(d, 0)] : nullptr;
    for (int32_t n = d; n <= L_ - (S_ - d); ++n) {
      const double h = head(d, n), t = tail(d, n);
      double best = kInf;
      const int32_t last = L_ - n - (S_ - 1 - d);
      for (int32_t l = (d == S_ - 1 ? last : 1); l <= last; ++l) {
        ++evaluated_;
        // Every value from here on is at least h + m (raw work), which only
        // grows with l: nothing beyond can beat best.
        if (h + m_ * raw[l] >= best) break;
        if (fits && !fits[l]) continue;
        const double here = h + m_ * work[l];
        best = std::min(best, std::max(here + std::max(t, exposed[l]), next[n + l]));
      }
      here_row[n] = best;
    }
  }
  bound_ = f_[fi(0, 0)];
  if (!keep_table) {
    f_.clear();
    f_.shrink_to_fit();
    return;
  }
  if (fits()) {
    Node root;
    root.bound = bound_;
    nodes_.push_back(root);
  }
}

void SplitSpace::build_family(const StageModel& model, const InflightProfile* profile) {
  StageCache cache(model);
  std::vector<StageCost> stages;
  std::vector<std::pair<double, int32_t>> order;
  std::vector<std::vector<int32_t>> all;
  for_each_family_split(S_, L_, [&](const std::vector<int32_t>& layers) {
    ++evaluated_;
    cache.fill(layers, &stages);
    const double bound = split_bound_s(model, stages);
    if (!profile) {  // the least bound is all that is asked
      bound_ = std::min(bound_, bound);
      return;
    }
    if (!fits_memory(model, profile, stages)) return;
    order.push_back({bound, static_cast<int32_t>(all.size())});
    all.push_back(layers);
  });
  if (!profile) return;
  std::sort(order.begin(), order.end());
  for (const auto& [bound, index] : order) {
    members_.push_back(all[index]);
    member_bound_.push_back(bound);
  }
  if (!members_.empty()) {
    bound_ = member_bound_[0];
    Node root;
    root.stages = 0;
    root.bound = bound_;
    nodes_.push_back(root);
  }
}

bool SplitSpace::complete(int32_t id) const { return linear_ ? nodes_[id].stages == S_ : true; }

std::vector<int32_t> SplitSpace::layers(int32_t id) const {
  if (!linear_) return members_[nodes_[id].stages];
  std::vector<int32_t> out(S_, 0);
  for (int32_t at = id; at > 0; at = nodes_[at].parent) {
    out[nodes_[at].stages - 1] = nodes_[at].layers;
  }
  return out;
}

void SplitSpace::expand(int32_t id, double below, std::vector<int32_t>* out) {
  const Node parent = nodes_[id];
  if (!linear_) {
    const int32_t next = parent.stages + 1;
    if (next < static_cast<int32_t>(members_.size()) && member_bound_[next] < below) {
      Node child;
      child.parent = id;
      child.stages = next;
      child.bound = member_bound_[next];
      nodes_.push_back(child);
      out->push_back(static_cast<int32_t>(nodes_.size()) - 1);
    }
    return;
  }
  const int32_t d = parent.stages;
  if (d == S_) return;
  const int32_t last = L_ - parent.used - (S_ - 1 - d);
  for (int32_t l = (d == S_ - 1 ? last : 1); l <= last; ++l) {
    const size_t c = kat(d, l);
    if (parent.head + m_ * raw_work_s_[c] >= below) break;  // as in the DP
    const double here = parent.head + m_ * work_s_[c];
    if (!fits_[at(d, l)]) continue;
    const double term = here + std::max(fused_ ? parent.tail : 0.0, exposed_s_[c]);
    Node child;
    child.parent = id;
    child.stages = d + 1;
    child.used = parent.used + l;
    child.layers = l;
    child.worst = std::max(parent.worst, term);
    child.head = parent.head + f_s_[c] + (d + 1 < S_ ? edge_s_[d] : 0);
    child.tail = parent.tail + bw_s_[c] + (d + 1 < S_ ? edge_s_[d] : 0);
    const double rest = f_[static_cast<size_t>(d + 1) * (L_ + 1) + child.used];
    child.bound = std::max({child.worst, rest, parent.bound});
    if (child.bound >= below) continue;
    nodes_.push_back(child);
    out->push_back(static_cast<int32_t>(nodes_.size()) - 1);
  }
}

SplitChoice best_split(const StageModel& model, const InflightProfile* profile) {
  SplitChoice out;
  SplitSpace space(model, profile);
  out.evaluated = space.evaluated();
  out.fits = space.fits();
  out.bound_s = out.fits ? space.bound() : 0;
  if (!out.fits || !profile) return out;
  // Follow the best child down to a complete split (f is exact for the rest).
  int32_t id = 0;
  std::vector<int32_t> children;
  while (!space.complete(id)) {
    children.clear();
    space.expand(id, SplitSpace::kNone, &children);
    int32_t best = children[0];
    for (int32_t c : children) {
      if (space.node(c).bound < space.node(best).bound) best = c;
    }
    id = best;
  }
  out.layers = space.layers(id);
  return out;
}

LeastMemory least_memory_split(const StageModel& model, const InflightProfile& profile) {
  LeastMemory out;
  out.bytes = std::numeric_limits<int64_t>::max();
  const int32_t S = model.stages(), L = model.layers();
  if (model.shape().chunks == 1) {
    // Per stage memory by its layers, then a min-max DP over cut points.
    std::vector<int64_t> memory(static_cast<size_t>(S) * (L + 1), 0);
    std::vector<int64_t> act(S, 0), keep(S, 0);
    for (int32_t d = 0; d < S; ++d) {
      for (int32_t l = 1; l <= L - (S - 1); ++l) {
        const StageCost s = model.stage(d, l);
        act[d] = s.act_bytes;
        keep[d] = s.keep_bytes;
        memory[static_cast<size_t>(d) * (L + 1) + l] =
            model.state(s.dense_parameters, s.expert_parameters).total() +
            profile.peak_bytes(d, act, keep) + s.transient_bytes + s.gathered_bytes[0] +
            s.gathered_bytes[1];
      }
      act[d] = keep[d] = 0;
    }
    const int64_t big = std::numeric_limits<int64_t>::max();
    std::vector<int64_t> f(static_cast<size_t>(S + 1) * (L + 1), big);
    std::vector<int32_t> pick(f.size(), 0);
    const auto idx = [L](int32_t d, int32_t n) { return static_cast<size_t>(d) * (L + 1) + n; };
    f[idx(S, L)] = 0;
    for (int32_t d = S - 1; d >= 0; --d) {
      for (int32_t n = d; n <= L - (S - d); ++n) {
        const int32_t last = L - n - (S - 1 - d);
        for (int32_t l = (d == S - 1 ? last : 1); l <= last; ++l) {
          const int64_t value = std::max(memory[idx(d, l)], f[idx(d + 1, n + l)]);
          if (value < f[idx(d, n)]) {
            f[idx(d, n)] = value;
            pick[idx(d, n)] = l;
          }
        }
      }
    }
    out.bytes = f[idx(0, 0)];
    int32_t n = 0;
    for (int32_t d = 0; d < S; ++d) {
      out.layers.push_back(pick[idx(d, n)]);
      n += out.layers.back();
    }
    return out;
  }
  StageCache cache(model);
  std::vector<StageCost> stages;
  for_each_family_split(S, L, [&](const std::vector<int32_t>& layers) {
    int64_t worst = 0;
    cache.fill(layers, &stages);
    for (const DeviceMemory& mem : device_memory(model, profile, stages)) {
      worst = std::max(worst, mem.total());
    }
    if (worst < out.bytes) {
      out.bytes = worst;
      out.layers = layers;
    }
  });
  return out;
}

}  // namespace shardlab::plan
