// The Engine facade and the portfolio loop. The engine here is the baseline
// (least-usage start, then greedy one-node descent); stronger techniques plug
// in behind the same step()/best()/lower_bound()/offer() contract.
#include "core/solver.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>

#include "core/evaluate.h"
#include "core/search/greedy.h"

#ifndef __EMSCRIPTEN__
#include <thread>
#endif

namespace shardlab {
namespace {

// The trivial bound: every node and every edge at its cheapest allowed entry.
// Valid because all costs are non-negative and the terms are independent.
int64_t separable_bound(const Problem& problem) {
  int64_t bound = 0;
  for (int32_t v = 0; v < problem.num_nodes(); ++v) {
    Cost least = kForbidden;
    for (int32_t s = 0; s < problem.num_strategies(v); ++s) {
      least = std::min(least, problem.node_cost(v, s));
    }
    if (!is_forbidden(least)) bound += least;
  }
  std::vector<Cost> matrix_least(problem.num_matrices(), kForbidden);
  for (int32_t k = 0; k < problem.num_matrices(); ++k) {
    for (int64_t i = problem.matrix_begin[k]; i < problem.matrix_begin[k + 1]; ++i) {
      matrix_least[k] = std::min(matrix_least[k], problem.matrix_cost[i]);
    }
  }
  for (int32_t e = 0; e < problem.num_edges(); ++e) {
    const Cost least = matrix_least[problem.edge_matrix[e]];
    if (!is_forbidden(least)) bound += least;
  }
  return bound;
}

uint64_t engine_seed(const Options& options, int32_t index) {
  return static_cast<uint64_t>(options.seed) * 0x9e3779b97f4a7c15ULL +
         static_cast<uint64_t>(index) * 0xd1b54a32d192ed03ULL + 1;
}

}  // namespace

struct Engine::Impl {
  Impl(const Problem& problem, const Options& options, int32_t index)
      : problem(problem),
        state(problem, min_usage_assignment(problem)),
        greedy(problem, engine_seed(options, index)),
        bound(separable_bound(problem)) {
    // The least-usage plan has the lowest profile at every time: if it is
    // over the limit, no plan is within it.
    impossible = state.over_limit();
    capture();
  }

  // Records the current state as the incumbent if it is better.
  bool capture() {
    if (!state.feasible()) return false;
    if (best.found() && best.cost <= state.cost()) return false;
    best.solution = state.solution();
    best.cost = state.cost();
    return true;
  }

  const Problem& problem;
  IncrementalEvaluator state;
  GreedyDescent greedy;
  Incumbent best;
  int64_t bound;
  bool impossible = false;
  int64_t rounds = 0;
  int64_t moves = 0;
  int64_t work_done = 0;
};

Engine::Engine(const Problem& problem, const Options& options, int32_t index)
    : impl_(std::make_unique<Impl>(problem, options, index)) {}

Engine::~Engine() = default;

bool Engine::step(int64_t work) {
  Impl& s = *impl_;
  if (finished()) return false;
  ++s.rounds;
  s.moves += s.greedy.run(&s.state, std::max<int64_t>(work, 1), &s.work_done);
  return s.capture();
}

bool Engine::finished() const {
  const Impl& s = *impl_;
  return s.impossible || s.greedy.converged() || (s.best.found() && s.best.cost == s.bound);
}

const Incumbent& Engine::best() const { return impl_->best; }

int64_t Engine::lower_bound() const {
  const Impl& s = *impl_;
  return s.best.found() ? std::min(s.bound, s.best.cost) : s.bound;
}

bool Engine::offer(const std::vector<int32_t>& solution) {
  Impl& s = *impl_;
  if (static_cast<int32_t>(solution.size()) != s.problem.num_nodes()) return false;
  const Evaluation check = evaluate(s.problem, solution);
  if (!check.feasible()) return false;
  if (s.best.found() && static_cast<Int128>(s.best.cost) <= check.cost) return false;
  s.state = IncrementalEvaluator(s.problem, solution);
  s.greedy.restart();
  return s.capture();
}

std::string Engine::stats_json() const {
  const Impl& s = *impl_;
  nlohmann::ordered_json j;
  j["rounds"] = s.rounds;
  j["moves"] = s.moves;
  j["evaluations"] = s.work_done;
  return j.dump();
}

// ---------------------------------------------------------------- portfolio

namespace {

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
  Board(const ProgressSink& sink, const std::atomic<bool>* interrupt)
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
    SolveEvent event{seconds, index, best_.found(), best_.cost, bound_};
    trace_.push_back(event);
    if (sink_ && !sink_(event)) stop_ = true;
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
                  const ProgressSink& sink, const std::atomic<bool>* interrupt) {
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
  result.stats_json = engines[0]->stats_json();
  return result;
}

}  // namespace shardlab
