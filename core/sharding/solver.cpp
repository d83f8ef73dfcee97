// The Engine facade and the portfolio loop. An Engine presolves the instance
// (core/sharding/presolve.h), then alternates Lagrangian rounds on the core: message
// passing on the penalised network (search/message_passing.h) gives a dual
// bound, certified exactly (bound.h), and a decoded plan, which is repaired
// and improved under the hard memory limit (search/local_search.h) before it
// can become the incumbent. Plans go back to the original problem through
// Presolved::expand and are re-checked by evaluate() before anyone sees them.
#include "core/sharding/solver.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <span>

#include "core/rng.h"
#include "core/sharding/bound.h"
#include "core/sharding/evaluate.h"
#include "core/sharding/presolve.h"
#include "core/sharding/search/block_search.h"
#include "core/sharding/search/class_branch.h"
#include "core/sharding/search/core_state.h"
#include "core/sharding/search/exhaustive.h"
#include "core/sharding/search/lagrangian.h"
#include "core/sharding/search/local_search.h"
#include "core/sharding/search/message_passing.h"
#include "core/sharding/search/region_exact.h"
#include "core/sharding/search/relink.h"

#ifndef __EMSCRIPTEN__
#include <thread>
#endif

namespace shardlab {
namespace {

uint64_t engine_seed(const Options& options, int32_t index) {
  return static_cast<uint64_t>(options.seed) * 0x9e3779b97f4a7c15ULL +
         static_cast<uint64_t>(index) * 0xd1b54a32d192ed03ULL + 1;
}

// One work unit of step() is about this many matrix-entry visits.
constexpr int64_t kVisitsPerUnit = 1000;

// Search-node budget of the exact branch and bound run on small cores.
constexpr int64_t kExhaustiveBudget = 200000;

// Exact solves of component pairs (Engine::pair_round): pieces of at most
// kPairPieceNodes nodes, kPairNodes together, kPairSearchNodes search nodes
// per solve, kPairTries pairs per round, once the block search has failed
// kPairStall times in a row.
constexpr size_t kPairPieceNodes = 16;
constexpr size_t kPairNodes = 24;
constexpr int64_t kPairSearchNodes = 200000;
constexpr int32_t kPairTries = 4;
constexpr int64_t kPairStall = 150;

// The proof search (ClassBranch) runs on engine 0 for cores of at most
// kProofNodes nodes whose memory binds, once the Lagrangian dual has not
// improved for kProofStall rounds and the bound is still more than
// options.proof_gap (relative) below the incumbent; it then takes
// kProofShare of the work.
constexpr int32_t kProofNodes = 400;
constexpr int64_t kProofStall = 50;
constexpr double kProofShare = 0.75;

// The plan with the least total usage (usage times duration), ties to the
// cheaper strategy: a memory-friendly start for repair.
std::vector<int32_t> light_plan(const CoreModel& core) {
  std::vector<int32_t> plan(core.num_nodes(), 0);
  for (int32_t x = 0; x < core.num_nodes(); ++x) {
    int64_t best_use = -1;
    for (int32_t s = 0; s < core.num_strategies(x); ++s) {
      int64_t use = 0;
      for (int32_t i = core.term_begin[x]; i < core.term_begin[x + 1]; ++i) {
        use += core.term_use(i, s) * (core.term_hi[i] - core.term_lo[i]);
      }
      if (best_use < 0 || use < best_use ||
          (use == best_use && core.node_cost(x, s) < core.node_cost(x, plan[x]))) {
        best_use = use;
        plan[x] = s;
      }
    }
  }
  return plan;
}

}  // namespace

struct Engine::Impl {
  Impl(const Problem& problem, const Options& options, int32_t index)
      : problem(problem), options(options), index(index), rng(engine_seed(options, index)) {
    Result<Presolved> result = presolve(problem);
    if (!result.is_ok()) {
      impossible = true;
      return;
    }
    pre = std::move(result).value();
    if (pre.infeasible()) {
      impossible = true;
      return;
    }
    const CoreModel& core = pre.core();
    bound = separable_bound(core) + core.constant;
    mp_entries = static_cast<int64_t>(core.unary.size()) + 1;
    for (int32_t e = 0; e < core.num_edges(); ++e) {
      mp_entries += static_cast<int64_t>(core.num_strategies(core.edge_u[e])) *
                    core.num_strategies(core.edge_v[e]);
    }
    mp = std::make_unique<MessagePassing>(core);
    lagrangian = std::make_unique<Lagrangian>(core);
    // Portfolio diversity: odd engines take shorter subgradient steps.
    if (index % 2 == 1) lagrangian->set_step_factor(0.3);
    search = std::make_unique<LocalSearch>(core, rng.next());
    blocks = std::make_unique<BlockSearch>(core, rng.next());
    relink = std::make_unique<Relink>(core);
    proof_enabled = index == 0 && ClassBranch::applicable(core, kProofNodes);
    int64_t work = 50 * mp_entries;
    consider(light_plan(core), &work);
    // Small cores are solved outright: optimal, with a matching bound.
    if (core.num_nodes() <= options.exact_max_nodes) {
      const ExhaustiveResult exact = solve_exhaustively(
          core, kExhaustiveBudget, have_core_best ? core_best.plan() : std::vector<int32_t>());
      if (exact.found) capture(CoreState(core, exact.plan));
      if (exact.complete) {
        phase = "exact";
        if (exact.found) {
          bound = std::max(bound, exact.cost + core.constant);
        } else {
          impossible = true;
        }
      }
    }
    publish();
    if (phase == "presolve") phase = "lagrangian";
  }

