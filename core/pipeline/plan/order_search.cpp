// Late acceptance hill climbing on device orders (see plan/order_search.h).
// A candidate is the current orders with one device's order changed; its
// cost is the makespan, then the sum of the devices' last ends (so moves
// that free a device early count while the makespan is on a plateau). A
// candidate is accepted when it costs no more than the current orders or
// than the current cost L moves ago.
#include "core/pipeline/plan/order_search.h"

#include <algorithm>

#include "core/pipeline/plan/slot_timing.h"

namespace shardlab::pipeline {
namespace {

constexpr int32_t kWindow = 6;        // positions a shift, join or swap looks across
constexpr size_t kHistory = 50;       // late acceptance list length
constexpr int64_t kSpread = 1 << 24;  // cost = makespan * kSpread + sum of device ends
// Every kAdapt moves, until a run has a schedule within the caps, the
// penalty on memory above them doubles while the current orders are above.
constexpr int64_t kAdapt = 1000;
constexpr int64_t kMaxPenalty = int64_t{1} << 20;

// A slot of a device's order: op alone (b < 0), or F op paired with B b
// and b's W, lasting len.
struct Entry {
  int32_t op = -1;
  int32_t b = -1;
  int64_t len = 0;
};

}  // namespace

struct OrderSearch::Impl {
  const PlanGraph& g;
  bool ok = false;
  bool started = false;
  std::vector<int32_t> dev_of;
  std::vector<int64_t> base;  // static memory per device
  std::vector<std::vector<Entry>> seq, best_seq;
  std::vector<int64_t> hist;
  int64_t cur_cost = kNoCap, best_ms = kNoCap;
  // Memory above the caps, per device and in all, and what a unit of it
  // costs in ticks.
  std::vector<int64_t> over;
  int64_t over_total = 0;
  int64_t base_penalty = 1;  // half a grid step per unit of memory
  int64_t penalty = 1;
  size_t history = kHistory;
  int64_t moves = 0, last_gain = 0;
  // Timing scratch, per slot of the flattened orders.
  std::vector<Entry> flat;
  SlotOrder timing;
  std::vector<Entry> saved, saved_mirror;
  // Mirror symmetry (PlanGraph::mirror): valid on the graph, and kept by
  // the current run.
  bool mirror_ok = false;
  bool mirrored = false;

  // Symmetry: ops of a class keep rank order on their device (the rule of
  // plan/search.cpp, which the MIP's rows also assume), on every device
  // whose order followed it at the start of the run.
  bool symmetry = true;
  std::vector<std::vector<int32_t>> members_of;
  std::vector<char> ranked;  // per device: the rule is enforced there
  std::vector<int32_t> next_rank;
  std::vector<char> seen;

  Impl(const PlanGraph& graph, bool sym) : g(graph), symmetry(sym) {
    const int32_t n = g.num_ops();
    dev_of.assign(n, -1);
    base.assign(g.devices, 0);
    for (int32_t gr = 0; gr < g.num_groups(); ++gr) {
      if (!g.fixed(gr)) return;
      base[g.groups[gr].devices[0]] += g.groups[gr].mem_static;
    }
    std::vector<int32_t> count(g.devices, 0);
    for (int32_t i = 0; i < n; ++i) {
      dev_of[i] = g.groups[g.ops[i].group].devices[0];
      ++count[dev_of[i]];
    }
    ok = std::any_of(count.begin(), count.end(), [](int32_t c) { return c > 1; });
    timing.slot_of.assign(n, -1);
    base_penalty = penalty = std::max<int64_t>(1, g.grid / 2);
    members_of = g.class_members();
    mirror_ok = g.mirror_valid();
    next_rank.assign(g.classes, 0);
    seen.assign(n, 0);
  }

  // Whether device d's order starts every op of a class when all of lower
  // rank have started, a W inside a pair aside (it may run ahead).
  bool in_rank_order(int32_t d) {
    bool ok = true;
    int32_t m[3];
    for (const Entry& s : seq[d]) {
      const int32_t c = members(s, m);
      for (int32_t k = 0; k < c; ++k) {
        const PlanOp& op = g.ops[m[k]];
        seen[m[k]] = 1;
        if (op.sym_class < 0 || (k == 2)) continue;
        int32_t& next = next_rank[op.sym_class];
        if (op.sym_rank != next) ok = false;
        const auto& list = members_of[op.sym_class];
        while (next < static_cast<int32_t>(list.size()) && seen[list[next]]) ++next;
      }
    }
    for (const Entry& s : seq[d]) {
      const int32_t c = members(s, m);
      for (int32_t k = 0; k < c; ++k) {
        seen[m[k]] = 0;
        if (g.ops[m[k]].sym_class >= 0) next_rank[g.ops[m[k]].sym_class] = 0;
      }
    }
    return ok;
  }

