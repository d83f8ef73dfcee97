// The job-shop MIP as CPLEX-LP text, its MIP start and its solutions (see
// mip.h). The model follows the formulation reconstructed in the reference
// note (precedence with delays paid only across devices, big-M
// disjunctions per device, event-based memory rows as in the zero-bubble
// ILP of Qi et al. 2024). Two reductions keep it smaller without losing an
// optimum: pairs already ordered by the transitive closure of the arcs get
// no binary, and identical micro-batches run in rank order (the symmetry
// rule of plan/search.cpp), which orders many more pairs.
#include "core/pipeline/plan/mip.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace shardlab::pipeline {
namespace {

// Reachability over the arcs and (optionally) the rank chains of classes.
struct Closure {
  int32_t n = 0;
  int32_t words = 0;
  std::vector<uint64_t> bits;
  bool reaches(int32_t i, int32_t k) const {
    return (bits[static_cast<size_t>(i) * words + (k >> 6)] >> (k & 63)) & 1;
  }
};

struct Chain {
  int32_t from, to;
};

std::vector<Chain> rank_chains(const PlanGraph& g, bool symmetry) {
  std::vector<Chain> out;
  if (!symmetry) return out;
  for (const auto& m : g.class_members()) {
    for (size_t r = 1; r < m.size(); ++r) out.push_back({m[r - 1], m[r]});
  }
  return out;
}

Closure closure(const PlanGraph& g, const std::vector<Chain>& chains) {
  Closure c;
  c.n = g.num_ops();
  c.words = (c.n + 63) / 64;
  c.bits.assign(static_cast<size_t>(c.n) * c.words, 0);
  std::vector<std::vector<int32_t>> succ(c.n);
  std::vector<int32_t> indegree(c.n, 0);
  for (const PlanArc& a : g.arcs) succ[a.from].push_back(a.to), ++indegree[a.to];
  for (const Chain& ch : chains) succ[ch.from].push_back(ch.to), ++indegree[ch.to];
  std::vector<int32_t> order;
  for (int32_t i = 0; i < c.n; ++i) {
    if (indegree[i] == 0) order.push_back(i);
  }
  for (size_t at = 0; at < order.size(); ++at) {
    for (int32_t j : succ[order[at]]) {
      if (--indegree[j] == 0) order.push_back(j);
    }
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int32_t i = *it;
    uint64_t* row = &c.bits[static_cast<size_t>(i) * c.words];
    for (int32_t j : succ[i]) {
      row[j >> 6] |= uint64_t{1} << (j & 63);
      const uint64_t* other = &c.bits[static_cast<size_t>(j) * c.words];
      for (int32_t w = 0; w < c.words; ++w) row[w] |= other[w];
    }
  }
  return c;
}

std::string num(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<int64_t>(v));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.12g", v);
  return buf;
}

std::string s_name(int32_t i) { return "s_" + std::to_string(i); }
std::string y_name(int32_t i, int32_t k) {
  return "y_" + std::to_string(i) + "_" + std::to_string(k);
}
std::string x_name(int32_t g, int32_t d) {
  return "x_" + std::to_string(g) + "_" + std::to_string(d);
}
std::string z_name(int32_t a) { return "z_" + std::to_string(a); }
std::string w_name(int32_t k, int32_t i, int32_t d) {
  return "w_" + std::to_string(k) + "_" + std::to_string(i) + "_" + std::to_string(d);
}

bool allows(const PlanGraph& g, int32_t group, int32_t d) {
  const auto& a = g.groups[group].devices;
  return std::binary_search(a.begin(), a.end(), d);
}

// The model's structure, shared by the writer and the MIP start.
struct Layout {
  const PlanGraph& g;
  std::vector<Chain> chains;
  Closure reach;
  // Pairs (i < k) that may share a device and are not ordered.
  std::vector<std::pair<int32_t, int32_t>> pairs;
  std::vector<std::vector<int32_t>> pair_of;  // per op: pair indices

  Layout(const PlanGraph& graph, bool symmetry)
      : g(graph), chains(rank_chains(graph, symmetry)), reach(closure(graph, chains)) {
    const int32_t n = g.num_ops();
    pair_of.assign(n, {});
    for (int32_t i = 0; i < n; ++i) {
      for (int32_t k = i + 1; k < n; ++k) {
        if (!may_share(i, k) || reach.reaches(i, k) || reach.reaches(k, i)) continue;
        pair_of[i].push_back(static_cast<int32_t>(pairs.size()));
        pair_of[k].push_back(static_cast<int32_t>(pairs.size()));
        pairs.push_back({i, k});
      }
    }
  }