  // Repairs and improves a core plan; makes it the incumbent if better.
  // Repair and descent get their own allowance (a few message-passing
  // sweeps' worth), charged to *work afterwards: a round's message passing
  // may already exceed one step's budget on big cores.
  bool consider(std::vector<int32_t> plan, int64_t* work) {
    const CoreModel& core = pre.core();
    CoreState state(core, std::move(plan));
    int64_t allowance = 8 * mp_entries + 100000;
    const int64_t start = allowance;
    allowance -= core.num_nodes() + core.num_edges() + core.num_terms();
    bool ok = state.forbidden() == 0;
    if (ok && state.excess() > 0) {
      ++repairs;
      ok = search->repair(&state, &allowance);
    }
    if (ok) moves += search->descend(&state, &allowance);
    *work -= start - allowance;
    return ok && capture(state);
  }

  // Takes a feasible core plan as the core incumbent when it is cheaper.
  // The original plan is built and checked later, in publish().
  bool capture(const CoreState& state) {
    if (!state.feasible()) return false;
    if (have_core_best && core_best.cost() <= state.cost()) return false;
    core_best = state;
    have_core_best = true;
    pending = true;
    return true;
  }

  // Expands the core incumbent, re-checks it with evaluate() and makes it
  // best() when it beats the current one. Done once per step, not per move:
  // evaluating 30k-node plans after every small improvement is costly.
  bool publish() {
    if (!pending) return false;
    pending = false;
    const CoreModel& core = pre.core();
    const int64_t cost = core_best.cost() + core.constant;
    if (best.found() && best.cost <= cost) return false;
    std::vector<int32_t> plan = pre.expand(core_best.plan());
    const Evaluation check = evaluate(problem, plan);
    if (!check.feasible() || check.cost != static_cast<Int128>(cost)) {
      ++expand_mismatches;  // a presolve bug; never hand out the plan
      return false;
    }
    best.solution = std::move(plan);
    best.cost = cost;
    return true;
  }

  // The cost of the best plan known to this engine (published or not).
  int64_t known_cost() const {
    int64_t cost = best.found() ? best.cost : INT64_MAX;
    if (have_core_best) cost = std::min(cost, core_best.cost() + pre.core().constant);
    return cost;
  }