  int32_t members(const Entry& s, int32_t out[3]) const {
    out[0] = s.op;
    if (s.b < 0) return 1;
    out[1] = s.b;
    out[2] = g.ops[s.b].weight;
    return 3;
  }

  // How far device d's order goes above its cap: the sum over its slots.
  int64_t excess(int32_t d) const {
    if (g.mem_cap[d] >= kNoCap) return 0;
    int64_t level = base[d], over = 0;
    int32_t m[3];
    for (const Entry& s : seq[d]) {
      const int32_t c = members(s, m);
      int64_t peak = 0, net = 0;
      for (int32_t k = 0; k < c; ++k) peak += g.ops[m[k]].mem_peak, net += g.ops[m[k]].mem_net;
      over += std::max<int64_t>(0, level + peak - g.mem_cap[d]);
      level += net;
    }
    return over;
  }

  // Semi-active timing of seq (timing.ready holds each slot's start); the
  // cost, or kNoCap on a cycle.
  int64_t evaluate(int64_t* makespan) {
    int32_t slots = 0;
    for (int32_t d = 0; d < g.devices; ++d) slots += static_cast<int32_t>(seq[d].size());
    flat.resize(slots);
    timing.device.resize(slots);
    timing.next.resize(slots);
    timing.length.resize(slots);
    int32_t m[3];
    int32_t at = 0;
    for (int32_t d = 0; d < g.devices; ++d) {
      for (size_t k = 0; k < seq[d].size(); ++k, ++at) {
        flat[at] = seq[d][k];
        timing.device[at] = d;
        timing.next[at] = k + 1 < seq[d].size() ? at + 1 : -1;
        timing.length[at] = seq[d][k].len;
        const int32_t c = members(seq[d][k], m);
        for (int32_t j = 0; j < c; ++j) timing.slot_of[m[j]] = at;
      }
    }
    std::vector<int64_t>& end_of_device = dev_end_;
    end_of_device.assign(g.devices, 0);
    int64_t span = 0;
    const int32_t done = time_slots(
        g, &timing, [&](int32_t s, int32_t out[3]) { return members(flat[s], out); },
        [&](int32_t, int32_t d, int64_t end) {
          span = std::max(span, end);
          end_of_device[d] = std::max(end_of_device[d], end);
          return true;
        });
    if (done != slots) return kNoCap;
    *makespan = span;
    int64_t sum = 0;
    for (int64_t e : end_of_device) sum += e;
    return (span + penalty * over_total) * kSpread + std::min<int64_t>(sum, kSpread - 1);
  }
  std::vector<int64_t> dev_end_;

  // The schedule of the last evaluate().
  PlanSchedule schedule(int64_t makespan) const {
    PlanSchedule out;
    const int32_t n = g.num_ops();
    out.device = dev_of;
    out.start.assign(n, 0);
    bool pairs = false;
    int32_t m[3];
    for (size_t s = 0; s < flat.size(); ++s) {
      const int32_t c = members(flat[s], m);
      for (int32_t j = 0; j < c; ++j) out.start[m[j]] = timing.ready[s];
      pairs |= flat[s].b >= 0;
    }
    if (pairs) {
      out.partner.assign(n, -1);
      for (const Entry& s : flat) {
        if (s.b < 0) continue;
        out.partner[s.op] = s.b;
        out.partner[s.b] = s.op;
        out.partner[g.ops[s.b].weight] = s.op;
      }
    }
    out.makespan = makespan;
    return out;
  }

  // The mirror image of an order slot.
  Entry mirror_of(const Entry& s) const {
    return {g.mirror[s.op], s.b < 0 ? -1 : g.mirror[s.b], s.len};
  }

  // Writes the mirror image of device d's order as its mirror device's.
  void mirror_device(int32_t d) {
    std::vector<Entry>& to = seq[g.devices - 1 - d];
    to.clear();
    for (const Entry& s : seq[d]) to.push_back(mirror_of(s));
  }

  bool symmetric() const {
    for (int32_t d = 0; d < g.devices; ++d) {
      const std::vector<Entry>& a = seq[d];
      const std::vector<Entry>& b = seq[g.devices - 1 - d];
      if (a.size() != b.size()) return false;
      for (size_t k = 0; k < a.size(); ++k) {
        const Entry m = mirror_of(a[k]);
        if (m.op != b[k].op || m.b != b[k].b) return false;
      }
    }
    return true;
  }

