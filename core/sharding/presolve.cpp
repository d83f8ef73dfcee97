// Exact presolve (see presolve.h for the list of reductions and the contract).
// It works on a mutable "working graph" whose node ids start as the original
// node ids. Every working node keeps a stable strategy space that never gets
// re-indexed (removals only clear an "allowed" flag), so the records written
// while reducing stay valid, and replaying them in reverse (expand) rebuilds
// the original plan exactly. Edges are views (index maps) onto the original
// pooled matrices until an elimination needs a new table, which keeps the
// peak memory close to the model's own size on the 30k-node instances.
#include "core/sharding/presolve.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <numeric>
#include <unordered_map>

namespace shardlab {
namespace {

inline int64_t sat_add(int64_t a, int64_t b) {
  if (a >= kForbidden || b >= kForbidden) return kForbidden;
  return std::min<int64_t>(a + b, kForbidden);
}

struct WorkEdge {
  int32_t end[2];
  const int64_t* data;
  int32_t stride;
  std::vector<int32_t> map[2];  // stable strategy of end[k] -> row (k = 0) / column (k = 1)
  bool alive = true;
  bool queued = false;                  // in the functional-check queue
  bool arc_queued[2] = {false, false};  // end[k] needs a support check on this edge
};

struct Member {
  int32_t node;              // original node
  std::vector<int32_t> map;  // owner's stable strategy -> original strategy
};

struct WorkNode {
  bool alive = true;
  bool memory_free = false;
  bool dirty = true;             // dominance worth re-checking
  bool unary_queued = false;     // in the unary-check queue
  std::vector<int64_t> unary;    // per stable strategy
  std::vector<uint8_t> allowed;  // per stable strategy
  int32_t count = 0;
  std::vector<int32_t> edges;  // alive incident edges
  std::vector<Member> members;
  int32_t stable_size() const { return static_cast<int32_t>(unary.size()); }
};

uint64_t hash_costs(const int64_t* data, int64_t size, int32_t rows) {
  uint64_t h = 1469598103934665603ULL ^ static_cast<uint64_t>(rows);
  for (int64_t i = 0; i < size; ++i) {
    h ^= static_cast<uint64_t>(data[i]) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  }
  return h;
}

// Usage vector of node x at core time t: the segment covering t, or none.
const int64_t* usage_at(const CoreModel& core, int32_t x, int32_t t) {
  const int32_t* lo = core.term_lo.data();
  int32_t a = core.term_begin[x];
  int32_t b = core.term_begin[x + 1];
  // Last segment with lo <= t.
  const int32_t i = static_cast<int32_t>(std::upper_bound(lo + a, lo + b, t) - lo) - 1;
  if (i < a || core.term_hi[i] <= t) return nullptr;
  return core.term_usage.data() + core.term_usage_begin[i];
}

// Node-level time dominance: time t can be dropped when some kept time k has
// capacity(k) <= capacity(t) and every node's usage vector at t is pointwise
// <= its vector at k (then usage(t) - capacity(t) <= usage(k) - capacity(k)
// for every plan). Only the nodes whose segments change between k and t need
// comparing; sweeping forwards and then backwards against the last kept time
// finds most dominated times in near-linear time.
void compress_core_times(CoreModel* core) {
  const int32_t t_count = core->num_times();
  const int32_t n = core->num_nodes();
  if (t_count <= 1) return;
  std::vector<std::vector<int32_t>> changes(t_count + 1);  // nodes with a boundary at t
  for (int32_t x = 0; x < n; ++x) {
    for (int32_t i = core->term_begin[x]; i < core->term_begin[x + 1]; ++i) {
      changes[core->term_lo[i]].push_back(x);
      changes[core->term_hi[i]].push_back(x);
    }
  }
  constexpr size_t kMaxChanged = 64;
  std::vector<uint8_t> keep(t_count, 1);
  auto dominated = [&](int32_t t, int32_t k, const std::vector<int32_t>& changed) {
    if (core->capacity[t] < core->capacity[k]) return false;
    for (int32_t x : changed) {
      const int64_t* ut = usage_at(*core, x, t);
      if (ut == nullptr) continue;
      const int64_t* uk = usage_at(*core, x, k);
      const int32_t kx = core->num_strategies(x);
      for (int32_t s = 0; s < kx; ++s) {
        if (ut[s] > (uk == nullptr ? 0 : uk[s])) return false;
      }
    }
    return true;
  };
  std::vector<int32_t> changed;
  std::vector<uint8_t> in_changed(n, 0);
  auto reset = [&]() {
    for (int32_t x : changed) in_changed[x] = 0;
    changed.clear();
  };
  auto note = [&](int32_t t) {
    for (int32_t x : changes[t]) {
      if (!in_changed[x]) {
        in_changed[x] = 1;
        changed.push_back(x);
      }
    }
  };
  // Forward: compare t with the last kept time before it.
  int32_t k = 0;
  for (int32_t t = 1; t < t_count; ++t) {
    note(t);
    if (changed.size() <= kMaxChanged && dominated(t, k, changed)) {
      keep[t] = 0;
      continue;
    }
    k = t;
    reset();
  }
  reset();
  // Backward: compare t with the next kept time after it (boundaries at t + 1
  // separate t from t + 1).
  k = -1;
  for (int32_t t = t_count - 1; t >= 0; --t) {
    if (!keep[t]) {
      note(t + 1);
      continue;
    }
    if (k >= 0) {
      note(t + 1);
      if (changed.size() <= kMaxChanged && dominated(t, k, changed)) {
        keep[t] = 0;
        continue;
      }
    }
    k = t;
    reset();
  }
  reset();
  std::vector<int32_t> index(t_count + 1, 0);
  std::vector<int64_t> capacity;
  for (int32_t t = 0; t < t_count; ++t) {
    index[t + 1] = index[t] + keep[t];
    if (keep[t]) capacity.push_back(core->capacity[t]);
  }
  // Remap segments; drop empty ones and join equal neighbours.
  CoreModel& c = *core;
  std::vector<int32_t> term_begin{0}, term_lo, term_hi;
  std::vector<int64_t> usage_begin{0}, usage;
  for (int32_t x = 0; x < n; ++x) {
    const int32_t kx = c.num_strategies(x);
    for (int32_t i = c.term_begin[x]; i < c.term_begin[x + 1]; ++i) {
      const int32_t lo = index[c.term_lo[i]];
      const int32_t hi = index[c.term_hi[i]];
      if (lo >= hi) continue;
      const int64_t* u = c.term_usage.data() + c.term_usage_begin[i];
      const int32_t last = static_cast<int32_t>(term_lo.size()) - 1;
      if (last >= term_begin.back() && term_hi[last] == lo &&
          std::equal(u, u + kx, usage.end() - kx)) {
        term_hi[last] = hi;
        continue;
      }
      term_lo.push_back(lo);
      term_hi.push_back(hi);
      usage.insert(usage.end(), u, u + kx);
      usage_begin.push_back(static_cast<int64_t>(usage.size()));
    }
    term_begin.push_back(static_cast<int32_t>(term_lo.size()));
  }
  usage_begin.pop_back();
  c.term_begin = std::move(term_begin);
  c.term_lo = std::move(term_lo);
  c.term_hi = std::move(term_hi);
  c.term_usage_begin = std::move(usage_begin);
  c.term_usage = std::move(usage);
  c.capacity = std::move(capacity);
}

// Memory bounds propagation on a core: with every other live node at its
// lightest allowed usage, a strategy whose own usage leaves no room at some
// time cannot be part of a feasible plan. Returns the (node, strategy) pairs
// found, iterating to a fixed point (removals raise the other nodes' minima).
// Sets *infeasible when even the lightest choices do not fit.
std::vector<std::pair<int32_t, int32_t>> memory_infeasible(const CoreModel& core,
                                                           bool* infeasible) {
  const int32_t n = core.num_nodes();
  const int32_t t_count = core.num_times();
  std::vector<std::pair<int32_t, int32_t>> removed;
  if (t_count == 0) return removed;
  std::vector<uint8_t> allowed(core.unary.size(), 1);
  std::vector<int64_t> seg_min(core.num_terms(), 0);
  auto compute_min = [&](int32_t x) {
    for (int32_t i = core.term_begin[x]; i < core.term_begin[x + 1]; ++i) {
      int64_t m = kForbidden;
      for (int32_t s = 0; s < core.num_strategies(x); ++s) {
        if (allowed[core.strategy_begin[x] + s]) m = std::min(m, core.term_use(i, s));
      }
      seg_min[i] = m;
    }
  };
  for (int32_t x = 0; x < n; ++x) compute_min(x);
  // Min-segment tree over slack(t) = capacity(t) - sum of live minima.
  int32_t leaves = 1;
  while (leaves < t_count) leaves *= 2;
  std::vector<int64_t> tree(2 * leaves, kForbidden);
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<int64_t> diff(t_count + 1, 0);
    for (int32_t i = 0; i < core.num_terms(); ++i) {
      diff[core.term_lo[i]] += seg_min[i];
      diff[core.term_hi[i]] -= seg_min[i];
    }
    int64_t load = 0;
    for (int32_t t = 0; t < t_count; ++t) {
      load += diff[t];
      tree[leaves + t] = core.capacity[t] - load;
      if (tree[leaves + t] < 0) *infeasible = true;
    }
    if (*infeasible) return removed;
    for (int32_t i = leaves - 1; i >= 1; --i) tree[i] = std::min(tree[2 * i], tree[2 * i + 1]);
    auto range_min = [&](int32_t lo, int32_t hi) {
      int64_t m = kForbidden;
      for (int32_t a = lo + leaves, b = hi + leaves; a < b; a /= 2, b /= 2) {
        if (a & 1) m = std::min(m, tree[a++]);
        if (b & 1) m = std::min(m, tree[--b]);
      }
      return m;
    };
    for (int32_t x = 0; x < n; ++x) {
      bool node_changed = false;
      int32_t left = 0;
      for (int32_t s = 0; s < core.num_strategies(x); ++s)
        left += allowed[core.strategy_begin[x] + s];
      for (int32_t i = core.term_begin[x]; i < core.term_begin[x + 1]; ++i) {
        const int64_t room = range_min(core.term_lo[i], core.term_hi[i]);
        for (int32_t s = 0; s < core.num_strategies(x); ++s) {
          uint8_t& a = allowed[core.strategy_begin[x] + s];
          if (a && core.term_use(i, s) - seg_min[i] > room && left > 1) {
            a = 0;
            --left;
            removed.push_back({x, s});
            node_changed = true;
          }
        }
      }
      if (node_changed) {
        compute_min(x);
        changed = true;
      }
    }
  }
  return removed;
}

}  // namespace