  bool may_share(int32_t i, int32_t k) const {
    const int32_t gi = g.ops[i].group, gk = g.ops[k].group;
    if (gi == gk) return true;
    const auto& a = g.groups[gi].devices;
    const auto& b = g.groups[gk].devices;
    size_t p = 0, q = 0;
    while (p < a.size() && q < b.size()) {
      if (a[p] == b[q]) return true;
      if (a[p] < b[q])
        ++p;
      else
        ++q;
    }
    return false;
  }
  // Whether ops i and k always share a device.
  bool same_device(int32_t i, int32_t k) const {
    const int32_t gi = g.ops[i].group, gk = g.ops[k].group;
    return gi == gk ||
           (g.fixed(gi) && g.fixed(gk) && g.groups[gi].devices[0] == g.groups[gk].devices[0]);
  }
};

// A linear expression; repeated variables are summed (LP readers such as
// CBC's reject a row naming a column twice). Written in lines of a few
// terms, since LP readers limit line length.
class Expr {
 public:
  void add(double coef, const std::string& var) {
    if (coef == 0) return;
    auto [it, fresh] = index_.try_emplace(var, terms_.size());
    if (fresh) {
      terms_.push_back({var, coef});
    } else {
      terms_[it->second].second += coef;
    }
  }
  bool empty() const {
    for (const auto& t : terms_) {
      if (t.second != 0) return false;
    }
    return true;
  }
  std::string str() const {
    std::ostringstream out;
    int32_t written = 0;
    for (const auto& [var, coef] : terms_) {
      if (coef == 0) continue;
      if (written > 0 && written % 8 == 0) out << "\n  ";
      out << (coef < 0 ? " - " : (written > 0 ? " + " : " "));
      const double a = std::fabs(coef);
      if (a != 1) out << num(a) << ' ';
      out << var;
      ++written;
    }
    return out.str();
  }

 private:
  std::vector<std::pair<std::string, double>> terms_;
  std::map<std::string, size_t> index_;
};

}  // namespace

