// The lowering passes of PyTorch's _PipelineScheduleRuntime (see torch_ir.h):
// what _prepare_schedule_with_comms does to a compute-only schedule before
// _dump_csv(format="compute_comms") writes it. Restated from schedules.py
// at 00722e6, rule by rule, and checked against PyTorch's own expectations
// (test/distributed/pipelining/test_schedule.py, TestScheduleLowering) in
// tests/unit/pipeline_torch_test.cpp.
#include <algorithm>
#include <unordered_set>

#include "core/pipeline/torch_ir.h"

namespace shardlab::pipeline {
namespace {

using T = TorchType;

// A set of small non-negative ints that iterates in CPython's order.
// _add_unshard_reshard keeps its active stages in a Python set and evicts in
// the set's iteration order, which is the slot order of CPython's open-
// addressing table (Objects/setobject.c, 3.11: 8 slots to start, hash(k) = k,
// up to 9 linear probes then perturbed probing, a deleted slot becomes a
// dummy that a later insertion reuses (the last dummy on its probe path),
// growth to the smallest power of two above 4 x used once 5 fill > 3 mask).
// Checked against python3 3.11 on random add/discard sequences.
class PySmallIntSet {
 public:
  PySmallIntSet() : table_(8, kUnused) {}

  bool contains(int64_t key) const { return find(key) >= 0; }

  void add(int64_t key) {
    const size_t mask = table_.size() - 1;
    size_t i = static_cast<size_t>(key) & mask;
    size_t perturb = static_cast<size_t>(key);
    int64_t freeslot = -1;
    for (;;) {
      const size_t probes = (i + kLinearProbes <= mask) ? kLinearProbes : 0;
      for (size_t j = i; j <= i + probes; ++j) {
        const int64_t k = table_[j];
        if (k == kUnused) {
          if (freeslot >= 0) {
            table_[freeslot] = key;
            ++used_;
            return;
          }
          table_[j] = key;
          ++fill_;
          ++used_;
          if (fill_ * 5 >= mask * 3) resize(used_ > 50000 ? used_ * 2 : used_ * 4);
          return;
        }
        if (k == key) return;
        if (k == kDummy) freeslot = static_cast<int64_t>(j);
      }
      perturb >>= kPerturbShift;
      i = (i * 5 + 1 + perturb) & mask;
    }
  }

  void discard(int64_t key) {
    const int64_t at = find(key);
    if (at < 0) return;
    table_[at] = kDummy;
    --used_;
  }

  std::vector<int64_t> items() const {
    std::vector<int64_t> out;
    for (int64_t k : table_) {
      if (k >= 0) out.push_back(k);
    }
    return out;
  }

 private:
  static constexpr int64_t kUnused = -1, kDummy = -2;
  static constexpr size_t kLinearProbes = 9, kPerturbShift = 5;

  int64_t find(int64_t key) const {
    const size_t mask = table_.size() - 1;
    size_t i = static_cast<size_t>(key) & mask;
    size_t perturb = static_cast<size_t>(key);
    for (;;) {
      const size_t probes = (i + kLinearProbes <= mask) ? kLinearProbes : 0;
      for (size_t j = i; j <= i + probes; ++j) {
        if (table_[j] == kUnused) return -1;
        if (table_[j] == key) return static_cast<int64_t>(j);
      }
      perturb >>= kPerturbShift;
      i = (i * 5 + 1 + perturb) & mask;
    }
  }

  void resize(size_t min_used) {
    size_t size = 8;
    while (size <= min_used) size <<= 1;
    std::vector<int64_t> old = std::move(table_);
    table_.assign(size, kUnused);
    const size_t mask = size - 1;
    for (int64_t k : old) {
      if (k < 0) continue;
      size_t i = static_cast<size_t>(k) & mask;
      size_t perturb = static_cast<size_t>(k);
      for (;;) {
        size_t slot = SIZE_MAX;
        if (table_[i] == kUnused) {
          slot = i;
        } else if (i + kLinearProbes <= mask) {
          for (size_t j = i + 1; j <= i + kLinearProbes && slot == SIZE_MAX; ++j) {
            if (table_[j] == kUnused) slot = j;
          }
        }
        if (slot != SIZE_MAX) {
          table_[slot] = k;
          break;
        }
        perturb >>= kPerturbShift;
        i = (i * 5 + 1 + perturb) & mask;
      }
    }
    fill_ = used_;
  }

