// Chronological branch and bound over schedules (see plan/search.h).
//
// Branching. A node is a partial schedule in which every started op starts
// no later than any op still to start. Its decision device is the one that
// can start something earliest (ties: lowest index), at time tau; the
// children start one of its ops at tau, or let it wait. A device that waits
// may not next start an op it could have started at tau: that schedule is
// the one with the op moved left, which another branch holds. This is the
// schedule generation scheme for semi-active schedules of Giffler and
// Thompson (1960), generalised to delays and memory. Memory on a device
// depends only on the order of the device's own ops, so moving an op left
// in its order never breaks a cap and semi-active schedules dominate.
//
// Overlapped pairs (PlanGraph::pair_length) are children too: an F and a B
// both startable at tau start together with the B's W. A semi-active
// schedule with pairs still starts each slot when its last member is
// released, so the wait rule becomes: after a wait, the device's next slot
// holds at least one op that could not start at tau (a pair of two
// forbidden ops could have started then).
//
// Symmetry. Ops of one class (one operation of identical micro-batches, on
// one device) start in rank order: relabelling micro-batches turns any
// schedule into one that does, F by the forward order at each stage, B
// and W likewise, as in the permutation-schedule argument for flow shops
// (the unit tests check the optimum against search without it). Pairs keep
// F and B in rank order (the relabelling moves a B's W with it); a W that
// runs alone waits for every W of lower rank, while one inside a pair may
// run ahead of them (a lower-ranked W still pending then runs alone later,
// after its B, which ran earlier: swapping the two lone W's labels is the
// exchange). Devices
// with the same cap and the same allowed groups are interchangeable while
// they are empty, so an empty device takes a new group only when every
// lower-indexed twin is already in use.
//
// Dominance. Two nodes with the same started set (given by the class
// counters), the same placements and the same waits differ only in times;
// the one whose devices are free no later and whose unfinished results
// arrive no later (clamped to the current time) is at least as good. The
// table keys states by a hash of the discrete part and keeps the time
// vectors seen, pruning a node that one of them dominates.
#include "core/pipeline/plan/search.h"

#include <algorithm>
#include <unordered_map>

#include "core/pipeline/plan/bound.h"

namespace shardlab::pipeline {
namespace {

constexpr int64_t kInf = kNoCap;

struct Child {
  int32_t op;       // -1: wait
  int32_t partner;  // the B paired with F op, -1 alone
  double key;
};

// The mutable partial schedule with apply/undo.
class State {
 public:
  explicit State(const PlanGraph& g, const std::vector<std::vector<int32_t>>& class_members,
                 const std::vector<int32_t>& device_twin, bool symmetry)
      : g_(g), members_(class_members), twin_(device_twin), symmetry_(symmetry) {
    reset();
  }

  void reset() {
    const int32_t n = g_.num_ops();
    start.assign(n, kUnset);
    end_at.assign(n, kUnset);
    partner.assign(n, -1);
    waiting.assign(n, 0);
    for (int32_t i = 0; i < n; ++i) waiting[i] = g_.pred_begin[i + 1] - g_.pred_begin[i];
    next_rank.assign(g_.classes, 0);
    group_device.assign(g_.num_groups(), -1);
    free_at.assign(g_.devices, 0);
    level.assign(g_.devices, 0);
    groups_on.assign(g_.devices, 0);
    left_on.assign(g_.devices, 0);
    forbid.assign(g_.devices, {});
    unplaced_allowed.assign(g_.devices, 0);
    group_level.assign(g_.num_groups(), 0);
    raises_left.assign(g_.num_groups(), 0);
    min_raise.assign(g_.num_groups(), kInf);
    for (int32_t i = 0; i < g_.num_ops(); ++i) {
      const PlanOp& op = g_.ops[i];
      if (op.mem_net <= 0) continue;
      ++raises_left[op.group];
      min_raise[op.group] = std::min(min_raise[op.group], op.mem_peak);
    }
    for (int32_t gr = 0; gr < g_.num_groups(); ++gr) {
      const int32_t ops = g_.group_ops_begin[gr + 1] - g_.group_ops_begin[gr];
      if (g_.fixed(gr)) {
        const int32_t d = g_.groups[gr].devices[0];
        group_device[gr] = d;
        level[d] += g_.groups[gr].mem_static;
        ++groups_on[d];
        left_on[d] += ops;
      } else {
        for (int32_t d : g_.groups[gr].devices) ++unplaced_allowed[d];
      }
    }
    ready.clear();
    ready_pos.assign(n, -1);
    for (int32_t i = 0; i < n; ++i) {
      if (is_ready(i)) add_ready(i);
    }
    load_left.assign(g_.devices, 0);
    for (int32_t gr = 0; gr < g_.num_groups(); ++gr) {
      if (group_device[gr] >= 0) load_left[group_device[gr]] += group_load(gr);
    }
    now = 0;
    scheduled = 0;
    makespan = 0;
    end_tail = 0;
    log_.clear();
    saved_forbid_.clear();
  }

