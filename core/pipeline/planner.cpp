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
#include "core/pipeline/plan/order_search.h"
#include "core/pipeline/plan/problem.h"
#include "core/rng.h"

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

// The link-aware order search (serial links): moves per unit of its share
// of a step (as the engine's own order search), moves without a gain before
// a run starts again from the branch's best, and runs in a row without a
// gain before it stops.
constexpr int64_t kLinkMovesPerUnit = 4;
constexpr int64_t kLinkStall = 100000;
constexpr int64_t kLinkIdleRuns = 8;

// A placement the planner searches: its expansion and engine, the
// bi-level coarse engine while it helps, and the published schedules that
// ran on it.
struct Branch {
  Expansion expansion;
  std::unique_ptr<PlanEngine> engine;
  std::unique_ptr<Merged> merged;
  std::unique_ptr<PlanEngine> coarse;
  double merge_share = 0;
  int64_t coarse_best = -1, coarse_offers = 0, coarse_stall = 0;
  // The best schedule: the engine's, or with serial links the best of the
  // engine's schedules re-timed on the links and of the published ones.
  Timeline best;
  int64_t best_makespan = -1;
  std::string best_from;  // serial links: who found it (the engine's source, or a published name)
  int64_t best_cached = -1;
  bool retired = false;  // its bound reached the best schedule of any branch
  // Serial links: an order search on a copy of the engine's graph that
  // times its candidates on the links (PlanGraph::serial_links), started
  // from the best schedule, mirrored every other run when it can be. Null
  // without serial links, and once kLinkIdleRuns runs in a row gained nothing.
  std::unique_ptr<PlanGraph> linked;
  std::unique_ptr<OrderSearch> link_search;
  Rng link_rng{1};
  double link_share = 0, link_credit = 0;
  int64_t link_runs = 0, link_idle = 0, link_wins = 0;

  bool has_best() const { return best_makespan >= 0; }
  int64_t best_ticks() const { return best_makespan; }
  // Whether anything is left to search here (the engine, or the link search).
  bool searching() const { return !retired && (!engine->finished() || link_search); }
  int64_t scale() const { return expansion.time_scale; }

  // With serial links the engine plans on parallel ones, a relaxation
  // (a transfer only waits longer on a serial link), so its bound holds;
  // its schedules keep their device orders and pairs and are re-timed
  // exactly by the simulator. Keeps t when it is the best so far.
  void consider(const Timeline& t, const std::string& source) {
    Result<Timeline> timed = simulate(expansion, order_of(expansion, t));
    if (!timed.is_ok()) return;
    const CheckReport report = check_schedule(expansion, timed.value());
    if (!report.valid || (has_best() && report.makespan >= best_makespan)) return;
    best = std::move(timed).value();
    best_makespan = report.makespan;
    best_from = source;
  }

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
    if (!engine->finished()) improved |= engine->step(work);
    if (link_search) improved |= step_links(work);
    return improved;
  }

  bool step_links(int64_t work) {
    if (!has_best()) return false;
    link_credit += link_share * static_cast<double>(work);
    if (link_credit < 1) return false;
    const auto units = static_cast<int64_t>(link_credit);
    link_credit -= static_cast<double>(units);
    if (!link_search->started() || link_search->stalled() > kLinkStall) {
      if (link_search->started() && ++link_idle >= kLinkIdleRuns) {
        link_search.reset();
        return false;
      }
      Result<PlanSchedule> from = plan_schedule_of(expansion, *linked, best);
      if (!from.is_ok()) {
        link_search.reset();
        return false;
      }
      link_search->reset(from.value(), link_runs++ % 2 == 0);
    }
    PlanSchedule found;
    if (!link_search->run(units * kLinkMovesPerUnit, best_makespan, &link_rng, &found)) {
      return false;
    }
    const int64_t before = best_makespan;
    consider(timeline_of(expansion, *linked, found), "link order search");
    if (best_makespan == before) return false;
    link_idle = 0;
    ++link_wins;
    return true;
  }

  void refresh() {
    if (engine->best().empty() || engine->best().makespan == best_cached) return;
    best_cached = engine->best().makespan;
    Timeline t = timeline_of(expansion, engine->graph(), engine->best());
    if (expansion.serial_links) return consider(t, engine->best_source());
    best = std::move(t);
    best_makespan = best_cached;
  }
};

