// The A*-like search over configurations (search.h): enumeration under the
// fix, relaxation bounds, stage DPs, exact timing, the certified bound.
#include "core/plan/search.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <queue>

#include "core/plan/bound.h"
#include "core/plan/config.h"
#include "core/plan/inflight.h"
#include "core/plan/stage_dp.h"

namespace shardlab::plan {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A configuration, compactly (the queue holds up to a few hundred thousand).
struct Config {
  int32_t tp = 1, pp = 1, dp = 1, ep = 1, vpp = 1;
  int64_t mbs = 1, m = 1;
  int8_t zero = 0, schedule = 0;
  bool sp = false;
  bool lean = false;  // the parts' memory-lean layouts (set when the fastest do not fit)
  Recompute recompute = Recompute::kNone;

  Plan plan() const {
    Plan p;
    p.tp = tp;
    p.pp = pp;
    p.dp = dp;
    p.ep = ep;
    p.vpp = vpp;
    p.sequence_parallel = sp;
    p.zero = zero;
    p.schedule = plan_schedule_names()[schedule];
    p.microbatch_size = mbs;
    p.microbatches = m;
    p.recompute = recompute;
    p.lean_layout = lean;
    return p;
  }
};

struct Entry {
  double bound;
  int32_t id;
  int8_t level;
  int32_t node = 0;  // level 2: the split node
  // The least bound first; ties by configuration index, level, node.
  bool operator>(const Entry& o) const {
    if (bound != o.bound) return bound > o.bound;
    if (id != o.id) return id > o.id;
    if (level != o.level) return level > o.level;
    return node > o.node;
  }
};

// A configuration whose splits are being enumerated (level 2).
struct Active {
  StageModel model;
  const InflightProfile* profile = nullptr;
  std::unique_ptr<SplitSpace> space;
  int64_t open = 0;  // its nodes in the queue
};

// Parameters one device of a tensor-parallel group holds of a layer, the
// embedding and the head: what a part's layout changes in memory.
int64_t held_parameters(const StageModel& m) {
  return m.layer().dense_parameters + m.layer().expert_parameters + m.embedding().dense_parameters +
         m.head().dense_parameters;
}

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t k = 1; k * k <= n; ++k) {
    if (n % k != 0) continue;
    out.push_back(k);
    if (k != n / k) out.push_back(n / k);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

struct Planner::Impl {
  PlanCosts* costs;
  Cluster cluster;
  Training training;
  Fix fix;
  SearchOptions options;
  Status status;
  std::vector<Config> configs;
  std::map<int32_t, std::unique_ptr<Active>> active;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
  SearchCaches own_caches;
  SearchCaches* caches = &own_caches;
  int64_t orders_before = 0, simulations_before = 0;
  SearchCounters counters;
  bool enumerated = false;
  size_t next_to_bound = 0;  // level 0: configurations bounded so far
  bool has_best = false;
  StepResult best;
  double best_s = kInf;
  int32_t best_id = -1;
  std::string first_rejection;
  std::vector<TimedPlan> timed;  // every plan timed that fits (offers for other searches)
  // The running call's yield (step, offer, least_memory_step), the long
  // parts run when it began, whether the unit running can still be undone
  // (nothing but memoised parts done yet), and whether the call put one off.
  const std::function<bool()>* yield = nullptr;
  int64_t parts_at_start = 0;
  bool deferrable = false;
  bool deferred = false;

  int64_t long_parts() const {
    return costs->solve_pieces() + caches->profiles.generated() + caches->sims.simulations();
  }
  // True when a long part about to start is to wait for the next call: the
  // call has run one already and its yield says its time is up.
  bool over() const { return yield && long_parts() > parts_at_start && (*yield)(); }
  // A call's span: block solves ask over() through the costs' gate while
  // the unit is deferrable.
  struct Call {
    Impl& s;
    Call(Impl& impl, const std::function<bool()>& y) : s(impl) {
      s.yield = y ? &y : nullptr;
      s.parts_at_start = s.long_parts();
      s.deferrable = false;
      s.deferred = false;
      s.costs->set_solve_gate([&impl = s] { return !(impl.deferrable && impl.over()); });
    }
    ~Call() {
      s.costs->set_solve_gate(nullptr);
      s.yield = nullptr;
      s.deferrable = false;
    }
  };
  // A build in a deferrable unit: false when its block solve was put off.
  bool put_off(const Result<StageModel>& built) const {
    return !built.is_ok() && deferrable && costs->deferred();
  }

  void reject(const Status& why) {
    ++counters.rejected;
    if (first_rejection.empty()) first_rejection = why.message();
  }

  Result<StageModel> model_of(const Config& c) {
    return StageModel::build(c.plan(), costs, cluster, training);
  }

  enum class Lean : uint8_t { kQueued, kNot, kDeferred };
  // The units return false when they were put off (deferred), undone.
  void enumerate();
  bool bound_level0(int32_t id);
  Lean make_lean(int32_t id);
  Config leanest(const Config& c);
  bool refine(const Entry& e);
  bool enumerate_split(const Entry& e);
  void time_split(Active& a, const std::vector<int32_t>& layers, int32_t id);
  bool dive(Active& a, int32_t id, bool may_defer);
  void fixed_split_space(Active* a);
  double lower_bound() const {
    double lb = best_s;
    if (!queue.empty()) lb = std::min(lb, queue.top().bound);
    // Not all bounded yet (nor enumerated: the seeds' offers come first).
    if (!enumerated || next_to_bound < configs.size()) lb = 0;
    return lb;
  }
  bool finished() const {
    if (!status.is_ok()) return true;
    if (!enumerated || next_to_bound < configs.size()) return false;
    return queue.empty() || queue.top().bound >= best_s;
  }
};

void Planner::Impl::enumerate() {
  enumerated = true;
  const ModelFacts& facts = costs->facts();
  const int64_t N = cluster.gpus();
  const int64_t B = training.global_batch;
  std::vector<int32_t> tps;
  for (int64_t t = 1; t <= N; t *= 2) tps.push_back(static_cast<int32_t>(t));
  if (fix.tp) tps = {*fix.tp};
  for (int32_t t : tps) {
    if (N % t != 0) continue;
    if (facts.heads > 0 && facts.heads % t != 0) continue;
    if (facts.kv_heads > 0 && facts.kv_heads % t != 0 && t % facts.kv_heads != 0) continue;
    for (int64_t p64 : divisors(N / t)) {
      const int32_t p = static_cast<int32_t>(p64);
      if (p > facts.layers) continue;
      if (fix.pp && *fix.pp != p) continue;
      const int32_t d = static_cast<int32_t>(N / t / p);
      if (fix.dp && *fix.dp != d) continue;
      if (B % d != 0) continue;
      std::vector<int32_t> eps = {1};
      if (facts.experts > 0) {
        eps.clear();
        for (int64_t e : divisors(d)) {
          if (facts.experts % e == 0) eps.push_back(static_cast<int32_t>(e));
        }
      }
      for (int32_t ep : eps) {
        if (fix.ep && *fix.ep != ep) continue;
        for (int64_t b : divisors(B / d)) {
          if (fix.microbatch_size ? *fix.microbatch_size != b : b > options.max_microbatch_size) {
            continue;
          }
          const int64_t m = B / d / b;
          if (fix.microbatches && *fix.microbatches != m) continue;
          // Schedules and their chunks.
          std::vector<std::pair<int8_t, int32_t>> schedules;
          const auto& names = plan_schedule_names();
          for (int8_t s = 0; s < static_cast<int8_t>(names.size()); ++s) {
            const std::string& name = names[s];
            if (fix.schedule && *fix.schedule != name) continue;
            if (p == 1 && !fix.schedule && name != "1F1B") continue;
            if (name == "Interleaved1F1B") {
              if (m % p != 0) continue;
              for (int32_t v = 2; v <= options.max_vpp && int64_t{p} * v <= facts.layers; ++v) {
                if (fix.vpp && *fix.vpp != v) continue;
                schedules.push_back({s, v});
              }
              if (fix.vpp && *fix.vpp > options.max_vpp && int64_t{p} * *fix.vpp <= facts.layers) {
                schedules.push_back({s, *fix.vpp});
              }
            } else if (name == "ZBV" || name == "DualPipeV") {
              if (2 * p > facts.layers) continue;
              if (name == "DualPipeV" && m < 2 * p) continue;
              if (fix.vpp && *fix.vpp != 2) continue;
              schedules.push_back({s, 2});
            } else {
              if (fix.vpp && *fix.vpp != 1) continue;
              schedules.push_back({s, 1});
            }
          }
          for (const auto& [s, v] : schedules) {
            for (int zero = 0; zero <= 3; ++zero) {
              if (d == 1 && zero > 0) continue;
              if (fix.zero && *fix.zero != zero) continue;
              for (bool sp : {false, true}) {
                if (sp && t == 1) continue;
                if (fix.sequence_parallel && *fix.sequence_parallel != sp) continue;
                for (Recompute rc : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
                  if (fix.recompute && *fix.recompute != rc) continue;
                  Config c;
                  c.tp = t;
                  c.pp = p;
                  c.dp = d;
                  c.ep = ep;
                  c.vpp = v;
                  c.mbs = b;
                  c.m = m;
                  c.zero = static_cast<int8_t>(zero);
                  c.schedule = s;
                  c.sp = sp;
                  c.recompute = rc;
                  configs.push_back(c);
                }
              }
            }
          }
        }
      }
    }
  }
  counters.configurations = static_cast<int64_t>(configs.size());
}

bool Planner::Impl::bound_level0(int32_t id) {
  deferrable = true;
  Result<StageModel> model = model_of(configs[id]);
  if (put_off(model)) return false;
  if (!model.is_ok()) {
    deferrable = false;
    reject(model.status());
    return true;
  }
  if (least_memory_bytes(model.value()) > model.value().memory_limit_bytes()) {
    const Lean lean = make_lean(id);
    deferrable = false;
    if (lean == Lean::kDeferred) return false;
    if (lean == Lean::kNot) ++counters.pruned_memory;
    return true;
  }
  deferrable = false;
  queue.push({relaxation_bound_s(model.value()), id, 0});
  return true;
}

// Pruned by memory first: a configuration whose fastest layouts do not fit
// (the least-memory bound above the limit, or no split fitting) is tried
// again with its parts' memory-lean layouts, when tp > 1 and they hold fewer
// parameters (a layout that replicates a weight over tp to save a
// collective can cost more memory than Megatron's). kQueued when it was
// queued; kDeferred when its block solves were put off (while the unit is
// deferrable), before anything changed.
Planner::Impl::Lean Planner::Impl::make_lean(int32_t id) {
  Config& c = configs[id];
  if (c.lean || c.tp == 1) return Lean::kNot;
  Result<StageModel> fast = model_of(c);
  if (put_off(fast)) return Lean::kDeferred;
  Config lean = c;
  lean.lean = true;
  Result<StageModel> model = model_of(lean);
  if (put_off(model)) return Lean::kDeferred;
  if (!fast.is_ok() || !model.is_ok()) return Lean::kNot;
  if (held_parameters(model.value()) >= held_parameters(fast.value())) return Lean::kNot;
  c.lean = true;
  ++counters.lean;
  if (least_memory_bytes(model.value()) > model.value().memory_limit_bytes()) return Lean::kNot;
  queue.push({relaxation_bound_s(model.value()), id, 0});
  return Lean::kQueued;
}

bool Planner::Impl::refine(const Entry& e) {
  if (e.level == 2) return enumerate_split(e);
  const Config& c = configs[e.id];
  deferrable = true;
  Result<StageModel> built = model_of(c);
  if (put_off(built)) return false;
  deferrable = false;
  if (!built.is_ok()) {
    reject(built.status());
    return true;
  }
  StageModel& model = built.value();
  if (fix.stage_layers && static_cast<int32_t>(fix.stage_layers->size()) != model.stages()) {
    reject(Status(StatusCode::kInvalidArgument,
                  "layers=... lists " + std::to_string(fix.stage_layers->size()) + " stages, " +
                      plan_summary(c.plan()) + " has " + std::to_string(model.stages())));
    return true;
  }
  if (e.level == 0) {
    // The least bound over the splits, memory left out (no schedule order needed yet).
    ++counters.split_solves;
    double bound = 0;
    if (fix.stage_layers) {
      bound = split_bound_s(model, stage_costs(model, *fix.stage_layers));
    } else {
      const SplitSpace space(model, nullptr);
      counters.work += space.evaluated() / 1000;
      bound = space.bound();
    }
    queue.push({std::max(bound, e.bound), e.id, 1});
    return true;
  }
  // Level 1: the splits that fit, best first. Its schedule order, when not
  // generated yet, waits for the next call once this one has run a long part.
  if (!caches->profiles.has(model.shape(), model.devices(), model.microbatches()) && over()) {
    return false;
  }
  const int64_t order_ops = caches->profiles.generated_ops();
  Result<const InflightProfile*> profile =
      caches->profiles.get(model.shape(), model.devices(), model.microbatches());
  counters.orders = caches->profiles.generated() - orders_before;
  counters.work += (caches->profiles.generated_ops() - order_ops) / 1000;
  if (!profile.is_ok()) {
    reject(profile.status());
    return true;
  }
  auto a = std::make_unique<Active>(Active{std::move(model), profile.value(), nullptr, 0});
  if (fix.stage_layers) {
    fixed_split_space(a.get());
  } else {
    a->space = std::make_unique<SplitSpace>(a->model, a->profile);
  }
  if (!a->space->fits()) {
    // The lean layouts' block solves may still wait for the next call: the
    // order's work is counted (it is memoised), the DP's when it is run again.
    deferrable = true;
    const Lean lean = make_lean(e.id);
    deferrable = false;
    if (lean == Lean::kDeferred) return false;
    ++counters.split_solves;
    counters.work += a->space->evaluated() / 1000;
    if (lean == Lean::kNot) ++counters.pruned_memory;
    return true;
  }
  ++counters.split_solves;
  counters.work += a->space->evaluated() / 1000;
  queue.push({std::max(a->space->bound(), e.bound), e.id, 2, 0});
  a->open = 1;
  if (!has_best) dive(*a, e.id, false);
  active[e.id] = std::move(a);
  return true;
}

// Times one split of an active configuration exactly; a better plan that
// fits becomes the incumbent.
void Planner::Impl::time_split(Active& a, const std::vector<int32_t>& layers, int32_t id) {
  SimCache& sims = caches->sims;
  const int64_t ops_before = sims.simulated_ops();
  EvaluateOptions eo;
  eo.checked = false;
  eo.breakdown = false;
  Result<StepResult> r = evaluate_split(a.model, layers, *a.profile, &sims, eo);
  counters.simulations = sims.simulations() - simulations_before;
  counters.work += (sims.simulated_ops() - ops_before) / 1000;
  ++counters.timed;
  if (!r.is_ok()) {
    reject(r.status());  // e.g. ZBV's greedy finds no order for these stages
    return;
  }
  if (!r.value().fits) return;
  timed.push_back({r.value().plan, r.value().step_time_s});
  if (r.value().step_time_s < best_s || (r.value().step_time_s == best_s && id < best_id)) {
    best_s = r.value().step_time_s;
    best_id = id;
    best = std::move(r).value();
    has_best = true;
  }
}

bool Planner::Impl::enumerate_split(const Entry& e) {
  Active& a = *active.at(e.id);
  SplitSpace& space = *a.space;
  if (space.complete(e.node)) {
    if (over()) return false;  // its simulation waits for the next call
    time_split(a, space.layers(e.node), e.id);
  }
  std::vector<int32_t> children;
  space.expand(e.node, best_s, &children);
  for (int32_t child : children) {
    queue.push({std::max(space.node(child).bound, e.bound), e.id, 2, child});
    ++a.open;
  }
  if (--a.open == 0) active.erase(e.id);
  return true;
}

// The configuration with the layouts that hold the fewest parameters (the
// memory-lean ones when tp > 1 and they hold fewer), for the memory hunt.
Config Planner::Impl::leanest(const Config& c) {
  if (c.lean || c.tp == 1) return c;
  Config lean = c;
  lean.lean = true;
  Result<StageModel> fast = model_of(c);
  Result<StageModel> model = model_of(lean);
  if (!fast.is_ok() || !model.is_ok()) return c;
  return held_parameters(model.value()) < held_parameters(fast.value()) ? lean : c;
}

// Before any incumbent exists, the first configuration that fits is timed at
// once along its DP's split (a dive): the incumbent then prunes every
// configuration bounded above it before its memory DP (orders, profiles).
// With may_defer, the simulation waits for the next call (false) once this
// one has run a long part.
bool Planner::Impl::dive(Active& a, int32_t id, bool may_defer) {
  SplitSpace& space = *a.space;
  int32_t node = 0;
  std::vector<int32_t> children;
  while (!space.complete(node)) {
    children.clear();
    space.expand(node, SplitSpace::kNone, &children);
    if (children.empty()) return true;
    int32_t pick = children[0];
    for (int32_t c : children) {
      if (space.node(c).bound < space.node(pick).bound) pick = c;
    }
    node = pick;
  }
  if (may_defer && over()) return false;
  time_split(a, space.layers(node), id);
  return true;
}

// A pinned split (--fix layers=...): the one node of its space.
void Planner::Impl::fixed_split_space(Active* a) {
  const std::vector<StageCost> stages = stage_costs(a->model, *fix.stage_layers);
  bool fits = true;
  for (const DeviceMemory& mem : device_memory(a->model, *a->profile, stages)) {
    fits = fits && mem.total() <= a->model.memory_limit_bytes();
  }
  a->space = std::make_unique<SplitSpace>(
      a->model, *fix.stage_layers, fits ? split_bound_s(a->model, stages) : SplitSpace::kNone);
}

Planner::Planner(PlanCosts* costs, const Cluster& cluster, const Training& training, const Fix& fix,
                 const SearchOptions& options, SearchCaches* caches)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  if (caches) s.caches = caches;
  s.orders_before = s.caches->profiles.generated();
  s.simulations_before = s.caches->sims.simulations();
  s.costs = costs;
  s.cluster = cluster;
  s.training = training;
  s.fix = fix;
  s.options = options;
  s.status = check_fix(fix, costs->facts(), cluster, training);
}