  // Ready: unstarted, every predecessor started, and next in its class
  // (see "Symmetry" above; a W may also start out of rank inside a pair).
  bool is_ready(int32_t i) const {
    if (start[i] != kUnset || waiting[i] != 0) return false;
    const PlanOp& op = g_.ops[i];
    return !symmetry_ || op.sym_class < 0 || next_rank[op.sym_class] == op.sym_rank;
  }

  // Earliest start of ready op i on device d (ignoring memory).
  int64_t release(int32_t i, int32_t d) const {
    int64_t r = std::max(free_at[d], now);
    for (int32_t k = g_.pred_begin[i]; k < g_.pred_begin[i + 1]; ++k) {
      const PlanArc& a = g_.arcs[g_.pred_arc[k]];
      const int32_t dj = group_device[g_.ops[a.from].group];
      r = std::max(r, end_at[a.from] + (dj == d ? 0 : a.delay));
    }
    return r;
  }

  // Whether op i's group may be (or is) on device d; *extra is the static
  // memory placing it there adds.
  bool placeable(int32_t i, int32_t d, int64_t* extra) const {
    const PlanOp& op = g_.ops[i];
    const int32_t gd = group_device[op.group];
    *extra = 0;
    if (gd >= 0) return gd == d;
    const auto& allowed = g_.groups[op.group].devices;
    if (!std::binary_search(allowed.begin(), allowed.end(), d)) return false;
    if (symmetry_ && groups_on[d] == 0) {
      for (int32_t e = twin_[d]; e < d; ++e) {
        if (twin_[e] == twin_[d] && groups_on[e] == 0) return false;
      }
    }
    *extra = g_.groups[op.group].mem_static;
    return true;
  }

  bool forbidden(int32_t i, int32_t d) const {
    for (int32_t f : forbid[d]) {
      if (f == i) return true;
    }
    return false;
  }

  // Whether ready op i may start alone on d now, forbidden or not
  // (placement, symmetry, memory).
  bool fits(int32_t i, int32_t d) const {
    int64_t extra = 0;
    if (!placeable(i, d, &extra)) return false;
    return level[d] + extra + g_.ops[i].mem_peak <= g_.mem_cap[d];
  }

  // Whether ready op i may start alone on d now (also: not forbidden by a wait).
  bool may_run(int32_t i, int32_t d) const { return fits(i, d) && !forbidden(i, d); }

  // Whether ready F f and ready B b may start as a pair on d now: the graph
  // allows the pair, both fit, not both forbidden (after a wait the next
  // slot must hold something that could not start then), and memory holds
  // all three members' allocations.
  bool may_pair(int32_t f, int32_t b, int32_t d) const {
    if (g_.pair_length(f, b) < 0) return false;
    int64_t ef = 0, eb = 0;
    if (!placeable(f, d, &ef) || !placeable(b, d, &eb)) return false;
    if (g_.ops[f].group == g_.ops[b].group) eb = 0;
    if (forbidden(f, d) && forbidden(b, d)) return false;
    const int64_t peak =
        g_.ops[f].mem_peak + g_.ops[b].mem_peak + g_.ops[g_.ops[b].weight].mem_peak;
    return level[d] + ef + eb + peak <= g_.mem_cap[d];
  }

  int64_t group_load(int32_t gr) const {
    int64_t total = 0;
    for (int32_t k = g_.group_ops_begin[gr]; k < g_.group_ops_begin[gr + 1]; ++k) {
      total += g_.load[g_.group_ops[k]];
    }
    return total;
  }

  // The cheap bound (SearchConfig::cheap_bound) at decision time tau.
  int64_t cheap_bound(int64_t tau) const {
    int64_t b = std::max(end_tail, tau);
    for (int32_t d = 0; d < g_.devices; ++d) {
      b = std::max(b, std::max(tau, free_at[d]) + load_left[d]);
    }
    for (int32_t i : ready) {
      const int32_t d = group_device[g_.ops[i].group];
      if (d >= 0) b = std::max(b, release(i, d) + g_.min_len[i] + g_.tail[i]);
    }
    return b;
  }

