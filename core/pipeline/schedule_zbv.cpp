// ZBV, the V-shape zero-bubble schedule of Qi et al. (arXiv 2401.10241, the
// version with ZB-V): p devices, 2p stages in a V (device i holds stage i,
// chunk 0, and stage 2p-1-i, chunk 1), backward split into B and W. Its
// published order is not a closed pattern but the output of the authors'
// greedy (sail-sg/zero-bubble-pipeline-parallelism, scheduler/zbv.py,
// PipelineGraph.try_v_schedule), which places forwards to fill the V,
// then alternates rounds of B's and F's, filling predicted idle time with
// pending W's, under a memory limit of 1F1B's peak (2p chunk activations);
// it retries while the largest per-device bubble shrinks, with W-filling
// on or off before B's and F's, and keeps the best. This is our rendering
// of that procedure on the expansion's own times and memory: op durations
// per (kind, chunk, device), the largest arc delay as the communication
// cost. Where the greedy's own consistency checks fail (e.g. memory it
// cannot respect), the generator reports that instead of an order.
#include <algorithm>
#include <deque>
#include <vector>

#include "core/pipeline/order_builder.h"
#include "core/pipeline/schedules.h"

namespace shardlab::pipeline {
namespace {

// Kinds and chunks as the greedy numbers them: cat 0 F, 1 B, 2 W; for B and
// W chunk 0 is the V's second leg (model chunk 1) and chunk 1 the first leg.
struct Placed {
  int32_t cat, chunk, micro;
};

struct Attempt {
  std::vector<std::vector<Placed>> schedule;
  int64_t max_bubble = 0;
  bool ok = false;
};

class VGreedy {
 public:
  explicit VGreedy(const Expansion& e) : e_(e), n_(e.devices), m_(e.microbatches) {
    for (const Arc& arc : e.arcs) comm_ = std::max(comm_, arc.delay);
    cost_.assign(3 * 2 * n_, 0);
    mem_.assign(3 * 2 * n_, 0);
    max_mem_.assign(n_, 0);
    for (int32_t i = 0; i < n_; ++i) {
      for (int32_t cat = 0; cat < 3; ++cat) {
        for (int32_t chunk = 0; chunk < 2; ++chunk) {
          const Op& op = e.ops[op_of(cat, chunk, i, 0)];
          cost_[key(cat, chunk, i)] = op.duration;
          mem_[key(cat, chunk, i)] = cat == 0 ? op.alloc : -op.release;
        }
      }
      // 1F1B's peak: p activations of a full stage = 2p chunks.
      max_mem_[i] = n_ * (mem_[key(0, 0, i)] + mem_[key(0, 1, i)]);
    }
  }

  Result<Order> best() {
    Attempt best;
    for (bool fill_b : {true, false}) {
      for (bool fill_f : {true, false}) {
        Attempt a = attempt(fill_f, fill_b, {}, 0);
        if (a.ok && (!best.ok || a.max_bubble < best.max_bubble)) best = std::move(a);
      }
    }
    if (!best.ok) {
      return Status(
          StatusCode::kInvalidArgument,
          "ZBV's greedy found no order within 1F1B's activation memory (" + failure_ + ")");
    }
    OrderBuilder out(e_);
    for (int32_t i = 0; i < n_; ++i) {
      for (const Placed& p : best.schedule[i]) out.run(op_of(p.cat, p.chunk, i, p.micro));
    }
    return out.take();
  }

 private:
  int32_t key(int32_t cat, int32_t chunk, int32_t stage) const {
    return (cat * 2 + chunk) * n_ + stage;
  }
  int64_t id(int32_t cat, int32_t chunk, int32_t stage, int32_t micro) const {
    return ((static_cast<int64_t>(cat) * 2 + chunk) * n_ + stage) * m_ + micro;
  }
  // The expansion's op for the greedy's (cat, chunk, device, micro-batch).
  int32_t op_of(int32_t cat, int32_t chunk, int32_t i, int32_t micro) const {
    const int32_t model_chunk = cat == 0 ? chunk : 1 - chunk;
    const int32_t stage = model_chunk == 0 ? i : 2 * n_ - 1 - i;
    return e_.op_of(micro, e_.unit_at(0, stage), static_cast<OpKind>(cat));
  }