const Status& Planner::status() const { return impl_->status; }

bool Planner::step(int64_t work, const std::function<bool()>& yield) {
  Impl& s = *impl_;
  if (!s.status.is_ok()) return false;
  const Impl::Call call(s, yield);
  const double best_before = s.best_s;
  const double bound_before = s.lower_bound();
  const int64_t until = s.counters.work + std::max<int64_t>(1, work);
  if (!s.enumerated) {
    s.enumerate();
    s.counters.work += static_cast<int64_t>(s.configs.size()) / 1000;
  }
  while (s.counters.work < until) {
    if (s.next_to_bound < s.configs.size()) {
      if (!s.bound_level0(static_cast<int32_t>(s.next_to_bound))) {
        s.deferred = true;
        break;
      }
      ++s.next_to_bound;
      ++s.counters.work;
    } else {
      if (s.finished()) break;
      const Entry e = s.queue.top();
      s.queue.pop();
      if (!s.refine(e)) {
        s.queue.push(e);  // the least entry again: the next call starts with it
        s.deferred = true;
        break;
      }
      ++s.counters.work;
    }
    if (yield && yield()) break;
  }
  if (s.finished()) s.counters.pruned_bound = static_cast<int64_t>(s.queue.size());
  return s.best_s < best_before || s.lower_bound() > bound_before;
}

