// The planner's anytime portfolio (see plan/engine.h). Work is handed out
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
#include "core/pipeline/plan/engine.h"

#include <algorithm>

#include "core/pipeline/plan/bound.h"
#include "core/pipeline/plan/lns.h"
#include "core/pipeline/plan/order_search.h"
#include "core/pipeline/plan/path_place_bound.h"
#include "core/pipeline/plan/place.h"
#include "core/pipeline/plan/place_bound.h"
#include "core/pipeline/plan/relax.h"
#include "core/pipeline/plan/search.h"
#include "core/rng.h"

namespace shardlab::pipeline {
namespace {

constexpr int32_t kRules = 3;
constexpr int64_t kLnsNodes = 8;  // LNS nodes per unit of work
// Order-search moves per unit of work: a move times every slot once, a
// quarter to a sixth of what a search node costs on the same graph.
constexpr int64_t kOrderMovesPerNode = 4;
// Order-search moves without a new best of the run before it starts again
// from the incumbent.
constexpr int64_t kOrderStall = 100000;

}  // namespace

struct PlanEngine::Impl {
  PlanGraph g;
  EngineConfig cfg;
  PlanSchedule best;
  std::string source;
  int64_t lb = 0;
  bool infeasible = false;
  Rng rng;

  struct Probe {
    Probe(bool below, const char* who) : from_below(below), name(who) {}
    bool from_below;   // the prover; else the bisecting improver
    const char* name;  // the source of its schedules
    std::unique_ptr<ScheduleSearch> search;
    int64_t target = -1, base = 0, step = 1;
    int64_t budget = 0, spent = 0;
    int32_t restarts = 0;
  };
  Probe prover{true, "prover"};
  Probe improver{false, "search"};
  std::unique_ptr<ScheduleSearch> diver;    // holds the dives' own state
  std::unique_ptr<PlacementSearch> placer;  // free groups only
  // The coupled bound: provers on two-device relaxations (plan/relax.h);
  // what one proves there holds here. Stepped in turn.
  std::vector<std::unique_ptr<PlanEngine>> coupled;
  std::vector<int64_t> coupled_spent;
  size_t coupled_next = 0;
  double credit_coupled = 0;

  // The placement bounds (free groups, no pairs), stepped on top of the
  // step's work while they can still rise: first the path placement bound
  // (cheap nodes, final in well under a second on the benchmark's DAGs),
  // then the placement bound.
  std::unique_ptr<PathPlacementBound> path_placement_bound;
  std::unique_ptr<PlacementBound> placement_bound;
  double credit_placement_bound = 0;

  // Local search on device orders (fixed placements), with its own stream.
  std::unique_ptr<OrderSearch> orders;
  Rng order_rng;
  double credit_order = 0;
  int64_t order_moves = 0, order_wins = 0, order_restarts = 0;
  // The order search's best when better than `best`. Every other technique
  // works from `best` alone, so they do exactly what they do without the
  // order search and the engine's answer is never worse than theirs (its
  // schedules are poor starts for the neighbourhood search's windows).
  PlanSchedule shadow;
  static inline const std::string kOrders = "orders";
  // The best mirror-symmetric schedule known (graphs with a valid mirror,
  // PlanGraph::mirror): every other restart of the order search starts
  // there and keeps the symmetry (the first starts from the incumbent), so
  // the mirrored runs walk on from each other's best.
  PlanSchedule mirror_start;
  int64_t order_mirror_runs = 0;

  double credit_prover = 0, credit_improver = 0, credit_dive = 0, credit_lns = 0;
  int64_t dead_dives = 0;
  int64_t nodes = 0, dives = 0, lns_moves = 0, lns_wins = 0, offers = 0, bound_raises = 0;
  int64_t place_moves = 0, place_wins = 0;
  int64_t coupled_nodes = 0;
  int64_t lns_size = 24;
  PlanSchedule lns_from;  // where LNS moves start (free groups: may differ from best)
  int64_t lns_sideways = 0;

