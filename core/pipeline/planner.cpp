// The planner's facade (see planner.h): options from plan/options.def, the
// expansion and warm starts, the engine, and the anytime loop plan().
#include "core/pipeline/planner.h"

#include <chrono>
#include <cmath>
#include <cstdlib>

#include "core/pipeline/check.h"
#include "core/pipeline/generators.h"
#include "core/pipeline/plan/bound.h"
#include "core/pipeline/plan/engine.h"
#include "core/pipeline/plan/heft.h"
#include "core/pipeline/plan/merge.h"
#include "core/pipeline/plan/problem.h"

namespace shardlab::pipeline {

// Whether a generated schedule's expansion is the planner's (same
// placement, units, micro-batch directions and scales), so its timeline can
// be offered as it is.
bool same_shape(const Expansion& a, const Expansion& b) {
  if (a.placement != b.placement || a.num_units() != b.num_units() || a.num_ops() != b.num_ops() ||
      a.time_scale != b.time_scale || a.mem_scale != b.mem_scale ||
      a.microbatch_copy != b.microbatch_copy) {
    return false;
  }
  for (int32_t u = 0; u < a.num_units(); ++u) {
    if (a.units[u].devices != b.units[u].devices) return false;
  }
  return true;
}

struct Planner::Impl {
  Status status;
  Expansion expansion;
  std::unique_ptr<PlanEngine> engine;
  Timeline best;
  int64_t best_cached = -1;
  std::string no_source;
  Counters warm;  // the generated schedules offered: name -> makespan (null: over a cap)
  bool symmetry = true;
  bool heft_only = false;
  // The best timeline with overlapped pairs offered so far (-1: none).
  Timeline paired;
  int64_t paired_ticks = -1;
  std::string paired_source;
  // Bi-level: the merged problem and its own engine, while it helps.
  std::unique_ptr<Merged> merged;
  std::unique_ptr<PlanEngine> coarse;
  double merge_share = 0;
  int64_t coarse_best = -1, coarse_offers = 0, coarse_stall = 0;

  Impl(const Problem& problem, const PlannerOptions& options) {
    status = validate(problem);
    if (!status.is_ok()) return;
    Result<Expansion> e = expand(problem, choose_placement(problem, options));
    if (!e.is_ok()) {
      status = e.status();
      return;
    }
    expansion = std::move(e).value();
    Result<PlanGraph> g = plan_graph_of(expansion);
    if (!g.is_ok()) {
      status = g.status();
      return;
    }
    EngineConfig config;
    config.seed = static_cast<uint64_t>(options.seed);
    config.symmetry = options.symmetry != 0;
    symmetry = config.symmetry;
    config.dominance = options.dominance != 0;
    config.table_entries = options.table_entries;
    config.prover_share = options.prover_share;
    config.improver_share = options.improver_share;
    config.dive_share = options.dive_share;
    config.restart_nodes = options.restart_nodes;
    heft_only = options.heft_only != 0;
    config.initial_dives = !heft_only;
    std::unique_ptr<PlanGraph> relaxation = pair_relaxation(expansion, g.value());
    engine = std::make_unique<PlanEngine>(std::move(g).value(), config, std::move(relaxation));
    if (heft_only) {
      const PlanSchedule h = heft(engine->graph());
      set_ticks(&warm, "HEFT", h.empty() ? -1 : h.makespan);
      if (!h.empty()) engine->offer(h, "HEFT");
      return;
    }
    if (options.merge_above > 0 && engine->graph().num_ops() > options.merge_above) {
      merged = std::make_unique<Merged>(
          coarsen(engine->graph(), static_cast<int32_t>(options.merge_above / 2)));
      if (merged->graph.num_ops() < engine->graph().num_ops()) {
        merge_share = options.merge_share;
        coarse = std::make_unique<PlanEngine>(merged->graph, config);
        refine_coarse();
      }
    }
    if (options.warm_start) warm_start(problem);
    if (options.heft) {
      const PlanSchedule h = heft(engine->graph());
      set_ticks(&warm, "HEFT", h.empty() ? -1 : h.makespan);
      if (!h.empty()) engine->offer(h, "HEFT");
    }
  }