bool Planner::finished() const { return impl_->finished(); }

bool Planner::proven() const {
  const Impl& s = *impl_;
  if (!s.finished() || !s.status.is_ok()) return false;
  if (!s.has_best) return true;  // nothing fits: proven by exhaustion
  return s.lower_bound() >= s.best_s * (1 - 1e-9);
}

bool Planner::has_best() const { return impl_->has_best; }
const StepResult& Planner::best() const { return impl_->best; }
double Planner::best_time_s() const { return impl_->best_s; }

double Planner::lower_bound_s() const {
  const Impl& s = *impl_;
  if (!s.status.is_ok()) return 0;
  const double lb = s.lower_bound();
  return std::isinf(lb) ? 0 : lb;
}

const SearchCounters& Planner::counters() const { return impl_->counters; }
int64_t Planner::long_parts() const { return impl_->long_parts(); }
bool Planner::deferred() const { return impl_->deferred; }
SearchCaches* Planner::caches() { return impl_->caches; }
const std::vector<TimedPlan>& Planner::timed() const { return impl_->timed; }
const std::string& Planner::first_rejection() const { return impl_->first_rejection; }

bool Planner::offer(const Plan& plan, const std::function<bool()>& yield) {
  Impl& s = *impl_;
  const Impl::Call call(s, yield);
  if (!s.status.is_ok() || !fix_admits(s.fix, plan)) return false;
  if (s.fix.stage_layers && *s.fix.stage_layers != plan.stage_layers) return false;
  if (!check_plan(plan, s.costs->facts(), s.cluster, s.training).is_ok()) return false;
  s.deferrable = true;
  Result<StageModel> model = StageModel::build(plan, s.costs, s.cluster, s.training);
  s.deferred = s.put_off(model);
  s.deferrable = false;
  if (!model.is_ok()) return false;
  // Each long part after the first waits for the next call (the offer is
  // made again then): the order, the simulation.
  if (!s.caches->profiles.has(model.value().shape(), model.value().devices(),
                              model.value().microbatches()) &&
      s.over()) {
    s.deferred = true;
    return false;
  }
  Result<const InflightProfile*> profile = s.caches->profiles.get(
      model.value().shape(), model.value().devices(), model.value().microbatches());
  if (!profile.is_ok()) return false;
  Active a{std::move(model).value(), profile.value(), nullptr, 0};
  const double before = s.best_s;
  // Offered plans lose ties to the configurations the search enumerates.
  const int32_t id = std::numeric_limits<int32_t>::max();
  if (!plan.stage_layers.empty()) {
    if (s.over()) {
      s.deferred = true;
      return false;
    }
    s.time_split(a, plan.stage_layers, id);
  } else {
    a.space = std::make_unique<SplitSpace>(a.model, a.profile);
    if (a.space->fits() && !s.dive(a, id, true)) {
      s.deferred = true;
      return false;
    }
  }
  return s.best_s < before;
}