  // Dive heuristic for pairs: whether lone op x (an F or B that may pair)
  // should wait on d at tau for a partner that is released before x would
  // end and whose pair with x would end before the two in sequence.
  bool pair_soon(int32_t x, int32_t d, int64_t tau) const {
    const PlanOp& op = g_.ops[x];
    const bool is_f = op.kind == PlanKind::kForward;
    auto full = [&](int32_t i) {
      const PlanOp& o = g_.ops[i];
      return o.duration + (o.kind == PlanKind::kBackward ? g_.ops[o.weight].duration : 0);
    };
    const int64_t alone_end = tau + full(x);
    for (int32_t y : ready) {
      if (y == x || !g_.pairable[y]) continue;
      const int32_t f = is_f ? x : y, b = is_f ? y : x;
      const int64_t length = g_.pair_length(f, b);
      if (length < 0) continue;
      int64_t ef = 0, eb = 0;
      if (!placeable(f, d, &ef) || !placeable(b, d, &eb)) continue;
      const int64_t r = std::max(release(f, d), release(b, d));
      if (r <= tau || r >= alone_end) continue;
      if (r + length < std::max(alone_end, r) + full(y)) return true;
    }
    return false;
  }

  // Ready ops that could start alone on d at tau, forbidden or not: the ops
  // a wait at tau forbids.
  void startable_at(int32_t d, int64_t tau, std::vector<int32_t>* out) const {
    out->clear();
    for (int32_t i : ready) {
      if (fits(i, d) && release(i, d) <= tau) out->push_back(i);
    }
    std::sort(out->begin(), out->end());
  }

  // Whether device d can still receive work that is not startable at tau.
  bool may_get_more(int32_t d, int64_t tau) const {
    if (unplaced_allowed[d] > 0) return true;
    int32_t blocked = 0;
    for (int32_t i : ready) {
      if (group_device[g_.ops[i].group] != d) continue;
      if (may_run(i, d) && release(i, d) <= tau) ++blocked;
    }
    for (int32_t f : forbid[d]) {
      if (start[f] == kUnset && group_device[g_.ops[f].group] == d) ++blocked;
    }
    return left_on[d] - blocked > 0;
  }

  // The decision of the node: device and time; false when nothing can run.
  // A pair never starts before its members could alone, and one of them is
  // not forbidden, so single ops give the earliest time.
  bool decide(int32_t* device, int64_t* tau) const {
    int32_t best_d = -1;
    int64_t best_t = kInf;
    for (int32_t i : ready) {
      const PlanOp& op = g_.ops[i];
      const int32_t gd = group_device[op.group];
      if (gd >= 0) {
        if (!may_run(i, gd)) continue;
        const int64_t r = release(i, gd);
        if (r < best_t || (r == best_t && gd < best_d)) best_t = r, best_d = gd;
      } else {
        for (int32_t d : g_.groups[op.group].devices) {
          if (!may_run(i, d)) continue;
          const int64_t r = release(i, d);
          if (r < best_t || (r == best_t && d < best_d)) best_t = r, best_d = d;
        }
      }
    }
    *device = best_d;
    *tau = best_t;
    return best_d >= 0;
  }