// a / sa < b / sb for times in two expansions' ticks.
bool earlier(int64_t a, int64_t sa, int64_t b, int64_t sb) {
  return static_cast<__int128>(a) * sb < static_cast<__int128>(b) * sa;
}

struct Planner::Impl {
  Status status;
  // Branches: the placements searched, the primary (the least lower bound)
  // first. One unless the problem and the options leave the placement open.
  std::vector<std::unique_ptr<Branch>> branches;
  std::string no_source;
  Expansion no_expansion;
  Timeline no_timeline;
  Counters warm;  // the published schedules offered: name -> makespan (null: over a cap)
  bool symmetry = true;
  bool heft_only = false;

  Impl(const Problem& problem, const PlannerOptions& options) {
    status = validate(problem);
    if (!status.is_ok()) return;
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
    config.order_share = options.order_share;
    heft_only = options.heft_only != 0;
    config.initial_dives = !heft_only;
    std::vector<Published> published;
    for (const Placement& placement : candidate_placements(problem, options, &published)) {
      Result<Expansion> e = expand(problem, placement);
      if (!e.is_ok()) {
        if (branches.empty()) status = e.status();
        break;  // the primary decides; others only add
      }
      Result<PlanGraph> g = plan_graph_of(e.value());
      if (!g.is_ok()) {
        if (branches.empty()) status = g.status();
        break;
      }
      auto branch = std::make_unique<Branch>();
      branch->expansion = std::move(e).value();
      branch->engine = std::make_unique<PlanEngine>(std::move(g).value(), config);
      if (branch->expansion.serial_links && !heft_only && options.order_share > 0) {
        branch->linked = std::make_unique<PlanGraph>(branch->engine->graph());
        branch->linked->serial_links = true;
        branch->link_search = std::make_unique<OrderSearch>(*branch->linked, config.symmetry);
        if (!branch->link_search->useful()) branch->link_search.reset();
        branch->link_share = options.order_share;
        branch->link_rng = Rng(config.seed ^ 0x6c696e6bULL);
      }
      branches.push_back(std::move(branch));
    }
    if (branches.empty()) return;
    status = Status::ok();
    for (auto& branch : branches) {
      Branch& b = *branch;
      if (!heft_only && options.merge_above > 0 &&
          b.engine->graph().num_ops() > options.merge_above) {
        b.merged = std::make_unique<Merged>(
            coarsen(b.engine->graph(), static_cast<int32_t>(options.merge_above / 2)));
        if (b.merged->graph.num_ops() < b.engine->graph().num_ops()) {
          b.merge_share = options.merge_share;
          b.coarse = std::make_unique<PlanEngine>(b.merged->graph, config);
          b.refine_coarse();
        }
      }
      if (!heft_only && options.warm_start) {
        for (const Published& pub : published) {
          if (!same_shape(pub.expansion, b.expansion)) continue;
          set_ticks(&warm, pub.name, b, pub.valid ? pub.makespan : -1);
          if (pub.valid) offer_timeline(b, pub.timeline, pub.name);
          if (pub.valid && b.expansion.serial_links) b.consider(pub.timeline, pub.name);
        }
      }
      if (heft_only || options.heft) {
        const PlanSchedule h = heft(b.engine->graph());
        if (&b == branches.front().get()) set_ticks(&warm, "HEFT", b, h.empty() ? -1 : h.makespan);
        if (!h.empty()) b.engine->offer(h, "HEFT");
      }
    }
    refresh();
  }

  // A published schedule simulated on its own placement.
  struct Published {
    std::string name;
    Expansion expansion;
    Timeline timeline;
    bool valid = false;  // passes the checker (e.g. fits the caps)
    int64_t makespan = 0;
  };