// One presolve run: owns the working graph and writes into a Presolved.
class PresolveRun {
 public:
  PresolveRun(const Problem& problem, const PresolveOptions& options, Presolved* out)
      : p_(problem), options_(options), out_(out) {}

  void run() {
    init();
    // Each round: propagate (support + functional merges) to a fixed point,
    // then look at memory, eliminate what became memory-free, then prune
    // dominated strategies; stop when a round changes nothing.
    for (int round = 0; round < 1000 && !infeasible_; ++round) {
      propagate();
      if (infeasible_) break;
      analyze_memory();
      if (infeasible_) break;
      if (eliminate_memory_free()) continue;
      if (dominance_pass()) continue;
      break;
    }
    for (int pass = 0; pass < 100 && !infeasible_; ++pass) {
      analyze_memory();
      if (infeasible_) break;
      build_core();
      if (out_->infeasible_) return;
      // Memory propagation needs the core's times and segments; what it
      // removes goes back into the working graph, which then reduces again.
      bool none_fit = false;
      const std::vector<std::pair<int32_t, int32_t>> gone =
          memory_infeasible(out_->core_, &none_fit);
      if (none_fit) infeasible_ = true;
      if (gone.empty() || infeasible_) break;
      for (const auto& [cx, cs] : gone) {
        const int32_t x = out_->core_work_[cx];
        disallow(x, out_->core_stable_[out_->core_.strategy_begin[cx] + cs]);
        ++out_->stats_.removed_memory;
        domain_changed(x);
      }
      for (int round = 0; round < 1000 && !infeasible_; ++round) {
        propagate();
        if (infeasible_) break;
        analyze_memory();
        if (infeasible_) break;
        if (eliminate_memory_free()) continue;
        if (dominance_pass()) continue;
        break;
      }
    }
    if (infeasible_) out_->infeasible_ = true;
  }

