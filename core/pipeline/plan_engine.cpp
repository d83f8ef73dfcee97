// The planner's anytime portfolio (see plan_engine.h). Work is handed out
// as credit per technique in proportion to its share, so a long run of
// small steps does the same as one big step, whatever the caller's slicing.
//
// Destructive lower bounding (Klein and Scholl 1999): the prover asks "is
// there a schedule of makespan at most T?" for T = the bound; with the
// incumbent far away its pruning is much stronger than the improver's, so
// it both raises the bound and often finds the optimum itself. Its child
// order cycles through the priority rules with restarts on a growing node
// budget (Luby-like), which makes it robust to one bad rule on a given
// shape of problem.
#include "core/pipeline/plan_engine.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/pipeline/plan_bound.h"
#include "core/pipeline/plan_lns.h"
#include "core/pipeline/plan_search.h"
#include "core/rng.h"

namespace shardlab::pipeline {
namespace {

constexpr int32_t kRules = 3;

}  // namespace

struct PlanEngine::Impl {
  PlanGraph g;
  EngineConfig cfg;
  PlanSchedule best;
  std::string source;
  int64_t lb = 0;
  bool infeasible = false;
  Rng rng;

  std::unique_ptr<ScheduleSearch> prover;
  int64_t prover_target = -1;
  int64_t prover_step = 1;
  int64_t prover_budget = 0;
  int64_t prover_spent = 0;
  int32_t prover_restarts = 0;

  // Bisection probe between the bound and the incumbent.
  std::unique_ptr<ScheduleSearch> improver;
  int64_t improver_target = -1;
  int64_t improver_budget = 0, improver_spent = 0;
  int32_t improver_restarts = 0;
  std::unique_ptr<ScheduleSearch> diver;  // holds the dives' own state

  double credit_prover = 0, credit_improver = 0, credit_dive = 0, credit_lns = 0;
  int64_t dead_dives = 0;
  int64_t nodes = 0, dives = 0, lns_moves = 0, lns_wins = 0, offers = 0, bound_raises = 0;
  int64_t lns_size = 24;

  Impl(PlanGraph graph, const EngineConfig& config)
      : g(std::move(graph)), cfg(config), rng(config.seed) {
    lb = root_bound(g);
    if (lb >= kNoCap) infeasible = true;
    SearchConfig sc = search_config(0, 0.0);
    diver = std::make_unique<ScheduleSearch>(g, sc);
    // Deterministic dives with each rule give the first incumbents.
    for (int32_t rule = 0; cfg.initial_dives && rule < kRules; ++rule) dive(rule, 0.0);
  }

  SearchConfig search_config(int32_t rule, double noise) {
    SearchConfig sc;
    sc.symmetry = cfg.symmetry;
    sc.dominance = cfg.dominance;
    sc.table_entries = cfg.table_entries;
    sc.rule = rule;
    sc.noise = noise;
    sc.seed = rng.next();
    return sc;
  }

  bool finished() const { return infeasible || (!best.empty() && lb >= best.makespan); }

  bool take(const PlanSchedule& s, const char* who) {
    if (!best.empty() && s.makespan >= best.makespan) return false;
    if (!check_plan(g, s).empty()) return false;
    best = s;
    source = who;
    diver->set_upper(s.makespan);
    return true;
  }

  bool dive(int32_t rule, double noise) {
    PlanSchedule found;
    int64_t used = 0;
    ScheduleSearch& s = *diver;
    bool ok = s.dive(&rng, noise, rule, &found, &used);
    nodes += used;
    ++dives;
    if (!ok && !s.dive_completed()) {
      // A dead end (a memory cap blocked every device): dive again with
      // chronological backtracking, a few nodes per op.
      ++dead_dives;
      ScheduleSearch retry(g, search_config(rule, noise));
      if (!best.empty()) retry.set_upper(best.makespan);
      const int64_t limit = 4 * static_cast<int64_t>(g.num_ops()) + 100;
      while (!ok && !retry.exhausted() && retry.nodes() < limit) {
        ok = retry.run(limit - retry.nodes(), &found);
      }
      nodes += retry.nodes();
    }
    return ok && take(found, "dive");
  }