  // The placement to plan on: the problem's or the options', else (stages,
  // warm start on) among the placements of the published schedules that fit
  // the caps, the one with the least lower bound (ties: the best published
  // makespan), so an open problem is planned where the best schedule can be
  // (DualPipe's example: two copies, bound 63, beat V-shape's 63.5); else
  // the default.
  Placement choose_placement(const Problem& problem, const PlannerOptions& options) {
    if (problem.placement.kind != PlacementKind::kAuto ||
        options.placement.kind != PlacementKind::kAuto || problem.form != Form::kStages ||
        !options.warm_start) {
      return options.placement;
    }
    Placement chosen = options.placement;
    double best_bound = -1, best_makespan = -1;
    for (const ScheduleInfo& info : list_schedules(problem)) {
      if (!info.applicable) continue;
      Result<Generated> gen = generate(problem, info.name);
      if (!gen.is_ok()) continue;
      Result<Timeline> t = simulate(gen.value().expansion, gen.value().order);
      if (!t.is_ok() || !check_schedule(gen.value().expansion, t.value()).valid) continue;
      const Expansion& ge = gen.value().expansion;
      Result<PlanGraph> graph = plan_graph_of(ge);
      if (!graph.is_ok()) continue;
      const double bound = ge.time_value(root_bound(graph.value()));
      const double makespan = ge.time_value(measure(ge, t.value()).makespan);
      if (best_bound >= 0 &&
          (bound > best_bound || (bound == best_bound && makespan >= best_makespan))) {
        continue;
      }
      best_bound = bound;
      best_makespan = makespan;
      chosen.kind = ge.placement;
      chosen.chunks = ge.chunks;
    }
    return chosen;
  }

  // A time in the problem's unit (an integer when it is one), null when t < 0.
  void set_ticks(Counters* counters, const std::string& name, int64_t t) const {
    if (t < 0) {
      counters->add_null(name);
      return;
    }
    const double v = expansion.time_value(t);
    if (v == std::floor(v) && std::fabs(v) < 9e15) {
      counters->add(name, static_cast<int64_t>(v));
    } else {
      counters->add(name, v);
    }
  }

  // Offers every generated schedule that runs on the planner's expansion
  // and records its makespan (null when it breaks a memory cap).
  void warm_start(const Problem& problem) {
    for (const ScheduleInfo& info : list_schedules(problem)) {
      if (!info.applicable) continue;
      Result<Generated> gen = generate(problem, info.name);
      if (!gen.is_ok() || !same_shape(gen.value().expansion, expansion)) continue;
      Result<Timeline> t = simulate(gen.value().expansion, gen.value().order);
      if (!t.is_ok()) continue;
      const bool valid = check_schedule(expansion, t.value()).valid;
      set_ticks(&warm, info.name, valid ? measure(expansion, t.value()).makespan : -1);
      if (valid) offer_timeline(t.value(), info.name);
    }
  }

  // A timeline from elsewhere. With overlapped pairs it is kept as it is
  // when it beats everything (the engine cannot express pairs); opened into
  // single ops it also goes to the engine.
  bool offer_timeline(const Timeline& t, const std::string& source) {
    bool taken = false;
    const bool has_pair = std::any_of(t.slots.begin(), t.slots.end(), [](const TimedSlot& s) {
      return s.slot.kind == SlotKind::kPair;
    });
    if (has_pair && check_schedule(expansion, t).valid) {
      const int64_t m = measure(expansion, t).makespan;
      if (best_known() < 0 || m < best_known()) {
        paired = t;
        paired_ticks = m;
        paired_source = source;
        taken = true;
      }
    }
    Result<PlanSchedule> s = plan_schedule_of(expansion, engine->graph(), t);
    if (s.is_ok()) taken |= engine->offer(s.value(), source.c_str());
    return taken;
  }

