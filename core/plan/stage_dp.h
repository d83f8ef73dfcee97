// The layers of every stage of one configuration: the splits in order of
// their lower bound (bound.h), so that the search can time the best split
// first and the next ones only while their bound is below its incumbent.
//
// One chunk per device (GPipe, 1F1B, ZB-H1, ZB-H2): any split with at least
// one layer per stage. A DP over cut points (in the spirit of Alpa's stage
// DP, with costs from the cost model instead of profiling, and memory from
// the schedule's own in-flight profile, inflight.h) gives, for every stage d
// and n layers before it, the least bound of the stages from d on:
//   f(d, n) = min over l of max(head(d, n) + m work(d, l) + max(tail(d, n), exposed(d, l)),
//                               f(d + 1, n + l)),     f(S, L) = 0,
// over the l whose device memory fits; head and tail are the F- and
// backward chains of the n layers (and the embedding) before d, as the
// bound counts them (without ZeRO-2/3's per-micro-batch collectives, which
// only lengthen them: f stays a lower bound there). f(0, 0) is the least
// bound over every split that fits. Splits are then enumerated best first
// by a best-first search over prefixes whose bound is the exact bound of the
// prefix's stages and f of the rest (f is exact for the rest, so the first
// complete split is the DP's).
// Several chunks per device (interleaved, ZBV, DualPipeV): the splits whose
// middle stages hold q layers each and whose end stages (embedding, head)
// hold any a and b layers (a + b + (S - 2) q = L; Megatron's uneven first and
// last stages), each bounded exactly and sorted.
#pragma once

#include <cstdint>
#include <vector>

#include "core/plan/bound.h"
#include "core/plan/inflight.h"
#include "core/plan/stage_model.h"

namespace shardlab::plan {

class SplitSpace {
 public:
  // profile null: memory left out (a cheaper bound; no order needed).
  SplitSpace(const StageModel& model, const InflightProfile* profile);
  // One given split with its bound (kNone: it does not fit), for --fix layers=...
  SplitSpace(const StageModel& model, const std::vector<int32_t>& layers, double bound);

  bool fits() const { return bound_ < kNone; }      // some split (that fits)
  double bound() const { return bound_; }           // the least bound over them
  int64_t evaluated() const { return evaluated_; }  // DP cells or family members (work)

  // Best-first enumeration. Node 0 is the root (bound() when fits()).
  struct Node {
    int32_t parent = -1;
    int32_t stages = 0;                    // stages fixed (linear), or the family member's rank
    int32_t used = 0;                      // layers in the fixed stages
    int32_t layers = 0;                    // of the last fixed stage
    double head = 0, tail = 0, worst = 0;  // the prefix's chains and largest device bound
    double bound = 0;
  };
  const Node& node(int32_t id) const { return nodes_[id]; }
  bool complete(int32_t id) const;
  std::vector<int32_t> layers(int32_t id) const;  // a complete node's split
  // The children of a node whose bound is below `below`, appended to `out`.
  void expand(int32_t id, double below, std::vector<int32_t>* out);

  static constexpr double kNone = 1e300;

 private:
  void build_linear(const StageModel& model, const InflightProfile* profile);
  void build_family(const StageModel& model, const InflightProfile* profile);
  size_t at(int32_t d, int32_t l) const { return static_cast<size_t>(d) * (L_ + 1) + l; }
  // Stage d's kind: 0 first (the embedding), 2 last (the head), 1 between.
  int32_t kind_of(int32_t d) const { return d == 0 ? 0 : d == S_ - 1 ? 2 : 1; }
  size_t kat(int32_t d, int32_t l) const { return static_cast<size_t>(kind_of(d)) * (L_ + 1) + l; }

  bool linear_ = true;
  int32_t S_ = 0, L_ = 0;
  int64_t m_ = 1;
  bool fused_ = true;
  double bound_ = kNone;
  int64_t evaluated_ = 0;
  // Linear: per (stage kind, layers) F, B + W, work, raw work, exposure
  // (kat); per (stage, layers) the fit (at; with a profile only); f(d, n)
  // (the whole table only with a profile: without, the bound alone is kept).
  std::vector<double> f_s_, bw_s_, work_s_, raw_work_s_, exposed_s_, f_;
  std::vector<char> fits_;
  std::vector<double> edge_s_;
  // Family: the members that fit, by bound.
  std::vector<std::vector<int32_t>> members_;
  std::vector<double> member_bound_;
  std::vector<Node> nodes_;
};

// The least bound over the splits (and the DP's split), for tests and the
// search's first bound.
struct SplitChoice {
  bool fits = false;
  std::vector<int32_t> layers;
  double bound_s = 0;
  int64_t evaluated = 0;
};
SplitChoice best_split(const StageModel& model, const InflightProfile* profile);

// The split with the least worst-device memory, and that memory.
struct LeastMemory {
  std::vector<int32_t> layers;
  int64_t bytes = 0;
};
LeastMemory least_memory_split(const StageModel& model, const InflightProfile& profile);

}  // namespace shardlab::plan