  // Starts op i alone (b < 0) or F i with B b and b's W as a pair, on d at tau.
  void start_slot(int32_t i, int32_t b, int32_t d, int64_t tau) {
    Entry e;
    e.members[0] = i;
    e.count = 1;
    int64_t length = g_.ops[i].duration;
    if (b >= 0) {
      e.members[1] = b;
      e.members[2] = g_.ops[b].weight;
      e.count = 3;
      length = g_.pair_length(i, b);
    }
    e.device = d;
    e.prev_now = now;
    e.prev_free = free_at[d];
    e.prev_makespan = makespan;
    e.prev_end_tail = end_tail;
    e.forbid_size = static_cast<int32_t>(forbid[d].size());
    saved_forbid_.insert(saved_forbid_.end(), forbid[d].begin(), forbid[d].end());
    forbid[d].clear();
    now = tau;
    free_at[d] = tau + length;
    makespan = std::max(makespan, tau + length);
    for (int32_t k = 0; k < e.count; ++k) {
      const int32_t m = e.members[k];
      const PlanOp& op = g_.ops[m];
      e.placed[k] = group_device[op.group] < 0;
      if (e.placed[k]) {
        group_device[op.group] = d;
        level[d] += g_.groups[op.group].mem_static;
        ++groups_on[d];
        left_on[d] += g_.group_ops_begin[op.group + 1] - g_.group_ops_begin[op.group];
        for (int32_t a : g_.groups[op.group].devices) --unplaced_allowed[a];
        load_left[d] += group_load(op.group);
      }
      start[m] = tau;
      end_at[m] = tau + length;
      load_left[d] -= g_.load[m];
      end_tail = std::max(end_tail, tau + length + g_.tail[m]);
      level[d] += op.mem_net;
      group_level[op.group] += op.mem_net;
      if (op.mem_net > 0) --raises_left[op.group];
      --left_on[d];
      ++scheduled;
      if (ready_pos[m] >= 0) remove_ready(m);
    }
    if (b >= 0) {
      partner[i] = b;
      partner[b] = i;
      partner[e.members[2]] = i;
    }
    // Classes: the next rank skips members already started (a W run early
    // in a pair).
    for (int32_t k = 0; k < e.count; ++k) {
      const int32_t c = g_.ops[e.members[k]].sym_class;
      e.prev_rank[k] = -1;
      if (!symmetry_ || c < 0) continue;
      e.prev_rank[k] = next_rank[c];
      const auto& m = members_[c];
      while (next_rank[c] < static_cast<int32_t>(m.size()) && start[m[next_rank[c]]] != kUnset) {
        ++next_rank[c];
      }
    }
    for (int32_t k = 0; k < e.count; ++k) {
      const int32_t m = e.members[k];
      for (int32_t a = g_.succ_begin[m]; a < g_.succ_begin[m + 1]; ++a) {
        const int32_t j = g_.arcs[g_.succ_arc[a]].to;
        if (--waiting[j] == 0 && is_ready(j) && ready_pos[j] < 0) add_ready(j);
      }
    }
    for (int32_t k = 0; k < e.count; ++k) {
      const int32_t c = g_.ops[e.members[k]].sym_class;
      if (e.prev_rank[k] < 0 || next_rank[c] == e.prev_rank[k] ||
          next_rank[c] >= static_cast<int32_t>(members_[c].size())) {
        continue;
      }
      const int32_t j = members_[c][next_rank[c]];
      if (is_ready(j) && ready_pos[j] < 0) add_ready(j);
    }
    log_.push_back(e);
  }

  void wait(int32_t d, int64_t tau, const std::vector<int32_t>& ops) {
    Entry e;
    e.count = 0;
    e.device = d;
    e.prev_now = now;
    e.forbid_size = static_cast<int32_t>(forbid[d].size());
    now = tau;
    forbid[d].insert(forbid[d].end(), ops.begin(), ops.end());
    log_.push_back(e);
  }

  void undo() {
    const Entry e = log_.back();
    log_.pop_back();
    const int32_t d = e.device;
    now = e.prev_now;
    if (e.count == 0) {
      forbid[d].resize(e.forbid_size);
      return;
    }
    for (int32_t k = e.count - 1; k >= 0; --k) {
      const int32_t m = e.members[k];
      for (int32_t a = g_.succ_begin[m]; a < g_.succ_begin[m + 1]; ++a) {
        const int32_t j = g_.arcs[g_.succ_arc[a]].to;
        if (ready_pos[j] >= 0) remove_ready(j);
        ++waiting[j];
      }
    }
    for (int32_t k = e.count - 1; k >= 0; --k) {
      if (e.prev_rank[k] < 0) continue;
      const int32_t c = g_.ops[e.members[k]].sym_class;
      if (next_rank[c] != e.prev_rank[k] &&
          next_rank[c] < static_cast<int32_t>(members_[c].size())) {
        const int32_t j = members_[c][next_rank[c]];
        if (ready_pos[j] >= 0) remove_ready(j);
      }
      next_rank[c] = e.prev_rank[k];
    }
    for (int32_t k = e.count - 1; k >= 0; --k) {
      const int32_t m = e.members[k];
      const PlanOp& op = g_.ops[m];
      start[m] = kUnset;
      end_at[m] = kUnset;
      partner[m] = -1;
      load_left[d] += g_.load[m];
      --scheduled;
      ++left_on[d];
      level[d] -= op.mem_net;
      group_level[op.group] -= op.mem_net;
      if (op.mem_net > 0) ++raises_left[op.group];
      if (e.placed[k]) {
        load_left[d] -= group_load(op.group);
        for (int32_t a : g_.groups[op.group].devices) ++unplaced_allowed[a];
        left_on[d] -= g_.group_ops_begin[op.group + 1] - g_.group_ops_begin[op.group];
        --groups_on[d];
        level[d] -= g_.groups[op.group].mem_static;
        group_device[op.group] = -1;
      }
    }
    for (int32_t k = 0; k < e.count; ++k) {
      if (is_ready(e.members[k]) && ready_pos[e.members[k]] < 0) add_ready(e.members[k]);
    }
    free_at[d] = e.prev_free;
    makespan = e.prev_makespan;
    end_tail = e.prev_end_tail;
    forbid[d].assign(saved_forbid_.end() - e.forbid_size, saved_forbid_.end());
    saved_forbid_.resize(saved_forbid_.size() - e.forbid_size);
  }

