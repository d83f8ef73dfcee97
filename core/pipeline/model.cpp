// Expansion of a pipeline problem into operations and arcs (see model.h):
// placement of stage copies and operators, the integer time and memory
// scales, and the dependency arcs of every micro-batch.
#include "core/pipeline/model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace shardlab::pipeline {
namespace {

constexpr int64_t kMaxOps = 4'000'000;  // about 200 MB of expansion; far beyond any useful view

Status invalid(const std::string& message) { return Status(StatusCode::kInvalidArgument, message); }

bool finite_nonnegative(double x) { return std::isfinite(x) && x >= 0; }

// The smallest 10^k (k <= 6) that makes every value an integer; 10^6 (and
// rounding) when none does.
int64_t decimal_scale(const std::vector<double>& values) {
  int64_t scale = 1;
  for (int k = 0; k <= 6; ++k, scale *= 10) {
    bool integral = true;
    for (double v : values) {
      const double x = v * static_cast<double>(scale);
      if (std::fabs(x - std::nearbyint(x)) > 1e-9 * std::max(1.0, std::fabs(x))) {
        integral = false;
        break;
      }
    }
    if (integral) return scale;
  }
  return 1'000'000;
}

// "expected at most 4000000 operations in the expansion, found 100000
// micro-batches x 20 stages x 3 = 6000000", for a message at "microbatches".
Status too_many_ops(int64_t microbatches, int64_t units, const char* unit) {
  return invalid("expected at most " + std::to_string(kMaxOps) +
                 " operations in the expansion (F, B and W of every micro-batch), found " +
                 std::to_string(microbatches) + " micro-batches x " + std::to_string(units) + " " +
                 unit + " x 3 = " + std::to_string(microbatches * units * 3));
}

std::string short_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

int64_t ticks(double value, int64_t scale) {
  return static_cast<int64_t>(std::llround(value * static_cast<double>(scale)));
}

// Builds the CSR adjacency of the arcs.
void index_arcs(Expansion* e) {
  const int32_t n = e->num_ops();
  e->pred_begin.assign(n + 1, 0);
  e->succ_begin.assign(n + 1, 0);
  for (const Arc& a : e->arcs) {
    ++e->pred_begin[a.to + 1];
    ++e->succ_begin[a.from + 1];
  }
  for (int32_t i = 0; i < n; ++i) {
    e->pred_begin[i + 1] += e->pred_begin[i];
    e->succ_begin[i + 1] += e->succ_begin[i];
  }
  e->pred_arcs.assign(e->arcs.size(), 0);
  e->succ_arcs.assign(e->arcs.size(), 0);
  std::vector<int32_t> pred_at(e->pred_begin.begin(), e->pred_begin.end() - 1);
  std::vector<int32_t> succ_at(e->succ_begin.begin(), e->succ_begin.end() - 1);
  for (int32_t i = 0; i < static_cast<int32_t>(e->arcs.size()); ++i) {
    e->pred_arcs[pred_at[e->arcs[i].to]++] = i;
    e->succ_arcs[succ_at[e->arcs[i].from]++] = i;
  }
}

// The caps in ticks (rounded down: a cap that is not a whole tick never
// admits more than it says) and the arcs' index.
void finish(const Problem& problem, Expansion* e) {
  e->serial_links = problem.serial_links;
  e->mem_cap.assign(e->devices, Expansion::kNoCap);
  for (int32_t d = 0; d < static_cast<int32_t>(problem.mem_cap.size()); ++d) {
    e->mem_cap[d] = static_cast<int64_t>(
        std::floor(problem.mem_cap[d] * static_cast<double>(e->mem_scale) + 1e-9));
  }
  index_arcs(e);
}

// Stage count and split of a stages problem under a placement. For uniform
// problems `stage_count` is what the placement needs; explicit stages must
// match it.
Result<int32_t> stage_count(const Problem& problem, const Placement& placement) {
  const int32_t p = problem.devices;
  int32_t needed = -1;  // -1: any
  std::string why;      // what the placement does, for "expected N stages (WHY)"
  switch (placement.kind) {
    case PlacementKind::kLinear:
    case PlacementKind::kBidirectional:
      needed = p;
      why = std::string("the ") + placement_name(placement.kind) +
            " placement puts one stage on each of " + std::to_string(p) + " devices";
      break;
    case PlacementKind::kInterleaved:
      if (placement.chunks < 1) return invalid("interleaved placement needs at least 1 chunk");
      needed = p * placement.chunks;
      why = "the interleaved placement puts " + std::to_string(placement.chunks) +
            " chunks on each of " + std::to_string(p) + " devices";
      break;
    case PlacementKind::kVShape:
      needed = 2 * p;
      why = "the V-shape placement puts 2 stages on each of " + std::to_string(p) + " devices";
      break;
    case PlacementKind::kExplicit:
      if (placement.devices.empty() || placement.devices.size() > 2) {
        return invalid("explicit placement needs one device list, or two (one per copy)");
      }
      needed = static_cast<int32_t>(placement.devices[0].size());
      why = "the explicit placement lists " + std::to_string(needed);
      break;
    case PlacementKind::kFree:
    case PlacementKind::kAuto:
      needed = problem.uniform ? p : static_cast<int32_t>(problem.stages.size());
      break;
  }
  if (problem.uniform) return needed;
  const int32_t have = static_cast<int32_t>(problem.stages.size());
  if (needed != have) {
    return invalid("expected " + std::to_string(needed) + " stages (" + why + "), found " +
                   std::to_string(have));
  }
  return have;
}

int32_t stage_device(const Placement& placement, int32_t p, int32_t copy, int32_t stage) {
  switch (placement.kind) {
    case PlacementKind::kInterleaved:
      return stage % p;
    case PlacementKind::kVShape:
      return stage < p ? stage : 2 * p - 1 - stage;
    case PlacementKind::kBidirectional:
      return copy == 0 ? stage : p - 1 - stage;
    case PlacementKind::kExplicit:
      return placement.devices[copy][stage];
    default:
      return stage;
  }
}

// Dependency arcs of one micro-batch's pass through a chain of units.
void chain_arcs(Expansion* e, int32_t mb, int32_t copy, const std::vector<int64_t>& comm) {
  const int32_t S = e->stages;
  auto op = [&](int32_t s, OpKind k) { return e->op_of(mb, e->unit_at(copy, s), k); };
  for (int32_t s = 0; s + 1 < S; ++s) {
    e->arcs.push_back({op(s, OpKind::kF), op(s + 1, OpKind::kF), comm[s]});
  }
  e->arcs.push_back({op(S - 1, OpKind::kF), op(S - 1, OpKind::kB), 0});
  for (int32_t s = S - 1; s > 0; --s) {
    e->arcs.push_back({op(s, OpKind::kB), op(s - 1, OpKind::kB), comm[s - 1]});
  }
  for (int32_t s = 0; s < S; ++s) e->arcs.push_back({op(s, OpKind::kB), op(s, OpKind::kW), 0});
}

struct Values {  // one stage or operator in ticks
  int64_t f, b, w, fb, act, keep, param;
};

void add_ops(Expansion* e, int32_t mb, int32_t unit, const Values& v) {
  const size_t base = (static_cast<size_t>(mb) * e->units.size() + unit) * 3;
  const int64_t durations[3] = {v.f, v.b, v.w};
  for (int k = 0; k < 3; ++k) {
    Op op;
    op.kind = static_cast<OpKind>(k);
    op.unit = unit;
    op.microbatch = mb;
    op.duration = durations[k];
    op.alloc = k == 0 ? v.act : 0;
    op.release = k == 1 ? v.act - v.keep : (k == 2 ? v.keep : 0);
    e->op_index_[base + k] = e->num_ops();
    e->ops.push_back(op);
  }
}

Result<Expansion> expand_stages(const Problem& problem, const Placement& placement) {
  Result<int32_t> count = stage_count(problem, placement);
  if (!count.is_ok()) return count.status();
  const int32_t p = problem.devices;
  const int32_t S = count.value();
  Expansion e;
  e.form = Form::kStages;
  e.placement = placement.kind == PlacementKind::kAuto ? PlacementKind::kLinear : placement.kind;
  e.devices = p;
  e.microbatches = problem.microbatches;
  e.stages = S;
  e.copies = placement.kind == PlacementKind::kBidirectional ||
                     (placement.kind == PlacementKind::kExplicit && placement.devices.size() == 2)
                 ? 2
                 : 1;
  if (e.copies == 2 && placement.kind == PlacementKind::kExplicit &&
      static_cast<int32_t>(placement.devices[1].size()) != S) {
    return invalid("expected the explicit placement's two copies to list as many stages, found " +
                   std::to_string(S) + " and " + std::to_string(placement.devices[1].size()));
  }
  e.chunks = placement.kind == PlacementKind::kInterleaved ? placement.chunks
             : placement.kind == PlacementKind::kVShape    ? 2
                                                           : 1;
  if (static_cast<int64_t>(problem.microbatches) * S * e.copies * 3 > kMaxOps) {
    return too_many_ops(problem.microbatches, int64_t{S} * e.copies, "stages");
  }
  // Uniform: a device's share split into S/p stages; the scale absorbs the
  // split so that every stage value stays an exact integer.
  const int64_t split_num = problem.uniform ? p : 1;
  const int64_t split_den = problem.uniform ? S : 1;
  const int64_t g = std::gcd(split_num, split_den);
  const int64_t scale_factor = split_den / g;
  std::vector<double> times{problem.comm}, mems;
  for (const StageSpec& s : problem.stages) {
    for (double x : {s.f, s.b, s.w, s.fb < 0 ? 0.0 : s.fb, s.comm < 0 ? 0.0 : s.comm}) {
      times.push_back(x);
    }
    for (double x : {s.act, s.keep, s.param}) mems.push_back(x);
  }
  for (double c : problem.mem_cap) mems.push_back(c);
  const int64_t time_base = decimal_scale(times);
  const int64_t mem_base = decimal_scale(mems);
  e.time_scale = time_base * scale_factor;
  e.mem_scale = mem_base * scale_factor;
  // A per-share value v (in units) becomes v * base * split_num / g ticks per stage.
  auto stage_ticks = [&](double v, int64_t base) { return ticks(v, base) * (split_num / g); };
  std::vector<Values> values(S);
  std::vector<int64_t> comm(S, 0);
  for (int32_t s = 0; s < S; ++s) {
    const StageSpec& spec = problem.stages[problem.uniform ? 0 : s];
    Values& v = values[s];
    v.f = stage_ticks(spec.f, time_base);
    v.b = stage_ticks(spec.b, time_base);
    v.w = stage_ticks(spec.w, time_base);
    v.fb = spec.fb < 0 ? v.f + v.b + v.w : stage_ticks(spec.fb, time_base);
    v.act = stage_ticks(spec.act, mem_base);
    v.keep = stage_ticks(spec.keep, mem_base);
    v.param = stage_ticks(spec.param, mem_base);
    // A transfer between devices costs the same however the model is split.
    comm[s] = ticks(spec.comm < 0 ? problem.comm : spec.comm, time_base) * scale_factor;
  }
  for (int32_t c = 0; c < e.copies; ++c) {
    std::vector<int32_t> seen(p, 0);
    for (int32_t s = 0; s < S; ++s) {
      Unit u;
      u.stage = s;
      u.copy = c;
      u.param = values[s].param;
      u.fb = values[s].fb;
      u.fb_given = problem.stages[problem.uniform ? 0 : s].fb >= 0;
      if (placement.kind == PlacementKind::kFree) {
        u.devices.resize(p);
        std::iota(u.devices.begin(), u.devices.end(), 0);
      } else {
        const int32_t d = stage_device(placement, p, c, s);
        if (d < 0 || d >= p) {
          return invalid("the placement puts stage " + std::to_string(s) + " on device " +
                         std::to_string(d) + " but there are " + std::to_string(p) + " devices");
        }
        u.devices = {d};
        u.chunk = seen[d]++;
      }
      e.units.push_back(u);
    }
  }
  const int32_t m = problem.microbatches;
  const int32_t first_half = (m + 1) / 2;
  e.microbatch_copy.resize(m);
  for (int32_t k = 0; k < m; ++k) e.microbatch_copy[k] = e.copies == 2 && k >= first_half ? 1 : 0;
  e.op_index_.assign(static_cast<size_t>(m) * e.units.size() * 3, -1);
  e.ops.reserve(static_cast<size_t>(m) * S * 3);
  for (int32_t k = 0; k < m; ++k) {
    const int32_t c = e.microbatch_copy[k];
    for (int32_t s = 0; s < S; ++s) add_ops(&e, k, e.unit_at(c, s), values[s]);
  }
  e.arcs.reserve(static_cast<size_t>(m) * (3 * S));
  for (int32_t k = 0; k < m; ++k) chain_arcs(&e, k, e.microbatch_copy[k], comm);
  finish(problem, &e);
  return e;
}

Result<Expansion> expand_operators(const Problem& problem) {
  const int32_t p = problem.devices;
  const int32_t n = static_cast<int32_t>(problem.operators.size());
  const int32_t m = problem.microbatches;
  if (static_cast<int64_t>(m) * n * 3 > kMaxOps) {
    return too_many_ops(m, n, "operators");
  }
  Expansion e;
  e.form = Form::kOperators;
  e.placement = PlacementKind::kFree;
  e.devices = p;
  e.microbatches = m;
  e.stages = n;
  std::vector<double> times{problem.comm}, mems;
  for (const OperatorSpec& o : problem.operators) {
    for (double x : {o.f, o.b, o.w}) times.push_back(x);
    for (double x : {o.act, o.keep, o.param}) mems.push_back(x);
  }
  for (const EdgeSpec& edge : problem.edges) times.push_back(edge.comm < 0 ? 0.0 : edge.comm);
  for (double c : problem.mem_cap) mems.push_back(c);
  e.time_scale = decimal_scale(times);
  e.mem_scale = decimal_scale(mems);
  std::vector<Values> values(n);
  for (int32_t i = 0; i < n; ++i) {
    const OperatorSpec& o = problem.operators[i];
    e.operator_names.push_back(o.name);
    Values& v = values[i];
    v.f = ticks(o.f, e.time_scale);
    v.b = ticks(o.b, e.time_scale);
    v.w = ticks(o.w, e.time_scale);
    v.fb = v.f + v.b + v.w;
    v.act = ticks(o.act, e.mem_scale);
    v.keep = ticks(o.keep, e.mem_scale);
    v.param = ticks(o.param, e.mem_scale);
    Unit u;
    u.stage = i;
    u.param = v.param;
    u.fb = v.fb;
    u.devices = o.devices;
    if (u.devices.empty()) {
      u.devices.resize(p);
      std::iota(u.devices.begin(), u.devices.end(), 0);
    }
    e.units.push_back(u);
  }
  e.microbatch_copy.assign(m, 0);
  e.op_index_.assign(static_cast<size_t>(m) * n * 3, -1);
  e.ops.reserve(static_cast<size_t>(m) * n * 3);
  for (int32_t k = 0; k < m; ++k) {
    for (int32_t i = 0; i < n; ++i) add_ops(&e, k, i, values[i]);
  }
  std::vector<char> has_successor(n, 0);
  for (const EdgeSpec& edge : problem.edges) has_successor[edge.from] = 1;
  for (int32_t k = 0; k < m; ++k) {
    for (const EdgeSpec& edge : problem.edges) {
      const int64_t delay = ticks(edge.comm < 0 ? problem.comm : edge.comm, e.time_scale);
      e.arcs.push_back({e.op_of(k, edge.from, OpKind::kF), e.op_of(k, edge.to, OpKind::kF), delay});
      e.arcs.push_back({e.op_of(k, edge.to, OpKind::kB), e.op_of(k, edge.from, OpKind::kB), delay});
    }
    for (int32_t i = 0; i < n; ++i) {
      // A sink's backward starts from its own forward (the loss); every other
      // operator's backward waits for its consumers' backwards.
      if (!has_successor[i]) {
        e.arcs.push_back({e.op_of(k, i, OpKind::kF), e.op_of(k, i, OpKind::kB), 0});
      }
      e.arcs.push_back({e.op_of(k, i, OpKind::kB), e.op_of(k, i, OpKind::kW), 0});
    }
  }
  finish(problem, &e);
  return e;
}

bool acyclic(int32_t n, const std::vector<EdgeSpec>& edges) {
  std::vector<int32_t> indegree(n, 0);
  std::vector<std::vector<int32_t>> out(n);
  for (const EdgeSpec& edge : edges) {
    out[edge.from].push_back(edge.to);
    ++indegree[edge.to];
  }
  std::vector<int32_t> ready;
  for (int32_t i = 0; i < n; ++i) {
    if (indegree[i] == 0) ready.push_back(i);
  }
  int32_t seen = 0;
  while (!ready.empty()) {
    const int32_t i = ready.back();
    ready.pop_back();
    ++seen;
    for (int32_t j : out[i]) {
      if (--indegree[j] == 0) ready.push_back(j);
    }
  }
  return seen == n;
}

}  // namespace