  void reset(const PlanSchedule& schedule, bool want_mirror) {
    seq.assign(g.devices, {});
    const auto orders = orders_of(g, schedule);
    for (int32_t d = 0; d < g.devices; ++d) {
      for (int32_t i : orders[d]) {
        if (schedule.paired(i)) {
          if (g.ops[i].kind != PlanKind::kForward) continue;
          const int32_t b = schedule.partner[i];
          seq[d].push_back({i, b, g.pair_length(i, b)});
        } else {
          seq[d].push_back({i, -1, g.ops[i].duration});
        }
      }
    }
    mirrored = want_mirror && mirror_ok && symmetric();
    over.assign(g.devices, 0);
    over_total = 0;
    penalty = base_penalty;
    ranked.assign(g.devices, 0);
    for (int32_t d = 0; symmetry && d < g.devices; ++d) ranked[d] = in_rank_order(d);
    for (int32_t d = 0; d < g.devices; ++d) over_total += over[d] = excess(d);
    int64_t span = kNoCap;
    cur_cost = evaluate(&span);
    best_ms = cur_cost >= kNoCap || over_total > 0 ? kNoCap : span;
    best_seq = seq;
    hist.assign(history, cur_cost);
    started = cur_cost < kNoCap;
    last_gain = moves;
  }

  bool lone_w(int32_t d, int32_t w, size_t* at) const {
    for (size_t k = 0; k < seq[d].size(); ++k) {
      if (seq[d][k].op == w && seq[d][k].b < 0) {
        *at = k;
        return true;
      }
    }
    return false;
  }

  // One random change of device d's order; false when none applies.
  bool mutate(int32_t d, Rng* rng) {
    std::vector<Entry>& o = seq[d];
    const int32_t size = static_cast<int32_t>(o.size());
    const uint32_t type = rng->below(8);
    const int32_t i = static_cast<int32_t>(rng->below(size));
    if (type < 4 || type == 7) {
      // Shift slot i by up to kWindow positions (4 kWindow for type 7).
      const int32_t reach = type == 7 ? 4 * kWindow : kWindow;
      const int32_t off = 1 + static_cast<int32_t>(rng->below(reach));
      const bool left = rng->below(2) == 0;
      const int32_t j = std::clamp(left ? i - off : i + off, 0, size - 1);
      if (j == i) return false;
      const Entry s = o[i];
      o.erase(o.begin() + i);
      o.insert(o.begin() + j, s);
      return true;
    }
    if (type == 6) {
      // Swap the backwards of two pairs.
      if (o[i].b < 0) return false;
      const int32_t off = 1 + static_cast<int32_t>(rng->below(kWindow));
      const int32_t j = std::min(size - 1, i + off);
      if (j == i || o[j].b < 0) return false;
      const int64_t a = g.pair_length(o[i].op, o[j].b);
      const int64_t b = g.pair_length(o[j].op, o[i].b);
      if (a < 0 || b < 0) return false;
      std::swap(o[i].b, o[j].b);
      o[i].len = a;
      o[j].len = b;
      return true;
    }
    if (o[i].b >= 0) {
      // Split a pair: F, B, W; or B, W, F; or B, F, W.
      const Entry p = o[i];
      const int32_t w = g.ops[p.b].weight;
      const Entry f{p.op, -1, g.ops[p.op].duration};
      const Entry b{p.b, -1, g.ops[p.b].duration};
      const Entry ws{w, -1, g.ops[w].duration};
      const uint32_t variant = rng->below(3);
      Entry three[3] = {f, b, ws};
      if (variant == 1) three[0] = b, three[1] = ws, three[2] = f;
      if (variant == 2) three[0] = b, three[1] = f, three[2] = ws;
      o[i] = three[0];
      o.insert(o.begin() + i + 1, three + 1, three + 3);
      return true;
    }
    // Join lone op i with a lone partner within kWindow positions.
    const PlanOp& op = g.ops[o[i].op];
    if (!g.pairable[o[i].op]) return false;
    const bool is_f = op.kind == PlanKind::kForward;
    if (!is_f && op.kind != PlanKind::kBackward) return false;
    int32_t picks[2 * kWindow];
    int32_t count = 0;
    for (int32_t j = std::max(0, i - kWindow); j <= std::min(size - 1, i + kWindow); ++j) {
      if (j == i || o[j].b >= 0) continue;
      const int32_t f = is_f ? o[i].op : o[j].op;
      const int32_t b = is_f ? o[j].op : o[i].op;
      if (g.pair_length(f, b) < 0) continue;
      size_t at = 0;
      if (!lone_w(d, g.ops[b].weight, &at)) continue;
      picks[count++] = j;
    }
    if (count == 0) return false;
    const int32_t j = picks[rng->below(count)];
    const int32_t f = is_f ? o[i].op : o[j].op;
    const int32_t b = is_f ? o[j].op : o[i].op;
    const int32_t w = g.ops[b].weight;
    const bool at_first = rng->below(2) == 0;
    const int32_t keep_at = at_first ? std::min(i, j) : std::max(i, j);
    const Entry pair{f, b, g.pair_length(f, b)};
    std::vector<Entry> out;
    out.reserve(o.size());
    for (int32_t k = 0; k < size; ++k) {
      if (k == keep_at) {
        out.push_back(pair);
      } else if (k != i && k != j && o[k].op != w) {
        out.push_back(o[k]);
      }
    }
    o.swap(out);
    return true;
  }