  PlanSchedule schedule() const {
    PlanSchedule s;
    s.start = start;
    s.device.resize(g_.num_ops());
    for (int32_t i = 0; i < g_.num_ops(); ++i) s.device[i] = group_device[g_.ops[i].group];
    if (g_.any_pairs &&
        std::any_of(partner.begin(), partner.end(), [](int32_t x) { return x >= 0; })) {
      s.partner = partner;
    }
    s.makespan = makespan;
    return s;
  }

  bool complete() const { return scheduled == g_.num_ops(); }

  // The discrete part of the state, exactly: which ops started (class
  // counters, plus flags for ops outside classes and for class members
  // started ahead of their rank), placements and waits.
  void key(std::vector<int32_t>* out) const {
    out->clear();
    if (symmetry_) out->insert(out->end(), next_rank.begin(), next_rank.end());
    for (int32_t i = 0; i < g_.num_ops(); ++i) {
      const PlanOp& op = g_.ops[i];
      if (!symmetry_ || op.sym_class < 0) {
        out->push_back(start[i] == kUnset ? 0 : 1);
      } else if (g_.any_pairs && op.sym_rank > next_rank[op.sym_class] && start[i] != kUnset) {
        out->push_back(-2 - i);
      }
    }
    out->insert(out->end(), group_device.begin(), group_device.end());
    for (const auto& f : forbid) {
      out->push_back(-1 - static_cast<int32_t>(f.size()));
      out->insert(out->end(), f.begin(), f.end());
    }
  }

  const PlanGraph& g_;
  const std::vector<std::vector<int32_t>>& members_;
  const std::vector<int32_t>& twin_;
  bool symmetry_;
  std::vector<int64_t> start, end_at;
  std::vector<int32_t> partner;
  std::vector<int32_t> waiting;
  std::vector<int32_t> next_rank;
  std::vector<int32_t> group_device;
  std::vector<int64_t> free_at, level;
  std::vector<int32_t> groups_on, left_on, unplaced_allowed;
  // Per group: memory its started ops hold, raises still to run, least raise.
  std::vector<int64_t> group_level;
  std::vector<int32_t> raises_left;
  std::vector<int64_t> min_raise;

  // Dive heuristic against memory deadlocks: a raise on d must leave room
  // for one raise of every other group on d that holds nothing yet and has
  // raises to run, so that no group (no direction, no chunk) is starved
  // while the others wait for it. A pair counts with its members' total.
  bool leaves_room(int32_t i, int32_t b, int32_t d) const {
    const PlanOp& op = g_.ops[i];
    int64_t net = op.mem_net;
    if (b >= 0) net += g_.ops[b].mem_net + g_.ops[g_.ops[b].weight].mem_net;
    if (net <= 0 || g_.mem_cap[d] >= kInf) return true;
    int64_t reserve = 0;
    for (int32_t gr = 0; gr < g_.num_groups(); ++gr) {
      if (gr == op.group || group_device[gr] != d) continue;
      if (group_level[gr] == 0 && raises_left[gr] > 0) reserve += min_raise[gr];
    }
    return level[d] + net + reserve <= g_.mem_cap[d];
  }
  std::vector<std::vector<int32_t>> forbid;
  std::vector<int32_t> ready, ready_pos;
  std::vector<int64_t> load_left;  // per device: loads of its placed ops not started
  int64_t now = 0;
  int32_t scheduled = 0;
  int64_t makespan = 0;
  int64_t end_tail = 0;  // the largest end + tail of a started op

 private:
  struct Entry {
    int32_t members[3] = {-1, -1, -1};
    int32_t count = 0;  // 0: a wait
    int32_t prev_rank[3] = {-1, -1, -1};
    bool placed[3] = {false, false, false};
    int32_t device = 0;
    int64_t prev_now = 0, prev_free = 0, prev_makespan = 0, prev_end_tail = 0;
    int32_t forbid_size = 0;
  };
  void add_ready(int32_t i) {
    ready_pos[i] = static_cast<int32_t>(ready.size());
    ready.push_back(i);
  }
  void remove_ready(int32_t i) {
    const int32_t at = ready_pos[i];
    const int32_t last = ready.back();
    ready[at] = last;
    ready_pos[last] = at;
    ready.pop_back();
    ready_pos[i] = -1;
  }
  std::vector<Entry> log_;
  std::vector<int32_t> saved_forbid_;
};

}  // namespace

struct ScheduleSearch::Impl {
  const PlanGraph& g;
  SearchConfig config;
  std::vector<std::vector<int32_t>> members;
  std::vector<int32_t> twin;
  std::unique_ptr<State> dfs;
  std::unique_ptr<State> diver;
  BoundScratch scratch;