const char* placement_name(PlacementKind kind) {
  switch (kind) {
    case PlacementKind::kAuto:
      return "auto";
    case PlacementKind::kLinear:
      return "linear";
    case PlacementKind::kInterleaved:
      return "interleaved";
    case PlacementKind::kVShape:
      return "v-shape";
    case PlacementKind::kBidirectional:
      return "bidirectional";
    case PlacementKind::kFree:
      return "free";
    case PlacementKind::kExplicit:
      return "explicit";
  }
  return "?";
}

bool parse_placement(std::string_view text, PlacementKind* kind) {
  for (PlacementKind k : {PlacementKind::kAuto, PlacementKind::kLinear, PlacementKind::kInterleaved,
                          PlacementKind::kVShape, PlacementKind::kBidirectional,
                          PlacementKind::kFree, PlacementKind::kExplicit}) {
    if (text == placement_name(k)) {
      *kind = k;
      return true;
    }
  }
  return false;
}

const char* kind_name(OpKind kind) {
  switch (kind) {
    case OpKind::kF:
      return "F";
    case OpKind::kB:
      return "B";
    case OpKind::kW:
      return "W";
  }
  return "?";
}

bool on_resolution(double value) {
  const double x = value / kResolution;
  return std::fabs(x - std::nearbyint(x)) <= 1e-9 * std::max(1.0, std::fabs(x));
}