  // The prover's target: the bound plus a step that doubles while probes
  // are refuted quickly (fine time units make one-tick steps slow) and
  // halves when a probe needs a restart; never at or above the incumbent.
  int64_t prover_goal() const {
    int64_t t = lb + prover_step - 1;
    if (!best.empty()) t = std::min(t, best.makespan - 1);
    return std::max(t, lb);
  }

  bool run_prover(int64_t budget) {
    bool improved = false;
    while (budget > 0 && !finished()) {
      const bool stale =
          !prover || prover_target < lb || (!best.empty() && prover_target >= best.makespan);
      if (stale) {
        prover_target = prover_goal();
        prover_restarts = 0;
        prover_budget = cfg.restart_nodes;
        prover_spent = 0;
        prover = std::make_unique<ScheduleSearch>(g, search_config(0, 0.0));
        prover->set_upper(prover_target + 1);
      } else if (prover_spent >= prover_budget) {
        ++prover_restarts;
        prover_budget += prover_budget / 2;
        prover_spent = 0;
        if (prover_target > lb) {
          prover_step = std::max<int64_t>(1, prover_step / 2);
          prover_target = prover_goal();
        }
        const int32_t rule = prover_restarts % kRules;
        const double noise = prover_restarts < kRules ? 0.0 : 0.2;
        prover = std::make_unique<ScheduleSearch>(g, search_config(rule, noise));
        prover->set_upper(prover_target + 1);
      }
      const int64_t before = prover->nodes();
      const int64_t slice = std::min(budget, prover_budget - prover_spent);
      PlanSchedule found;
      const bool hit = prover->run(slice, &found);
      const int64_t used = std::max<int64_t>(1, prover->nodes() - before);
      budget -= used;
      prover_spent += used;
      nodes += used;
      if (hit) {
        improved |= take(found, "prover");
        // At the bound itself the schedule is optimal.
        if (prover_target == lb) lb = std::max(lb, found.makespan);
      } else if (prover->exhausted()) {
        lb = prover_target + 1;
        prover_step = std::min<int64_t>(prover_step * 2, int64_t{1} << 40);
        ++bound_raises;
        improved = true;
      }
    }
    return improved;
  }

  // The improver probes halfway between the bound and the incumbent: a
  // schedule found there halves the gap from above, an exhausted probe
  // raises the bound to the target plus one; a probe that needs a restart
  // moves its target up, towards the plain search below the incumbent
  // (which, exhausted, proves the incumbent optimal).
  int64_t improver_goal() const {
    if (best.empty()) return kNoCap - 1;
    const int64_t ub = best.makespan;
    return std::max(lb, std::min(ub - 1, improver_target_base + (ub - improver_target_base) / 2));
  }
  int64_t improver_target_base = 0;

  bool run_improver(int64_t budget) {
    bool improved = false;
    while (budget > 0 && !finished()) {
      const int64_t ub = best.empty() ? kNoCap : best.makespan;
      const bool stale = !improver || improver_target < lb || improver_target >= ub;
      if (stale || improver_spent >= improver_budget) {
        if (stale) {
          improver_target_base = lb;
          improver_restarts = 0;
          improver_budget = cfg.restart_nodes;
        } else {
          // Restart nearer the incumbent, with the next rule.
          ++improver_restarts;
          improver_budget += improver_budget / 2;
          improver_target_base = improver_target + 1;
        }
        improver_spent = 0;
        improver_target = improver_goal();
        const int32_t rule = (improver_restarts + 2) % kRules;
        improver = std::make_unique<ScheduleSearch>(
            g, search_config(rule, improver_restarts < kRules ? 0.0 : 0.2));
        improver->set_upper(improver_target + 1);
      }
      const int64_t before = improver->nodes();
      const int64_t slice = std::min(budget, improver_budget - improver_spent);
      PlanSchedule found;
      const bool hit = improver->run(slice, &found);
      const int64_t used = std::max<int64_t>(1, improver->nodes() - before);
      budget -= used;
      improver_spent += used;
      nodes += used;
      if (hit) {
        improved |= take(found, "search");
      } else if (improver->exhausted()) {
        if (best.empty() && improver_target >= kNoCap - 1) {
          infeasible = true;
        } else {
          lb = std::max(lb, improver_target + 1);
        }
        ++bound_raises;
        improved = true;
      }
    }
    return improved;
  }