  // One pass of try_v_schedule; recursion retries with the bubbles found as
  // the approved ones while the largest bubble keeps shrinking.
  Attempt attempt(bool fill_f, bool fill_b, std::vector<int64_t> approved, int depth) {
    State s(*this);
    if (approved.empty()) approved.assign(n_, -1);
    s.approved = approved;
    s.max_approved = *std::max_element(approved.begin(), approved.end());
    Attempt result;
    if (!s.run(fill_f, fill_b)) {
      if (failure_.empty()) failure_ = s.failure;
      return result;
    }
    result.ok = true;
    result.schedule = std::move(s.schedule);
    result.max_bubble = s.max_bubble(-1);
    // Depth cap: each retry strictly lowers the largest bubble, so this only
    // bounds pathological inputs.
    if ((s.max_approved < 0 || result.max_bubble < s.max_approved) && depth < 64) {
      Attempt retry = attempt(fill_f, fill_b, s.stage_bubble, depth + 1);
      if (retry.ok && retry.max_bubble < result.max_bubble) return retry;
    }
    return result;
  }

  struct State {
    const VGreedy& g;
    std::vector<std::vector<int32_t>> count;  // [stage][cat * 2 + chunk]
    std::vector<int64_t> end_time, cur_time, mem, stage_bubble, approved;
    int64_t max_approved = -1;
    std::vector<std::deque<Placed>> pending_w;
    std::vector<std::vector<Placed>> schedule;
    std::string failure;

    explicit State(const VGreedy& greedy)
        : g(greedy),
          count(g.n_, std::vector<int32_t>(6, 0)),
          end_time(static_cast<size_t>(6) * g.n_ * g.m_, -1),
          cur_time(g.n_, 0),
          mem(g.n_, 0),
          stage_bubble(g.n_, 0),
          pending_w(g.n_),
          schedule(g.n_) {}

    // The end time of node `fa`, where -1 reads the last node as the
    // reference code's Python indexing does.
    int64_t end_at(int64_t fa) const { return fa >= 0 ? end_time[fa] : end_time.back(); }

    int64_t max_bubble(int32_t stage) const {
      int64_t worst = *std::max_element(stage_bubble.begin(), stage_bubble.end());
      if (stage >= 0) worst = std::max(worst, max_approved - approved[stage]);
      return worst;
    }

    bool fail(const std::string& why) {
      if (failure.empty()) failure = why;
      return false;
    }

    bool put(int32_t cat, int32_t chunk, int32_t stage) {
      const int32_t n = g.n_;
      const int64_t cost = g.cost_[g.key(cat, chunk, stage)];
      const int64_t no_bubble = cur_time[stage] + cost;
      int64_t t = no_bubble;
      const int32_t cnt = count[stage][cat * 2 + chunk];
      if (cnt >= g.m_) return fail("device " + std::to_string(stage) + " ran out of work");
      if (mem[stage] + g.mem_[g.key(cat, chunk, stage)] > g.max_mem_[stage]) {
        return fail("device " + std::to_string(stage) + " over its memory limit");
      }
      if (cat < 2) {
        int64_t fa = -1;
        if (chunk == 1 && stage < n - 1) fa = g.id(cat, chunk, stage + 1, cnt);
        if (chunk == 0 && stage > 0) fa = g.id(cat, chunk, stage - 1, cnt);
        if (fa >= 0) {
          if (end_time[fa] < 0) return fail("a dependency was not placed first");
          t = std::max(t, end_time[fa] + g.comm_ + cost);
        }
      }
      if (count[stage][0] > 0) stage_bubble[stage] += t - no_bubble;
      end_time[g.id(cat, chunk, stage, cnt)] = t;
      cur_time[stage] = t;
      mem[stage] += g.mem_[g.key(cat, chunk, stage)];
      schedule[stage].push_back({cat, chunk, cnt});
      if (cat == 1) pending_w[stage].push_back({2, chunk, cnt});
      ++count[stage][cat * 2 + chunk];
      return true;
    }

    bool put_w(int32_t stage) {
      if (pending_w[stage].empty()) return fail("no W left to free memory");
      const int32_t chunk = pending_w[stage].front().chunk;
      pending_w[stage].pop_front();
      return put(2, chunk, stage);
    }

    int64_t w_cost(int32_t stage) const {
      return g
          .cost_[g.key(2, pending_w[stage].empty() ? 0 : pending_w[stage].front().chunk, stage)];
    }

    // Fills the wait before an op whose input comes from node fa with W's,
    // then possibly one more when the wait exceeds the approved bubble.
    bool fill_with_w(int32_t stage, int64_t fa, bool extra) {
      while (!pending_w[stage].empty() && fa >= 0 &&
             end_time[fa] + g.comm_ >= cur_time[stage] + w_cost(stage)) {
        if (!put_w(stage)) return false;
      }
      if (!pending_w[stage].empty() &&
          end_at(fa) + g.comm_ - cur_time[stage] > max_bubble(stage) - stage_bubble[stage] &&
          extra) {
        if (!put_w(stage)) return false;
      }
      return true;
    }