Totals exact_totals(const Problem& problem) {
  // The bound sums every operation of every micro-batch and every delay,
  // which no makespan exceeds; busy and idle totals sum at most `devices`
  // makespans, and memory at most every micro-batch's activations.
  constexpr double kLimit = 4.6e18;  // 2^62
  std::vector<double> times{problem.comm}, mems;
  double work = 0, delays = 0, act = 0, param = 0;
  int64_t boundaries = 0;
  const bool uniform = problem.form == Form::kStages && problem.uniform;
  const double split = uniform ? std::max<int32_t>(problem.placement.chunks, 2) : 1;
  if (problem.form == Form::kStages) {
    for (const StageSpec& s : problem.stages) {
      for (double x : {s.f, s.b, s.w, s.fb < 0 ? 0.0 : s.fb, s.comm < 0 ? 0.0 : s.comm}) {
        times.push_back(x);
      }
      for (double x : {s.act, s.keep, s.param}) mems.push_back(x);
      work += s.f + s.b + s.w + std::max(0.0, s.fb);
      delays = std::max(delays, s.comm < 0 ? problem.comm : s.comm);
      act += s.act;
      param += s.param;
    }
    const double copies = uniform ? problem.devices : 1;
    work *= copies;
    act *= copies;
    param *= 2 * copies;  // bidirectional placements hold two copies
    boundaries = uniform ? static_cast<int64_t>(problem.devices * split)
                         : static_cast<int64_t>(problem.stages.size());
  } else {
    for (const OperatorSpec& o : problem.operators) {
      for (double x : {o.f, o.b, o.w}) times.push_back(x);
      for (double x : {o.act, o.keep, o.param}) mems.push_back(x);
      work += o.f + o.b + o.w;
      act += o.act;
      param += o.param;
    }
    delays = problem.comm;
    for (const EdgeSpec& e : problem.edges) {
      delays = std::max(delays, e.comm < 0 ? 0.0 : e.comm);
      times.push_back(e.comm < 0 ? 0.0 : e.comm);
    }
    boundaries = static_cast<int64_t>(problem.edges.size() + problem.operators.size());
  }
  for (double c : problem.mem_cap) mems.push_back(c);
  const double m = problem.microbatches;
  const double p = problem.devices;
  const double time_ticks = (m * (work + delays * static_cast<double>(boundaries) * 2)) *
                            static_cast<double>(decimal_scale(times)) * split;
  const double mem_ticks = (m * act + param) * static_cast<double>(decimal_scale(mems)) * split;
  Totals out;
  const double resolution_time = 1.0 / static_cast<double>(decimal_scale(times));
  const double resolution_mem = 1.0 / static_cast<double>(decimal_scale(mems));
  if (time_ticks * p > kLimit) {
    out.ok = false;
    out.expected = "a total time within exact 64-bit arithmetic (at most " + short_number(kLimit) +
                   " ticks of " + short_number(resolution_time) + " over all devices)";
    out.found = std::to_string(problem.microbatches) + " micro-batches of " + short_number(work) +
                " time units of work on " + std::to_string(problem.devices) + " devices (" +
                short_number(time_ticks * p) + " ticks)";
  } else if (mem_ticks * p > kLimit) {
    out.ok = false;
    out.expected = "a total memory within exact 64-bit arithmetic (at most " +
                   short_number(kLimit) + " ticks of " + short_number(resolution_mem) +
                   " over all devices)";
    out.found = std::to_string(problem.microbatches) + " micro-batches of " + short_number(act) +
                " activation units on " + std::to_string(problem.devices) + " devices (" +
                short_number(mem_ticks * p) + " ticks)";
  }
  return out;
}