 private:
  // ---------------------------------------------------------------- setup
  void init() {
    const int32_t n = p_.num_nodes();
    nodes_.resize(n);
    umin_.assign(n, 0);
    umax_.assign(n, 0);
    for (int32_t v = 0; v < n; ++v) {
      WorkNode& w = nodes_[v];
      const int32_t k = p_.num_strategies(v);
      w.unary.assign(p_.strategy_cost.begin() + p_.strategy_begin[v],
                     p_.strategy_cost.begin() + p_.strategy_begin[v + 1]);
      w.allowed.assign(k, 1);
      w.count = k;
      Member m{v, std::vector<int32_t>(k)};
      std::iota(m.map.begin(), m.map.end(), 0);
      w.members.push_back(std::move(m));
    }
    edges_.resize(p_.num_edges());
    for (int32_t e = 0; e < p_.num_edges(); ++e) {
      WorkEdge& we = edges_[e];
      we.end[0] = p_.edge_u[e];
      we.end[1] = p_.edge_v[e];
      we.data = p_.edge_costs(e);
      we.stride = p_.num_strategies(p_.edge_v[e]);
      for (int k = 0; k < 2; ++k) {
        we.map[k].resize(p_.num_strategies(we.end[k]));
        std::iota(we.map[k].begin(), we.map[k].end(), 0);
      }
      nodes_[we.end[0]].edges.push_back(e);
      nodes_[we.end[1]].edges.push_back(e);
    }
    for (int32_t v = 0; v < n; ++v) queue_unary(v);
    for (int32_t e = 0; e < p_.num_edges(); ++e) {
      queue_arc(e, 0);
      queue_arc(e, 1);
      queue_functional(e);
    }
    out_->stats_.original_nodes = n;
    out_->stats_.original_edges = p_.num_edges();
    out_->stats_.original_times = p_.num_checkpoints();
  }

  // ------------------------------------------------------------- helpers
  int side_of(const WorkEdge& e, int32_t x) const { return e.end[0] == x ? 0 : 1; }

  // Entry of edge e with end[k] at stable strategy sx and the other at so:
  // e.data[own_offset + other_offset], split so that loops over the other
  // end can fix the first part.
  int64_t entry(const WorkEdge& e, int k, int32_t sx, int32_t so) const {
    return e.data[own_offset(e, k, sx) + other_offset(e, k, so)];
  }
  static int64_t own_offset(const WorkEdge& e, int k, int32_t sx) {
    return k == 0 ? static_cast<int64_t>(e.map[0][sx]) * e.stride : e.map[1][sx];
  }
  static int64_t other_offset(const WorkEdge& e, int k, int32_t so) {
    return own_offset(e, 1 - k, so);
  }

  std::vector<int32_t> allowed_list(int32_t x) const {
    const WorkNode& w = nodes_[x];
    std::vector<int32_t> list;
    list.reserve(w.count);
    for (int32_t s = 0; s < w.stable_size(); ++s) {
      if (w.allowed[s]) list.push_back(s);
    }
    return list;
  }

  void queue_unary(int32_t x) {
    if (!nodes_[x].unary_queued && nodes_[x].alive) {
      nodes_[x].unary_queued = true;
      unary_queue_.push_back(x);
    }
  }

  // end[k] of edge e must be re-checked for support against the other end.
  void queue_arc(int32_t e, int k) {
    if (!edges_[e].arc_queued[k] && edges_[e].alive) {
      edges_[e].arc_queued[k] = true;
      arc_queue_.push_back(2 * e + k);
    }
  }

  void queue_functional(int32_t e) {
    if (!edges_[e].queued && edges_[e].alive) {
      edges_[e].queued = true;
      functional_queue_.push_back(e);
    }
  }

  // x lost strategies: its neighbours may lose support, its edges may have
  // become functional, and dominance around it is worth another look.
  void domain_changed(int32_t x) {
    WorkNode& w = nodes_[x];
    w.dirty = true;
    for (int32_t e : w.edges) {
      const int k = side_of(edges_[e], x);
      nodes_[edges_[e].end[1 - k]].dirty = true;
      queue_arc(e, 1 - k);
      queue_functional(e);
    }
  }

  void remove_edge_from(int32_t x, int32_t e) {
    std::vector<int32_t>& list = nodes_[x].edges;
    for (size_t i = 0; i < list.size(); ++i) {
      if (list[i] == e) {
        list[i] = list.back();
        list.pop_back();
        return;
      }
    }
  }

  void kill_edge(int32_t e) {
    WorkEdge& we = edges_[e];
    if (!we.alive) return;
    we.alive = false;
    remove_edge_from(we.end[0], e);
    if (we.end[1] != we.end[0]) remove_edge_from(we.end[1], e);
    we.map[0].clear();
    we.map[0].shrink_to_fit();
    we.map[1].clear();
    we.map[1].shrink_to_fit();
  }

  void disallow(int32_t x, int32_t s) {
    WorkNode& w = nodes_[x];
    if (!w.allowed[s]) return;
    w.allowed[s] = 0;
    --w.count;
    if (w.count == 0) infeasible_ = true;
  }

  // ------------------------------------------------- support (arc consistency)
  // Removes strategies that are forbidden outright or have no allowed partner
  // on some edge (AC-3 over arcs): no feasible plan can use them.
  void check_unary(int32_t x) {
    WorkNode& w = nodes_[x];
    bool changed = false;
    for (int32_t s = 0; s < w.stable_size(); ++s) {
      if (w.allowed[s] && w.unary[s] >= kForbidden) {
        disallow(x, s);
        ++out_->stats_.removed_forbidden;
        changed = true;
      }
    }
    if (changed) domain_changed(x);
  }

  void revise_arc(int32_t e, int k) {
    const WorkEdge& we = edges_[e];
    const int32_t x = we.end[k];
    WorkNode& w = nodes_[x];
    const std::vector<int32_t> others = allowed_list(we.end[1 - k]);
    bool changed = false;
    for (int32_t s = 0; s < w.stable_size(); ++s) {
      if (!w.allowed[s]) continue;
      bool supported = false;
      for (int32_t o : others) {
        if (entry(we, k, s, o) < kForbidden) {
          supported = true;
          break;
        }
      }
      if (!supported) {
        disallow(x, s);
        ++out_->stats_.removed_forbidden;
        changed = true;
      }
    }
    if (changed) domain_changed(x);
  }

  // ---------------------------------------------------- functional merging
  // If every allowed strategy a of end[k] has exactly one allowed partner
  // f(a) on edge e, the other end is a function of end[k]: returns f over
  // end[k]'s stable space (-1 where not allowed), or an empty vector.
  std::vector<int32_t> functional_map(const WorkEdge& e, int k) const {
    const int32_t x = e.end[k];
    const int32_t y = e.end[1 - k];
    const WorkNode& wx = nodes_[x];
    const std::vector<int32_t> others = allowed_list(y);
    std::vector<int32_t> f(wx.stable_size(), -1);
    for (int32_t a = 0; a < wx.stable_size(); ++a) {
      if (!wx.allowed[a]) continue;
      int32_t found = -1;
      for (int32_t b : others) {
        if (entry(e, k, a, b) < kForbidden) {
          if (found >= 0) return {};
          found = b;
        }
      }
      if (found < 0) return {};
      f[a] = found;
    }
    return f;
  }

