// The plan lab's run (plan.h): PlanRun's phases (the main search, the
// re-evaluation of the winner from scratch, the why-not searches, sizing,
// the sweep), one bounded step at a time, and plan_with_costs, the one-call
// loop over it with a time limit, a progress sink and an interrupt flag.
#include "core/plan/plan.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <vector>

#include "core/plan/report.h"

namespace shardlab::plan {
namespace {

constexpr int64_t kStepWork = 64;

enum class Phase : uint8_t { kSeed, kSearch, kEvaluate, kAlternatives, kSizing, kSweep, kDone };

const char* phase_name(Phase p) {
  switch (p) {
    case Phase::kSeed:
      return "seed";
    case Phase::kSearch:
      return "search";
    case Phase::kEvaluate:
      return "evaluate";
    case Phase::kAlternatives:
      return "alternatives";
    case Phase::kSizing:
      return "sizing";
    case Phase::kSweep:
      return "sweep";
    case Phase::kDone:
      return "done";
  }
  return "done";
}

// Textbook plans offered to the search before it starts (Narayanan et al.'s
// recipe: t the largest power of two within a node that divides the heads,
// sequence parallelism, full recomputation, micro-batch 1, ZeRO-1, 1F1B, and
// the fewest stages whose rough memory fits), so that an incumbent exists
// from the first steps: the best-first order then prunes by bound at once,
// and a run stopped early (a loaded machine, the page's Stop) still has a
// plan. The user's pins are put in (with_pins); the search times each one
// exactly and keeps it only if it fits.
std::vector<Plan> textbook_seeds(const ModelFacts& f, const Cluster& c, const Training& t,
                                 const Fix& fix) {
  std::vector<Plan> out;
  const int64_t gpus = c.gpus();
  int32_t tp = 1;
  while (2 * tp <= c.gpus_per_node && gpus % (2 * tp) == 0 &&
         (f.heads == 0 || f.heads % (2 * tp) == 0) &&
         (f.kv_heads == 0 || f.kv_heads % (2 * tp) == 0 || (2 * tp) % f.kv_heads == 0)) {
    tp *= 2;
  }
  const double limit = c.memory_GB * 1e9;
  const double params = static_cast<double>(f.parameters);
  const double acts = 2.0 * t.dtype_bytes * static_cast<double>(t.seq) *
                      static_cast<double>(f.hidden) * f.layers / tp;  // 2 s b h per layer, b = 1
  for (int64_t pp = 1; pp <= f.layers && out.size() < 3; ++pp) {
    if ((gpus / tp) % pp != 0) continue;
    const int64_t dp = gpus / tp / pp;
    const double shard = params / (static_cast<double>(tp) * pp);
    const double state = dp > 1 ? 4 * shard + 12 * shard / dp : 16 * shard;
    if (out.empty() && state + acts > 0.9 * limit) continue;
    Plan p;
    p.tp = tp;
    p.pp = static_cast<int32_t>(pp);
    p.sequence_parallel = tp > 1;
    p.recompute = Recompute::kFull;
    p.zero = dp > 1 ? 1 : 0;
    p.schedule = "1F1B";
    std::optional<Plan> pinned = with_pins(p, fix, gpus, t.global_batch);
    if (pinned) out.push_back(*pinned);
  }
  return out;
}

double gap_of(double best, double bound) {
  if (!(best < INFINITY) || best <= 0) return 1;
  return std::max(0.0, (best - bound) / best);
}

}  // namespace

double search_time_limit_s(const PlanOptions& options) {
  return options.time_limit_s * std::clamp(options.search_share, 0.0, 1.0);
}

struct PlanRun::Impl {
  std::function<bool()> yield;  // set_yield()
  PlanCosts* costs;
  Cluster cluster;
  Training training;
  Fix fix;
  PlanOptions options;
  Planner planner;
  Phase phase = Phase::kSeed;
  bool out_of_time = false;  // time_up(): what is left is reported as not evaluated
  Status status;
  std::vector<Plan> seeds;
  size_t next_seed = 0;
  PlanResult result;
  bool evaluated = false;
  // The why-not searches: the rows to run, the one running, and every plan
  // any search timed (the next one starts from the best that it admits).
  std::vector<AlternativeSpec> specs;
  size_t next_spec = 0;
  std::optional<Fix> spec_fix;
  Alternative row;
  std::unique_ptr<PinnedSearch> side;
  std::vector<TimedPlan> offers;
  std::unique_ptr<SizingSearch> sizing;
  std::vector<int32_t> sweep_nodes;
  size_t next_sweep = 0;
  SizingPoint point;
  // The evaluation's own order and simulations (from scratch: nothing of the
  // search's), run one a step before it (evaluation_parts).
  InflightCache eval_profiles;
  SimCache eval_sims;
  int64_t most_parts = 0;  // the most long parts one step has run