Status validate(const Problem& problem) {
  if (problem.devices < 1) return invalid("a problem needs at least 1 device");
  if (problem.microbatches < 1) return invalid("a problem needs at least 1 micro-batch");
  if (!finite_nonnegative(problem.comm)) return invalid("comm must be finite and >= 0");
  if (!problem.mem_cap.empty() && static_cast<int32_t>(problem.mem_cap.size()) != problem.devices) {
    return invalid("mem_cap lists " + std::to_string(problem.mem_cap.size()) +
                   " devices, the problem has " + std::to_string(problem.devices));
  }
  for (double c : problem.mem_cap) {
    if (!finite_nonnegative(c)) return invalid("mem_cap must be finite and >= 0");
  }
  // Zero-time F or B operations would start and end at one instant, where
  // the memory events' order (releases first) no longer matches the
  // dependencies: schedules would release activations they never held.
  auto check_values = [](const std::string& what, double f, double b, double fb,
                         std::initializer_list<double> values, double act, double keep) -> Status {
    for (double v : values) {
      if (!finite_nonnegative(v)) return invalid(what + ": values must be finite and >= 0");
      if (!on_resolution(v)) {
        return invalid(what + ": " + short_number(v) + " has more than 6 decimals");
      }
    }
    if (!(f > 0)) return invalid(what + ": F must be above 0 (F and B take time; W may be 0)");
    if (!(b > 0)) return invalid(what + ": B must be above 0 (F and B take time; W may be 0)");
    if (fb >= 0 && !(fb > 0)) return invalid(what + ": FB must be above 0");
    if (keep > act) return invalid(what + ": keep exceeds act");
    return Status::ok();
  };
  if (problem.form == Form::kStages) {
    if (problem.stages.empty()) return invalid("a stages problem needs at least 1 stage");
    if (problem.uniform && problem.stages.size() != 1) {
      return invalid("a uniform stages problem holds exactly one stage description");
    }
    for (size_t s = 0; s < problem.stages.size(); ++s) {
      const StageSpec& st = problem.stages[s];
      if (st.fb >= 0 && !std::isfinite(st.fb)) return invalid("FB must be finite");
      if (st.comm >= 0 && !std::isfinite(st.comm)) return invalid("comm must be finite");
      Status status = check_values("stage " + std::to_string(s), st.f, st.b, st.fb,
                                   {st.f, st.b, st.w, st.act, st.keep, st.param,
                                    std::max(0.0, st.fb), std::max(0.0, st.comm)},
                                   st.act, st.keep);
      if (!status.is_ok()) return status;
    }
    if (problem.placement.kind == PlacementKind::kExplicit) {
      for (const std::vector<int32_t>& list : problem.placement.devices) {
        for (int32_t d : list) {
          if (d < 0 || d >= problem.devices) {
            return invalid("the placement names device " + std::to_string(d) + " but there are " +
                           std::to_string(problem.devices));
          }
        }
      }
    }
  } else {
    const int32_t n = static_cast<int32_t>(problem.operators.size());
    if (n == 0) return invalid("an operators problem needs at least 1 operator");
    for (const OperatorSpec& o : problem.operators) {
      Status status = check_values("operator " + o.name, o.f, o.b, -1,
                                   {o.f, o.b, o.w, o.act, o.keep, o.param}, o.act, o.keep);
      if (!status.is_ok()) return status;
      for (size_t i = 0; i < o.devices.size(); ++i) {
        if (o.devices[i] < 0 || o.devices[i] >= problem.devices) {
          return invalid("operator " + o.name + " names device " + std::to_string(o.devices[i]));
        }
        if (i > 0 && o.devices[i] <= o.devices[i - 1]) {
          return invalid("operator " + o.name + ": devices must be ascending and distinct");
        }
      }
    }
    for (const EdgeSpec& edge : problem.edges) {
      if (edge.from < 0 || edge.from >= n || edge.to < 0 || edge.to >= n) {
        return invalid("an edge names an operator out of range");
      }
      if (edge.from == edge.to) return invalid("an edge joins an operator to itself");
      if (edge.comm >= 0 && !std::isfinite(edge.comm)) return invalid("comm must be finite");
    }
    if (!acyclic(n, problem.edges)) return invalid("the operator graph has a cycle");
  }
  for (double v : problem.mem_cap) {
    if (!on_resolution(v))
      return invalid("mem_cap: " + short_number(v) + " has more than 6 decimals");
  }
  if (!on_resolution(problem.comm)) {
    return invalid("comm: " + short_number(problem.comm) + " has more than 6 decimals");
  }
  const Totals totals = exact_totals(problem);
  if (!totals.ok) return invalid("expected " + totals.expected + ", found " + totals.found);
  return Status::ok();
}