  // One Lagrangian round: penalised message passing, dual, decoded plan.
  bool lagrangian_round(int64_t* work) {
    const CoreModel& core = pre.core();
    bool improved = false;
    lagrangian->penalised_unary(&unary);
    mp->set_unary(unary);
    const int32_t iterations = static_cast<int32_t>(std::max<int64_t>(1, options.mp_iterations));
    mp->run(iterations);
    *work -= 2 * iterations * mp_entries;
    const double dual = mp->dual() - lagrangian->capacity_term();
    *work -= mp_entries;
    ++rounds;
    // The dual stalls when the multipliers have converged (as far as
    // subgradient steps take them): then block search gets more work.
    if (dual > best_dual + 1e-6 * std::max(1.0, std::abs(best_dual))) {
      best_dual = dual;
      lag_stall = 0;
    } else {
      ++lag_stall;
    }
    // Certify when the double dual promises a better bound (or optimality).
    const double promised = dual + static_cast<double>(core.constant);
    if (promised > static_cast<double>(bound) + 0.5 &&
        (rounds - last_certified >= 10 ||
         (known_cost() != INT64_MAX && promised >= static_cast<double>(known_cost()) - 1.0))) {
      last_certified = rounds;
      ++certifications;
      *work -= 3 * mp_entries;
      const int64_t certified =
          certify_bound(core, lagrangian->lambda(), mp->messages(), mp->message_begins());
      if (certified != kNoBound && certified + core.constant > bound) {
        bound = certified + core.constant;
        improved = true;
      }
    }
    std::vector<int32_t> plan;
    mp->decode(&plan);
    last_decoded = plan;
    *work -= mp_entries / 2;
    // The incumbent with the decoded plan's changes that pay off together.
    if (have_core_best && relink->recombine(core_best, plan, &mixed, work) &&
        consider(mixed, work)) {
      ++relinks;
      improved = true;
    } else if (have_core_best && lns_failures >= kPairStall && pair_round(work)) {
      improved = true;
    }
    if (consider(plan, work)) improved = true;
    const int64_t known = known_cost();
    const double target =
        known != INT64_MAX ? static_cast<double>(known - core.constant) : std::abs(dual) * 1.1 + 1;
    lagrangian->update(plan, dual, target);
    return improved;
  }

  // Block search on the incumbent: regions grown from random nodes, with
  // seeded variation of their size and cutset budget.
  bool lns_round(int64_t* work) {
    const CoreModel& core = pre.core();
    if (!have_core_best || core.num_nodes() == 0) return false;
    ++lns_rounds;
    // Region size and search effort escalate with the streak of regions
    // that found nothing: a local optimum for small regions calls for
    // larger ones (more nodes, more memory partners, a bigger cutset).
    const int32_t level = static_cast<int32_t>(std::min<int64_t>(3, lns_failures / 150));
    BlockSearch::Params params;
    params.max_nodes = 12 + 8 * level + static_cast<int32_t>(rng.below(24));
    params.max_key_nodes = 4 + 2 * level + static_cast<int32_t>(rng.below(8));
    params.partners = std::min(4, level + static_cast<int32_t>(rng.below(4)));
    // Cutset nodes are branched on lazily, so a large product is affordable.
    params.max_cutset = std::min(4, 1 + level / 2 + static_cast<int32_t>(rng.below(3)));
    // (Big cores have nodes with hundreds of strategies and hub nodes: keep
    // their cutsets small.)
    const bool small = core.num_nodes() <= 1000;
    params.max_cutset_product = !small ? 256 : (rng.below(2) == 0 && level == 0 ? 1024 : 65536);
    params.max_search_nodes = (200 + static_cast<int32_t>(rng.below(800))) << level;
    // Half of the roots come from where the last Lagrangian plan disagrees
    // with the incumbent: the penalised optimum hints at what should move.
    int32_t root = static_cast<int32_t>(rng.below(static_cast<uint32_t>(core.num_nodes())));
    if (!last_decoded.empty() && rng.below(2) == 0) {
      std::vector<int32_t> differ;
      for (int32_t x = 0; x < core.num_nodes(); ++x) {
        if (last_decoded[x] != core_best.at(x)) differ.push_back(x);
      }
      *work -= core.num_nodes();
      if (!differ.empty()) root = differ[rng.below(static_cast<uint32_t>(differ.size()))];
    }
    const bool improved = blocks->improve(&core_best, root, params, work);
    *work -= 64;  // a floor, so that empty regions still cost something
    if (!improved) {
      ++lns_failures;
      return false;
    }
    lns_failures = 0;
    ++lns_improvements;
    return capture_current();
  }

  // Exact solution of the union of two small components where the
  // Lagrangian plan and the incumbent differ (Relink's last components):
  // the joint move of a gain and a distant payer, in whatever strategies
  // pay off, not only the decoded ones. Run once the block search stalls.
  bool pair_round(int64_t* work) {
    std::vector<int32_t> small;
    for (int32_t k = 0; k < relink->num_components(); ++k) {
      if (relink->component(k).size() <= kPairPieceNodes) small.push_back(k);
    }
    if (small.size() < 2) return false;
    for (int32_t tries = 0; tries < kPairTries; ++tries) {
      const size_t a = rng.below(static_cast<uint32_t>(small.size()));
      size_t b = rng.below(static_cast<uint32_t>(small.size() - 1));
      if (b >= a) ++b;
      const std::span<const int32_t> first = relink->component(small[a]);
      const std::span<const int32_t> second = relink->component(small[b]);
      if (first.size() + second.size() > kPairNodes) continue;
      std::vector<int32_t> nodes(first.begin(), first.end());
      nodes.insert(nodes.end(), second.begin(), second.end());
      ++pair_attempts;
      if (improve_region_exactly(&core_best, nodes, kPairSearchNodes, work)) {
        ++pair_improvements;
        return capture_current();
      }
    }
    return false;
  }