  int64_t engine_ticks() const { return engine->best().empty() ? -1 : engine->best().makespan; }
  // The best makespan known, with or without pairs (-1: none).
  int64_t best_known() const {
    const int64_t e = engine_ticks();
    if (paired_ticks < 0) return e;
    return e < 0 ? paired_ticks : std::min(e, paired_ticks);
  }
  bool paired_wins() const {
    return paired_ticks >= 0 && (engine_ticks() < 0 || paired_ticks < engine_ticks());
  }
  bool proven() const {
    return engine->finished() || (paired_ticks >= 0 && engine->lower_bound() >= paired_ticks);
  }

  // Offers the coarse incumbent, expanded, to the full problem's engine.
  bool refine_coarse() {
    if (!coarse || coarse->best().empty() || coarse->best().makespan == coarse_best) return false;
    coarse_best = coarse->best().makespan;
    ++coarse_offers;
    return engine->offer(expand_merged(engine->graph(), *merged, coarse->best()), "merged");
  }

  bool step(int64_t work) {
    bool improved = false;
    if (coarse) {
      const int64_t share = std::max<int64_t>(1, static_cast<int64_t>(work * merge_share));
      const bool moved = coarse->step(share);
      improved |= moved && refine_coarse();
      coarse_stall = moved ? 0 : coarse_stall + 1;
      // The merged problem is done once proven or stalled for a while.
      if (coarse->finished() || coarse_stall > 200) merge_share = 0, coarse_stall = -1;
      if (merge_share == 0) coarse.reset();
      work = std::max<int64_t>(1, work - share);
    }
    improved |= engine->step(work);
    return improved;
  }