  // The placements to plan on: the problem's or the options', else (stages,
  // warm start on) those of the published schedules that fit the caps, the
  // one with the least lower bound first (ties: the best published
  // makespan), so an open problem is planned where the best schedule can be
  // (DualPipe's example: two copies, bound 63, beat V-shape's 63.5) and the
  // planner never ends worse than a published schedule that fits; else the
  // default. Fills *published with every applicable published schedule.
  std::vector<Placement> candidate_placements(const Problem& problem, const PlannerOptions& options,
                                              std::vector<Published>* published) {
    if (problem.form == Form::kStages && options.warm_start && !options.heft_only) {
      for (const ScheduleInfo& info : list_schedules(problem)) {
        if (!info.applicable) continue;
        Result<Generated> gen = generate(problem, info.name);
        if (!gen.is_ok()) continue;
        Result<Timeline> t = simulate(gen.value().expansion, gen.value().order);
        if (!t.is_ok()) continue;
        Published pub;
        pub.name = info.name;
        pub.expansion = gen.value().expansion;
        pub.timeline = std::move(t).value();
        pub.valid = check_schedule(pub.expansion, pub.timeline).valid;
        pub.makespan = measure(pub.expansion, pub.timeline).makespan;
        published->push_back(std::move(pub));
      }
    }
    if (problem.placement.kind != PlacementKind::kAuto ||
        options.placement.kind != PlacementKind::kAuto || problem.form != Form::kStages ||
        !options.warm_start || options.heft_only) {
      return {options.placement};
    }
    struct Candidate {
      Placement placement;
      int64_t bound, bound_scale, makespan, makespan_scale;
    };
    std::vector<Candidate> candidates;
    for (const Published& pub : *published) {
      if (!pub.valid) continue;
      const Expansion& e = pub.expansion;
      Candidate* same = nullptr;
      for (Candidate& c : candidates) {
        if (c.placement.kind == e.placement && c.placement.chunks == e.chunks) same = &c;
      }
      if (same) {
        if (earlier(pub.makespan, e.time_scale, same->makespan, same->makespan_scale)) {
          same->makespan = pub.makespan;
          same->makespan_scale = e.time_scale;
        }
        continue;
      }
      Result<PlanGraph> graph = plan_graph_of(e);
      if (!graph.is_ok()) continue;
      Candidate c;
      c.placement.kind = e.placement;
      c.placement.chunks = e.chunks;
      c.bound = root_bound(graph.value());
      c.bound_scale = c.makespan_scale = e.time_scale;
      c.makespan = pub.makespan;
      candidates.push_back(c);
    }
    if (candidates.empty()) return {options.placement};
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Candidate& a, const Candidate& b) {
                       if (earlier(a.bound, a.bound_scale, b.bound, b.bound_scale)) return true;
                       if (earlier(b.bound, b.bound_scale, a.bound, a.bound_scale)) return false;
                       return earlier(a.makespan, a.makespan_scale, b.makespan, b.makespan_scale);
                     });
    std::vector<Placement> out;
    for (const Candidate& c : candidates) out.push_back(c.placement);
    return out;
  }

  // A time of branch b in the problem's unit (an integer when it is one),
  // null when t < 0.
  void set_ticks(Counters* counters, const std::string& name, const Branch& b, int64_t t) const {
    if (t < 0) {
      counters->add_null(name);
      return;
    }
    const double v = b.expansion.time_value(t);
    if (v == std::floor(v) && std::fabs(v) < 9e15) {
      counters->add(name, static_cast<int64_t>(v));
    } else {
      counters->add(name, v);
    }
  }

  // A timeline from elsewhere: its pairs the engine can express stay pairs,
  // other blocks are opened (plan/problem.h).
  bool offer_timeline(Branch& b, const Timeline& t, const std::string& source) {
    Result<PlanSchedule> s = plan_schedule_of(b.expansion, b.engine->graph(), t);
    return s.is_ok() && b.engine->offer(s.value(), source.c_str());
  }

  // The branch holding the best schedule (ties: the earlier branch), else the primary.
  const Branch& current() const {
    const Branch* best = branches.front().get();
    for (const auto& b : branches) {
      if (!b->has_best()) continue;
      if (!best->has_best() ||
          earlier(b->best_ticks(), b->scale(), best->best_ticks(), best->scale())) {
        best = b.get();
      }
    }
    return *best;
  }
  Branch& current() { return const_cast<Branch&>(static_cast<const Impl*>(this)->current()); }

  // The least lower bound over the branches, in branch `in`'s ticks
  // (rounded up: a makespan there is a whole number of ticks).
  int64_t lower_bound(const Branch& in) const {
    int64_t lb = -1;
    for (const auto& b : branches) {
      const int64_t own = b->engine->lower_bound();
      const __int128 num = static_cast<__int128>(own) * in.scale();
      const int64_t there = static_cast<int64_t>((num + b->scale() - 1) / b->scale());
      if (lb < 0 || there < lb) lb = there;
    }
    return lb;
  }

  bool proven() const {
    const Branch& c = current();
    if (!c.has_best()) {
      // No schedule: proven only when every branch proved none exists.
      for (const auto& b : branches) {
        if (!b->engine->finished()) return false;
      }
      return true;
    }
    return lower_bound(c) >= c.best_ticks();
  }

  bool step(int64_t work) {
    const Branch& holder = current();
    std::vector<Branch*> active;
    for (auto& b : branches) {
      // A branch whose bound reached the best schedule can never beat it.
      if (!b->retired && holder.has_best() && b.get() != &holder &&
          !earlier(b->engine->lower_bound(), b->scale(), holder.best_ticks(), holder.scale())) {
        b->retired = true;
      }
      if (b->searching()) active.push_back(b.get());
    }
    if (active.empty()) return false;
    // The branch holding the best schedule gets half the work, the others
    // share the rest.
    bool improved = false;
    const bool lead = std::find(active.begin(), active.end(), &holder) != active.end();
    for (Branch* b : active) {
      int64_t share = work;
      if (active.size() > 1) {
        const int64_t others = static_cast<int64_t>(active.size()) - (lead ? 1 : 0);
        share = b == &holder ? work / 2 : (lead ? work / 2 : work) / others;
      }
      improved |= b->step(std::max<int64_t>(1, share));
    }
    return improved;
  }

  void refresh() {
    for (auto& b : branches) b->refresh();
  }
};