  // Merges the other end of edge e into end[k] along f.
  void merge(int32_t e, int k, const std::vector<int32_t>& f) {
    const int32_t x = edges_[e].end[k];
    const int32_t y = edges_[e].end[1 - k];
    WorkNode& wx = nodes_[x];
    WorkNode& wy = nodes_[y];
    for (int32_t a = 0; a < wx.stable_size(); ++a) {
      if (!wx.allowed[a]) continue;
      wx.unary[a] = sat_add(wx.unary[a], sat_add(wy.unary[f[a]], entry(edges_[e], k, a, f[a])));
    }
    kill_edge(e);
    auto compose = [&](const std::vector<int32_t>& map) {
      std::vector<int32_t> out(wx.stable_size(), 0);
      for (int32_t a = 0; a < wx.stable_size(); ++a) {
        if (f[a] >= 0) out[a] = map[f[a]];
      }
      return out;
    };
    for (Member& m : wy.members) {
      m.map = compose(m.map);
      wx.members.push_back(std::move(m));
    }
    wy.members.clear();
    const std::vector<int32_t> y_edges = wy.edges;
    for (int32_t e2 : y_edges) {
      WorkEdge& we = edges_[e2];
      const int j = side_of(we, y);
      if (we.end[1 - j] == x) {
        // A parallel edge between x and y becomes a unary cost of x.
        for (int32_t a = 0; a < wx.stable_size(); ++a) {
          if (wx.allowed[a]) wx.unary[a] = sat_add(wx.unary[a], entry(we, j, f[a], a));
        }
        kill_edge(e2);
        continue;
      }
      we.map[j] = compose(we.map[j]);
      we.end[j] = x;
      wx.edges.push_back(e2);
    }
    wy.edges.clear();
    wy.alive = false;
    ++out_->stats_.merged;
    add_record(Presolved::RecordKind::kMerge, y, x, -1, f, wx.stable_size(), 0);
    // x's domain is unchanged; only its unary costs and its new edges (which
    // were supported from y's side already) need a look.
    wx.dirty = true;
    queue_unary(x);
    for (int32_t e2 : y_edges) {
      if (edges_[e2].alive) {
        queue_functional(e2);
        queue_arc(e2, side_of(edges_[e2], x));
        nodes_[edges_[e2].end[1 - side_of(edges_[e2], x)]].dirty = true;
      }
    }
  }

  void add_record(Presolved::RecordKind kind, int32_t target, int32_t a, int32_t b,
                  const std::vector<int32_t>& data, int32_t rows, int32_t cols, int32_t width = 0) {
    Presolved::Record r{kind, target, a,    b, static_cast<int64_t>(out_->record_data_.size()),
                        rows, cols,   width};
    out_->records_.push_back(r);
    for (int32_t d : data) out_->record_data_.push_back(std::max(d, 0));
  }

  // Runs support and functional checks until the queues are empty.
  void propagate() {
    while (!infeasible_ &&
           (!unary_queue_.empty() || !arc_queue_.empty() || !functional_queue_.empty())) {
      while (!infeasible_ && (!unary_queue_.empty() || !arc_queue_.empty())) {
        if (!unary_queue_.empty()) {
          const int32_t x = unary_queue_.front();
          unary_queue_.pop_front();
          nodes_[x].unary_queued = false;
          if (nodes_[x].alive) check_unary(x);
          continue;
        }
        const int32_t arc = arc_queue_.front();
        arc_queue_.pop_front();
        const int32_t e = arc / 2;
        const int k = arc % 2;
        edges_[e].arc_queued[k] = false;
        if (edges_[e].alive) revise_arc(e, k);
      }
      if (infeasible_) return;
      if (!functional_queue_.empty()) {
        const int32_t e = functional_queue_.front();
        functional_queue_.pop_front();
        edges_[e].queued = false;
        if (!edges_[e].alive) continue;
        // Merge the end with less to rewrite into the other one.
        const int32_t a = edges_[e].end[0];
        const int32_t b = edges_[e].end[1];
        const size_t cost_a = nodes_[a].members.size() + nodes_[a].edges.size();
        const size_t cost_b = nodes_[b].members.size() + nodes_[b].edges.size();
        const int first = cost_b <= cost_a ? 0 : 1;  // keep end[first], absorb the other
        for (int attempt = 0; attempt < 2; ++attempt) {
          const int k = attempt == 0 ? first : 1 - first;
          std::vector<int32_t> f = functional_map(edges_[e], k);
          if (!f.empty()) {
            merge(e, k, f);
            break;
          }
        }
      }
    }
  }

  // -------------------------------------------------------------- memory
  // A checkpoint "binds" when the largest allowed usages of the live nodes
  // exceed the limit; elsewhere every plan fits. A node whose usage can vary
  // only away from binding checkpoints cannot affect feasibility.
  void analyze_memory() {
    const int32_t n = p_.num_nodes();
    const int32_t t_count = p_.num_checkpoints();
    for (int32_t x = 0; x < static_cast<int32_t>(nodes_.size()); ++x) {
      const WorkNode& w = nodes_[x];
      if (!w.alive) continue;
      for (const Member& m : w.members) {
        int64_t lo = kForbidden;
        int64_t hi = 0;
        for (int32_t s = 0; s < w.stable_size(); ++s) {
          if (!w.allowed[s]) continue;
          const int64_t u = p_.node_usage(m.node, m.map[s]);
          lo = std::min(lo, u);
          hi = std::max(hi, u);
        }
        umin_[m.node] = lo == kForbidden ? 0 : lo;
        umax_[m.node] = hi;
      }
    }
    binding_prefix_.assign(t_count + 1, 0);
    if (!p_.has_usage_limit) {
      for (WorkNode& w : nodes_) w.memory_free = true;
      return;
    }
    std::vector<int64_t> diff_max(t_count + 1, 0);
    std::vector<int64_t> diff_min(t_count + 1, 0);
    for (int32_t v = 0; v < n; ++v) {
      diff_max[p_.checkpoint_lo[v]] += umax_[v];
      diff_max[p_.checkpoint_hi[v]] -= umax_[v];
      diff_min[p_.checkpoint_lo[v]] += umin_[v];
      diff_min[p_.checkpoint_hi[v]] -= umin_[v];
    }
    int64_t run_max = 0;
    int64_t run_min = 0;
    for (int32_t t = 0; t < t_count; ++t) {
      run_max += diff_max[t];
      run_min += diff_min[t];
      if (run_min > p_.usage_limit) infeasible_ = true;
      binding_prefix_[t + 1] = binding_prefix_[t] + (run_max > p_.usage_limit ? 1 : 0);
    }
    for (WorkNode& w : nodes_) {
      if (!w.alive) continue;
      bool free = true;
      for (const Member& m : w.members) {
        if (relevant(m.node)) {
          free = false;
          break;
        }
      }
      if (free && !w.memory_free) w.dirty = true;
      w.memory_free = free;
    }
  }