  bool run_lns(int64_t budget) {
    if (best.empty() || finished()) return false;
    int32_t kind = 0;
    std::vector<char> freed =
        pick_neighbourhood(g, best, static_cast<int32_t>(lns_size), &rng, &kind);
    PlanSchedule better;
    int64_t used = 0;
    const bool win = lns_move(g, best, freed, std::max<int64_t>(budget, 200), &better, &used);
    nodes += used;
    ++lns_moves;
    // Grow the neighbourhood while moves fail, shrink it after a success.
    if (win && take(better, "lns")) {
      ++lns_wins;
      lns_size = std::max<int64_t>(8, lns_size * 3 / 4);
      return true;
    }
    lns_size = std::min<int64_t>(std::max<int64_t>(8, g.num_ops()), lns_size + 2);
    return false;
  }

  bool step(int64_t work) {
    if (finished()) return false;
    work = std::max<int64_t>(work, 1);
    bool improved = false;
    const double lns_share =
        std::max(0.0, 1.0 - cfg.prover_share - cfg.improver_share - cfg.dive_share);
    credit_prover += cfg.prover_share * work;
    credit_improver += cfg.improver_share * work;
    credit_dive += cfg.dive_share * work;
    credit_lns += lns_share * work;
    if (credit_prover >= 1) {
      const int64_t b = static_cast<int64_t>(credit_prover);
      credit_prover -= b;
      improved |= run_prover(b);
    }
    if (!finished() && credit_improver >= 1) {
      const int64_t b = static_cast<int64_t>(credit_improver);
      credit_improver -= b;
      improved |= run_improver(b);
    }
    const double dive_cost = std::max<int32_t>(1, g.num_ops());
    while (!finished() && credit_dive >= dive_cost) {
      credit_dive -= dive_cost;
      improved |= dive(static_cast<int32_t>(dives % kRules), 0.3);
    }
    const double lns_quantum = 200 + g.num_ops() / 8;
    while (!finished() && credit_lns >= lns_quantum) {
      credit_lns -= lns_quantum;
      improved |= run_lns(static_cast<int64_t>(lns_quantum));
    }
    return improved;
  }
};

PlanEngine::PlanEngine(PlanGraph graph, const EngineConfig& config)
    : impl_(std::make_unique<Impl>(std::move(graph), config)) {}
PlanEngine::~PlanEngine() = default;
const PlanGraph& PlanEngine::graph() const { return impl_->g; }
bool PlanEngine::step(int64_t work) { return impl_->step(work); }
bool PlanEngine::finished() const { return impl_->finished(); }
const PlanSchedule& PlanEngine::best() const { return impl_->best; }
int64_t PlanEngine::lower_bound() const {
  if (impl_->best.empty()) return impl_->lb;
  return std::min(impl_->lb, impl_->best.makespan);
}
bool PlanEngine::offer(const PlanSchedule& schedule, const char* source) {
  ++impl_->offers;
  return impl_->take(schedule, source);
}
const std::string& PlanEngine::best_source() const { return impl_->source; }

std::string PlanEngine::stats_json() const {
  const Impl& m = *impl_;
  nlohmann::ordered_json j;
  j["phase"] = m.infeasible ? "infeasible" : m.finished() ? "optimal" : "searching";
  j["ops"] = m.g.num_ops();
  j["nodes"] = m.nodes;
  j["prover_target"] = m.prover_target;
  j["prover_restarts"] = m.prover_restarts;
  j["bound_raises"] = m.bound_raises;
  j["improver_target"] = m.improver_target;
  j["improver_restarts"] = m.improver_restarts;
  j["dives"] = m.dives;
  j["dead_end_dives"] = m.dead_dives;
  j["lns_moves"] = m.lns_moves;
  j["lns_improvements"] = m.lns_wins;
  j["offers"] = m.offers;
  j["best_source"] = m.source;
  return j.dump();
}

}  // namespace shardlab::pipeline