  // core_best was improved in place.
  bool capture_current() {
    pending = true;
    return true;
  }

  bool proven() const { return known_cost() != INT64_MAX && bound >= known_cost(); }
  bool expired() const { return has_deadline && std::chrono::steady_clock::now() >= deadline; }

  bool proof_turn() const {
    if (!proof_enabled || !have_core_best || lag_stall < kProofStall) return false;
    if (proof && (proof->over() || proof->full())) return false;
    const double known = static_cast<double>(known_cost());
    if (!proof && static_cast<double>(bound) >= known - options.proof_gap * std::abs(known))
      return false;
    return proof_spent < kProofShare * (proof_spent + lns_spent + lag_spent);
  }

  // A stretch of the proof search; its bound (and an optimal leaf plan, if
  // it ends on one) go to the engine.
  bool proof_round(int64_t* work) {
    const CoreModel& core = pre.core();
    if (!proof) proof = std::make_unique<ClassBranch>(core);
    proof->run(known_cost() - core.constant, work, [this] { return expired(); });
    bool improved = false;
    if (proof->over() && !proof->leaf_plan().empty()) {
      const std::vector<int32_t> plan = proof->leaf_plan();
      improved = consider(plan, work);
    }
    const int64_t b = proof->bound();
    if (b != kNoBound && b + core.constant > bound) {
      bound = b + core.constant;
      improved = true;
    }
    return improved;
  }

  const Problem& problem;
  Options options;
  int32_t index;
  Rng rng;
  bool has_deadline = false;  // set_time_left(): the page's wall-clock limit
  std::chrono::steady_clock::time_point deadline;
  Presolved pre;
  std::unique_ptr<MessagePassing> mp;
  std::unique_ptr<Lagrangian> lagrangian;
  std::unique_ptr<LocalSearch> search;
  std::unique_ptr<BlockSearch> blocks;
  std::unique_ptr<Relink> relink;
  std::unique_ptr<ClassBranch> proof;
  bool proof_enabled = false;
  double proof_spent = 0;
  std::vector<int32_t> mixed;  // recombined plans
  std::vector<double> unary;
  Incumbent best;
  CoreState core_best;
  bool have_core_best = false;
  bool pending = false;  // core_best is better than what best() shows
  int64_t bound = 0;
  bool impossible = false;
  int64_t mp_entries = 1;
  std::string phase = "presolve";
  int64_t rounds = 0;
  int64_t moves = 0;
  int64_t repairs = 0;
  int64_t certifications = 0;
  int64_t last_certified = -100;
  int64_t expand_mismatches = 0;
  int64_t offers = 0;
  int64_t lns_rounds = 0;
  int64_t lns_improvements = 0;
  int64_t lns_failures = 0;   // regions in a row that found nothing
  int64_t relinks = 0;        // improvements by recombination
  int64_t pair_attempts = 0;  // exact solves of component pairs
  int64_t pair_improvements = 0;
  std::vector<int32_t> last_decoded;  // the last Lagrangian round's plan
  double lns_spent = 0;
  double lag_spent = 0;
  int64_t lag_stall = 0;  // Lagrangian rounds since the dual last improved
  double best_dual = -1e300;