  struct Frame {
    int32_t device = -1;
    int64_t tau = 0;
    int64_t bound = 0;
    size_t child_begin = 0, child_end = 0, next = 0;
    bool applied = false;
  };
  std::vector<Frame> stack;
  std::vector<Child> arena;
  Rng order_rng{1};
  bool started = false;
  bool done = false;
  bool last_dive_complete = true;
  int64_t upper = kInf;
  // The root bound, computed on first use (a dive never needs it).
  mutable int64_t root = -1;
  int64_t nodes = 0, bound_prunes = 0, dominance_prunes = 0;

  // Dominance table: hash of the discrete key -> (key, times) seen.
  struct Seen {
    std::vector<int32_t> key;
    std::vector<int64_t> times;
  };
  std::unordered_map<uint64_t, std::vector<Seen>> table;
  int64_t table_size = 0;
  std::vector<int64_t> times_buf;
  std::vector<int32_t> key_buf;

  Impl(const PlanGraph& graph, const SearchConfig& cfg) : g(graph), config(cfg) {
    members = g.class_members();
    // Twins: devices with the same cap that no fixed group uses and that
    // every flexible group allows both or neither of.
    twin.assign(g.devices, 0);
    std::vector<std::vector<int32_t>> allowed_groups(g.devices);
    std::vector<char> has_fixed(g.devices, 0);
    for (int32_t gr = 0; gr < g.num_groups(); ++gr) {
      if (g.fixed(gr)) {
        has_fixed[g.groups[gr].devices[0]] = 1;
      } else {
        for (int32_t d : g.groups[gr].devices) allowed_groups[d].push_back(gr);
      }
    }
    for (int32_t d = 0; d < g.devices; ++d) {
      twin[d] = d;
      if (has_fixed[d]) continue;
      for (int32_t e = 0; e < d; ++e) {
        if (!has_fixed[e] && g.mem_cap[e] == g.mem_cap[d] &&
            allowed_groups[e] == allowed_groups[d]) {
          twin[d] = e;
          break;
        }
      }
    }
    order_rng = Rng(config.seed);
    dfs = std::make_unique<State>(g, members, twin, config.symmetry);
    diver = std::make_unique<State>(g, members, twin, config.symmetry);
    // The one-device root bound is taken from the root state, fresh here
    // (every search that has the option runs, so it is never wasted).
    if (config.one_device_root) {
      State& s = *dfs;
      BoundScratch local;
      PartialState ps{&s.start, &s.end_at, &s.group_device, &s.free_at, &s.level, 0};
      root = g.on_grid(partial_bound(g, ps, &local));
    }
  }

  // The full root bound (plan/bound.h), or (SearchConfig::one_device_root,
  // taken in the constructor) the one-device relaxations alone: the window
  // bound's sweep over every head costs more than the few hundred nodes of
  // a neighbourhood search, and on a restricted graph its kept ops are
  // pinned, which the one-device bounds see already.
  int64_t root_value() const {
    if (root < 0) root = pipeline::root_bound(g);
    return root;
  }

  double priority(const State& s, int32_t i, int32_t d, int32_t rule) const {
    const PlanOp& op = g.ops[i];
    const double crit = static_cast<double>(g.tail[i] + op.duration);
    switch (rule) {
      case 1: {  // free memory first when the device is more than half full
        const bool tight = g.mem_cap[d] < kNoCap && 2 * s.level[d] > g.mem_cap[d];
        return crit + (tight && op.mem_net < 0 ? 1e9 : 0.0);
      }
      case 2:  // oldest micro-batch first
        return -static_cast<double>(op.sym_rank) * 1e6 + crit;
      default:
        return crit;
    }
  }