Planner::Planner(const Problem& problem, const PlannerOptions& options)
    : impl_(std::make_unique<Impl>(problem, options)) {}
Planner::~Planner() = default;
const Status& Planner::status() const { return impl_->status; }
const Expansion& Planner::expansion() const {
  return impl_->branches.empty() ? impl_->no_expansion : impl_->current().expansion;
}

bool Planner::step(int64_t work) {
  if (impl_->branches.empty() || impl_->heft_only) return false;
  const bool improved = impl_->step(work);
  if (improved) impl_->refresh();
  return improved;
}

bool Planner::finished() const {
  if (impl_->branches.empty() || impl_->heft_only || impl_->proven()) return true;
  // With serial links every engine may finish (proven on the relaxation)
  // above its bound: then only the link-aware order searches are left.
  for (const auto& b : impl_->branches) {
    if (b->searching()) return false;
  }
  return true;
}
bool Planner::proven() const { return !impl_->branches.empty() && impl_->proven(); }
bool Planner::has_best() const { return !impl_->branches.empty() && impl_->current().has_best(); }
const Timeline& Planner::best() const {
  return has_best() ? impl_->current().best : impl_->no_timeline;
}
int64_t Planner::best_ticks() const { return has_best() ? impl_->current().best_ticks() : -1; }
double Planner::best_makespan() const {
  return has_best() ? expansion().time_value(best_ticks()) : -1;
}
int64_t Planner::lower_bound_ticks() const {
  return impl_->branches.empty() ? 0 : impl_->lower_bound(impl_->current());
}
double Planner::lower_bound() const { return expansion().time_value(lower_bound_ticks()); }

bool Planner::offer(const Timeline& timeline, const std::string& source) {
  if (impl_->branches.empty() || impl_->heft_only) return false;
  Branch& b = impl_->current();
  bool taken = impl_->offer_timeline(b, timeline, source);
  if (taken) b.refresh();
  if (b.expansion.serial_links) {
    const int64_t before = b.best_ticks();
    b.consider(timeline, source);
    taken |= b.best_ticks() != before;
  }
  return taken;
}