  double lns_share() const {
    double base = options.lns_share;
    if (index % 2 == 1) base = std::min(1.0, base + 0.3);
    if (lag_stall >= 200) return std::max(base, 0.8);
    if (lag_stall >= 50) return std::max(base, 0.5);
    return base;
  }
};

Engine::Engine(const Problem& problem, const Options& options, int32_t index)
    : impl_(std::make_unique<Impl>(problem, options, index)) {}

Engine::~Engine() = default;

bool Engine::step(int64_t work) {
  Impl& s = *impl_;
  if (finished()) return false;
  int64_t visits = std::max<int64_t>(work, 1) * kVisitsPerUnit;
  bool improved = false;
  while (visits > 0 && !finished()) {
    // Between two rounds is a safe place to stop: the state is whole.
    if (s.expired()) break;
    // Work goes to whichever method has spent less than its share. Block
    // search starts with a base share (engine-dependent, so a portfolio has
    // one Lagrangian-heavy and one search-heavy engine) that grows while the
    // Lagrangian rounds stop improving the incumbent.
    const double share = s.lns_share();
    // On small cores with tight memory, engine 0 also runs the proof search.
    const bool proof_turn = s.proof_turn();
    const bool lns_turn = s.have_core_best && s.lns_spent < share * (s.lns_spent + s.lag_spent);
    const int64_t before_visits = visits;
    bool got = false;
    if (proof_turn) {
      got = s.proof_round(&visits);
    } else if (lns_turn) {
      got = s.lns_round(&visits);
    } else {
      got = s.lagrangian_round(&visits);
    }
    improved = improved || got;
    (proof_turn ? s.proof_spent
     : lns_turn ? s.lns_spent
                : s.lag_spent) += static_cast<double>(before_visits - visits);
  }
  if (s.publish()) improved = true;
  return improved;
}

void Engine::set_time_left(double time_left_s) {
  Impl& s = *impl_;
  s.has_deadline = std::isfinite(time_left_s) && time_left_s >= 0;
  if (!s.has_deadline) return;
  s.deadline = std::chrono::steady_clock::now() +
               std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                   std::chrono::duration<double>(time_left_s));
}

bool Engine::finished() const {
  const Impl& s = *impl_;
  return s.impossible || s.proven();
}

const Incumbent& Engine::best() const { return impl_->best; }

int64_t Engine::lower_bound() const {
  const Impl& s = *impl_;
  return s.best.found() ? std::min(s.bound, s.best.cost) : s.bound;
}

bool Engine::offer(const std::vector<int32_t>& solution) {
  Impl& s = *impl_;
  if (s.impossible) return false;
  if (static_cast<int32_t>(solution.size()) != s.problem.num_nodes()) return false;
  const Evaluation check = evaluate(s.problem, solution);
  if (!check.feasible()) return false;
  if (s.best.found() && static_cast<Int128>(s.best.cost) <= check.cost) return false;
  ++s.offers;
  s.best.solution = solution;
  s.best.cost = static_cast<int64_t>(check.cost);
  // Continue the search from the offered plan when the core represents it
  // exactly (always so for plans from another engine of the same build).
  const CoreModel& core = s.pre.core();
  CoreState state(core, s.pre.restrict_plan(solution));
  if (state.feasible() && state.cost() + core.constant == s.best.cost) {
    s.core_best = state;
    s.have_core_best = true;
  }
  return true;
}

Counters Engine::counters() const {
  const Impl& s = *impl_;
  Counters c;
  c.add("phase", s.impossible ? "infeasible" : (s.proven() ? "optimal" : s.phase));
  c.add("rounds", s.rounds);
  c.add("moves", s.moves);
  c.add("sweeps", s.mp ? s.mp->sweeps() : 0);
  c.add("repairs", s.repairs);
  c.add("certifications", s.certifications);
  c.add("offers", s.offers);
  c.add("lns_rounds", s.lns_rounds);
  c.add("lns_improvements", s.lns_improvements);
  c.add("relinks", s.relinks);
  c.add("pair_attempts", s.pair_attempts);
  c.add("pair_improvements", s.pair_improvements);
  if (s.proof) {
    c.add("proof_expanded", s.proof->expanded());
    c.add("proof_open", s.proof->open_branches());
  }
  if (s.expand_mismatches > 0) c.add("expand_mismatches", s.expand_mismatches);
  c.add("presolve", s.pre.stats().counters());
  return c;
}

Progress progress_of(const Engine& engine, double elapsed_s) {
  Progress p;
  p.elapsed_s = elapsed_s;
  p.found = engine.best().found();
  p.incumbent = p.found ? static_cast<double>(engine.best().cost) : 0;
  p.bound = static_cast<double>(engine.lower_bound());
  p.finished = engine.finished();
  p.counters = engine.counters();
  return with_gap(p);
}

// ---------------------------------------------------------------- portfolio

namespace {

// About 20 ms of search natively (kVisitsPerUnit entry visits per unit).
constexpr int64_t kStepWork = 20000;

class Clock {
 public:
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// The shared best plan and bound; engines copy from it between steps.
class Board {
 public:
  Board(const ProgressSink& sink, const Interrupt* interrupt)
      : sink_(sink), interrupt_(interrupt) {}