  bool relevant(int32_t v) const {
    return umin_[v] < umax_[v] &&
           binding_prefix_[p_.checkpoint_hi[v]] > binding_prefix_[p_.checkpoint_lo[v]];
  }

  // ----------------------------------------------------------- elimination
  // Bucket elimination of memory-free nodes of degree <= 2: the node's best
  // response to its neighbours is folded into a unary (leaf) or a new edge
  // (series). Its choice never changes memory where memory matters.
  bool eliminate_memory_free() {
    std::deque<int32_t> queue;
    for (int32_t x = 0; x < static_cast<int32_t>(nodes_.size()); ++x) {
      if (nodes_[x].alive && nodes_[x].memory_free && nodes_[x].edges.size() <= 2) {
        queue.push_back(x);
      }
    }
    bool any = false;
    while (!queue.empty() && !infeasible_) {
      const int32_t x = queue.front();
      queue.pop_front();
      WorkNode& w = nodes_[x];
      if (!w.alive || !w.memory_free || w.edges.size() > 2) continue;
      std::vector<int32_t> neighbours;
      if (!eliminate(x, &neighbours)) continue;
      any = true;
      for (int32_t y : neighbours) {
        if (nodes_[y].alive && nodes_[y].memory_free && nodes_[y].edges.size() <= 2) {
          queue.push_back(y);
        }
      }
      propagate();
    }
    return any;
  }

  bool eliminate(int32_t x, std::vector<int32_t>* neighbours) {
    WorkNode& w = nodes_[x];
    const std::vector<int32_t> xs = allowed_list(x);
    if (xs.empty()) {
      infeasible_ = true;
      return false;
    }
    if (w.edges.empty()) {
      int32_t best = xs[0];
      for (int32_t s : xs) {
        if (w.unary[s] < w.unary[best]) best = s;
      }
      constant_ += w.unary[best];
      add_record(Presolved::RecordKind::kConstant, x, -1, -1, {best}, 1, 0);
    } else {
      const int32_t e1 = w.edges[0];
      const int k1 = side_of(edges_[e1], x);
      const int32_t y = edges_[e1].end[1 - k1];
      int32_t e2 = -1;
      int k2 = 0;
      int32_t z = -1;
      if (w.edges.size() == 2) {
        e2 = w.edges[1];
        k2 = side_of(edges_[e2], x);
        z = edges_[e2].end[1 - k2];
      }
      if (z < 0 || z == y) {
        // Leaf (possibly through two parallel edges): fold into y's unary.
        WorkNode& wy = nodes_[y];
        std::vector<int32_t> table(wy.stable_size(), 0);
        for (int32_t b = 0; b < wy.stable_size(); ++b) {
          if (!wy.allowed[b]) continue;
          int64_t best = kForbidden;
          int32_t arg = xs[0];
          for (int32_t a : xs) {
            int64_t c = sat_add(w.unary[a], entry(edges_[e1], k1, a, b));
            if (e2 >= 0) c = sat_add(c, entry(edges_[e2], k2, a, b));
            if (c < best) {
              best = c;
              arg = a;
            }
          }
          table[b] = arg;
          wy.unary[b] = sat_add(wy.unary[b], best);
        }
        kill_edge(e1);
        if (e2 >= 0) kill_edge(e2);
        add_record(Presolved::RecordKind::kLeaf, x, y, -1, table, wy.stable_size(), 0);
        neighbours->push_back(y);
        wy.dirty = true;
        queue_unary(y);
      } else {
        const std::vector<int32_t> ys = allowed_list(y);
        const std::vector<int32_t> zs = allowed_list(z);
        const int64_t rows = static_cast<int64_t>(ys.size());
        const int64_t cols = static_cast<int64_t>(zs.size());
        if (rows * cols > options_.series_table ||
            rows * cols * static_cast<int64_t>(xs.size()) > options_.series_work) {
          return false;
        }
        // An existing y-z edge is summed into the new table.
        int32_t existing = -1;
        for (int32_t e : nodes_[y].edges) {
          const WorkEdge& we = edges_[e];
          if ((we.end[0] == y && we.end[1] == z) || (we.end[0] == z && we.end[1] == y)) {
            existing = e;
            break;
          }
        }
        std::vector<int64_t> cost(rows * cols);
        std::vector<int32_t> table;
        const int32_t y_size = nodes_[y].stable_size();
        const int32_t z_size = nodes_[z].stable_size();
        table.assign(y_size + z_size + rows * cols, 0);
        for (int64_t i = 0; i < rows; ++i) table[ys[i]] = static_cast<int32_t>(i);
        for (int64_t j = 0; j < cols; ++j) table[y_size + zs[j]] = static_cast<int32_t>(j);
        for (int64_t i = 0; i < rows; ++i) {
          for (int64_t j = 0; j < cols; ++j) {
            int64_t best = kForbidden;
            int32_t arg = xs[0];
            for (int32_t a : xs) {
              const int64_t c = sat_add(sat_add(w.unary[a], entry(edges_[e1], k1, a, ys[i])),
                                        entry(edges_[e2], k2, a, zs[j]));
              if (c < best) {
                best = c;
                arg = a;
              }
            }
            if (existing >= 0) {
              const WorkEdge& we = edges_[existing];
              best = sat_add(
                  best, we.end[0] == y ? entry(we, 0, ys[i], zs[j]) : entry(we, 1, ys[i], zs[j]));
            }
            cost[i * cols + j] = best;
            table[y_size + z_size + i * cols + j] = arg;
          }
        }
        kill_edge(e1);
        kill_edge(e2);
        if (existing >= 0) kill_edge(existing);
        owned_.push_back(std::move(cost));
        WorkEdge ne;
        ne.end[0] = y;
        ne.end[1] = z;
        ne.data = owned_.back().data();
        ne.stride = static_cast<int32_t>(cols);
        ne.map[0].assign(y_size, 0);
        ne.map[1].assign(z_size, 0);
        for (int64_t i = 0; i < rows; ++i) ne.map[0][ys[i]] = static_cast<int32_t>(i);
        for (int64_t j = 0; j < cols; ++j) ne.map[1][zs[j]] = static_cast<int32_t>(j);
        const int32_t id = static_cast<int32_t>(edges_.size());
        edges_.push_back(std::move(ne));
        nodes_[y].edges.push_back(id);
        nodes_[z].edges.push_back(id);
        add_record(Presolved::RecordKind::kSeries, x, y, z, table, y_size, z_size,
                   static_cast<int32_t>(cols));
        neighbours->push_back(y);
        neighbours->push_back(z);
        nodes_[y].dirty = true;
        nodes_[z].dirty = true;
        queue_arc(id, 0);
        queue_arc(id, 1);
        queue_functional(id);
      }
    }
    w.alive = false;
    w.edges.clear();
    ++out_->stats_.eliminated;
    return true;
  }