  // Children of the node at (d, tau) in the order to try them: single ops,
  // overlapped pairs, and waiting. `startable` gets the ops a wait forbids.
  void children(State& s, int32_t d, int64_t tau, int32_t rule, double noise, Rng* rng,
                std::vector<Child>* out, std::vector<int32_t>* startable) {
    s.startable_at(d, tau, startable);
    const size_t first = out->size();
    auto jitter = [&](int32_t i) {
      return noise > 0 && rng ? noise * rng->unit() * static_cast<double>(g.tail[i] + 1) : 0.0;
    };
    for (int32_t i : *startable) {
      if (s.forbidden(i, d)) continue;
      // Ops that would starve another group of memory go last (see
      // State::leaves_room), whatever the rule.
      double key = priority(s, i, d, rule) + (s.leaves_room(i, -1, d) ? 1e15 : 0.0);
      out->push_back({i, -1, key + jitter(i)});
    }
    if (g.any_pairs) {
      // A pair runs an F with a full backward for less than the three take
      // in sequence; it goes before its members alone (rule 1 aside, which
      // frees memory first).
      for (int32_t f : *startable) {
        if (!g.pairable[f] || g.ops[f].kind != PlanKind::kForward) continue;
        for (int32_t b : *startable) {
          if (!g.pairable[b] || g.ops[b].kind != PlanKind::kBackward) continue;
          if (!s.may_pair(f, b, d)) continue;
          const double key = std::max(priority(s, f, d, rule), priority(s, b, d, rule)) +
                             (rule == 1 ? 0.0 : 1e12) + (s.leaves_room(f, b, d) ? 1e15 : 0.0);
          out->push_back({f, b, key + jitter(f)});
        }
      }
    }
    std::stable_sort(out->begin() + first, out->end(),
                     [](const Child& a, const Child& b) { return a.key > b.key; });
    if (s.may_get_more(d, tau)) out->push_back({-1, -1, -1e300});
  }

  std::vector<int32_t> startable_buf;

  // Evaluates the node the DFS state is at: leaf, dead end, pruned or a new
  // frame. Returns 1 for a leaf below the upper bound.
  int evaluate(PlanSchedule* found) {
    State& s = *dfs;
    if (s.complete()) {
      if (s.makespan < upper) {
        *found = s.schedule();
        upper = s.makespan;
        return 1;
      }
      return 0;
    }
    int32_t d;
    int64_t tau;
    if (!s.decide(&d, &tau)) return 0;
    Frame f;
    f.device = d;
    f.tau = tau;
    f.child_begin = arena.size();
    children(s, d, tau, config.rule, config.noise, &order_rng, &arena, &startable_buf);
    f.child_end = arena.size();
    f.next = f.child_begin;
    const int64_t parent = stack.empty() ? root_value() : stack.back().bound;
    if (f.child_end - f.child_begin == 1) {
      // A forced step (one child, no wait): nothing to choose, so no bound
      // or dominance test beyond the makespan so far. Long forced stretches
      // (the kept ops of a neighbourhood search) stay cheap.
      f.bound = std::max(parent, s.makespan);
      if (f.bound >= upper) {
        arena.resize(f.child_begin);
        ++bound_prunes;
        return 0;
      }
      stack.push_back(f);
      return 0;
    }
    int64_t bound = 0;
    if (config.cheap_bound) {
      bound = s.cheap_bound(tau);
    } else {
      const int64_t saved_now = s.now;
      s.now = tau;
      PartialState ps{&s.start, &s.end_at, &s.group_device, &s.free_at, &s.level, tau};
      bound = partial_bound(g, ps, &scratch);
      s.now = saved_now;
    }
    bound = std::max(bound, parent);
    if (bound >= upper || (config.dominance && dominated(s, tau))) {
      arena.resize(f.child_begin);
      ++(bound >= upper ? bound_prunes : dominance_prunes);
      return 0;
    }
    f.bound = bound;
    stack.push_back(f);
    return 0;
  }

  // The state's times, clamped at tau: device availability, and the ends of
  // started ops that still have a successor to start (with the longest delay
  // out of them subtracted from the clamp, since their results travel).
  void times_of(const State& s, int64_t tau, std::vector<int64_t>* out) const {
    out->clear();
    for (int32_t d = 0; d < g.devices; ++d) out->push_back(std::max(s.free_at[d], tau));
    for (int32_t i = 0; i < g.num_ops(); ++i) {
      if (s.start[i] == kUnset) continue;
      int64_t max_delay = -1;
      for (int32_t k = g.succ_begin[i]; k < g.succ_begin[i + 1]; ++k) {
        const PlanArc& a = g.arcs[g.succ_arc[k]];
        if (s.start[a.to] == kUnset) max_delay = std::max(max_delay, a.delay);
      }
      if (max_delay < 0) continue;
      out->push_back(std::max(s.end_at[i], tau - max_delay));
    }
  }

  bool dominated(const State& s, int64_t tau) {
    s.key(&key_buf);
    uint64_t hash = 1469598103934665603ULL;
    for (int32_t v : key_buf) hash = (hash ^ static_cast<uint32_t>(v)) * 1099511628211ULL;
    times_of(s, tau, &times_buf);
    times_buf.push_back(tau);
    auto& list = table[hash];
    for (const Seen& seen : list) {
      if (seen.times.size() != times_buf.size() || seen.key != key_buf) continue;
      bool all = true;
      for (size_t k = 0; k < times_buf.size() && all; ++k) all = seen.times[k] <= times_buf[k];
      if (all) return true;
    }
    if (table_size < config.table_entries) {
      list.push_back({key_buf, times_buf});
      ++table_size;
    }
    return false;
  }

