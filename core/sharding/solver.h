// The only solver API. An Engine is one single-threaded, deterministic search
// over a Problem; a portfolio runs several and shares their incumbents.
//
// Lifecycle:
//   Engine engine(problem, options, index);   // presolves; index picks the seed
//   while (!engine.finished() && time remains) {
//     engine.step(work);                      // about work * 1000 entry visits
//     engine.best(); engine.lower_bound();    // read the anytime state
//     engine.offer(solution_from_elsewhere);  // optional: import incumbents
//   }
//
// Inside (one technique per file under core/sharding/search/): the constructor runs
// the exact presolve (core/sharding/presolve.h) and, for cores of at most
// options.exact_max_nodes nodes, an exact branch and bound. step() then
// splits its work between Lagrangian rounds (message passing on the
// memory-penalised core, a dual bound certified in exact arithmetic by
// core/sharding/bound.h, a decoded plan repaired and improved under the hard limit)
// and exact block search around the incumbent (regions solved by tree DP
// and branch and bound over usage classes). Odd engine indices spend more on
// block search, so a two-engine portfolio has one of each kind.
//
// Work: one unit is about 1000 matrix-entry visits (about 1 microsecond
// natively). A step may overrun its budget by one Lagrangian round on big
// cores (a few tens of milliseconds natively); it never stops mid-move, and
// nothing inside depends on wall-clock time unless set_time_left() asks it to
// return early.
//
// Contract:
// - best() is always a plan that evaluate() accepts as feasible (no forbidden
//   entry, within the usage limit), or empty when none is known yet.
// - lower_bound() never exceeds the optimum of the original problem.
// - The same problem, options, index and sequence of step()/offer() calls
//   give the same results on every platform (natively and in wasm).
// - Nothing is shared between engines: they talk only through offer(), so a
//   portfolio can run as threads natively and as Web Workers in the browser.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/progress.h"
#include "core/sharding/model.h"
#include "core/sharding/options.h"

namespace shardlab {

struct Incumbent {
  std::vector<int32_t> solution;  // empty: no feasible plan known
  int64_t cost = 0;
  bool found() const { return !solution.empty(); }
};

class Engine {
 public:
  Engine(const Problem& problem, const Options& options, int32_t index = 0);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Runs about `work` units of search (see the top of this file). Returns
  // true when the incumbent or the lower bound improved.
  bool step(int64_t work);
  // A wall-clock deadline for step(), time_left_s from now (a negative or
  // non-finite value removes it). With one set, step() also returns between
  // two of its rounds (and the proof search between two expansions) once the
  // deadline has passed, so a page's time limit is kept within one round
  // rather than one step. Until the deadline passes, the search does exactly
  // what it does without one: results at a given work budget are unchanged.
  // The native portfolio (solve()) never sets it.
  void set_time_left(double time_left_s);
  // True when nothing is left to do (optimality proven, or the search is
  // exhausted, or the instance has no feasible plan).
  bool finished() const;
  const Incumbent& best() const;
  int64_t lower_bound() const;
  // Offers a plan found elsewhere; returns true when it became the incumbent.
  bool offer(const std::vector<int32_t>& solution);
  // Counters for display: "phase" ("presolve" | "exact" | "lagrangian" |
  // "optimal" | "infeasible"), "rounds" (Lagrangian rounds), "moves"
  // (one-node moves), "sweeps" (message-passing sweeps), "repairs",
  // "certifications", "offers", "lns_rounds", "lns_improvements", and the
  // group "presolve" (original and core sizes, what each reduction removed).
  Counters counters() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The progress record (core/progress.h) of one engine at elapsed_s: its
// best cost, bound, finished() and counters(). The page's workers send it.
Progress progress_of(const Engine& engine, double elapsed_s);

// ---- portfolio: the anytime loop behind `shardlab solve` -------------------

// One entry of the result's trace, exact (costs may pass 2^53, where the
// progress record's doubles round).
struct SolveEvent {
  double seconds = 0;  // since solve() started
  int32_t engine = 0;  // which engine improved
  bool found = false;  // a feasible plan is known
  int64_t cost = 0;    // the best cost so far (if found)
  int64_t bound = 0;   // the best lower bound so far
};

struct SolveResult {
  Incumbent best;
  int64_t lower_bound = 0;
  bool proven_optimal = false;
  std::vector<SolveEvent> trace;  // every improvement
  double seconds = 0;
  Counters counters;  // engine 0's
};

// Runs options.workers engines for at most time_budget_s seconds (threads
// natively; round-robin in one thread under wasm). After every improvement
// of the shared best or bound, the sink gets the portfolio's record: its
// counters are the improving engine's, with "engine" (its index) first.
// A sink answering kStop, or *interrupt set, stops the run within one step;
// the best plan so far is still returned.
SolveResult solve(const Problem& problem, const Options& options, double time_budget_s,
                  const ProgressSink& sink = nullptr, const Interrupt* interrupt = nullptr);

}  // namespace shardlab