  void refresh() {
    if (!engine) return;
    if (paired_wins()) {
      best = paired;
      best_cached = -2;
      return;
    }
    if (engine->best().empty() || engine->best().makespan == best_cached) return;
    best = timeline_of(expansion, engine->best());
    best_cached = engine->best().makespan;
  }
};

Planner::Planner(const Problem& problem, const PlannerOptions& options)
    : impl_(std::make_unique<Impl>(problem, options)) {
  impl_->refresh();
}
Planner::~Planner() = default;
const Status& Planner::status() const { return impl_->status; }
const Expansion& Planner::expansion() const { return impl_->expansion; }

bool Planner::step(int64_t work) {
  if (!impl_->engine) return false;
  if (impl_->heft_only) return false;
  const bool improved = impl_->step(work);
  if (improved) impl_->refresh();
  return improved;
}

bool Planner::finished() const { return !impl_->engine || impl_->heft_only || impl_->proven(); }
bool Planner::proven() const { return impl_->engine && impl_->proven(); }
bool Planner::has_best() const { return impl_->engine && impl_->best_known() >= 0; }
const Timeline& Planner::best() const { return impl_->best; }
int64_t Planner::best_ticks() const { return impl_->engine ? impl_->best_known() : -1; }
double Planner::best_makespan() const {
  return has_best() ? impl_->expansion.time_value(best_ticks()) : -1;
}
int64_t Planner::lower_bound_ticks() const {
  return impl_->engine ? impl_->engine->lower_bound() : 0;
}
double Planner::lower_bound() const { return impl_->expansion.time_value(lower_bound_ticks()); }

bool Planner::offer(const Timeline& timeline, const std::string& source) {
  if (!impl_->engine || impl_->heft_only) return false;
  const bool taken = impl_->offer_timeline(timeline, source);
  if (taken) impl_->refresh();
  return taken;
}

const std::string& Planner::best_source() const {
  if (!impl_->engine) return impl_->no_source;
  return impl_->paired_wins() ? impl_->paired_source : impl_->engine->best_source();
}

Counters Planner::counters() const {
  Counters c;
  if (!impl_->engine) return c.add("phase", "invalid");
  c = impl_->engine->counters();
  c.add("best_source", best_source());
  c.add("proven", proven() && has_best());
  impl_->set_ticks(&c, "makespan", has_best() ? best_ticks() : -1);
  impl_->set_ticks(&c, "lower_bound", lower_bound_ticks());
  c.add("placement", placement_name(impl_->expansion.placement));
  if (impl_->merged) {
    Counters merged;
    merged.add("ops", impl_->merged->graph.num_ops());
    impl_->set_ticks(&merged, "best", impl_->coarse_best);
    merged.add("offers", impl_->coarse_offers);
    merged.add("active", impl_->coarse != nullptr);
    c.add("merged", std::move(merged));
  }
  c.add("warm_start", impl_->warm);
  return c;
}

Progress progress_of(const Planner& planner, double elapsed_s) {
  Progress p;
  p.elapsed_s = elapsed_s;
  p.found = planner.has_best();
  p.incumbent = p.found ? planner.best_makespan() : 0;
  p.bound = planner.lower_bound();
  p.finished = planner.finished();
  p.counters = planner.counters();
  return with_gap(p);
}

MipModel Planner::emit_lp() const {
  if (!impl_->engine) return MipModel();
  const MipUnits units{1.0 / static_cast<double>(impl_->expansion.time_scale),
                       1.0 / static_cast<double>(impl_->expansion.mem_scale)};
  const bool symmetry = impl_->symmetry;
  return pipeline::emit_lp(impl_->engine->graph(), units, impl_->engine->best(), symmetry);
}

Result<std::map<std::string, double>> Planner::mip_start(const Timeline& timeline) const {
  if (!impl_->engine) return impl_->status;
  Result<PlanSchedule> s = plan_schedule_of(impl_->expansion, impl_->engine->graph(), timeline);
  if (!s.is_ok()) return s.status();
  const MipUnits units{1.0 / static_cast<double>(impl_->expansion.time_scale),
                       1.0 / static_cast<double>(impl_->expansion.mem_scale)};
  return pipeline::mip_start(impl_->engine->graph(), units, s.value(), impl_->symmetry);
}

Result<Timeline> Planner::schedule_from_mip(const std::map<std::string, double>& columns) const {
  if (!impl_->engine) return impl_->status;
  const MipUnits units{1.0 / static_cast<double>(impl_->expansion.time_scale),
                       1.0 / static_cast<double>(impl_->expansion.mem_scale)};
  Result<PlanSchedule> s = pipeline::schedule_from_mip(impl_->engine->graph(), units, columns);
  if (!s.is_ok()) return s.status();
  return timeline_of(impl_->expansion, s.value());
}

PlanResult plan(const Problem& problem, const PlannerOptions& options, double time_budget_s,
                const ProgressSink& sink, const Interrupt* interrupt) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  PlanResult result;
  Planner planner(problem, options);
  result.status = planner.status();
  if (!result.status.is_ok()) return result;
  bool stop = false;
  auto report = [&] {
    result.trace.push_back(progress_of(planner, elapsed()));
    if (sink && sink(result.trace.back()) == SinkReply::kStop) stop = true;
  };
  report();
  // Steps of about 5 ms natively keep the interrupt and the sink
  // responsive; with a work limit, fixed steps make the run reproducible.
  const bool fixed = options.work > 0;
  int64_t work = fixed ? 1000 : 500;
  int64_t spent = 0;
  while (!stop && !planner.finished() && elapsed() < time_budget_s &&
         !(interrupt && interrupt->load()) && (!fixed || spent < options.work)) {
    const double before = elapsed();
    if (planner.step(work)) report();
    spent += work;
    if (fixed) continue;
    const double took = elapsed() - before;
    if (took < 0.002 && work < (int64_t{1} << 30)) work *= 2;
    if (took > 0.02 && work > 16) work /= 2;
  }
  result.found = planner.has_best();
  result.best = planner.best();
  result.expansion = planner.expansion();
  result.makespan = planner.best_makespan();
  result.lower_bound = planner.lower_bound();
  result.optimal = planner.proven() && result.found;
  result.infeasible = planner.proven() && !result.found;
  result.source = planner.best_source();
  result.seconds = elapsed();
  result.counters = planner.counters();
  return result;
}

}  // namespace shardlab::pipeline