const std::string& Planner::best_source() const {
  if (impl_->branches.empty()) return impl_->no_source;
  const Branch& b = impl_->current();
  return b.expansion.serial_links ? b.best_from : b.engine->best_source();
}

Counters Planner::counters() const {
  Counters c;
  if (impl_->branches.empty()) return c.add("phase", "invalid");
  const Branch& b = impl_->current();
  c = b.engine->counters();
  c.add("best_source", best_source());
  c.add("proven", proven() && has_best());
  impl_->set_ticks(&c, "makespan", b, has_best() ? best_ticks() : -1);
  impl_->set_ticks(&c, "lower_bound", b, lower_bound_ticks());
  c.add("placement", placement_name(b.expansion.placement));
  if (impl_->branches.size() > 1) {
    // Every placement searched: its best, its own bound, whether it still runs.
    Counters list;
    for (const auto& other : impl_->branches) {
      Counters row;
      impl_->set_ticks(&row, "makespan", *other, other->best_ticks());
      impl_->set_ticks(&row, "lower_bound", *other, other->engine->lower_bound());
      row.add("active", other->searching());
      std::string name = placement_name(other->expansion.placement);
      if (other->expansion.placement == PlacementKind::kInterleaved) {
        name += " " + std::to_string(other->expansion.chunks);
      }
      list.add(name, std::move(row));
    }
    c.add("placements", std::move(list));
  }
  if (b.merged) {
    Counters merged;
    merged.add("ops", b.merged->graph.num_ops());
    impl_->set_ticks(&merged, "best", b, b.coarse_best);
    merged.add("offers", b.coarse_offers);
    merged.add("active", b.coarse != nullptr);
    c.add("merged", std::move(merged));
  }
  if (b.linked) {
    Counters links;
    links.add("runs", b.link_runs);
    links.add("wins", b.link_wins);
    links.add("active", b.link_search != nullptr);
    c.add("link_search", std::move(links));
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

// The MIP works on the primary branch (the same for every fresh planner of
// a problem, so a model, its start and its solution agree).
MipModel Planner::emit_lp() const {
  if (impl_->branches.empty()) return MipModel();
  const Branch& b = *impl_->branches.front();
  const MipUnits units{1.0 / static_cast<double>(b.expansion.time_scale),
                       1.0 / static_cast<double>(b.expansion.mem_scale)};
  return pipeline::emit_lp(b.engine->graph(), units, b.engine->best(), impl_->symmetry);
}

Result<std::map<std::string, double>> Planner::mip_start(const Timeline& timeline) const {
  if (impl_->branches.empty()) return impl_->status;
  const Branch& b = *impl_->branches.front();
  // The MIP has no overlapped pairs: its start runs a pair's ops in sequence.
  Result<PlanSchedule> s = plan_schedule_of(b.expansion, b.engine->graph(), timeline, false);
  if (!s.is_ok()) {
    return Status(StatusCode::kInvalidInput,
                  std::string("the MIP is on the ") + placement_name(b.expansion.placement) +
                      " placement and the schedule does not run on it: " + s.status().message());
  }
  const MipUnits units{1.0 / static_cast<double>(b.expansion.time_scale),
                       1.0 / static_cast<double>(b.expansion.mem_scale)};
  return pipeline::mip_start(b.engine->graph(), units, s.value(), impl_->symmetry);
}

Result<Timeline> Planner::schedule_from_mip(const std::map<std::string, double>& columns) const {
  if (impl_->branches.empty()) return impl_->status;
  const Branch& b = *impl_->branches.front();
  const MipUnits units{1.0 / static_cast<double>(b.expansion.time_scale),
                       1.0 / static_cast<double>(b.expansion.mem_scale)};
  Result<PlanSchedule> s = pipeline::schedule_from_mip(b.engine->graph(), units, columns);
  if (!s.is_ok()) return s.status();
  const Timeline t = timeline_of(b.expansion, b.engine->graph(), s.value());
  // The MIP knows parallel links only: its orders, re-timed on serial ones.
  if (b.expansion.serial_links) return simulate(b.expansion, order_of(b.expansion, t));
  return t;
}

const Expansion& Planner::mip_expansion() const {
  return impl_->branches.empty() ? impl_->no_expansion : impl_->branches.front()->expansion;
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