  Impl(PlanGraph graph, const EngineConfig& config)
      : g(std::move(graph)),
        cfg(config),
        rng(config.seed),
        order_rng(config.seed ^ 0x6f72646572ULL) {
    lb = root_bound(g);
    // Probes step on the time grid: no makespan lies between two points of it.
    prover.step = improver.step = g.grid;
    if (lb >= kNoCap) infeasible = true;
    SearchConfig sc = search_config(0, 0.0);
    diver = std::make_unique<ScheduleSearch>(g, sc);
    placer = std::make_unique<PlacementSearch>(g);
    if (!placer->useful()) placer.reset();
    // Deterministic dives with each rule give the first incumbents.
    for (int32_t rule = 0; cfg.initial_dives && rule < kRules; ++rule) dive(rule, 0.0);
    start_coupled();
    if (cfg.order_share > 0 && !infeasible) {
      orders = std::make_unique<OrderSearch>(g, cfg.symmetry);
      if (!orders->useful()) orders.reset();
    }
    if (cfg.placement_bound_share > 0 && !infeasible) {
      path_placement_bound = std::make_unique<PathPlacementBound>(g);
      if (path_placement_bound->useful()) {
        raise_to(path_placement_bound->bound());
      } else {
        path_placement_bound.reset();
      }
      placement_bound = std::make_unique<PlacementBound>(g);
      if (placement_bound->useful()) {
        raise_to(placement_bound->bound());
      } else {
        placement_bound.reset();
      }
    }
  }

  // Raises the bound to what a relaxation proves (the coupled provers'
  // bounds, the placement bound), on the grid. kNoCap is refused: there a
  // relaxation found no point (every placement infeasible, or a two-device
  // relaxation without a schedule), which this engine's own search decides.
  bool raise_to(int64_t proven) {
    proven = g.on_grid(proven);
    if (proven <= lb || proven >= kNoCap) return false;
    lb = proven;
    ++bound_raises;
    return true;
  }

  bool placement_bounds_open() const {
    return (path_placement_bound && !path_placement_bound->done()) ||
           (placement_bound && !placement_bound->done());
  }

  // The placement bounds' share of a step (plan/path_place_bound.h, then
  // plan/place_bound.h).
  bool step_placement_bound(int64_t work) {
    credit_placement_bound += cfg.placement_bound_share * work;
    if (credit_placement_bound < 1) return false;
    const auto b = static_cast<int64_t>(credit_placement_bound);
    credit_placement_bound -= b;
    const int64_t upper = best.empty() ? kNoCap : best.makespan;
    if (path_placement_bound && !path_placement_bound->done()) {
      path_placement_bound->step(b, upper);
      return raise_to(path_placement_bound->bound());
    }
    placement_bound->step(b, upper);
    return raise_to(placement_bound->bound());
  }

  // Only where the one-device bounds are weakest: pairs that gain and
  // delays between devices.
  void start_coupled() {
    if (cfg.coupled_share <= 0 || infeasible || !g.any_pairs) return;
    bool delays = false;
    for (const PlanArc& a : g.arcs) delays |= g.min_delay(a) > 0;
    if (!delays) return;
    EngineConfig sub = cfg;
    sub.coupled_share = 0;  // no relaxation of the relaxation
    sub.order_share = 0;    // a prover only
    sub.prover_share = 1.0;
    sub.improver_share = sub.dive_share = 0;
    sub.table_entries = cfg.table_entries / 4;  // up to four of them beside this one
    for (const std::vector<int32_t>& keep : coupled_devices(g)) {
      PlanGraph relaxed;
      if (!relax_to_devices(g, keep, &relaxed)) continue;
      coupled.push_back(std::make_unique<PlanEngine>(std::move(relaxed), sub));
      coupled_spent.push_back(0);
      raise_to(coupled.back()->lower_bound());
    }
  }

  // A coupled prover stops when it has proven its relaxation's optimum or
  // spent its budget (most relaxations of a long pipeline are decided in a
  // few thousand nodes or not at all).
  bool coupled_open(size_t k) const {
    return !coupled[k]->finished() && coupled_spent[k] < cfg.coupled_budget;
  }
  bool coupled_running() const {
    for (size_t k = 0; k < coupled.size(); ++k) {
      if (coupled_open(k)) return true;
    }
    return false;
  }