  // Block solves, orders and simulations of every search of the run and of
  // the evaluation (the side searches share the costs and the caches).
  int64_t long_parts() const {
    return planner.long_parts() + eval_profiles.generated() + eval_sims.simulations();
  }

  Impl(PlanCosts* c, const Cluster& cl, const Training& t, const Fix& f, const PlanOptions& o)
      : costs(c),
        cluster(cl),
        training(t),
        fix(f),
        options(o),
        planner(c, cl, t, f, o.search),
        status(planner.status()) {
    result.model = c->facts();
    result.cluster = cl;
    result.training = t;
    result.fix = f;
    if (!status.is_ok()) {
      phase = Phase::kDone;
    } else {
      seeds = textbook_seeds(c->facts(), cl, t, f);
    }
  }

  bool evaluate(bool whole);
  bool step_phase();
  void next_phase_after_evaluate();
  void mark_not_evaluated();
  void step_alternatives();
  void step_sweep();
};

// The independent evaluator, from scratch, with the pipeline lab's checker:
// the search's own timing of its best plan must agree to 1e-9.
bool PlanRun::Impl::evaluate(bool whole) {
  if (!whole && !planner.has_best() && !planner.least_memory_step(0, 512, yield)) return false;
  // Its long parts one a step (finish() runs what is left at once).
  if (!whole && planner.has_best() &&
      !evaluation_parts(planner.best().plan, costs, cluster, training, {}, &eval_profiles,
                        &eval_sims)) {
    return false;
  }
  evaluated = true;
  result.counters = planner.counters();
  result.lower_bound_s = planner.lower_bound_s();
  result.proven = planner.proven();
  if (planner.has_best()) {
    Result<StepResult> again = plan::evaluate(planner.best().plan, costs, cluster, training, {},
                                              &eval_profiles, &eval_sims);
    if (!again.is_ok()) {
      status = Status(StatusCode::kInternal, "the step model rejects the search's best plan (" +
                                                 plan_summary(planner.best().plan) +
                                                 "): " + again.status().message());
      return true;
    }
    const double searched = planner.best_time_s();
    if (std::fabs(again.value().step_time_s - searched) > 1e-9 * searched) {
      status = Status(StatusCode::kInternal,
                      "the search timed " + plan_summary(planner.best().plan) + " at " +
                          std::to_string(searched) + " s, the step model at " +
                          std::to_string(again.value().step_time_s) + " s");
      return true;
    }
    result.found = true;
    result.best = std::move(again).value();
    result.gap = result.proven ? 0 : gap_of(result.best.step_time_s, result.lower_bound_s);
  } else {
    // What the least-memory plan needs (hunted in slices by step(); finish()
    // reports it only when the hunt is complete).
    const Planner::NeedsMemory& needs = planner.least_memory_result();
    result.needs_bytes = needs.bytes;
    result.needs_plan = needs.plan;
  }
  return true;
}

void PlanRun::Impl::next_phase_after_evaluate() {
  if (!status.is_ok()) {
    phase = Phase::kDone;
    return;
  }
  if (options.alternatives && result.found) {
    specs = alternative_specs(costs->facts(), cluster, result.best.plan);
    offers = planner.timed();
  }
  if (out_of_time) {
    mark_not_evaluated();
    return;
  }
  if (options.alternatives && result.found) {
    phase = Phase::kAlternatives;
  } else if (options.sizing) {
    phase = Phase::kSizing;
  } else if (options.sweep) {
    phase = Phase::kSweep;
  } else {
    phase = Phase::kDone;
  }
}

// The time limit passed: the why-not row being searched keeps the best plan
// its search timed (unproven), the rows not reached and sizing (and the
// sweep's points not reached) say so; the run is done.
void PlanRun::Impl::mark_not_evaluated() {
  result.time_limit_reached = true;
  if (phase == Phase::kAlternatives && side) {
    complete_alternative(side->result(), result.best, &row);
    if (!row.fits) row.reason = kNotEvaluated;
    result.alternatives.push_back(row);
    side.reset();
  }
  if (options.alternatives && result.found) {
    // A row that does not apply says why (that costs no search).
    for (; next_spec < specs.size(); ++next_spec) {
      Alternative skipped;
      if (prepare_alternative(specs[next_spec], fix, costs->facts(), cluster, training, &skipped)) {
        skipped.reason = kNotEvaluated;
      }
      result.alternatives.push_back(skipped);
    }
  }
  const bool sizing_done = sizing && sizing->done();
  if (options.sizing && !sizing_done) {
    result.sizing.smallest_gpus = 0;
    result.sizing.reason = kNotEvaluated;
  } else if (options.sweep && (sweep_nodes.empty() || next_sweep < sweep_nodes.size() || side)) {
    result.sizing.reason = std::string("the sweep: ") + kNotEvaluated;
  }
  side.reset();
  phase = Phase::kDone;
}

void PlanRun::Impl::step_alternatives() {
  if (!side) {
    if (next_spec >= specs.size()) {
      phase = options.sizing ? Phase::kSizing : options.sweep ? Phase::kSweep : Phase::kDone;
      return;
    }
    const AlternativeSpec& spec = specs[next_spec++];
    spec_fix = prepare_alternative(spec, fix, costs->facts(), cluster, training, &row);
    if (!spec_fix) {
      result.alternatives.push_back(row);
      return;
    }
    // The chosen plan with the pins applied starts the search, then the
    // best plan any search timed that satisfies them.
    const std::optional<Plan> near =
        with_pins(result.best.plan, *spec_fix, cluster.gpus(), training.global_batch);
    side = std::make_unique<PinnedSearch>(costs, cluster, training, *spec_fix, options,
                                          planner.caches(), &offers, near ? &*near : nullptr);
    return;
  }
  if (!side->step(yield)) return;
  const Pinned run = side->result();
  offers.insert(offers.end(), run.timed.begin(), run.timed.end());
  complete_alternative(run, result.best, &row);
  result.alternatives.push_back(row);
  side.reset();
}

void PlanRun::Impl::step_sweep() {
  if (!side) {
    if (next_sweep >= sweep_nodes.size()) {
      phase = Phase::kDone;
      return;
    }
    Cluster c = cluster;
    c.nodes = sweep_nodes[next_sweep++];
    point = SizingPoint{};
    point.gpus = c.gpus();
    const Fix free = sizing_fix(fix);
    if (!check_fix(free, costs->facts(), c, training).is_ok()) {
      result.sizing.sweep.push_back(point);
      return;
    }
    side = std::make_unique<PinnedSearch>(costs, c, training, free, options, planner.caches());
    return;
  }
  if (!side->step(yield)) return;
  const Pinned run = side->result();
  point.fits = run.found;
  if (run.found) {
    point.step_time_s = run.best.step_time_s;
    point.plan = run.best.plan;
  }
  point.needs_bytes = run.needs_bytes;
  result.sizing.sweep.push_back(point);
  side.reset();
}

PlanRun::PlanRun(PlanCosts* costs, const Cluster& cluster, const Training& training, const Fix& fix,
                 const PlanOptions& options)
    : impl_(std::make_unique<Impl>(costs, cluster, training, fix, options)) {}

PlanRun::~PlanRun() = default;

const Status& PlanRun::status() const { return impl_->status; }

bool PlanRun::finished() const { return impl_->phase == Phase::kDone; }

void PlanRun::stop_search() {
  if (impl_->phase == Phase::kSeed || impl_->phase == Phase::kSearch) {
    impl_->phase = Phase::kEvaluate;
  }
}

void PlanRun::time_up() {
  Impl& s = *impl_;
  if (s.phase == Phase::kDone) return;
  s.out_of_time = true;
  switch (s.phase) {
    case Phase::kSeed:
    case Phase::kSearch:
    case Phase::kEvaluate:
      // finish() evaluates the best plan, then the rest is marked.
      s.phase = Phase::kEvaluate;
      break;
    default:
      s.mark_not_evaluated();
  }
}

void PlanRun::set_yield(std::function<bool()> yield) { impl_->yield = std::move(yield); }

bool PlanRun::step() {
  Impl& s = *impl_;
  const int64_t before = s.long_parts();
  const bool improved = s.step_phase();
  s.most_parts = std::max(s.most_parts, s.long_parts() - before);
  return improved;
}

bool PlanRun::Impl::step_phase() {
  Impl& s = *this;
  switch (s.phase) {
    case Phase::kSeed: {
      if (s.next_seed >= s.seeds.size()) {
        s.phase = Phase::kSearch;
        return false;
      }
      // An offer put off (the yield said stop inside it) is made again.
      const bool improved = s.planner.offer(s.seeds[s.next_seed], s.yield);
      if (!s.planner.deferred()) ++s.next_seed;
      return improved;
    }
    case Phase::kSearch: {
      int64_t work = kStepWork;
      if (s.options.work_limit > 0) {
        work = std::min(work, s.options.work_limit - s.planner.counters().work);
      }
      if (s.planner.finished() || work <= 0) {
        s.phase = Phase::kEvaluate;
        return false;
      }
      return s.planner.step(work, s.yield);
    }
    case Phase::kEvaluate:
      // Out of time with nothing found: the least-memory hunt is not run.
      if (s.evaluate(s.out_of_time)) s.next_phase_after_evaluate();
      return false;
    case Phase::kAlternatives:
      s.step_alternatives();
      return false;
    case Phase::kSizing:
      if (!s.sizing) {
        s.sizing = std::make_unique<SizingSearch>(s.costs, s.cluster, s.training, s.fix, s.options,
                                                  s.result.found, s.planner.caches());
      }
      if (s.sizing->step(s.yield)) {
        s.result.sizing.smallest_gpus = s.sizing->smallest_gpus();
        if (s.options.sweep) {
          s.sweep_nodes = plan::sweep_nodes(s.cluster);
          s.phase = Phase::kSweep;
        } else {
          s.phase = Phase::kDone;
        }
      }
      return false;
    case Phase::kSweep:
      if (s.sweep_nodes.empty() && s.next_sweep == 0) s.sweep_nodes = plan::sweep_nodes(s.cluster);
      s.step_sweep();
      return false;
    case Phase::kDone:
      return false;
  }
  return false;
}

Progress PlanRun::progress(double elapsed_s) const {
  const Impl& s = *impl_;
  Progress p;
  p.elapsed_s = elapsed_s;
  p.found = s.planner.has_best();
  p.incumbent = p.found ? s.planner.best_time_s() : 0;
  p.bound = s.planner.lower_bound_s();
  p.finished = s.phase == Phase::kDone;
  const SearchCounters& c = s.planner.counters();
  p.counters.add("phase", phase_name(s.phase))
      .add("configurations", c.configurations)
      .add("split_solves", c.split_solves)
      .add("orders", c.orders)
      .add("simulations", c.simulations)
      .add("timed", c.timed)
      .add("pruned_memory", c.pruned_memory)
      .add("pruned_bound", c.pruned_bound)
      .add("rejected", c.rejected)
      .add("lean", c.lean)
      .add("work", c.work)
      .add("proven", s.planner.proven())
      .add("long_parts", s.long_parts())
      .add("step_long_parts", s.most_parts);
  if (s.phase == Phase::kAlternatives) {
    p.counters.add("alternatives_done", static_cast<int64_t>(s.result.alternatives.size()))
        .add("alternatives", static_cast<int64_t>(s.specs.size()));
  }
  with_gap(p);
  if (s.planner.proven() && p.found) p.gap = 0;
  return p;
}

bool PlanRun::evaluated() const { return impl_->evaluated; }

PlanResult PlanRun::snapshot() const {
  PlanResult out = impl_->evaluated ? impl_->result : PlanResult{};
  if (!impl_->evaluated) {
    out.model = impl_->result.model;
    out.cluster = impl_->result.cluster;
    out.training = impl_->result.training;
    out.fix = impl_->result.fix;
  }
  out.status = impl_->status;
  return out;
}

PlanResult PlanRun::finish() {
  Impl& s = *impl_;
  if (s.status.is_ok() && !s.evaluated) {
    s.evaluate(true);
    if (s.out_of_time) s.next_phase_after_evaluate();
  }
  PlanResult out = std::move(s.result);
  s.result = PlanResult{};
  out.status = s.status;
  return out;
}

PlanResult plan_with_costs(PlanCosts* costs, const Cluster& cluster, const Training& training,
                           const Fix& fix, const PlanOptions& options, const ProgressSink& sink,
                           const Interrupt* interrupt) {
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&start] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  PlanRun run(costs, cluster, training, fix, options);
  // The interrupt and the search's share of the time limit are seen after
  // every unit of the search, not only between steps.
  run.set_yield([&] {
    if (interrupt && interrupt->load()) return true;
    return options.work_limit <= 0 && elapsed() > search_time_limit_s(options);
  });
  std::vector<Progress> trace;
  const auto report = [&] {
    trace.push_back(run.progress(elapsed()));
    return !sink || sink(trace.back()) == SinkReply::kContinue;
  };
  bool go_on = run.status().is_ok() && report();
  while (go_on && !run.finished()) {
    if (run.step()) go_on = report();
    if (interrupt && interrupt->load()) go_on = false;
    if (options.work_limit <= 0) {
      const double now = elapsed();
      if (now > options.time_limit_s) {
        run.time_up();
      } else if (now > search_time_limit_s(options)) {
        run.stop_search();
      }
    }
  }
  if (run.status().is_ok()) {
    trace.push_back(run.progress(elapsed()));
    if (sink) sink(trace.back());
  }
  PlanResult result = run.finish();
  result.seconds = elapsed();
  result.trace = std::move(trace);
  return result;
}

}  // namespace shardlab::plan