MipModel emit_lp(const PlanGraph& g, const MipUnits& units, const PlanSchedule& incumbent,
                 bool symmetry) {
  const int32_t n = g.num_ops();
  Layout L(g, symmetry);
  MipModel model;
  // Horizon: the incumbent, or everything in a row with every delay paid.
  // An incumbent with overlapped pairs bounds nothing here (the MIP has no
  // pairs, so its optimum may lie above it).
  int64_t horizon = g.total_work;
  for (const PlanArc& a : g.arcs) horizon += a.delay;
  const bool usable = !incumbent.empty() && incumbent.partner.empty();
  if (usable) horizon = std::min(horizon, incumbent.makespan);
  model.horizon = horizon;
  const double M = static_cast<double>(horizon) * units.time;
  auto p = [&](int32_t i) { return static_cast<double>(g.ops[i].duration) * units.time; };

  std::ostringstream rows;
  int64_t row = 0;
  auto emit = [&](const Expr& e, const char* sense, double rhs) {
    rows << " c" << row++ << ":" << e.str() << ' ' << sense << ' ' << num(rhs) << '\n';
  };
  std::vector<std::string> binaries;

  // Precedence with delays.
  for (int32_t a = 0; a < static_cast<int32_t>(g.arcs.size()); ++a) {
    const PlanArc& arc = g.arcs[a];
    const int32_t gi = g.ops[arc.from].group, gj = g.ops[arc.to].group;
    Expr e;
    e.add(1, s_name(arc.to));
    e.add(-1, s_name(arc.from));
    const double delay = static_cast<double>(arc.delay) * units.time;
    if (L.same_device(arc.from, arc.to) || delay == 0) {
      emit(e, ">=", p(arc.from));
    } else if (g.fixed(gi) && g.fixed(gj)) {
      emit(e, ">=", p(arc.from) + delay);
    } else {
      e.add(-delay, z_name(a));
      emit(e, ">=", p(arc.from));
      binaries.push_back(z_name(a));
      // z_a >= x_gi_d - x_gj_d on every device gi may use.
      for (int32_t d : g.groups[gi].devices) {
        Expr z;
        z.add(1, z_name(a));
        double rhs = 0;
        if (g.fixed(gi))
          rhs -= 1;
        else
          z.add(-1, x_name(gi, d));
        if (allows(g, gj, d)) {
          if (g.fixed(gj))
            rhs += 1;
          else
            z.add(1, x_name(gj, d));
        }
        emit(z, ">=", -rhs);
      }
    }
  }
  // Rank order of identical micro-batches (same device, so no delay).
  for (const Chain& ch : L.chains) {
    Expr e;
    e.add(1, s_name(ch.to));
    e.add(-1, s_name(ch.from));
    emit(e, ">=", p(ch.from));
  }
  // One device per free unit.
  if (g.any_free) {
    for (int32_t gr = 0; gr < g.num_groups(); ++gr) {
      if (g.fixed(gr)) continue;
      Expr e;
      for (int32_t d : g.groups[gr].devices) {
        e.add(1, x_name(gr, d));
        binaries.push_back(x_name(gr, d));
      }
      emit(e, "=", 1);
    }
  }
  // Disjunctions.
  for (const auto& [i, k] : L.pairs) {
    binaries.push_back(y_name(i, k));
    if (L.same_device(i, k)) {
      Expr a, b;
      a.add(1, s_name(k));
      a.add(-1, s_name(i));
      a.add(-M, y_name(i, k));
      emit(a, ">=", p(i) - M);
      b.add(1, s_name(i));
      b.add(-1, s_name(k));
      b.add(M, y_name(i, k));
      emit(b, ">=", p(k));
      continue;
    }
    const int32_t gi = g.ops[i].group, gk = g.ops[k].group;
    for (int32_t d : g.groups[gi].devices) {
      if (!allows(g, gk, d)) continue;
      // Relaxed by M for each of the two placements that does not hold.
      Expr a, b;
      double slack = 0;
      a.add(1, s_name(k));
      a.add(-1, s_name(i));
      a.add(-M, y_name(i, k));
      b.add(1, s_name(i));
      b.add(-1, s_name(k));
      b.add(M, y_name(i, k));
      for (int32_t grp : {gi, gk}) {
        if (g.fixed(grp)) continue;
        a.add(-M, x_name(grp, d));
        b.add(-M, x_name(grp, d));
        slack += M;
      }
      emit(a, ">=", p(i) - M - slack);
      emit(b, ">=", p(k) - slack);
    }
  }
  // Memory at the start of every op that raises it.
  // before(k, i) as (constant, variable, sign): y_min_max or 1 - it.
  auto before_term = [&](int32_t k, int32_t i, Expr* e, double coef, double* constant) {
    if (L.reach.reaches(k, i)) {
      *constant += coef;
    } else if (L.reach.reaches(i, k)) {
      return;
    } else if (k < i) {
      e->add(coef, y_name(k, i));
    } else {
      *constant += coef;
      e->add(-coef, y_name(i, k));
    }
  };
  std::vector<std::string> w_vars;
  for (int32_t d = 0; d < g.devices; ++d) {
    if (g.mem_cap[d] >= kNoCap) continue;
    const double cap = static_cast<double>(g.mem_cap[d]) * units.memory;
    // Parameters of the units placed here.
    double fixed_static = 0;
    Expr params;
    for (int32_t gr = 0; gr < g.num_groups(); ++gr) {
      const double m = static_cast<double>(g.groups[gr].mem_static) * units.memory;
      if (!allows(g, gr, d) || m == 0) continue;
      if (g.fixed(gr))
        fixed_static += m;
      else
        params.add(m, x_name(gr, d));
    }
    if (!params.empty()) emit(params, "<=", cap - fixed_static);
    double big = fixed_static;
    for (int32_t gr = 0; gr < g.num_groups(); ++gr) {
      if (allows(g, gr, d)) big += static_cast<double>(g.groups[gr].mem_static) * units.memory;
    }
    for (int32_t i = 0; i < n; ++i) {
      if (allows(g, g.ops[i].group, d) && g.ops[i].mem_net > 0) {
        big += static_cast<double>(g.ops[i].mem_net) * units.memory;
      }
    }
    for (int32_t i = 0; i < n; ++i) {
      const PlanOp& op = g.ops[i];
      if (op.mem_peak <= 0 || !allows(g, op.group, d)) continue;
      const bool i_fixed = g.fixed(op.group);
      Expr e;
      double constant = static_cast<double>(op.mem_peak) * units.memory;
      for (int32_t k = 0; k < n; ++k) {
        if (k == i || g.ops[k].mem_net == 0 || !allows(g, g.ops[k].group, d)) continue;
        if (!L.may_share(i, k)) continue;
        const double net = static_cast<double>(g.ops[k].mem_net) * units.memory;
        if (L.same_device(i, k) || (g.fixed(g.ops[k].group) && i_fixed)) {
          before_term(k, i, &e, net, &constant);
          continue;
        }
        if (L.reach.reaches(i, k)) continue;
        // w = [k on d] * [k before i], linearised exactly.
        const std::string w = w_name(k, i, d);
        w_vars.push_back(w);
        e.add(net, w);
        const std::string xk = g.fixed(g.ops[k].group) ? "" : x_name(g.ops[k].group, d);
        Expr w1, w2, w3;
        double c1 = 0;
        // w >= x + before - 1
        w1.add(1, w);
        if (xk.empty())
          c1 -= 1;
        else
          w1.add(-1, xk);
        double bc = 0;
        before_term(k, i, &w1, -1, &bc);
        emit(w1, ">=", -1 - c1 - bc);
        // w <= x
        if (!xk.empty()) {
          w2.add(1, w);
          w2.add(-1, xk);
          emit(w2, "<=", 0);
        }
        // w <= before
        w3.add(1, w);
        double bc3 = 0;
        before_term(k, i, &w3, -1, &bc3);
        emit(w3, "<=", -bc3);
      }
      // Parameters of free units placed here count against the same cap.
      for (int32_t gr = 0; gr < g.num_groups(); ++gr) {
        const double m = static_cast<double>(g.groups[gr].mem_static) * units.memory;
        if (allows(g, gr, d) && !g.fixed(gr) && m != 0) e.add(m, x_name(gr, d));
      }
      // level + peak <= cap, relaxed when i may sit elsewhere.
      double rhs = cap - fixed_static - constant;
      if (!i_fixed) {
        e.add(big, x_name(op.group, d));
        rhs += big;
      }
      if (e.empty()) {
        if (rhs < 0) {
          Expr never;
          never.add(1, "Cmax");
          emit(never, "<=", -1);  // the op's peak alone exceeds the cap
        }
        continue;
      }
      emit(e, "<=", rhs);
    }
  }
  // The makespan.
  for (int32_t i = 0; i < n; ++i) {
    if (g.succ_begin[i] != g.succ_begin[i + 1]) continue;
    Expr e;
    e.add(1, "Cmax");
    e.add(-1, s_name(i));
    emit(e, ">=", p(i));
  }

  std::ostringstream lp;
  lp << "\\ ShardLab pipeline MIP: " << n << " ops, " << g.arcs.size() << " arcs, "
     << L.pairs.size() << " sequencing pairs; times in the problem's unit\n";
  if (usable) {
    lp << "\\ incumbent makespan " << num(static_cast<double>(incumbent.makespan) * units.time)
       << " (the horizon; pipelineMipStart gives its column values)\n";
  }
  lp << "Minimize\n obj: Cmax\nSubject To\n" << rows.str() << "Bounds\n";
  for (int32_t i = 0; i < n; ++i) {
    lp << " 0 <= " << s_name(i) << " <= " << num(M - p(i)) << '\n';
  }
  lp << " 0 <= Cmax <= " << num(M) << '\n';
  for (const std::string& w : w_vars) lp << " 0 <= " << w << " <= 1\n";
  if (!binaries.empty()) {
    lp << "Binaries\n";
    for (size_t k = 0; k < binaries.size(); ++k) {
      lp << ' ' << binaries[k] << (k % 8 == 7 ? "\n" : "");
    }
    lp << '\n';
  }
  lp << "End\n";
  model.lp = lp.str();
  model.rows = row;
  model.binaries = static_cast<int64_t>(binaries.size());
  model.columns = n + 1 + model.binaries + static_cast<int64_t>(w_vars.size());
  return model;
}