  // Until the run has a schedule within the caps, the penalty doubles while
  // the current orders are above them; then it is back at its base for
  // good. The costs are then re-measured.
  void adapt() {
    const int64_t was = penalty;
    if (best_ms < kNoCap) {
      penalty = base_penalty;
    } else if (over_total > 0) {
      penalty = std::min(kMaxPenalty, 2 * penalty);
    }
    if (penalty == was) return;
    int64_t span = 0;
    cur_cost = evaluate(&span);
    hist.assign(history, cur_cost);
  }

  bool run(int64_t budget, int64_t upper, Rng* rng, PlanSchedule* found) {
    if (!started) return false;
    bool hit = false;
    for (int64_t n = 0; n < budget; ++n) {
      ++moves;
      if (moves % kAdapt == 0) adapt();
      const int32_t d = static_cast<int32_t>(rng->below(g.devices));
      if (seq[d].size() < 2) continue;
      // With the mirror kept, device md follows d's move (md == d: none).
      const int32_t md = mirrored ? g.devices - 1 - d : d;
      saved = seq[d];
      if (!mutate(d, rng) || (ranked[d] && !in_rank_order(d))) {
        seq[d].swap(saved);
        continue;
      }
      if (md != d) {
        saved_mirror.swap(seq[md]);
        mirror_device(d);
        if (ranked[md] && !in_rank_order(md)) {
          seq[d].swap(saved);
          seq[md].swap(saved_mirror);
          continue;
        }
      }
      const int64_t was_over = over[d], was_over_mirror = over[md];
      over[d] = excess(d);
      over_total += over[d] - was_over;
      if (md != d) {
        over[md] = excess(md);
        over_total += over[md] - was_over_mirror;
      }
      int64_t span = 0;
      const int64_t cost = evaluate(&span);
      const size_t v = static_cast<size_t>(moves % history);
      if (cost < kNoCap && (cost <= cur_cost || cost <= hist[v])) {
        cur_cost = cost;
        if (over_total == 0 && span < best_ms) {
          best_ms = span;
          best_seq = seq;
          last_gain = moves;
          if (span < upper) {
            *found = schedule(span);
            upper = span;
            hit = true;
          }
        }
      } else {
        seq[d].swap(saved);
        over_total += was_over - over[d];
        over[d] = was_over;
        if (md != d) {
          seq[md].swap(saved_mirror);
          over_total += was_over_mirror - over[md];
          over[md] = was_over_mirror;
        }
      }
      hist[v] = cur_cost;
    }
    return hit;
  }
};

OrderSearch::OrderSearch(const PlanGraph& graph, bool symmetry)
    : impl_(std::make_unique<Impl>(graph, symmetry)) {}
OrderSearch::~OrderSearch() = default;
bool OrderSearch::useful() const { return impl_->ok; }
void OrderSearch::reset(const PlanSchedule& schedule, bool mirrored) {
  impl_->reset(schedule, mirrored);
}
bool OrderSearch::can_mirror() const { return impl_->mirror_ok; }
bool OrderSearch::mirrored() const { return impl_->mirrored; }
bool OrderSearch::started() const { return impl_->started; }
int64_t OrderSearch::best_makespan() const { return impl_->best_ms; }
bool OrderSearch::run(int64_t moves, int64_t upper, Rng* rng, PlanSchedule* found) {
  return impl_->run(moves, upper, rng, found);
}
int64_t OrderSearch::stalled() const { return impl_->moves - impl_->last_gain; }
int64_t OrderSearch::moves() const { return impl_->moves; }

}  // namespace shardlab::pipeline