// Best first over three levels of the least worst-device memory of a
// configuration: 0 the average over devices (least_memory_bytes), 1 the
// least over splits with one micro-batch in flight per chunk (every device
// holds that much at some moment: no schedule order needed), 2 exact with
// the schedule's in-flight counts. A configuration is settled when its
// exact value is popped: nothing left can need less. Resumable, so that
// PlanRun's sizing and why-not steps stay bounded.
// With stop_below > 0 only "does some plan need at most that much?" is
// asked (sizing): the configurations whose two lower levels are within it
// are checked exactly cheapest first (by the operations of their schedule
// order: devices x chunks x micro-batches), and the hunt
// ends at the first that is; when none is, the answer is no (any false).
struct Planner::MemoryHunt {
  using Item = std::tuple<int64_t, int32_t, int8_t>;  // bytes (or order cost), id, level
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
  int32_t pushed = 0;  // configurations given their level-0 value so far
  std::map<std::pair<int32_t, int32_t>, InflightProfile> one_each;  // (pp, chunks)
  std::map<int32_t, std::vector<int32_t>> splits;
  std::vector<Config> configs;  // the planner's, each with its leanest layouts
  bool done = false;
  NeedsMemory out;
  // The one-micro-batch-per-chunk profile of a model's shape (level 1).
  const InflightProfile& unit_profile(const StageModel& m) {
    const auto key = std::pair(m.devices(), m.shape().chunks);
    auto it = one_each.find(key);
    if (it != one_each.end()) return it->second;
    InflightProfile p;
    p.devices = m.devices();
    p.chunks = m.shape().chunks;
    p.stage_of.assign(p.devices, std::vector<int32_t>(p.chunks, 0));
    p.points.assign(p.devices, {});
    for (int32_t d = 0; d < p.devices; ++d) {
      for (int32_t c = 0; c < p.chunks; ++c) {
        p.stage_of[d][c] = m.device_stages(d)[c];
        std::vector<int32_t> unit(2 * p.chunks, 0);
        unit[c] = 1;
        p.points[d].push_back(unit);
      }
    }
    return one_each.emplace(key, std::move(p)).first->second;
  }
};