std::map<std::string, double> mip_start(const PlanGraph& g, const MipUnits& units,
                                        const PlanSchedule& s, bool symmetry) {
  Layout L(g, symmetry);
  std::map<std::string, double> col;
  const int32_t n = g.num_ops();
  col["Cmax"] = static_cast<double>(s.makespan) * units.time;
  for (int32_t i = 0; i < n; ++i) col[s_name(i)] = static_cast<double>(s.start[i]) * units.time;
  // Order on a shared device as the schedule runs it (zero-length ops at
  // equal starts included); across devices by start.
  std::vector<int32_t> at(n, 0);
  for (const auto& order : orders_of(g, s)) {
    for (size_t k = 0; k < order.size(); ++k) at[order[k]] = static_cast<int32_t>(k);
  }
  auto before = [&](int32_t k, int32_t i) {
    if (L.reach.reaches(k, i)) return 1.0;
    if (L.reach.reaches(i, k)) return 0.0;
    if (s.device[k] == s.device[i]) return at[k] < at[i] ? 1.0 : 0.0;
    if (s.start[k] != s.start[i]) return s.start[k] < s.start[i] ? 1.0 : 0.0;
    return k < i ? 1.0 : 0.0;
  };
  for (const auto& [i, k] : L.pairs) col[y_name(i, k)] = before(i, k);
  std::vector<int32_t> group_device(g.num_groups(), -1);
  for (int32_t i = 0; i < n; ++i) group_device[g.ops[i].group] = s.device[i];
  for (int32_t gr = 0; gr < g.num_groups(); ++gr) {
    if (g.fixed(gr)) continue;
    for (int32_t d : g.groups[gr].devices) col[x_name(gr, d)] = group_device[gr] == d ? 1 : 0;
  }
  for (int32_t a = 0; a < static_cast<int32_t>(g.arcs.size()); ++a) {
    const PlanArc& arc = g.arcs[a];
    if (L.same_device(arc.from, arc.to) || arc.delay == 0) continue;
    if (g.fixed(g.ops[arc.from].group) && g.fixed(g.ops[arc.to].group)) continue;
    col[z_name(a)] = s.device[arc.from] != s.device[arc.to] ? 1 : 0;
  }
  for (int32_t d = 0; d < g.devices; ++d) {
    if (g.mem_cap[d] >= kNoCap) continue;
    for (int32_t i = 0; i < n; ++i) {
      if (g.ops[i].mem_peak <= 0 || !allows(g, g.ops[i].group, d)) continue;
      for (int32_t k = 0; k < n; ++k) {
        if (k == i || g.ops[k].mem_net == 0 || !allows(g, g.ops[k].group, d)) continue;
        if (!L.may_share(i, k) || L.same_device(i, k)) continue;
        if (g.fixed(g.ops[k].group) && g.fixed(g.ops[i].group)) continue;
        if (L.reach.reaches(i, k)) continue;
        col[w_name(k, i, d)] = (s.device[k] == d ? 1.0 : 0.0) * before(k, i);
      }
    }
  }
  return col;
}