  // ------------------------------------------------------------- dominance
  // Strategy a of x is dominated by b when b is never more expensive whatever
  // the neighbours choose (unary difference plus, per edge, the worst case
  // difference over the neighbour's allowed strategies) and never uses more
  // memory where memory matters. Some optimal plan then avoids a. Removal is
  // sequential (a dominator is always still allowed), and dominance is
  // transitive, so removing several at once stays exact.
  bool dominance_pass() {
    bool any = false;
    for (int32_t x = 0; x < static_cast<int32_t>(nodes_.size()) && !infeasible_; ++x) {
      WorkNode& w = nodes_[x];
      if (!w.alive || !w.dirty || w.count <= 1) continue;
      w.dirty = false;
      if (prune_dominated(x)) {
        any = true;
        domain_changed(x);
        propagate();
      }
    }
    return any;
  }

  bool prune_dominated(int32_t x) {
    WorkNode& w = nodes_[x];
    std::vector<int32_t> xs = allowed_list(x);
    std::vector<DominanceSide> sides;
    int64_t per_pair = 1;
    for (int32_t e : w.edges) {
      const WorkEdge& edge = edges_[e];
      const int k = side_of(edge, x);
      DominanceSide side{&edge, k, {}};
      for (int32_t o : allowed_list(edge.end[1 - k]))
        side.offsets.push_back(other_offset(edge, k, o));
      per_pair += static_cast<int64_t>(side.offsets.size());
      sides.push_back(std::move(side));
    }
    std::vector<const Member*> mem;
    for (const Member& m : w.members) {
      if (p_.has_usage_limit && relevant(m.node)) mem.push_back(&m);
    }
    per_pair += static_cast<int64_t>(mem.size());
    const int64_t pairs = static_cast<int64_t>(xs.size()) * static_cast<int64_t>(xs.size());
    if (pairs * per_pair > options_.dominance_work_per_node) return false;
    // Cheaper strategies first as dominators: they dominate most often.
    std::sort(xs.begin(), xs.end(), [&](int32_t a, int32_t b) {
      return w.unary[a] != w.unary[b] ? w.unary[a] < w.unary[b] : a < b;
    });
    bool changed = false;
    for (int32_t a : xs) {
      for (int32_t b : xs) {
        if (b == a || !w.allowed[b] || !w.allowed[a]) continue;
        if (dominates(w, sides, mem, b, a)) {
          disallow(x, a);
          ++out_->stats_.removed_dominated;
          changed = true;
          break;
        }
      }
    }
    return changed;
  }

  // One edge of a node x under the dominance test, with the other_offset of
  // the other end's allowed strategies precomputed (the test's inner loop).
  struct DominanceSide {
    const WorkEdge* edge;
    int k;                         // x is end[k]
    std::vector<int64_t> offsets;  // per allowed strategy of the other end
  };

  bool dominates(const WorkNode& w, const std::vector<DominanceSide>& sides,
                 const std::vector<const Member*>& mem, int32_t b, int32_t a) const {
    for (const Member* m : mem) {
      if (p_.node_usage(m->node, m->map[b]) > p_.node_usage(m->node, m->map[a])) return false;
    }
    int64_t delta = w.unary[b] - w.unary[a];
    for (const DominanceSide& side : sides) {
      int64_t worst = -kForbidden;
      const int64_t* row_a = side.edge->data + own_offset(*side.edge, side.k, a);
      const int64_t* row_b = side.edge->data + own_offset(*side.edge, side.k, b);
      for (const int64_t offset : side.offsets) {
        const int64_t ca = row_a[offset];
        if (ca >= kForbidden) continue;
        const int64_t cb = row_b[offset];
        if (cb >= kForbidden) return false;
        worst = std::max(worst, cb - ca);
      }
      if (worst == -kForbidden) return false;  // a unsupported: left to revise()
      delta += worst;
    }
    return delta <= 0;
  }