  std::vector<int64_t> table_;
  size_t fill_ = 0, used_ = 0;
};

// The stages an action computes on, in sub-action order.
int32_t stages_of(const TorchAction& a, int32_t out[2]) {
  if (a.type == T::kOverlap) {
    out[0] = a.f_stage;
    out[1] = a.b_stage;
    return 2;
  }
  out[0] = a.stage;
  return 1;
}

// next_stage_indices(count, actions[k:]) for every position k of a row of
// actions: the first `count` distinct stages in order of their next use,
// where an OVERLAP_F_B adds both of its stages before the count is checked
// (so it may give count + 1). Computed from the back with a move-to-front
// list ordered by next use, instead of PyTorch's scan from every position.
std::vector<std::vector<int32_t>> next_stages(const std::vector<TorchAction>& acts, size_t count) {
  struct Use {
    int32_t stage;
    size_t at;
  };
  std::vector<std::vector<int32_t>> out(acts.size());
  std::vector<Use> order;  // by next use
  for (size_t k = acts.size(); k-- > 0;) {
    int32_t s[2];
    const int32_t n = stages_of(acts[k], s);
    for (int32_t i = n; i-- > 0;) {
      auto it =
          std::find_if(order.begin(), order.end(), [&](const Use& u) { return u.stage == s[i]; });
      if (it != order.end()) order.erase(it);
      order.insert(order.begin(), Use{s[i], k});
    }
    std::vector<int32_t>& next = out[k];
    for (size_t i = 0; i < order.size();) {
      const size_t at = order[i].at;
      while (i < order.size() && order[i].at == at) next.push_back(order[i++].stage);
      if (next.size() >= count) break;
    }
  }
  return out;
}

uint64_t key_of(T type, int32_t stage, int32_t mb) {
  return (static_cast<uint64_t>(type) << 56) | (static_cast<uint64_t>(stage & 0xFFFFFF) << 32) |
         static_cast<uint32_t>(mb);
}

}  // namespace

TorchRows torch_add_unshard_reshard(const TorchRows& rows, int32_t max_active) {
  TorchRows out(rows.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    std::vector<TorchAction> acts;
    for (const std::optional<TorchAction>& a : rows[r]) {
      if (a) acts.push_back(*a);
    }
    const std::vector<std::vector<int32_t>> next = next_stages(acts, max_active);
    PySmallIntSet active;
    TorchRow& row = out[r];
    for (size_t k = 0; k < acts.size(); ++k) {
      const std::vector<int32_t>& wanted = next[k];
      std::vector<int32_t> fetch;
      for (int32_t s : wanted) {
        if (!active.contains(s)) fetch.push_back(s);
      }
      for (int64_t s : active.items()) {
        if (std::find(wanted.begin(), wanted.end(), s) != wanted.end()) continue;
        active.discard(s);
        row.push_back(TorchAction::make(T::kReshard, static_cast<int32_t>(s)));
      }
      for (int32_t s : fetch) {
        active.add(s);
        row.push_back(TorchAction::make(T::kUnshard, s));
      }
      row.push_back(acts[k]);
    }
    for (int64_t s : active.items()) {
      active.discard(s);
      row.push_back(TorchAction::make(T::kReshard, static_cast<int32_t>(s)));
    }
  }
  return out;
}

TorchRows torch_add_reduce_grad(const TorchRows& rows, int32_t microbatches) {
  TorchRows out(rows.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    std::vector<int32_t> count;
    for (const std::optional<TorchAction>& a : rows[r]) {
      if (!a) continue;
      out[r].push_back(a);
      std::vector<int32_t> due;
      auto leaf = [&](T type, int32_t stage) {
        if ((type != T::kW && type != T::kB) || stage < 0) return;
        if (static_cast<size_t>(stage) >= count.size()) count.resize(stage + 1, 0);
        if (++count[stage] == microbatches) due.push_back(stage);
      };
      if (a->type == T::kOverlap) {
        leaf(T::kF, a->f_stage);
        leaf(T::kB, a->b_stage);
      } else {
        leaf(a->type, a->stage);
      }
      for (int32_t s : due) out[r].push_back(TorchAction::make(T::kReduceGrad, s));
    }
  }
  return out;
}

Result<TorchRows> torch_add_send_recv(const TorchRows& rows,
                                      const std::vector<int32_t>& stage_rank) {
  const int32_t stages = static_cast<int32_t>(stage_rank.size());
  const size_t p = rows.size();
  auto rank_of = [&](int32_t s) { return s >= 0 && s < stages ? stage_rank[s] : -1; };
  TorchRows out(p);
  std::vector<std::unordered_set<uint64_t>> done(p);
  auto has_comms = [&](const TorchAction& a) {
    if (a.type == T::kF) return a.stage != stages - 1 && rank_of(a.stage + 1) != rank_of(a.stage);
    if (a.type == T::kI || a.type == T::kB) {
      return a.stage != 0 && rank_of(a.stage - 1) != rank_of(a.stage);
    }
    return false;
  };
  auto ready = [&](const TorchAction& a, const std::unordered_set<uint64_t>& prev) {
    if (a.type == T::kF && a.stage != 0) {
      return prev.count(key_of(T::kRecvF, a.stage, a.mb)) > 0 ||
             prev.count(key_of(T::kF, a.stage - 1, a.mb)) > 0;
    }
    if ((a.type == T::kI || a.type == T::kB) && a.stage != stages - 1) {
      return prev.count(key_of(T::kRecvB, a.stage, a.mb)) > 0 ||
             prev.count(key_of(T::kI, a.stage + 1, a.mb)) > 0 ||
             prev.count(key_of(T::kB, a.stage + 1, a.mb)) > 0;
    }
    return true;
  };
  // An idle step (None) takes its rank's turn in a round and adds nothing
  // (the lowering before this pass drops them; PyTorch's tests call the pass
  // on rows that have them).
  std::vector<size_t> next(p, 0);
  size_t left = 0;
  for (const TorchRow& row : rows) left += row.size();
  while (left > 0) {
    bool progress = false;
    for (size_t r = 0; r < p; ++r) {
      if (next[r] >= rows[r].size()) continue;
      if (!rows[r][next[r]]) {
        ++next[r];
        --left;
        progress = true;
        continue;
      }
      const TorchAction& a = *rows[r][next[r]];
      std::vector<TorchAction> leaves;
      if (a.type == T::kOverlap) {
        leaves = {TorchAction::make(T::kF, a.f_stage, a.f_mb),
                  TorchAction::make(T::kB, a.b_stage, a.b_mb)};
      } else {
        leaves = {a};
      }
      bool all = true;
      for (const TorchAction& leaf : leaves) all = all && ready(leaf, done[r]);
      if (!all) continue;
      out[r].push_back(a);
      for (const TorchAction& leaf : leaves) {
        done[r].insert(key_of(leaf.type, leaf.stage, leaf.mb));
        if (!has_comms(leaf)) continue;
        const bool forward = leaf.type == T::kF;
        const TorchAction send =
            TorchAction::make(forward ? T::kSendF : T::kSendB, leaf.stage, leaf.mb);
        const int32_t to_stage = forward ? leaf.stage + 1 : leaf.stage - 1;
        const TorchAction recv =
            TorchAction::make(forward ? T::kRecvF : T::kRecvB, to_stage, leaf.mb);
        out[r].push_back(send);
        done[r].insert(key_of(send.type, send.stage, send.mb));
        const int32_t to = rank_of(to_stage);
        if (to < 0 || static_cast<size_t>(to) >= p) {
          return Status(StatusCode::kInvalidArgument,
                        "stage " + std::to_string(to_stage) + " has no rank");
        }
        out[to].push_back(recv);
        done[to].insert(key_of(recv.type, recv.stage, recv.mb));
      }
      ++next[r];
      --left;
      progress = true;
    }
    if (!progress) {
      return Status(StatusCode::kInvalidArgument,
                    "PyTorch's _add_send_recv cannot place the sends and receives (\"Malformed "
                    "compute schedule\")");
    }
  }
  return out;
}

Result<TorchRows> torch_lower(const TorchRows& compute, const std::vector<int32_t>& stage_rank,
                              int32_t microbatches) {
  return torch_add_send_recv(
      torch_add_reduce_grad(torch_add_unshard_reshard(compute), microbatches), stage_rank);
}

}  // namespace shardlab::pipeline