  bool run(int64_t budget, PlanSchedule* found) {
    if (done) return false;
    if (!started) {
      started = true;
      if (root_value() >= upper) {
        done = true;
        return false;
      }
      if (evaluate(found) == 1) return true;
      if (stack.empty()) {
        done = true;
        return false;
      }
    }
    int64_t spent = 0;
    while (spent < budget) {
      if (stack.empty()) {
        done = true;
        return false;
      }
      Frame& f = stack.back();
      if (f.applied) {
        dfs->undo();
        f.applied = false;
      }
      if (f.next == f.child_end || f.bound >= upper) {
        arena.resize(f.child_begin);
        stack.pop_back();
        continue;
      }
      const Child c = arena[f.next++];
      if (c.op >= 0) {
        dfs->start_slot(c.op, c.partner, f.device, f.tau);
      } else {
        dfs->startable_at(f.device, f.tau, &startable_buf);
        dfs->wait(f.device, f.tau, startable_buf);
      }
      f.applied = true;
      ++nodes;
      ++spent;
      if (evaluate(found) == 1) return true;
    }
    return false;
  }

  int64_t open_bound() const {
    if (done) return upper;
    if (!started) return std::min(root_value(), upper);
    int64_t b = upper;
    for (const Frame& f : stack) {
      if (f.next < f.child_end || f.applied) b = std::min(b, f.bound);
    }
    return std::max(std::min(b, upper), std::min(root_value(), upper));
  }

  bool dive(Rng* rng, double noise, int32_t rule, PlanSchedule* found, int64_t* used) {
    State& s = *diver;
    s.reset();
    std::vector<Child> kids;
    std::vector<int32_t> startable;
    int64_t steps = 0;
    while (!s.complete()) {
      int32_t d;
      int64_t tau;
      if (!s.decide(&d, &tau)) break;
      kids.clear();
      children(s, d, tau, rule, noise, rng, &kids, &startable);
      ++steps;
      // A dive waits only when every startable op would starve another
      // group of memory and something else may still come to d.
      if (kids.empty() || kids.front().op < 0) break;
      const Child* pick = nullptr;
      for (const Child& c : kids) {
        if (c.op >= 0 && s.leaves_room(c.op, c.partner, d)) {
          pick = &c;
          break;
        }
      }
      if (!pick && kids.back().op < 0) {
        s.wait(d, tau, startable);
        continue;
      }
      if (!pick) pick = &kids.front();
      if (rule != 1 && pick->partner < 0 && g.any_pairs && g.pairable[pick->op] &&
          kids.back().op < 0 && s.pair_soon(pick->op, d, tau)) {
        s.wait(d, tau, startable);
        continue;
      }
      s.start_slot(pick->op, pick->partner, d, tau);
      if (s.makespan >= upper) break;
    }
    *used = steps;
    last_dive_complete = s.complete() || s.makespan >= upper;
    if (!s.complete() || s.makespan >= upper) return false;
    *found = s.schedule();
    upper = s.makespan;
    return true;
  }
};

ScheduleSearch::ScheduleSearch(const PlanGraph& graph, const SearchConfig& config)
    : impl_(std::make_unique<Impl>(graph, config)) {}
ScheduleSearch::~ScheduleSearch() = default;
void ScheduleSearch::set_upper(int64_t upper) { impl_->upper = std::min(impl_->upper, upper); }
int64_t ScheduleSearch::upper() const { return impl_->upper; }
bool ScheduleSearch::run(int64_t nodes, PlanSchedule* found) { return impl_->run(nodes, found); }
bool ScheduleSearch::exhausted() const { return impl_->done; }
int64_t ScheduleSearch::open_bound() const { return impl_->open_bound(); }
int64_t ScheduleSearch::root_bound() const { return impl_->root_value(); }
int64_t ScheduleSearch::nodes() const { return impl_->nodes; }
int64_t ScheduleSearch::pruned_by_bound() const { return impl_->bound_prunes; }
int64_t ScheduleSearch::pruned_by_dominance() const { return impl_->dominance_prunes; }
bool ScheduleSearch::dive_completed() const { return impl_->last_dive_complete; }
bool ScheduleSearch::dive(Rng* rng, double noise, int32_t rule, PlanSchedule* found,
                          int64_t* nodes_used) {
  return impl_->dive(rng, noise, rule, found, nodes_used);
}

}  // namespace shardlab::pipeline