  // ------------------------------------------------------------ the core
  void build_core() {
    out_->core_ = CoreModel();
    out_->core_work_.clear();
    out_->core_stable_.clear();
    out_->core_member_begin_.clear();
    out_->core_member_node_.clear();
    out_->core_member_map_begin_.clear();
    out_->core_member_map_.clear();
    out_->core_.constant = constant_;
    CoreModel& core = out_->core_;
    PresolveStats& stats = out_->stats_;
    const int32_t t_count = p_.num_checkpoints();

    // Core times: binding checkpoints no other kept checkpoint dominates.
    std::vector<int32_t> starts(t_count + 1, 0);
    std::vector<int32_t> ends(t_count + 1, 0);
    std::vector<int64_t> base_diff(t_count + 1, 0);
    for (int32_t v = 0; v < p_.num_nodes(); ++v) {
      base_diff[p_.checkpoint_lo[v]] += umin_[v];
      base_diff[p_.checkpoint_hi[v]] -= umin_[v];
    }
    std::vector<int64_t> cap(t_count, 0);
    int64_t running = 0;
    for (int32_t t = 0; t < t_count; ++t) {
      running += base_diff[t];
      cap[t] = p_.usage_limit - running;
    }
    for (int32_t x = 0; x < static_cast<int32_t>(nodes_.size()); ++x) {
      if (!nodes_[x].alive) continue;
      for (const Member& m : nodes_[x].members) {
        if (!relevant(m.node)) continue;
        ++starts[p_.checkpoint_lo[m.node]];
        ++ends[p_.checkpoint_hi[m.node]];
      }
    }
    std::vector<uint8_t> keep(t_count, 0);
    for (int32_t t = 0; t < t_count; ++t) {
      keep[t] = p_.has_usage_limit && binding_prefix_[t + 1] > binding_prefix_[t];
    }
    // Forward: t is dominated by the last kept k when no relevant term
    // started in (k, t] (so live(t) is a subset of live(k)) and cap(t) >= cap(k).
    int32_t last = -1;
    int64_t started = 0;
    for (int32_t t = 0; t < t_count; ++t) {
      if (last >= 0) started += starts[t];
      if (!keep[t]) continue;
      if (last >= 0 && started == 0 && cap[t] >= cap[last]) {
        keep[t] = 0;
        continue;
      }
      last = t;
      started = 0;
    }
    // Backward: t is dominated by the next kept k when no relevant term ended
    // in (t, k] and cap(t) >= cap(k).
    last = -1;
    int64_t ended = 0;
    for (int32_t t = t_count - 1; t >= 0; --t) {
      if (!keep[t]) {
        if (last >= 0) ended += ends[t];
        continue;
      }
      if (last >= 0 && ended == 0 && cap[t] >= cap[last]) {
        keep[t] = 0;
        ended += ends[t];
        continue;
      }
      last = t;
      ended = ends[t];
    }
    std::vector<int32_t> time_index(t_count + 1, 0);  // kept checkpoints before t
    for (int32_t t = 0; t < t_count; ++t) {
      time_index[t + 1] = time_index[t] + keep[t];
      if (keep[t]) core.capacity.push_back(cap[t]);
    }
    for (int64_t c : core.capacity) {
      if (c < 0) {
        out_->infeasible_ = true;
        return;
      }
    }

    // Nodes and strategies.
    std::vector<int32_t> core_of(nodes_.size(), -1);
    core.strategy_begin.push_back(0);
    for (int32_t x = 0; x < static_cast<int32_t>(nodes_.size()); ++x) {
      const WorkNode& w = nodes_[x];
      if (!w.alive) continue;
      core_of[x] = static_cast<int32_t>(out_->core_work_.size());
      out_->core_work_.push_back(x);
      for (int32_t s = 0; s < w.stable_size(); ++s) {
        if (!w.allowed[s]) continue;
        out_->core_stable_.push_back(s);
        core.unary.push_back(w.unary[s]);
      }
      core.strategy_begin.push_back(static_cast<int32_t>(core.unary.size()));
    }
    const int32_t n = static_cast<int32_t>(out_->core_work_.size());
    auto core_list = [&](int32_t cx) {
      return std::vector<int32_t>(out_->core_stable_.begin() + core.strategy_begin[cx],
                                  out_->core_stable_.begin() + core.strategy_begin[cx + 1]);
    };

    // Edges: parallel ones summed, every distinct table stored once.
    std::vector<std::pair<std::pair<int32_t, int32_t>, int32_t>> pairs;
    for (int32_t e = 0; e < static_cast<int32_t>(edges_.size()); ++e) {
      if (!edges_[e].alive) continue;
      int32_t a = core_of[edges_[e].end[0]];
      int32_t b = core_of[edges_[e].end[1]];
      pairs.push_back({{std::min(a, b), std::max(a, b)}, e});
    }
    std::sort(pairs.begin(), pairs.end());
    std::unordered_map<uint64_t, std::vector<int32_t>> by_hash;
    core.matrix_begin.push_back(0);
    for (size_t i = 0; i < pairs.size();) {
      const int32_t cu = pairs[i].first.first;
      const int32_t cv = pairs[i].first.second;
      const std::vector<int32_t> us = core_list(cu);
      const std::vector<int32_t> vs = core_list(cv);
      std::vector<int64_t> table(us.size() * vs.size(), 0);
      for (; i < pairs.size() && pairs[i].first == std::make_pair(cu, cv); ++i) {
        const WorkEdge& we = edges_[pairs[i].second];
        const int k = we.end[0] == out_->core_work_[cu] ? 0 : 1;
        for (size_t r = 0; r < us.size(); ++r) {
          for (size_t c = 0; c < vs.size(); ++c) {
            int64_t& cell = table[r * vs.size() + c];
            cell = sat_add(cell, entry(we, k, us[r], vs[c]));
          }
        }
      }
      const uint64_t h = hash_costs(table.data(), static_cast<int64_t>(table.size()),
                                    static_cast<int32_t>(us.size()));
      int32_t found = -1;
      for (int32_t id : by_hash[h]) {
        const int64_t b = core.matrix_begin[id];
        if (core.matrix_begin[id + 1] - b == static_cast<int64_t>(table.size()) &&
            std::equal(table.begin(), table.end(), core.matrix_cost.begin() + b)) {
          found = id;
          break;
        }
      }
      if (found < 0) {
        found = static_cast<int32_t>(core.matrix_begin.size()) - 1;
        core.matrix_cost.insert(core.matrix_cost.end(), table.begin(), table.end());
        core.matrix_begin.push_back(static_cast<int64_t>(core.matrix_cost.size()));
        by_hash[h].push_back(found);
      }
      core.edge_u.push_back(cu);
      core.edge_v.push_back(cv);
      core.edge_matrix.push_back(found);
    }
    build_incidence(n, core.edge_u, core.edge_v, &core.adj_begin, &core.adj_edge);

    // Memory terms (relevant members, usage above their minimum, summed when
    // they cover the same core times) and member maps for restrict_plan().
    core.term_begin.push_back(0);
    core.term_usage_begin.push_back(0);
    out_->core_member_begin_.push_back(0);
    out_->core_member_map_begin_.push_back(0);
    for (int32_t cx = 0; cx < n; ++cx) {
      const WorkNode& w = nodes_[out_->core_work_[cx]];
      const std::vector<int32_t> xs = core_list(cx);
      struct Pending {
        int32_t lo, hi;
        std::vector<int64_t> use;
      };
      std::vector<Pending> pending;
      for (const Member& m : w.members) {
        out_->core_member_node_.push_back(m.node);
        for (int32_t s : xs) out_->core_member_map_.push_back(m.map[s]);
        out_->core_member_map_begin_.push_back(static_cast<int64_t>(out_->core_member_map_.size()));
        if (!p_.has_usage_limit || !relevant(m.node)) continue;
        const int32_t lo = time_index[p_.checkpoint_lo[m.node]];
        const int32_t hi = time_index[p_.checkpoint_hi[m.node]];
        if (lo >= hi) continue;
        std::vector<int64_t> use(xs.size());
        bool any = false;
        for (size_t i = 0; i < xs.size(); ++i) {
          use[i] = p_.node_usage(m.node, m.map[xs[i]]) - umin_[m.node];
          any = any || use[i] != 0;
        }
        if (!any) continue;
        bool merged = false;
        for (Pending& q : pending) {
          if (q.lo == lo && q.hi == hi) {
            for (size_t i = 0; i < xs.size(); ++i) q.use[i] += use[i];
            merged = true;
            break;
          }
        }
        if (!merged) pending.push_back({lo, hi, std::move(use)});
      }
      out_->core_member_begin_.push_back(static_cast<int32_t>(out_->core_member_node_.size()));
      // Split the (possibly overlapping) member terms into disjoint segments
      // with one usage vector each; equal neighbours are joined.
      std::vector<int32_t> cuts;
      for (const Pending& q : pending) {
        cuts.push_back(q.lo);
        cuts.push_back(q.hi);
      }
      std::sort(cuts.begin(), cuts.end());
      cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
      std::vector<int64_t> use(xs.size());
      for (size_t c = 0; c + 1 < cuts.size(); ++c) {
        std::fill(use.begin(), use.end(), 0);
        bool any = false;
        for (const Pending& q : pending) {
          if (q.lo <= cuts[c] && cuts[c + 1] <= q.hi) {
            for (size_t i = 0; i < xs.size(); ++i) use[i] += q.use[i];
            any = true;
          }
        }
        if (!any) continue;
        const int32_t last = static_cast<int32_t>(core.term_lo.size()) - 1;
        if (last >= core.term_begin.back() && core.term_hi[last] == cuts[c] &&
            std::equal(use.begin(), use.end(), core.term_usage.end() - xs.size())) {
          core.term_hi[last] = cuts[c + 1];
          continue;
        }
        core.term_lo.push_back(cuts[c]);
        core.term_hi.push_back(cuts[c + 1]);
        core.term_usage.insert(core.term_usage.end(), use.begin(), use.end());
        core.term_usage_begin.push_back(static_cast<int64_t>(core.term_usage.size()));
      }
      core.term_begin.push_back(static_cast<int32_t>(core.term_lo.size()));
    }
    core.term_usage_begin.pop_back();

    out_->num_original_ = p_.num_nodes();
    out_->num_work_ = static_cast<int32_t>(nodes_.size());
    compress_core_times(&core);
    stats.memory_nodes = 0;
    for (int32_t x = 0; x < n; ++x)
      stats.memory_nodes += core.term_begin[x + 1] > core.term_begin[x];
    stats.core_nodes = n;
    stats.core_edges = core.num_edges();
    stats.core_times = core.num_times();
    stats.core_strategies = static_cast<int64_t>(core.unary.size());
  }