  // The coupled provers' share of a step, to the next open one. It comes on
  // top of the step's work, so the planner's own search is the same with
  // or without them; their budgets bound what they add.
  bool step_coupled(int64_t work) {
    credit_coupled += cfg.coupled_share * work;
    if (credit_coupled < 1) return false;
    for (size_t tries = 0; tries < coupled.size(); ++tries) {
      const size_t k = coupled_next;
      coupled_next = (coupled_next + 1) % coupled.size();
      if (!coupled_open(k)) continue;
      const int64_t b = static_cast<int64_t>(credit_coupled);
      credit_coupled -= b;
      coupled[k]->step(b);
      coupled_spent[k] += b;
      coupled_nodes += b;
      return raise_to(coupled[k]->lower_bound());
    }
    credit_coupled = 0;  // all closed
    return false;
  }

  // The order search's share of a step: it starts from the incumbent, and
  // starts again when its run has stalled (not when another technique
  // finds a better schedule: its run goes on where it is), from the
  // incumbent or, every other time, mirrored from mirror_start.
  bool step_orders(int64_t work) {
    credit_order += cfg.order_share * work;
    if (credit_order < 1 || result().empty()) return false;
    const auto units = static_cast<int64_t>(credit_order);
    credit_order -= static_cast<double>(units);
    const int64_t moves = units * kOrderMovesPerNode;
    if (!orders->started() || orders->stalled() > kOrderStall) {
      const bool mirror = !mirror_start.empty() && order_restarts % 2 == 1;
      orders->reset(mirror ? mirror_start : result(), mirror);
      ++order_restarts;
      order_mirror_runs += orders->mirrored();
      if (!orders->started()) return false;
    }
    PlanSchedule found;
    const int64_t before = orders->moves();
    // A mirrored run reports what beats the best symmetric schedule, which
    // the next mirrored restart then starts from.
    const int64_t upper = orders->mirrored() ? mirror_start.makespan : result().makespan;
    const bool hit = orders->run(moves, upper, &order_rng, &found);
    order_moves += orders->moves() - before;
    if (hit && orders->mirrored()) note_mirror(found);
    if (hit && take_shadow(found)) {
      ++order_wins;
      return true;
    }
    return false;
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

  bool finished() const { return infeasible || (!result().empty() && lb >= result().makespan); }

  // Whether `s` is a valid schedule shorter than `than` (or than nothing).
  bool improves(const PlanSchedule& s, const PlanSchedule& than) const {
    return (than.empty() || s.makespan < than.makespan) && check_plan(g, s).empty();
  }

  bool take(const PlanSchedule& s, const char* who) {
    note_mirror(s);
    if (!improves(s, best)) return false;
    best = s;
    source = who;
    diver->set_upper(s.makespan);
    return true;
  }

  // Keeps s as mirror_start when it is mirror-symmetric, valid and better.
  void note_mirror(const PlanSchedule& s) {
    if (!orders || !orders->can_mirror() || !mirror_symmetric(g, s)) return;
    if (!mirror_start.empty() && s.makespan >= mirror_start.makespan) return;
    if (check_plan(g, s).empty()) mirror_start = s;
  }

  // The order search's schedules are kept apart (see `shadow`).
  bool take_shadow(const PlanSchedule& s) {
    if (!improves(s, result())) return false;
    shadow = s;
    return true;
  }

  // The engine's answer: the better of the two incumbents.
  const PlanSchedule& result() const {
    const bool own = !shadow.empty() && (best.empty() || shadow.makespan < best.makespan);
    return own ? shadow : best;
  }
  const std::string& result_source() const { return &result() == &shadow ? kOrders : source; }

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

  // A probe asks the search for a schedule of makespan <= target. The
  // prover's target is the bound plus a step that doubles while probes are
  // refuted quickly (fine time units make one-tick steps slow) and halves
  // on a restart. The improver's is halfway between a base (the bound, then
  // past each stalled target) and the incumbent, so a find halves the gap
  // from above and a stalled probe moves towards the plain search below
  // the incumbent (which, exhausted, proves it optimal). Either way an
  // exhausted probe raises the bound to its target plus one.
  int64_t goal(const Probe& p) const {
    const int64_t ub = best.empty() ? kNoCap : best.makespan;
    if (p.from_below) return std::max(lb, std::min(lb + p.step - 1, ub - 1));
    if (best.empty()) return kNoCap - 1;
    // A grid point less one: "at most target" then covers up to the next point.
    const int64_t mid = g.on_grid(p.base + (ub - p.base) / 2 + 1) - 1;
    return std::max(lb, std::min(ub - 1, mid));
  }

  bool run_probe(Probe& p, int64_t budget) {
    bool improved = false;
    const PlanGraph& graph = g;
    while (budget > 0 && !finished()) {
      const int64_t ub = best.empty() ? kNoCap : best.makespan;
      const bool stale = !p.search || p.target < lb || p.target >= ub;
      if (stale || p.spent >= p.budget) {
        if (stale) {
          p.restarts = 0;
          p.budget = cfg.restart_nodes;
          p.base = lb;
        } else {
          ++p.restarts;
          p.budget += p.budget / 2;
          if (p.from_below) {
            p.step = std::max<int64_t>(g.grid, p.step / 2 / g.grid * g.grid);
          } else {
            p.base = p.target + 1;
          }
        }
        p.spent = 0;
        p.target = goal(p);
        // Each restart takes the next child-order rule, then noisy ones.
        const int32_t rule = (p.restarts + (p.from_below ? 0 : 2)) % kRules;
        p.search = std::make_unique<ScheduleSearch>(
            graph, search_config(rule, p.restarts < kRules ? 0.0 : 0.2));
        p.search->set_upper(p.target + 1);
      }
      const int64_t before = p.search->nodes();
      PlanSchedule found;
      const bool hit = p.search->run(std::min(budget, p.budget - p.spent), &found);
      const int64_t used = std::max<int64_t>(1, p.search->nodes() - before);
      budget -= used;
      p.spent += used;
      nodes += used;
      if (hit) {
        improved |= take(found, p.name);
        if (p.target == lb) lb = std::max(lb, found.makespan);  // at the bound: optimal
      } else if (p.search->exhausted()) {
        if (best.empty() && p.target >= kNoCap - 1) {
          infeasible = true;
        } else {
          lb = std::max(lb, g.on_grid(p.target + 1));
        }
        if (p.from_below) p.step = std::min<int64_t>(p.step * 2, int64_t{1} << 40);
        ++bound_raises;
        improved = true;
      }
    }
    return improved;
  }

  bool run_lns(int64_t budget) {
    if (best.empty() || finished()) return false;
    // With free groups the moves start from a schedule as long as the
    // incumbent that earlier moves reached sideways (a repair as long as its
    // start replaces it), so the search walks the incumbent's plateau
    // instead of retrying the one schedule it stalled at.
    const bool sideways = placer != nullptr;
    if (sideways && (lns_from.empty() || lns_from.makespan != best.makespan)) lns_from = best;
    const PlanSchedule& from = sideways ? lns_from : best;
    int32_t kind = 0;
    std::vector<char> freed =
        pick_neighbourhood(g, from, static_cast<int32_t>(lns_size), &rng, &kind);
    PlanSchedule better;
    int64_t used = 0;
    const bool win = lns_move(g, from, freed, std::max<int64_t>(budget, 200), &better, &used,
                              from.makespan + (sideways ? 1 : 0));
    nodes += used;
    ++lns_moves;
    // Grow the neighbourhood while moves fail, shrink it after a success.
    if (win && better.makespan < best.makespan && take(better, "lns")) {
      ++lns_wins;
      lns_size = std::max<int64_t>(8, lns_size * 3 / 4);
      return true;
    }
    if (win && sideways) {
      lns_from = std::move(better);
      ++lns_sideways;
    }
    // Past about a hundred ops a move rarely completes within its budget:
    // start small again.
    lns_size += 2;
    if (lns_size > std::min<int64_t>(96, std::max<int64_t>(8, g.num_ops()))) lns_size = 8;
    return false;
  }

  bool step(int64_t work) {
    if (finished()) return false;
    work = std::max<int64_t>(work, 1);
    bool improved = false;
    // On large DAGs (PlanGraph::large_dag, plan/graph.h), the
    // improver's share and half the dives' go to LNS: there the improver's
    // search below the incumbent never completes, and LNS finds the
    // incumbents after the first second (placement moves: 1 of 172 improved
    // on the benchmark's 258-op DAG at 700,000 work).
    const bool large = g.large_dag;
    const double improver_share = large ? 0.0 : cfg.improver_share;
    const double dive_share = large ? cfg.dive_share / 2 : cfg.dive_share;
    const double lns_share = std::max(0.0, 1.0 - cfg.prover_share - improver_share - dive_share);
    credit_prover += cfg.prover_share * work;
    credit_improver += improver_share * work;
    credit_dive += dive_share * work;
    credit_lns += lns_share * work;
    if (coupled_running()) improved |= step_coupled(work);
    if (placement_bounds_open()) improved |= step_placement_bound(work);
    if (orders) improved |= step_orders(work);
    if (credit_prover >= 1) {
      const int64_t b = static_cast<int64_t>(credit_prover);
      credit_prover -= b;
      improved |= run_probe(prover, b);
    }
    if (!finished() && credit_improver >= 1) {
      const int64_t b = static_cast<int64_t>(credit_improver);
      credit_improver -= b;
      improved |= run_probe(improver, b);
    }
    // With free groups, every other dive's credit goes to a placement move
    // (a few dives of pinned placements).
    const double dive_cost = std::max<int32_t>(1, g.num_ops());
    while (!finished() && credit_dive >= dive_cost) {
      credit_dive -= dive_cost;
      if (placer && dives % 2 == 1) {
        ++dives;
        PlanSchedule found;
        int64_t used = 0;
        ++place_moves;
        if (placer->step(best, &rng, &found, &used) && take(found, "placement")) {
          improved = true;
          ++place_wins;
        }
        nodes += used;
        credit_dive -= std::max<double>(0, static_cast<double>(used) - dive_cost);
        continue;
      }
      improved |= dive(static_cast<int32_t>(dives % kRules), 0.3);
    }
    // A neighbourhood search needs a few nodes per op to reach a leaf, but
    // its nodes are cheap (forced steps, the cheap bound): a move of
    // kLnsNodes * quantum nodes is charged quantum.
    const double lns_quantum = 25 + g.num_ops() / 4.0;
    while (!finished() && credit_lns >= lns_quantum) {
      credit_lns -= lns_quantum;
      improved |= run_lns(static_cast<int64_t>(kLnsNodes * lns_quantum));
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
const PlanSchedule& PlanEngine::best() const { return impl_->result(); }
int64_t PlanEngine::lower_bound() const {
  if (impl_->result().empty()) return impl_->lb;
  return std::min(impl_->lb, impl_->result().makespan);
}
bool PlanEngine::offer(const PlanSchedule& schedule, const char* source) {
  ++impl_->offers;
  return impl_->take(schedule, source);
}
const std::string& PlanEngine::best_source() const { return impl_->result_source(); }

Counters PlanEngine::counters() const {
  const Impl& m = *impl_;
  Counters c;
  c.add("pairs", m.g.any_pairs);
  c.add("phase", m.infeasible ? "infeasible" : m.finished() ? "optimal" : "searching");
  c.add("ops", m.g.num_ops());
  c.add("nodes", m.nodes);
  c.add("prover_target", m.prover.target);
  c.add("prover_restarts", m.prover.restarts);
  c.add("bound_raises", m.bound_raises);
  c.add("improver_target", m.improver.target);
  c.add("improver_restarts", m.improver.restarts);
  c.add("dives", m.dives);
  c.add("dead_end_dives", m.dead_dives);
  c.add("lns_moves", m.lns_moves);
  c.add("lns_improvements", m.lns_wins);
  c.add("lns_sideways", m.lns_sideways);
  c.add("placement_moves", m.place_moves);
  c.add("placement_improvements", m.place_wins);
  c.add("order_moves", m.order_moves);
  c.add("order_improvements", m.order_wins);
  c.add("order_restarts", m.order_restarts);
  c.add("order_mirror_runs", m.order_mirror_runs);
  c.add("offers", m.offers);
  c.add("coupled_nodes", m.coupled_nodes);
  int64_t coupled_bound = -1;
  for (const auto& e : m.coupled)
    coupled_bound = std::max(coupled_bound, m.g.on_grid(e->lower_bound()));
  c.add("coupled_bound", coupled_bound);
  c.add("placement_bound_evaluations",
        m.placement_bound ? m.placement_bound->evaluations() : int64_t{0});
  c.add("placement_bound_open", m.placement_bound ? m.placement_bound->open() : int64_t{0});
  c.add("path_placement_bound_evaluations",
        m.path_placement_bound ? m.path_placement_bound->evaluations() : int64_t{0});
  c.add("best_source", m.result_source());
  return c;
}

}  // namespace shardlab::pipeline