bool Planner::least_memory_step(int64_t stop_below, int64_t work,
                                const std::function<bool()>& yield) {
  Impl& s = *impl_;
  const Impl::Call call(s, yield);
  if (!hunt_) hunt_ = std::make_unique<MemoryHunt>();
  MemoryHunt& h = *hunt_;
  if (h.done) return true;
  if (!s.status.is_ok()) {
    h.done = true;
    return true;
  }
  if (!s.enumerated) {
    s.enumerate();
    work -= static_cast<int64_t>(s.configs.size()) / 16;
  }
  const int32_t n = static_cast<int32_t>(s.configs.size());
  const bool yes_no = stop_below > 0;
  while (h.pushed < n) {
    if (work-- <= 0 || s.over()) return false;
    const int32_t id = h.pushed;
    // Its block solves may wait for the next call (then nothing changed).
    s.deferrable = true;
    const Config lean = s.leanest(s.configs[id]);
    Result<StageModel> model = s.model_of(lean);
    s.deferrable = false;
    if (s.costs->deferred()) return false;
    ++h.pushed;
    h.configs.push_back(lean);
    if (!model.is_ok()) continue;
    const int64_t bytes = least_memory_bytes(model.value());
    if (!yes_no) {
      h.queue.push({bytes, id, 0});
    } else if (bytes <= stop_below) {
      const Config& c = h.configs[id];
      const int64_t ops = int64_t{c.pp} * schedule_shape(c.plan().schedule, c.vpp).chunks * c.m;
      h.queue.push({ops, id, 0});
    }
  }
  while (!h.queue.empty()) {
    if (work <= 0 || s.over()) return false;
    const auto [key, id, level] = h.queue.top();
    h.queue.pop();
    if (!yes_no && level == 2) {
      h.out.bytes = key;
      h.out.plan = h.configs[id].plan();
      h.out.plan.stage_layers = h.splits[id];
      h.out.any = true;
      h.done = true;
      return true;
    }
    Result<StageModel> model = s.model_of(h.configs[id]);
    const StageModel& m = model.value();
    work -= 1 + static_cast<int64_t>(m.layers()) * stage_count(h.configs[id].plan()) / 64;
    if (yes_no) {
      // Cheapest first, each to the end: the one-each split, then exact.
      if (least_memory_split(m, h.unit_profile(m)).bytes > stop_below) continue;
      Result<const InflightProfile*> profile =
          s.caches->profiles.get(m.shape(), m.devices(), m.microbatches());
      if (!profile.is_ok()) continue;
      const LeastMemory least = least_memory_split(m, *profile.value());
      if (least.bytes > stop_below) continue;
      h.out.bytes = least.bytes;
      h.out.plan = h.configs[id].plan();
      h.out.plan.stage_layers = least.layers;
      h.out.any = true;
      h.done = true;
      return true;
    }
    const int64_t bytes = key;
    if (level == 0) {
      h.queue.push({std::max(bytes, least_memory_split(m, h.unit_profile(m)).bytes), id, 1});
      continue;
    }
    Result<const InflightProfile*> profile =
        s.caches->profiles.get(m.shape(), m.devices(), m.microbatches());
    if (!profile.is_ok()) continue;
    const LeastMemory least = least_memory_split(m, *profile.value());
    h.splits[id] = least.layers;
    h.queue.push({std::max(bytes, least.bytes), id, 2});
  }
  h.done = true;
  return true;
}

const Planner::NeedsMemory& Planner::least_memory_result() const {
  static const NeedsMemory kNone;
  return hunt_ ? hunt_->out : kNone;
}

Planner::~Planner() = default;

Planner::NeedsMemory Planner::least_memory(int64_t stop_below) {
  hunt_.reset();
  while (!least_memory_step(stop_below, 1 << 20)) {
  }
  return least_memory_result();
}

}  // namespace shardlab::plan