Result<PlanSchedule> schedule_from_mip(const PlanGraph& g, const MipUnits& units,
                                       const std::map<std::string, double>& columns) {
  const int32_t n = g.num_ops();
  auto value = [&](const std::string& name, double fallback) {
    auto it = columns.find(name);
    return it == columns.end() ? fallback : it->second;
  };
  std::vector<double> start(n);
  for (int32_t i = 0; i < n; ++i) {
    start[i] = value(s_name(i), -1);
    if (!(start[i] >= -1e-6)) {
      return Status(StatusCode::kInvalidInput, "MIP solution: no value for column " + s_name(i));
    }
  }
  std::vector<int32_t> group_device(g.num_groups(), -1);
  for (int32_t gr = 0; gr < g.num_groups(); ++gr) {
    double best = -1;
    for (int32_t d : g.groups[gr].devices) {
      const double x = g.fixed(gr) ? 1 : value(x_name(gr, d), 0);
      if (x > best) best = x, group_device[gr] = d;
    }
  }
  std::vector<int32_t> position(n);
  for (int32_t k = 0; k < n; ++k) position[g.topo[k]] = k;
  std::vector<std::vector<int32_t>> orders(g.devices);
  for (int32_t i = 0; i < n; ++i) orders[group_device[g.ops[i].group]].push_back(i);
  // Starts rounded to ticks order the device; among equal starts a
  // zero-length op goes first (as orders_of does), then topological order.
  const double tick = units.time > 0 ? units.time : 1;
  for (auto& order : orders) {
    std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      const int64_t ta = std::llround(start[a] / tick), tb = std::llround(start[b] / tick);
      if (ta != tb) return ta < tb;
      const int64_t ea = ta + g.ops[a].duration, eb = tb + g.ops[b].duration;
      if (ea != eb) return ea < eb;
      return position[a] < position[b];
    });
  }
  Result<PlanSchedule> timed = time_orders(g, orders);
  if (!timed.is_ok()) {
    return Status(StatusCode::kInvalidInput,
                  "MIP solution: its device orders do not give a valid schedule (" +
                      timed.status().message() + ")");
  }
  return timed;
}

}  // namespace shardlab::pipeline