int64_t Expansion::pair_duration(int32_t f, int32_t b) const {
  const Unit& uf = units[ops[f].unit];
  const Unit& ub = units[ops[b].unit];
  if (uf.fb_given && ub.fb_given) return std::max(uf.fb, ub.fb);
  const Op& backward = ops[b];
  return ops[f].duration + backward.duration +
         ops[op_of(backward.microbatch, backward.unit, OpKind::kW)].duration;
}

std::string Expansion::op_label(int32_t op) const {
  const Op& o = ops[op];
  const Unit& u = units[o.unit];
  std::string text = std::string(kind_name(o.kind)) + std::to_string(o.microbatch);
  if (form == Form::kOperators) return text + " " + operator_names[u.stage];
  text += " stage " + std::to_string(u.stage);
  if (copies == 2) text += " copy " + std::to_string(u.copy);
  return text;
}

Placement resolve_placement(const Problem& problem, const Placement& wanted) {
  Placement chosen = problem.placement.kind != PlacementKind::kAuto ? problem.placement : wanted;
  if (chosen.kind == PlacementKind::kAuto) {
    chosen.kind = problem.form == Form::kStages ? PlacementKind::kLinear : PlacementKind::kFree;
  }
  return chosen;
}

Status check_placement(const Problem& problem, const Placement& placement) {
  Status valid = validate(problem);
  if (!valid.is_ok()) return valid;
  if (problem.form == Form::kOperators) {
    if (placement.kind != PlacementKind::kAuto && placement.kind != PlacementKind::kFree) {
      return invalid(std::string("expected a schedule for an operators problem (each operator "
                                 "runs on one of its allowed devices), found one that needs the ") +
                     placement_name(placement.kind) + " placement");
    }
    if (static_cast<int64_t>(problem.microbatches) * problem.operators.size() * 3 > kMaxOps) {
      return too_many_ops(problem.microbatches, static_cast<int64_t>(problem.operators.size()),
                          "operators");
    }
    return Status::ok();
  }
  if (problem.placement.kind != PlacementKind::kAuto && placement.kind != PlacementKind::kAuto &&
      placement.kind != problem.placement.kind) {
    return invalid(std::string("expected the ") + placement_name(placement.kind) +
                   " placement (what this schedule runs), found the " +
                   placement_name(problem.placement.kind) + " placement the problem fixes");
  }
  const Placement chosen = resolve_placement(problem, placement);
  Result<int32_t> count = stage_count(problem, chosen);
  if (!count.is_ok()) return count.status();
  const bool two = chosen.kind == PlacementKind::kBidirectional ||
                   (chosen.kind == PlacementKind::kExplicit && chosen.devices.size() == 2);
  if (chosen.kind == PlacementKind::kExplicit && two &&
      chosen.devices[1].size() != chosen.devices[0].size()) {
    return invalid("expected the explicit placement's two copies to list as many stages, found " +
                   std::to_string(chosen.devices[0].size()) + " and " +
                   std::to_string(chosen.devices[1].size()));
  }
  if (static_cast<int64_t>(problem.microbatches) * count.value() * 3 > kMaxOps) {
    return too_many_ops(problem.microbatches, count.value(), "stages");
  }
  return Status::ok();
}