    bool run(bool fill_f, bool fill_b) {
      const int32_t n = g.n_, m = g.m_;
      const int64_t f_mem = g.mem_[g.key(0, 0, 0)];
      for (int32_t i = 0; i < n; ++i) {
        if (!put(0, 0, i)) return false;
      }
      for (int32_t i = n - 1; i >= 0; --i) {
        if (i == n - 1) {
          if (!put(0, 1, i)) return false;
          continue;
        }
        const int64_t limit = end_time[g.id(0, 1, i + 1, 0)] + g.comm_;
        while (mem[i] + f_mem * (2 + i * 2) <= g.max_mem_[i] &&
               cur_time[i] + g.cost_[g.key(0, 0, i)] <= limit && count[i][0] < m) {
          for (int32_t j = 0; j <= i; ++j) {
            if (!put(0, 0, j)) return false;
          }
        }
        if (!put(0, 1, i)) return false;
      }
      int32_t chunk = 0;
      for (int32_t i = 1; i < n; ++i) {
        int64_t guard = 0;
        while (count[i][0] + count[i][1] < count[i - 1][0] + count[i - 1][1] ||
               (count[i][1] <= count[i - 1][1] && count[i - 1][1] < m)) {
          if (++guard > 4 * static_cast<int64_t>(m) + 8) return fail("the warm-up does not settle");
          for (int32_t j = n - 1; j >= i; --j) {
            if (count[j][chunk] < m && !put(0, chunk, j)) return false;
          }
          chunk = 1 - chunk;
        }
      }
      for (int32_t round = 0; round < 2 * m; ++round) {
        for (int32_t i = 0; i < n; ++i) {
          while (mem[i] + g.mem_[g.key(1, 0, i)] > g.max_mem_[i]) {
            if (!put_w(i)) return false;
          }
        }
        std::vector<int32_t> b0, b1;
        for (int32_t i = 0; i < n; ++i) {
          if (count[i][3] >= count[i][2]) {
            b0.push_back(i);
          } else if (i == n - 1) {
            b1.push_back(i);
          } else if (end_time[g.id(1, 1, i + 1, count[i][3])] >= 0 || count[i][2] >= m) {
            b1.push_back(i);
          } else {
            b0.push_back(i);
          }
        }
        std::vector<std::pair<int32_t, int32_t>> order;
        for (auto it = b1.rbegin(); it != b1.rend(); ++it) order.push_back({*it, 1});
        for (int32_t i : b0) order.push_back({i, 0});
        for (const auto& [i, c] : order) {
          int64_t fa = -1;
          if (c == 1 && i < n - 1) fa = g.id(1, 1, i + 1, count[i][3]);
          if (c == 0 && i > 0) fa = g.id(1, 0, i - 1, count[i][2]);
          if (!fill_with_w(i, fa, c == 1 || fill_b)) return false;
          if (!put(1, c, i)) return false;
        }
        for (int32_t i = 0; i < n; ++i) {
          if (count[i][1] >= m) continue;
          int32_t item = -1;
          if (count[i][1] >= count[i][0]) {
            item = 0;
          } else if (i == n - 1) {
            item = 1;
          } else if (end_time[g.id(0, 1, i + 1, count[i][1])] >= 0) {
            item = 1;
          } else if (count[i][0] < m) {
            if (i == 0 || end_time[g.id(0, 0, i - 1, count[i][0])] >= 0) item = 0;
          }
          if (item < 0) continue;
          while (mem[i] + g.mem_[g.key(0, item, i)] > g.max_mem_[i]) {
            if (!put_w(i)) return false;
          }
          int64_t fa = -1;
          if (item == 0 && i > 0) fa = g.id(0, 0, i - 1, count[i][0]);
          if (item == 1 && i < n - 1) fa = g.id(0, 1, i + 1, count[i][1]);
          if (!fill_with_w(i, fa, fill_f)) return false;
          if (!put(0, item, i)) return false;
        }
      }
      for (int32_t i = 0; i < n; ++i) {
        while (!pending_w[i].empty()) {
          if (!put_w(i)) return false;
        }
        for (int32_t c = 0; c < 6; ++c) {
          if (count[i][c] != m) return fail("not every operation was placed");
        }
      }
      return true;
    }
  };

  const Expansion& e_;
  int32_t n_, m_;
  int64_t comm_ = 0;
  std::vector<int64_t> cost_, mem_, max_mem_;
  std::string failure_;
};

}  // namespace

Result<Order> zbv_order(const Expansion& e) { return VGreedy(e).best(); }

}  // namespace shardlab::pipeline