  const Problem& p_;
  const PresolveOptions& options_;
  Presolved* out_;
  std::vector<WorkNode> nodes_;
  std::vector<WorkEdge> edges_;
  std::vector<std::vector<int64_t>> owned_;  // tables created by eliminations
  std::vector<int64_t> umin_;                // per original node, over allowed strategies
  std::vector<int64_t> umax_;
  std::vector<int32_t> binding_prefix_;  // binding checkpoints before t
  std::deque<int32_t> unary_queue_;
  std::deque<int32_t> arc_queue_;  // 2 * edge + side
  std::deque<int32_t> functional_queue_;
  bool infeasible_ = false;
  int64_t constant_ = 0;
};

Result<Presolved> presolve(const Problem& problem, const PresolveOptions& options) {
  Presolved out;
  PresolveRun run(problem, options, &out);
  run.run();
  return out;
}

std::vector<int32_t> Presolved::expand(const std::vector<int32_t>& core_plan) const {
  std::vector<int32_t> work(num_work_, 0);
  for (int32_t x = 0; x < static_cast<int32_t>(core_work_.size()); ++x) {
    work[core_work_[x]] = core_stable_[core_.strategy_begin[x] + core_plan[x]];
  }
  for (auto it = records_.rbegin(); it != records_.rend(); ++it) {
    const Record& r = *it;
    const int32_t* d = record_data_.data() + r.data;
    switch (r.kind) {
      case RecordKind::kMerge:
      case RecordKind::kLeaf:
        work[r.target] = d[work[r.from_a]];
        break;
      case RecordKind::kConstant:
        work[r.target] = d[0];
        break;
      case RecordKind::kSeries: {
        const int64_t row = d[work[r.from_a]];
        const int64_t col = d[r.rows + work[r.from_b]];
        work[r.target] = d[r.rows + r.cols + row * r.width + col];
        break;
      }
    }
  }
  return std::vector<int32_t>(work.begin(), work.begin() + num_original_);
}

std::vector<int32_t> Presolved::restrict_plan(const std::vector<int32_t>& plan) const {
  const int32_t n = core_.num_nodes();
  std::vector<int32_t> out(n, 0);
  if (static_cast<int32_t>(plan.size()) != num_original_) return out;
  std::vector<int32_t> votes;
  for (int32_t x = 0; x < n; ++x) {
    const int32_t k = core_.num_strategies(x);
    votes.assign(k, 0);
    for (int32_t i = core_member_begin_[x]; i < core_member_begin_[x + 1]; ++i) {
      const int32_t* map = core_member_map_.data() + core_member_map_begin_[i];
      const int32_t want = plan[core_member_node_[i]];
      for (int32_t s = 0; s < k; ++s) votes[s] += map[s] == want ? 1 : 0;
    }
    out[x] = static_cast<int32_t>(std::max_element(votes.begin(), votes.end()) - votes.begin());
  }
  return out;
}

CoreEvaluation evaluate_core(const CoreModel& core, const std::vector<int32_t>& plan) {
  CoreEvaluation result;
  auto add = [&](int64_t c) {
    if (c >= kForbidden) {
      ++result.forbidden;
    } else {
      result.cost += c;
    }
  };
  for (int32_t x = 0; x < core.num_nodes(); ++x) add(core.node_cost(x, plan[x]));
  for (int32_t e = 0; e < core.num_edges(); ++e) {
    add(core.edge_cost(e, plan[core.edge_u[e]], plan[core.edge_v[e]]));
  }
  std::vector<int64_t> diff(core.num_times() + 1, 0);
  for (int32_t x = 0; x < core.num_nodes(); ++x) {
    for (int32_t i = core.term_begin[x]; i < core.term_begin[x + 1]; ++i) {
      diff[core.term_lo[i]] += core.term_use(i, plan[x]);
      diff[core.term_hi[i]] -= core.term_use(i, plan[x]);
    }
  }
  int64_t live = 0;
  result.worst_excess = core.num_times() > 0 ? -kForbidden : 0;
  for (int32_t t = 0; t < core.num_times(); ++t) {
    live += diff[t];
    result.worst_excess = std::max(result.worst_excess, live - core.capacity[t]);
  }
  return result;
}

int64_t CoreModel::memory_bytes() const {
  auto bytes = [](const auto& vec) { return static_cast<int64_t>(vec.size() * sizeof(vec[0])); };
  return bytes(strategy_begin) + bytes(unary) + bytes(edge_u) + bytes(edge_v) + bytes(edge_matrix) +
         bytes(matrix_begin) + bytes(matrix_cost) + bytes(adj_begin) + bytes(adj_edge) +
         bytes(term_begin) + bytes(term_lo) + bytes(term_hi) + bytes(term_usage_begin) +
         bytes(term_usage) + bytes(capacity);
}

Counters PresolveStats::counters() const {
  Counters c;
  c.add("original_nodes", original_nodes);
  c.add("original_edges", original_edges);
  c.add("original_times", original_times);
  c.add("merged", merged);
  c.add("eliminated", eliminated);
  c.add("removed_forbidden", removed_forbidden);
  c.add("removed_dominated", removed_dominated);
  c.add("removed_memory", removed_memory);
  c.add("core_nodes", core_nodes);
  c.add("core_edges", core_edges);
  c.add("core_times", core_times);
  c.add("memory_nodes", memory_nodes);
  c.add("core_strategies", core_strategies);
  return c;
}

}  // namespace shardlab