Result<Expansion> expand(const Problem& problem, const Placement& placement) {
  Status valid = validate(problem);
  if (!valid.is_ok()) return valid;
  if (problem.form == Form::kOperators) {
    if (placement.kind != PlacementKind::kAuto && placement.kind != PlacementKind::kFree) {
      return invalid(std::string("expected a schedule for an operators problem (each operator "
                                 "runs on one of its allowed devices), found one that needs the ") +
                     placement_name(placement.kind) + " placement");
    }
    return expand_operators(problem);
  }
  if (problem.placement.kind != PlacementKind::kAuto && placement.kind != PlacementKind::kAuto &&
      placement.kind != problem.placement.kind) {
    return invalid(std::string("expected the ") + placement_name(placement.kind) +
                   " placement (what this schedule runs), found the " +
                   placement_name(problem.placement.kind) + " placement the problem fixes");
  }
  if (problem.placement.kind == PlacementKind::kInterleaved &&
      placement.kind == PlacementKind::kInterleaved &&
      problem.placement.chunks != placement.chunks) {
    return invalid("the problem fixes " + std::to_string(problem.placement.chunks) +
                   " chunks per device; this needs " + std::to_string(placement.chunks));
  }
  return expand_stages(problem, resolve_placement(problem, placement));
}

}  // namespace shardlab::pipeline
