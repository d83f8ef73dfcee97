// The planner's facade (see planner.h): options from plan/options.def, the
// expansion and warm starts, the engine, and the anytime loop plan().
#include "core/pipeline/planner.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "core/pipeline/check.h"
#include "core/pipeline/generators.h"
#include "core/pipeline/plan/bound.h"
#include "core/pipeline/plan/engine.h"
#include "core/pipeline/plan/heft.h"
#include "core/pipeline/plan/merge.h"
#include "core/pipeline/plan/problem.h"

namespace shardlab::pipeline {
namespace {

struct PlanOptionInfo {
  const char* name;
  PlanOptionKind kind;
  double default_value, min, max;
  const char* cli_flag;
  const char* help;
};

constexpr PlanOptionInfo kPlanTable[] = {
#define SHARDLAB_PLAN_OPTION(name, kind, def, lo, hi, flag, help) \
  {#name, PlanOptionKind::kind, static_cast<double>(def), lo, hi, flag, help},
#include "core/pipeline/plan/options.def"
#undef SHARDLAB_PLAN_OPTION
};

void assign(PlannerOptions* options, const std::string& name, double value) {
#define SHARDLAB_PLAN_OPTION(oname, kind, def, lo, hi, flag, help) \
  if (name == #oname) options->oname = static_cast<decltype(options->oname)>(value);
#include "core/pipeline/plan/options.def"
#undef SHARDLAB_PLAN_OPTION
}

nlohmann::json number(double value) {
  if (value == std::floor(value) && std::fabs(value) < 9.1e15) {
    return static_cast<int64_t>(value);
  }
  return value;
}

Status set_value(PlannerOptions* options, const PlanOptionInfo& info, double value,
                 const std::string& shown) {
  const std::string range =
      " (expected " + std::string(info.kind == PlanOptionKind::kInt ? "an integer" : "a number") +
      " from " + number(info.min).dump() + " to " + number(info.max).dump() + ")";
  if (!std::isfinite(value) || value < info.min || value > info.max ||
      (info.kind == PlanOptionKind::kInt && value != std::floor(value))) {
    return Status(StatusCode::kInvalidArgument, "option --" + std::string(info.cli_flag) + ": " +
                                                    shown + " is out of range" + range);
  }
  assign(options, info.name, value);
  return Status::ok();
}

}  // namespace

Status set_plan_option(PlannerOptions* options, const std::string& key, const std::string& text) {
  if (key == "placement") {
    if (!parse_placement(text, &options->placement.kind)) {
      return Status(StatusCode::kInvalidArgument,
                    "option --placement: unknown placement '" + text + "'");
    }
    return Status::ok();
  }
  for (const PlanOptionInfo& info : kPlanTable) {
    if (key != info.name && key != info.cli_flag) continue;
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size()) {
      return Status(StatusCode::kInvalidArgument,
                    "option --" + std::string(info.cli_flag) + ": cannot read '" + text + "'");
    }
    return set_value(options, info, value, text);
  }
  return Status(StatusCode::kInvalidArgument, "unknown planner option '" + key + "'");
}

Status plan_options_from_json(const std::string& json, PlannerOptions* options) {
  nlohmann::json j = nlohmann::json::parse(json, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return Status(StatusCode::kInvalidArgument, "planner options: expected a JSON object");
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "placement") {
      if (!it.value().is_string() ||
          !parse_placement(it.value().get<std::string>(), &options->placement.kind)) {
        return Status(StatusCode::kInvalidArgument, "planner options: unknown placement");
      }
      continue;
    }
    if (it.key() == "chunks") {
      if (!it.value().is_number_integer() || it.value().get<int64_t>() < 1) {
        return Status(StatusCode::kInvalidArgument,
                      "planner options: chunks must be an integer >= 1");
      }
      options->placement.chunks = it.value().get<int32_t>();
      continue;
    }
    const PlanOptionInfo* found = nullptr;
    for (const PlanOptionInfo& info : kPlanTable) {
      if (it.key() == info.name) found = &info;
    }
    if (!found)
      return Status(StatusCode::kInvalidArgument, "unknown planner option '" + it.key() + "'");
    if (!it.value().is_number()) {
      return Status(StatusCode::kInvalidArgument,
                    "planner option " + it.key() + ": expected a number");
    }
    Status s = set_value(options, *found, it.value().get<double>(), it.value().dump());
    if (!s.is_ok()) return s;
  }
  return Status::ok();
}

std::string plan_options_to_json(const PlannerOptions& options) {
  nlohmann::ordered_json j;
#define SHARDLAB_PLAN_OPTION(name, kind, def, lo, hi, flag, help) j[#name] = options.name;
#include "core/pipeline/plan/options.def"
#undef SHARDLAB_PLAN_OPTION
  j["placement"] = placement_name(options.placement.kind);
  return j.dump();
}

std::string plan_options_schema_json() {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const PlanOptionInfo& info : kPlanTable) {
    nlohmann::ordered_json row;
    row["name"] = info.name;
    row["kind"] = info.kind == PlanOptionKind::kInt ? "int" : "real";
    row["default"] = number(info.default_value);
    row["min"] = number(info.min);
    row["max"] = number(info.max);
    row["flag"] = std::string("--") + info.cli_flag;
    row["help"] = info.help;
    rows.push_back(row);
  }
  return rows.dump();
}

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
  Timeline best;
  int64_t best_cached = -1;
  bool retired = false;  // its bound reached the best schedule of any branch

  bool has_best() const { return !engine->best().empty(); }
  int64_t best_ticks() const { return has_best() ? engine->best().makespan : -1; }
  int64_t scale() const { return expansion.time_scale; }

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
    if (!has_best() || engine->best().makespan == best_cached) return;
    best = timeline_of(expansion, engine->graph(), engine->best());
    best_cached = engine->best().makespan;
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
  nlohmann::ordered_json warm = nlohmann::ordered_json::object();
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
          warm[pub.name] = pub.valid ? ticks(b, pub.makespan) : nlohmann::json(nullptr);
          if (pub.valid) offer_timeline(b, pub.timeline, pub.name);
        }
      }
      if (heft_only || options.heft) {
        const PlanSchedule h = heft(b.engine->graph());
        if (&b == branches.front().get()) {
          warm["HEFT"] = h.empty() ? nlohmann::json(nullptr) : ticks(b, h.makespan);
        }
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

  nlohmann::json ticks(const Branch& b, int64_t t) const {
    const double v = b.expansion.time_value(t);
    if (v == std::floor(v) && std::fabs(v) < 9e15) return static_cast<int64_t>(v);
    return v;
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
      if (!b->retired && !b->engine->finished()) active.push_back(b.get());
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
  return impl_->branches.empty() || impl_->heft_only || impl_->proven();
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
  const bool taken = impl_->offer_timeline(b, timeline, source);
  if (taken) b.refresh();
  return taken;
}

const std::string& Planner::best_source() const {
  if (impl_->branches.empty()) return impl_->no_source;
  return impl_->current().engine->best_source();
}

std::string Planner::stats_json() const {
  if (impl_->branches.empty()) return "{\"phase\":\"invalid\"}";
  const Branch& c = impl_->current();
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(c.engine->stats_json());
  j["proven"] = proven() && has_best();
  j["makespan"] = has_best() ? impl_->ticks(c, best_ticks()) : nlohmann::json(nullptr);
  j["lower_bound"] = impl_->ticks(c, lower_bound_ticks());
  j["placement"] = placement_name(c.expansion.placement);
  if (impl_->branches.size() > 1) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& b : impl_->branches) {
      nlohmann::ordered_json row;
      row["placement"] = placement_name(b->expansion.placement);
      if (b->expansion.placement == PlacementKind::kInterleaved)
        row["chunks"] = b->expansion.chunks;
      row["makespan"] = b->has_best() ? impl_->ticks(*b, b->best_ticks()) : nlohmann::json(nullptr);
      row["lower_bound"] = impl_->ticks(*b, b->engine->lower_bound());
      row["active"] = !b->retired && !b->engine->finished();
      list.push_back(row);
    }
    j["placements"] = list;
  }
  if (c.merged) {
    j["merged"] = {
        {"ops", c.merged->graph.num_ops()},
        {"best", c.coarse_best < 0 ? nlohmann::json(nullptr) : impl_->ticks(c, c.coarse_best)},
        {"offers", c.coarse_offers},
        {"active", c.coarse != nullptr}};
  }
  j["warm_start"] = impl_->warm;
  return j.dump();
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
  return timeline_of(b.expansion, b.engine->graph(), s.value());
}

const Expansion& Planner::mip_expansion() const {
  return impl_->branches.empty() ? impl_->no_expansion : impl_->branches.front()->expansion;
}

PlanResult plan(const Problem& problem, const PlannerOptions& options, double time_budget_s,
                const PlanSink& sink, const std::atomic<bool>* interrupt) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  PlanResult result;
  Planner planner(problem, options);
  result.status = planner.status();
  if (!result.status.is_ok()) return result;
  bool stop = false;
  auto report = [&] {
    PlanEvent ev;
    ev.seconds = elapsed();
    ev.found = planner.has_best();
    ev.makespan = planner.best_makespan();
    ev.bound = planner.lower_bound();
    ev.gap = ev.found && ev.makespan > 0 ? (ev.makespan - ev.bound) / ev.makespan : 0;
    ev.source = planner.best_source();
    result.trace.push_back(ev);
    if (sink && !sink(ev)) stop = true;
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
  result.stats_json = planner.stats_json();
  return result;
}

}  // namespace shardlab::pipeline
