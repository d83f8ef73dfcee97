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

  void reject(const Status& why) {
    ++counters.rejected;
    if (first_rejection.empty()) first_rejection = why.message();
  }

  Result<StageModel> model_of(const Config& c) {
    return StageModel::build(c.plan(), costs, cluster, training);
  }

  void enumerate();
  void bound_level0(int32_t id);
  void refine(const Entry& e);
  void enumerate_split(const Entry& e);
  void fixed_split_space(Active* a);
  double lower_bound() const {
    double lb = best_s;
    if (!queue.empty()) lb = std::min(lb, queue.top().bound);
    if (next_to_bound < configs.size()) lb = 0;  // not all bounded yet
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

void Planner::Impl::bound_level0(int32_t id) {
  Result<StageModel> model = model_of(configs[id]);
  if (!model.is_ok()) {
    reject(model.status());
    return;
  }
  if (least_memory_bytes(model.value()) > model.value().memory_limit_bytes()) {
    ++counters.pruned_memory;
    return;
  }
  queue.push({relaxation_bound_s(model.value()), id, 0});
}

void Planner::Impl::refine(const Entry& e) {
  if (e.level == 2) {
    enumerate_split(e);
    return;
  }
  const Config& c = configs[e.id];
  Result<StageModel> built = model_of(c);
  if (!built.is_ok()) {
    reject(built.status());
    return;
  }
  StageModel& model = built.value();
  if (fix.stage_layers && static_cast<int32_t>(fix.stage_layers->size()) != model.stages()) {
    reject(Status(StatusCode::kInvalidArgument,
                  "layers=... lists " + std::to_string(fix.stage_layers->size()) + " stages, " +
                      plan_summary(c.plan()) + " has " + std::to_string(model.stages())));
    return;
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
    return;
  }
  // Level 1: the splits that fit, best first.
  Result<const InflightProfile*> profile =
      caches->profiles.get(model.shape(), model.devices(), model.microbatches());
  counters.orders = caches->profiles.generated() - orders_before;
  if (!profile.is_ok()) {
    reject(profile.status());
    return;
  }
  ++counters.split_solves;
  auto a = std::make_unique<Active>(Active{std::move(model), profile.value(), nullptr, 0});
  if (fix.stage_layers) {
    fixed_split_space(a.get());
  } else {
    a->space = std::make_unique<SplitSpace>(a->model, a->profile);
  }
  counters.work += a->space->evaluated() / 1000;
  if (!a->space->fits()) {
    ++counters.pruned_memory;
    return;
  }
  queue.push({std::max(a->space->bound(), e.bound), e.id, 2, 0});
  a->open = 1;
  active[e.id] = std::move(a);
}

void Planner::Impl::enumerate_split(const Entry& e) {
  Active& a = *active.at(e.id);
  SplitSpace& space = *a.space;
  if (space.complete(e.node)) {
    // Time this split exactly.
    SimCache& sims = caches->sims;
    const int64_t ops_before = sims.simulated_ops();
    EvaluateOptions eo;
    eo.checked = false;
    eo.breakdown = false;
    Result<StepResult> r = evaluate_split(a.model, space.layers(e.node), *a.profile, &sims, eo);
    counters.simulations = sims.simulations() - simulations_before;
    counters.work += (sims.simulated_ops() - ops_before) / 1000;
    ++counters.timed;
    if (!r.is_ok()) {
      reject(r.status());  // e.g. ZBV's greedy finds no order for these stages
    } else if (r.value().fits && (r.value().step_time_s < best_s ||
                                  (r.value().step_time_s == best_s && e.id < best_id))) {
      best_s = r.value().step_time_s;
      best_id = e.id;
      best = std::move(r).value();
      has_best = true;
    }
  }
  std::vector<int32_t> children;
  space.expand(e.node, best_s, &children);
  for (int32_t child : children) {
    queue.push({std::max(space.node(child).bound, e.bound), e.id, 2, child});
    ++a.open;
  }
  if (--a.open == 0) active.erase(e.id);
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

Planner::~Planner() = default;

const Status& Planner::status() const { return impl_->status; }

bool Planner::step(int64_t work) {
  Impl& s = *impl_;
  if (!s.status.is_ok()) return false;
  const double best_before = s.best_s;
  const double bound_before = s.lower_bound();
  const int64_t until = s.counters.work + std::max<int64_t>(1, work);
  if (!s.enumerated) {
    s.enumerate();
    s.counters.work += static_cast<int64_t>(s.configs.size()) / 1000;
  }
  while (s.counters.work < until) {
    if (s.next_to_bound < s.configs.size()) {
      s.bound_level0(static_cast<int32_t>(s.next_to_bound++));
      ++s.counters.work;
      continue;
    }
    if (s.finished()) break;
    const Entry e = s.queue.top();
    s.queue.pop();
    s.refine(e);
    ++s.counters.work;
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
SearchCaches* Planner::caches() { return impl_->caches; }
const std::string& Planner::first_rejection() const { return impl_->first_rejection; }

Planner::NeedsMemory Planner::least_memory(int64_t stop_below) {
  Impl& s = *impl_;
  NeedsMemory out;
  if (!s.status.is_ok()) return out;
  if (!s.enumerated) s.enumerate();
  // Best first by the cheap memory bound; exact least memory by the DP.
  std::vector<std::pair<int64_t, int32_t>> order;
  for (int32_t id = 0; id < static_cast<int32_t>(s.configs.size()); ++id) {
    Result<StageModel> model = s.model_of(s.configs[id]);
    if (!model.is_ok()) continue;
    order.push_back({least_memory_bytes(model.value()), id});
  }
  std::sort(order.begin(), order.end());
  int64_t best = std::numeric_limits<int64_t>::max();
  for (const auto& [cheap, id] : order) {
    if (cheap >= best) break;
    Result<StageModel> model = s.model_of(s.configs[id]);
    Result<const InflightProfile*> profile = s.caches->profiles.get(
        model.value().shape(), model.value().devices(), model.value().microbatches());
    if (!profile.is_ok()) continue;
    const LeastMemory least = least_memory_split(model.value(), *profile.value());
    if (least.bytes < best) {
      best = least.bytes;
      out.bytes = least.bytes;
      out.plan = s.configs[id].plan();
      out.plan.stage_layers = least.layers;
      out.any = true;
      if (best <= stop_below) break;
    }
  }
  return out;
}

}  // namespace shardlab::plan