  // Publishes an engine's state; returns false when the sink asked to stop.
  bool publish(const Engine& engine, int32_t index, double seconds) {
    std::lock_guard<std::mutex> lock(mutex_);
    bool improved = false;
    const Incumbent& mine = engine.best();
    if (mine.found() && (!best_.found() || mine.cost < best_.cost)) {
      best_ = mine;
      ++version_;
      improved = true;
    }
    if (engine.lower_bound() > bound_) {
      bound_ = engine.lower_bound();
      improved = true;
    }
    if (best_.found() && bound_ > best_.cost) bound_ = best_.cost;
    if (!improved) return !stopped();
    trace_.push_back(SolveEvent{seconds, index, best_.found(), best_.cost, bound_});
    if (sink_) {
      Progress p;
      p.elapsed_s = seconds;
      p.found = best_.found();
      p.incumbent = p.found ? static_cast<double>(best_.cost) : 0;
      p.bound = static_cast<double>(bound_);
      p.finished = (p.found && bound_ >= best_.cost) || (engine.finished() && !p.found);
      p.counters.add("engine", index).append(engine.counters());
      if (sink_(with_gap(p)) == SinkReply::kStop) stop_ = true;
    }
    return !stopped();
  }

  // Gives the engine the shared best if it is newer than what it saw.
  void share(Engine* engine, int64_t* seen_version) {
    std::vector<int32_t> copy;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (*seen_version == version_) return;
      *seen_version = version_;
      if (!best_.found() || (engine->best().found() && engine->best().cost <= best_.cost)) return;
      copy = best_.solution;
    }
    engine->offer(copy);
  }

  bool stopped() const { return stop_ || (interrupt_ != nullptr && interrupt_->load()); }
  bool optimal() {
    std::lock_guard<std::mutex> lock(mutex_);
    return best_.found() && bound_ >= best_.cost;
  }

  Incumbent best_;
  int64_t bound_ = 0;
  std::vector<SolveEvent> trace_;

 private:
  const ProgressSink& sink_;
  const std::atomic<bool>* interrupt_;
  std::mutex mutex_;
  int64_t version_ = 0;
  std::atomic<bool> stop_{false};
};

#ifndef __EMSCRIPTEN__
// One engine's anytime loop until the deadline, the stop flag or the end.
void run_engine(Engine* engine, int32_t index, Board* board, const Clock& clock,
                double deadline_s) {
  int64_t seen = 0;
  if (!board->publish(*engine, index, clock.seconds())) return;
  while (!board->stopped() && clock.seconds() < deadline_s) {
    if (engine->finished() || board->optimal()) break;
    if (engine->step(kStepWork) && !board->publish(*engine, index, clock.seconds())) return;
    board->share(engine, &seen);
  }
  board->publish(*engine, index, clock.seconds());
}
#endif

}  // namespace

SolveResult solve(const Problem& problem, const Options& options, double time_budget_s,
                  const ProgressSink& sink, const Interrupt* interrupt) {
  const Clock clock;
  const int32_t workers = static_cast<int32_t>(std::max<int64_t>(1, options.workers));
  std::vector<std::unique_ptr<Engine>> engines;
  for (int32_t i = 0; i < workers; ++i) {
    engines.push_back(std::make_unique<Engine>(problem, options, i));
  }
  Board board(sink, interrupt);
#ifdef __EMSCRIPTEN__
  // No threads in the module: interleave the engines' steps.
  std::vector<int64_t> seen(workers, 0);
  for (int32_t i = 0; i < workers; ++i) board.publish(*engines[i], i, clock.seconds());
  bool active = true;
  while (active && !board.stopped() && clock.seconds() < time_budget_s && !board.optimal()) {
    active = false;
    for (int32_t i = 0; i < workers; ++i) {
      if (engines[i]->finished()) continue;
      active = true;
      if (engines[i]->step(kStepWork)) board.publish(*engines[i], i, clock.seconds());
      board.share(engines[i].get(), &seen[i]);
    }
  }
#else
  std::vector<std::thread> threads;
  for (int32_t i = 1; i < workers; ++i) {
    threads.emplace_back([&, i] { run_engine(engines[i].get(), i, &board, clock, time_budget_s); });
  }
  run_engine(engines[0].get(), 0, &board, clock, time_budget_s);
  for (std::thread& t : threads) t.join();
#endif
  SolveResult result;
  result.best = board.best_;
  result.lower_bound = board.bound_;
  result.proven_optimal = result.best.found() && result.lower_bound >= result.best.cost;
  result.trace = std::move(board.trace_);
  result.seconds = clock.seconds();
  result.counters = engines[0]->counters();
  return result;
}

}  // namespace shardlab
