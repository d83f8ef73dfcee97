// The pipeline planner against brute force on tiny random problems (stages
// and operator graphs, fixed and free placements, memory caps), its bounds
// against the optimum, the validity of every schedule it returns, its
// determinism for a seed, and the two headline cases of issue 18 at unit
// scale (equal times with cap p, and DualPipe's example).
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <optional>

#include "core/pipeline/check.h"
#include "core/pipeline/generators.h"
#include "core/pipeline/model.h"
#include "core/pipeline/plan/bound.h"
#include "core/pipeline/plan/engine.h"
#include "core/pipeline/plan/graph.h"
#include "core/pipeline/plan/order_search.h"
#include "core/pipeline/plan/problem.h"
#include "core/pipeline/plan/relax.h"
#include "core/pipeline/plan/search.h"
#include "core/pipeline/planner.h"
#include "core/pipeline/problem_json.h"
#include "core/pipeline/simulate.h"
#include "core/rng.h"
#include "tests/unit/helpers.h"

namespace shardlab::pipeline {
namespace {

// A published schedule that runs and fits the problem, with its timeline and
// plan graph: what the bound-soundness tests measure bounds against.
struct Fitting {
  Generated gen;
  Timeline timeline;
  PlanGraph graph;
};
std::optional<Fitting> fitting_published(const Problem& problem, const char* name) {
  Result<Generated> gen = generate(problem, name);
  if (!gen.is_ok()) return std::nullopt;
  const Expansion& e = gen.value().expansion;
  Result<Timeline> t = simulate(e, gen.value().order);
  if (!t.is_ok() || !check_schedule(e, t.value()).valid) return std::nullopt;
  Result<PlanGraph> g = plan_graph_of(e);
  REQUIRE(g.is_ok());
  return Fitting{std::move(gen).value(), std::move(t).value(), std::move(g).value()};
}

Problem uniform_stages(int32_t p, int32_t m, double f, double b, double w, double cap,
                       double keep = 0) {
  StageSpec s;
  s.f = f;
  s.b = b;
  s.w = w;
  s.keep = keep;
  Problem problem = uniform_problem(p, m, s);
  if (cap > 0) problem.mem_cap.assign(p, cap);
  return problem;
}

// DualPipe's example at 4 ranks: 8 micro-batches, F = B = W = 1, the given
// F&B time and delay, DualPipe's cap PP+1 = 5 unless another is given, on
// the bidirectional placement.
Problem dualpipe_four_ranks(double fb, double comm, double cap = 5) {
  Problem problem = uniform_stages(4, 8, 1, 1, 1, cap);
  problem.stages[0].fb = fb;
  problem.comm = comm;
  problem.placement.kind = PlacementKind::kBidirectional;
  return problem;
}

// A random tiny problem: explicit stages on a linear or bidirectional
// placement, or an operator graph with some operators free to move.
Problem random_problem(Rng* rng, int32_t* max_ops) {
  Problem problem;
  const bool operators = rng->below(2) == 1;
  if (!operators) {
    const bool with_pairs = rng->below(2) == 1;
    problem.devices = 2 + static_cast<int32_t>(rng->below(2));
    problem.microbatches = 2 + static_cast<int32_t>(rng->below(2));
    problem.uniform = false;
    for (int32_t s = 0; s < problem.devices; ++s) {
      StageSpec st;
      st.f = 1 + rng->below(3);
      st.b = 1 + rng->below(3);
      st.w = rng->below(3);
      st.act = 1 + rng->below(2);
      st.keep = rng->below(2) ? st.act : 0;
      // Half the problems give F&B times that make overlapped pairs gain
      // (a pair takes the larger F&B time of its two stages); the others
      // give none, and a pair would take F + B + W.
      if (with_pairs) st.fb = std::max(st.f, st.b + st.w) + rng->below(2);
      problem.stages.push_back(st);
    }
    problem.comm = rng->below(2);
    if (problem.devices == 2 && problem.microbatches == 2 && rng->below(2)) {
      problem.placement.kind = PlacementKind::kBidirectional;
    }
    *max_ops = problem.devices * problem.microbatches * 3;
  } else {
    problem.form = Form::kOperators;
    problem.devices = 2;
    problem.microbatches = 1 + static_cast<int32_t>(rng->below(2));
    const int32_t n = 2 + static_cast<int32_t>(rng->below(2));
    for (int32_t i = 0; i < n; ++i) {
      OperatorSpec op;
      op.name = "o" + std::to_string(i);
      op.f = 1 + rng->below(3);
      op.b = 1 + rng->below(3);
      op.w = rng->below(2);
      op.act = 1;
      if (rng->below(2)) op.devices = {static_cast<int32_t>(rng->below(2))};
      problem.operators.push_back(op);
    }
    for (int32_t i = 1; i < n; ++i) {
      problem.edges.push_back({static_cast<int32_t>(rng->below(i)), i, 1.0 + rng->below(2)});
    }
    if (n == 3 && rng->below(2)) problem.edges.push_back({0, 2, 1});
    *max_ops = n * problem.microbatches * 3;
  }
  if (rng->below(2)) problem.mem_cap.assign(problem.devices, 2 + rng->below(3));
  return problem;
}

// The optimum by brute force, independent of the planner: every placement
// of the units and every sequence of slots (an op alone, or an F with a B
// of the same device and that B's W as an overlapped pair, once all their
// other inputs are in the sequence) gives device orders; the simulator (simulate.h)
// times them and its metrics give the memory peaks. Every semi-active
// schedule arises this way, so the least makespan is optimal. Returns -1
// when no order fits the caps.
int64_t brute_force(const Expansion& e) {
  const int32_t n = e.num_ops();
  int64_t best = -1;
  std::vector<int32_t> unit_device(e.num_units(), 0);
  std::function<void(int32_t)> place = [&](int32_t u) {
    if (u < e.num_units()) {
      for (int32_t d : e.units[u].devices) {
        unit_device[u] = d;
        place(u + 1);
      }
      return;
    }
    std::vector<int32_t> waiting(n);
    std::vector<Slot> order;
    for (int32_t i = 0; i < n; ++i) waiting[i] = e.pred_begin[i + 1] - e.pred_begin[i];
    std::vector<char> used(n, 0);
    int32_t placed = 0;
    auto take = [&](int32_t i, int32_t sign) {
      used[i] = sign > 0;
      placed += sign;
      for (int32_t k = e.succ_begin[i]; k < e.succ_begin[i + 1]; ++k) {
        waiting[e.arcs[e.succ_arcs[k]].to] -= sign;
      }
    };
    std::function<void()> extend = [&]() {
      if (placed == n) {
        Order o;
        o.unit_device = unit_device;
        o.device_slots.assign(e.devices, {});
        for (const Slot& slot : order)
          o.device_slots[unit_device[e.ops[slot.op].unit]].push_back(slot);
        Result<Timeline> t = simulate(e, o);
        REQUIRE(t.is_ok());
        const Metrics m = measure(e, t.value());
        for (int32_t d = 0; d < e.devices; ++d) {
          if (e.mem_cap[d] != Expansion::kNoCap &&
              m.peak_activation[d] + m.peak_parameter[d] > e.mem_cap[d]) {
            return;
          }
        }
        if (best < 0 || m.makespan < best) best = m.makespan;
        return;
      }
      for (int32_t i = 0; i < n; ++i) {
        if (used[i] || waiting[i] != 0) continue;
        order.push_back({i});
        take(i, 1);
        extend();
        take(i, -1);
        order.pop_back();
        // Pairs of this F with every ready B on its device.
        if (e.ops[i].kind != OpKind::kF) continue;
        for (int32_t b = 0; b < n; ++b) {
          if (used[b] || waiting[b] != 0 || e.ops[b].kind != OpKind::kB) continue;
          if (unit_device[e.ops[b].unit] != unit_device[e.ops[i].unit]) continue;
          const int32_t w = e.op_of(e.ops[b].microbatch, e.ops[b].unit, OpKind::kW);
          if (e.pred_begin[w + 1] - e.pred_begin[w] != 1) continue;
          order.push_back({i, b, SlotKind::kPair});
          take(i, 1);
          take(b, 1);
          take(w, 1);
          extend();
          take(w, -1);
          take(b, -1);
          take(i, -1);
          order.pop_back();
        }
      }
    };
    extend();
  };
  place(0);
  return best;
}

// Runs the planner until it finishes (or the work runs out).
struct Run {
  bool finished = false;
  int64_t makespan = -1;
  int64_t bound = 0;
  Timeline best;
};

Run run_planner(const Problem& problem, PlannerOptions options, int64_t max_work,
                int64_t step = 1000) {
  Planner planner(problem, options);
  REQUIRE_MESSAGE(planner.status().is_ok(), planner.status().message());
  Run run;
  int64_t spent = 0;
  int64_t last_bound = planner.lower_bound_ticks();
  while (!planner.finished() && spent < max_work) {
    planner.step(step);
    spent += step;
    CHECK(planner.lower_bound_ticks() >= last_bound);  // the bound only rises
    last_bound = planner.lower_bound_ticks();
  }
  run.finished = planner.finished();
  run.makespan = planner.best_ticks();
  run.bound = planner.lower_bound_ticks();
  run.best = planner.best();
  return run;
}

// The schedule re-timed by the simulator (simulate.h) from its own device orders is
// no later, and respects the caps.
void check_timeline(const Expansion& e, const Timeline& t, int64_t makespan) {
  Result<Timeline> again = simulate(e, order_of(e, t));
  REQUIRE_MESSAGE(again.is_ok(), again.status().message());
  const Metrics m = measure(e, t);
  CHECK(m.makespan == makespan);
  CHECK(measure(e, again.value()).makespan <= makespan);
  for (const TimedSlot& s : t.slots) {
    for (int32_t k = e.pred_begin[s.slot.op]; k < e.pred_begin[s.slot.op + 1]; ++k) {
      const Arc& a = e.arcs[e.pred_arcs[k]];
      int64_t end = -1;
      int32_t device = -1;
      for (const TimedSlot& o : t.slots) {
        if (o.slot.op == a.from) end = o.end, device = o.device;
      }
      CHECK(s.start >= end + (device == s.device ? 0 : a.delay));
    }
  }
  for (int32_t d = 0; d < e.devices; ++d) {
    if (e.mem_cap[d] != Expansion::kNoCap) {
      CHECK(m.peak_activation[d] + m.peak_parameter[d] <= e.mem_cap[d]);
    }
  }
}

TEST_CASE("pipeline plan: optimum and bounds match brute force on tiny random problems") {
  Rng rng(18);
  int32_t checked = 0, infeasible = 0, paired = 0;
  for (int32_t trial = 0; trial < 90; ++trial) {
    int32_t max_ops = 0;
    const Problem problem = random_problem(&rng, &max_ops);
    if (max_ops > 12) continue;
    // The planner picks the placement when the problem leaves it open.
    Planner chooser(problem, PlannerOptions());
    REQUIRE(chooser.status().is_ok());
    Placement placement;
    placement.kind = chooser.expansion().placement;
    placement.chunks = chooser.expansion().chunks;
    Result<Expansion> e = expand(problem, placement);
    REQUIRE(e.is_ok());
    const int64_t optimum = brute_force(e.value());
    Result<PlanGraph> graph = plan_graph_of(e.value());
    REQUIRE(graph.is_ok());
    if (optimum >= 0)
      CHECK_MESSAGE(root_bound(graph.value()) <= optimum,
                    problem_json(problem, -1) << " path " << path_bound(graph.value()));
    paired += graph.value().any_pairs;
    for (int32_t variant = 0; variant < 3; ++variant) {
      PlannerOptions options;
      options.symmetry = variant != 1;
      options.dominance = variant != 2;
      options.seed = 1 + trial;
      options.placement = placement;
      const Run run = run_planner(problem, options, 400000, 50);
      INFO("trial " << trial << " variant " << variant);
      CHECK(run.finished);
      CHECK(run.makespan == optimum);
      if (optimum >= 0) {
        CHECK(run.bound == optimum);
        check_timeline(e.value(), run.best, run.makespan);
      }
    }
    ++checked;
    infeasible += optimum < 0;
  }
  CHECK(checked >= 35);
  CHECK(paired >= 10);
  CHECK(paired < checked);
  CHECK(infeasible < checked);
}

// Counts of what check_published_bounds compared.
struct PublishedChecks {
  int32_t checked = 0, paired = 0, tight = 0;
};

// Random stage problems on 2 or 4 devices with 2 to 8 micro-batches (with
// F&B times that gain and delays on every transfer when `pairs_and_delays`,
// else each half the time; caps half the time): for every published
// schedule that applies and fits, the root bound of its own placement and
// the planner's bound (the least over placements, after some work) are at
// most its simulated makespan, and the planner's schedule is never worse
// than the best of them.
PublishedChecks check_published_bounds(uint64_t seed, int32_t trials, bool pairs_and_delays) {
  const char* names[] = {"GPipe", "1F1B",     "Interleaved1F1B", "ZB-H1",  "ZB-H2",
                         "ZBV",   "DualPipe", "DualPipeV",       "Chimera"};
  Rng rng(seed);
  PublishedChecks counts;
  for (int32_t trial = 0; trial < trials; ++trial) {
    Problem problem;
    problem.devices = 2 + static_cast<int32_t>(rng.below(2)) * 2;
    problem.microbatches = 2 + static_cast<int32_t>(rng.below(7));
    problem.uniform = false;
    const bool with_pairs = pairs_and_delays || rng.below(2) == 1;
    for (int32_t s = 0; s < problem.devices; ++s) {
      StageSpec st;
      st.f = 0.5 + 0.5 * static_cast<double>(rng.below(3));
      st.b = 0.5 + 0.5 * static_cast<double>(rng.below(3));
      st.w = 0.5 * static_cast<double>(rng.below(3));
      st.keep = rng.below(2) ? 0.5 : 0;
      if (with_pairs) st.fb = std::max(st.f, st.b + st.w) + 0.25 * rng.below(3);
      problem.stages.push_back(st);
    }
    problem.comm = 0.25 * static_cast<double>(rng.below(3) + (pairs_and_delays ? 1 : 0));
    if (rng.below(2)) problem.mem_cap.assign(problem.devices, problem.devices + 1 + rng.below(3));
    INFO("trial " << trial << ": " << problem_json(problem, -1));
    PlannerOptions options;
    options.seed = 1 + trial;
    Planner planner(problem, options);
    REQUIRE_MESSAGE(planner.status().is_ok(), planner.status().message());
    for (int32_t k = 0; k < 20 && !planner.finished(); ++k) planner.step(1000);
    double best_published = -1;
    for (const char* name : names) {
      const std::optional<Fitting> fit = fitting_published(problem, name);
      if (!fit) continue;
      const Expansion& e = fit->gen.expansion;
      const int64_t makespan = measure(e, fit->timeline).makespan;
      INFO(name << " makespan " << makespan << " ticks of 1/" << e.time_scale);
      counts.paired += fit->graph.any_pairs;
      const int64_t bound = root_bound(fit->graph);
      CHECK(bound <= makespan);
      counts.tight += bound == makespan;
      const double units = static_cast<double>(makespan) / static_cast<double>(e.time_scale);
      CHECK(planner.lower_bound() <= units + 1e-9);
      if (best_published < 0 || units < best_published) best_published = units;
      ++counts.checked;
    }
    if (best_published >= 0) {
      REQUIRE(planner.best_makespan() >= 0);
      CHECK(planner.best_makespan() <= best_published + 1e-9);
    }
    if (planner.best_makespan() >= 0) CHECK(planner.lower_bound() <= planner.best_makespan());
  }
  return counts;
}

TEST_CASE("pipeline plan: bounds never exceed a published schedule that fits (pairs, delays)") {
  const PublishedChecks counts = check_published_bounds(24, 24, false);
  // The test must compare something, pairs included, and some published
  // schedules are optimal with the bound at their makespan (so a bound one
  // tick too high fails).
  CHECK(counts.checked > 60);
  CHECK(counts.paired > 10);
  CHECK(counts.tight > 5);
}

TEST_CASE("pipeline plan: bounds never exceed a published schedule with pairs and delays") {
  // Every problem has F&B times that gain and a delay of 0.25 to 0.75 on
  // every transfer: the pair ramp, the heads through the delays and the
  // time grid must all stay below what the published schedules reach.
  const PublishedChecks counts = check_published_bounds(2024, 24, true);
  CHECK(counts.checked > 90);
  CHECK(counts.paired == counts.checked);
  CHECK(counts.tight > 3);
}

TEST_CASE("pipeline plan: equal times with cap p are proven optimal") {
  // With m >= p the last device's head and load meet ZB-H1's makespan
  // (p-1)F + m(F+B+W); with m < p one micro-batch's round trip dominates.
  for (auto [p, m, optimum] : {std::tuple{2, 2, 7},
                               {4, 4, 15},
                               {4, 8, 27},
                               {8, 8, 31},
                               {6, 7, 26},
                               {8, 3, 21},
                               {5, 2, 13}}) {
    const int32_t devices = p, microbatches = m;  // lambdas cannot capture bindings (clang 14)
    const Problem problem = uniform_stages(devices, microbatches, 1, 1, 1, devices);
    PlannerOptions options;
    options.warm_start = 0;  // the planner alone, without generated schedules
    const Run run = run_planner(problem, options, 200000);
    INFO("p=" << devices << " m=" << microbatches);
    CHECK(run.finished);
    CHECK(run.makespan == optimum);
    CHECK(run.bound == run.makespan);
  }
}

TEST_CASE("pipeline plan: DualPipe's example halves DualPipe's bubble under PP+1 activations") {
  // 8 ranks, 20 micro-batches (10 each way), F = B = W = 1, F&B = 3, cap 9.
  // DualPipe's bubble by its table's formula: (PP/2-1)(F&B+B-3W) with B the
  // full backward (2): 3 * (3 + 2 - 3) = 6 per device, makespan 66.
  for (double keep : {0.0, 1.0}) {
    Problem problem = uniform_stages(8, 20, 1, 1, 1, 9, keep);
    problem.stages[0].fb = 3;
    problem.placement.kind = PlacementKind::kBidirectional;
    PlannerOptions options;
    const Run run = run_planner(problem, options, 400000, 2000);
    INFO("keep " << keep);
    CHECK(run.finished);
    CHECK(run.makespan == 63);  // 60 busy + 3 idle per device: half of 6
    CHECK(run.bound == 63);
    Result<Expansion> e = expand(problem, Placement());
    REQUIRE(e.is_ok());
    check_timeline(e.value(), run.best, 63);
    const Metrics metrics = measure(e.value(), run.best);
    for (int32_t d = 0; d < 8; ++d) {
      CHECK(metrics.global_idle[d] == 3);
      CHECK(metrics.peak_activation[d] <= 9);
    }
  }
}

TEST_CASE(
    "pipeline plan: with overlapped pairs that save time the bound stays below the pairs' best") {
  // F&B < F + B + W: DualPipe's pairs beat anything without pairs. The
  // planner keeps DualPipe's schedule and bounds the problem with pairs.
  for (double fb : {2.0, 2.5}) {
    const Problem problem = dualpipe_four_ranks(fb, 0);
    Result<Generated> dualpipe = generate(problem, "DualPipe");
    REQUIRE(dualpipe.is_ok());
    Result<Timeline> t = simulate(dualpipe.value().expansion, dualpipe.value().order);
    REQUIRE(t.is_ok());
    const int64_t dp = measure(dualpipe.value().expansion, t.value()).makespan;
    const Run run = run_planner(problem, PlannerOptions(), 30000);
    INFO("F&B " << fb);
    CHECK(run.makespan <= dp);
    CHECK(run.bound <= run.makespan);
    Result<Expansion> e = expand(problem, Placement());
    REQUIRE(e.is_ok());
    CHECK(check_schedule(e.value(), run.best).valid);
    // The bound holds for pairs: no pairless schedule is needed to reach it.
    CHECK(run.bound < dp);
  }
}

TEST_CASE("pipeline plan: pairs only where the problem gives F&B times") {
  // Uneven stages without F&B times: a pair would take F + B + W, so no op
  // may pair and every device's load counts in full. Under the
  // bidirectional placement device 0 runs stage 0 of copy 0 and stage 3 of
  // copy 1, 4 micro-batches each: 4 (1.5 + 1.5 + 1) + 4 (1.25 + 2 + 1) = 33.
  const std::string path = test::source_path("examples/pipeline/uneven_stages.json");
  Result<Problem> problem = read_problem_json(path, test::read_bytes(path));
  REQUIRE(problem.is_ok());
  Placement bidirectional;
  bidirectional.kind = PlacementKind::kBidirectional;
  Result<Expansion> e = expand(problem.value(), bidirectional);
  REQUIRE(e.is_ok());
  Result<PlanGraph> g = plan_graph_of(e.value());
  REQUIRE(g.is_ok());
  CHECK_FALSE(g.value().any_pairs);
  CHECK(root_bound(g.value()) >= 33 * e.value().time_scale);
  // With F&B times that gain, the same ops pair and the bound may drop.
  Problem with_fb = problem.value();
  for (StageSpec& st : with_fb.stages) st.fb = st.f + st.b + st.w - 0.5;
  Result<Expansion> ef = expand(with_fb, bidirectional);
  REQUIRE(ef.is_ok());
  Result<PlanGraph> gf = plan_graph_of(ef.value());
  REQUIRE(gf.is_ok());
  CHECK(gf.value().any_pairs);
  CHECK(root_bound(gf.value()) < root_bound(g.value()));
}

TEST_CASE("pipeline plan: DualPipe's example with F&B 2 has no pair before the ramp") {
  // 8 ranks, 20 micro-batches, F = B = W = 1, F&B = 2, cap 9. A pair
  // saves a whole F, but on rank 3 no B can start before 11 (rank 3's
  // first F at 3, three more stages forward and four backward), so rank 3
  // ends no earlier than 11 + 20 (B) + 20 (W) = 51. DualPipe takes 52.
  Problem problem = uniform_stages(8, 20, 1, 1, 1, 9);
  problem.stages[0].fb = 2;
  problem.placement.kind = PlacementKind::kBidirectional;
  Result<Expansion> e = expand(problem, Placement());
  REQUIRE(e.is_ok());
  Result<PlanGraph> g = plan_graph_of(e.value());
  REQUIRE(g.is_ok());
  CHECK(root_bound(g.value()) == 51);
  Result<Generated> dualpipe = generate(problem, "DualPipe");
  REQUIRE(dualpipe.is_ok());
  Result<Timeline> t = simulate(dualpipe.value().expansion, dualpipe.value().order);
  REQUIRE(t.is_ok());
  CHECK(measure(e.value(), t.value()).makespan == 52);
  // The planner keeps DualPipe's pairs as pairs and its schedule as valid.
  Result<PlanSchedule> s = plan_schedule_of(e.value(), g.value(), t.value());
  REQUIRE(s.is_ok());
  CHECK(s.value().makespan == 52);
  CHECK(check_plan(g.value(), s.value()) == "");
  CHECK(std::count_if(s.value().partner.begin(), s.value().partner.end(),
                      [](int32_t x) { return x >= 0; }) > 0);
  const Timeline back = timeline_of(e.value(), g.value(), s.value());
  CHECK(check_schedule(e.value(), back).valid);
  CHECK(measure(e.value(), back).makespan == 52);
}

TEST_CASE("pipeline plan: with pairs and delays the prover closes what the root bound misses") {
  // DualPipe's example at 2 ranks: 8 micro-batches (4 each way), F = B =
  // W = 1, F&B 2, cap PP+1 = 3. Rank 0's first B starts at 2 + comm (F on
  // rank 1, the delay, F on rank 0), then 16 units of charged work: the
  // root bound is 18 + comm. Every pair on a rank waits for an F or a B
  // that the other rank produced in a pair of its own, and the delay puts
  // it off the rank's pair grid, so the optimum pays more delays than the
  // root bound does: 19 at comm 0.25 and 20 at comm 0.5 (19 without the
  // cap). This is the effect that keeps issue 24's four cells open (README,
  // "The planner and the MIP"): a new bound may close the gap here but
  // never exceed these proven optima.
  struct Case {
    double comm, cap, root, optimum;
  };
  for (const Case c : {Case{0.25, 3, 18.25, 19}, Case{0.5, 3, 18.5, 20}, Case{0.5, 0, 18.5, 19}}) {
    Problem problem = uniform_stages(2, 8, 1, 1, 1, c.cap);
    problem.stages[0].fb = 2;
    problem.comm = c.comm;
    problem.placement.kind = PlacementKind::kBidirectional;
    Result<Expansion> e = expand(problem, Placement());
    REQUIRE(e.is_ok());
    const double scale = static_cast<double>(e.value().time_scale);
    Result<PlanGraph> g = plan_graph_of(e.value());
    REQUIRE(g.is_ok());
    INFO("comm " << c.comm << " cap " << c.cap);
    CHECK(root_bound(g.value()) == static_cast<int64_t>(c.root * scale));
    const Run run = run_planner(problem, PlannerOptions(), 2000000, 2000);
    CHECK(run.finished);
    CHECK(run.makespan == static_cast<int64_t>(c.optimum * scale));
    CHECK(run.bound == run.makespan);
    CHECK(check_schedule(e.value(), run.best).valid);
  }
}

// Schedule s of g cut down to relax_to_devices(g, keep, r): the kept ops
// (in their order in g) keep their starts and partners; the source, the
// sink and the relays start as early as their arcs allow.
PlanSchedule cut_down(const PlanGraph& g, const PlanGraph& r, const std::vector<int32_t>& keep,
                      const PlanSchedule& s) {
  std::vector<int32_t> index(g.num_ops(), -1);
  int32_t kept = 0;
  for (int32_t i = 0; i < g.num_ops(); ++i) {
    const int32_t d = g.groups[g.ops[i].group].devices[0];
    if (std::find(keep.begin(), keep.end(), d) != keep.end()) index[i] = kept++;
  }
  PlanSchedule out;
  out.device.assign(r.num_ops(), 0);
  out.start.assign(r.num_ops(), 0);
  out.partner.assign(r.num_ops(), -1);
  std::vector<int64_t> end(r.num_ops(), 0);
  for (int32_t i = 0; i < g.num_ops(); ++i) {
    const int32_t j = index[i];
    if (j < 0) continue;
    out.device[j] = r.groups[r.ops[j].group].devices[0];
    out.start[j] = s.start[i];
    end[j] = end_of(g, s, i);
    if (s.paired(i)) out.partner[j] = index[s.partner[i]];
  }
  for (int32_t j = kept; j < r.num_ops(); ++j) out.device[j] = r.groups[r.ops[j].group].devices[0];
  for (int32_t j : r.topo) {
    if (j < kept) continue;
    for (int32_t k = r.pred_begin[j]; k < r.pred_begin[j + 1]; ++k) {
      const PlanArc& a = r.arcs[r.pred_arc[k]];
      out.start[j] = std::max(out.start[j], end[a.from] + a.delay);
    }
    end[j] = out.start[j];
  }
  for (int32_t j = 0; j < r.num_ops(); ++j) out.makespan = std::max(out.makespan, end[j]);
  return out;
}

TEST_CASE("pipeline plan: every schedule cut down to two devices is one of their relaxation") {
  // Random stage problems on 3 or 4 devices with pairs that gain and delays
  // on every transfer: every published schedule that fits, cut down to any
  // two devices (and to three), passes the relaxation's check and ends no
  // later. So a bound on the relaxation bounds the whole problem, which is
  // what the coupled bound (plan/relax.h) relies on. A relaxation whose
  // chains were too long, or a relay that lost a same-device chain, fails
  // here on the schedules that run at those chains' least lengths.
  const char* names[] = {"GPipe", "1F1B",     "ZB-H1",     "ZB-H2",
                         "ZBV",   "DualPipe", "DualPipeV", "Chimera"};
  Rng rng(424);
  int32_t checked = 0, paired = 0, at_makespan = 0;
  for (int32_t trial = 0; trial < 16; ++trial) {
    Problem problem;
    problem.devices = trial % 3 == 0 ? 3 : 4;
    problem.microbatches = trial % 3 == 1 ? 8 : 4 + 2 * static_cast<int32_t>(rng.below(3));
    problem.uniform = false;
    for (int32_t st_index = 0; st_index < problem.devices; ++st_index) {
      StageSpec st;
      st.f = 0.5 + 0.5 * static_cast<double>(rng.below(3));
      st.b = 0.5 + 0.5 * static_cast<double>(rng.below(3));
      st.w = 0.5 * static_cast<double>(rng.below(3));
      st.fb = std::max(st.f, st.b + st.w) + 0.25 * rng.below(3);
      problem.stages.push_back(st);
    }
    problem.comm = 0.25 * static_cast<double>(1 + rng.below(3));
    if (rng.below(2)) problem.mem_cap.assign(problem.devices, problem.devices + 1 + rng.below(3));
    INFO("trial " << trial << ": " << problem_json(problem, -1));
    for (const char* name : names) {
      const std::optional<Fitting> fit = fitting_published(problem, name);
      if (!fit) continue;
      const Expansion& e = fit->gen.expansion;
      const PlanGraph& g = fit->graph;
      Result<PlanSchedule> s = plan_schedule_of(e, g, fit->timeline);
      REQUIRE(s.is_ok());
      REQUIRE(check_plan(g, s.value()) == "");
      INFO(name);
      bool any_pair = false;
      for (int32_t i = 0; i < g.num_ops(); ++i) any_pair |= s.value().paired(i);
      std::vector<std::vector<int32_t>> sets;
      for (int32_t x = 0; x < problem.devices; ++x) {
        for (int32_t y = x + 1; y < problem.devices; ++y) sets.push_back({x, y});
      }
      sets.push_back({0, 1, 2});
      for (const auto& keep : sets) {
        PlanGraph r;
        if (!relax_to_devices(g, keep, &r)) continue;
        const PlanSchedule cut = cut_down(g, r, keep, s.value());
        INFO("devices " << keep[0] << " " << keep[1]);
        CHECK(check_plan(r, cut) == "");
        CHECK(cut.makespan <= s.value().makespan);
        at_makespan += cut.makespan == s.value().makespan;
        ++checked;
        paired += any_pair;
      }
    }
  }
  CHECK(checked > 300);
  CHECK(paired > 30);        // DualPipe's schedules run pairs
  CHECK(at_makespan > 200);  // the relaxation keeps the chains that end schedules
}

TEST_CASE("pipeline plan: the coupled bound proves what one device cannot") {
  // DualPipe's example at 4 ranks, 8 micro-batches, F = B = W = 1, F&B 2,
  // comm 0.25, cap 5: the root bound is 22. Ranks 1 and 2 searched
  // together, the rest relaxed to chains, need 22.5: a proof on the two
  // ranks holds for the whole (see the test above), and stays below the
  // planner's schedules.
  const Problem problem = dualpipe_four_ranks(2, 0.25);
  Result<Expansion> e = expand(problem, Placement());
  REQUIRE(e.is_ok());
  const int64_t scale = e.value().time_scale;
  Result<PlanGraph> g = plan_graph_of(e.value());
  REQUIRE(g.is_ok());
  CHECK(root_bound(g.value()) == 22 * scale);
  PlanGraph r;
  REQUIRE(relax_to_devices(g.value(), {1, 2}, &r));
  CHECK(r.devices == 6);  // two ranks, the source's, the sink's, one relay class each way
  EngineConfig config;
  config.prover_share = 1;
  config.improver_share = config.dive_share = 0;
  PlanEngine engine(r, config);
  for (int32_t k = 0; k < 400 && !engine.finished(); ++k) engine.step(1000);
  CHECK(engine.finished());
  CHECK(engine.lower_bound() * 2 == 45 * scale);
  // The engine on the whole problem runs these relaxations itself.
  const std::vector<std::vector<int32_t>> sets = coupled_devices(g.value());
  CHECK(std::find(sets.begin(), sets.end(), std::vector<int32_t>{1, 2}) != sets.end());
}

TEST_CASE("pipeline plan: the path bound weighs delays against sharing a device") {
  // Two free operators a -> b (F = B = 2, W = 0), 2 micro-batches, 2
  // devices. Apart, each micro-batch pays the delay twice (forward and
  // backward); together, one device runs all 16. The one-machine bounds see
  // only a path of 8 (delays vanish when the two may share a device) or a
  // load of 8 per device; the path bound sees min(16, 8 + 2 x delay + 4).
  // (Plain copies: clang 14 cannot capture structured bindings in INFO.)
  for (const auto& entry : {std::pair{10.0, 16.0}, {1.0, 14.0}}) {
    const double delay = entry.first;
    const double expected = entry.second;
    Problem problem;
    problem.form = Form::kOperators;
    problem.devices = 2;
    problem.microbatches = 2;
    for (const char* name : {"a", "b"}) {
      OperatorSpec op;
      op.name = name;
      op.f = op.b = 2;
      op.w = 0;
      problem.operators.push_back(op);
    }
    problem.edges.push_back({0, 1, delay});
    Result<Expansion> e = expand(problem, Placement());
    REQUIRE(e.is_ok());
    Result<PlanGraph> g = plan_graph_of(e.value());
    REQUIRE(g.is_ok());
    INFO("delay " << delay);
    CHECK(path_bound(g.value()) == static_cast<int64_t>(expected) * e.value().time_scale);
    const int64_t optimum = brute_force(e.value());
    CHECK(root_bound(g.value()) <= optimum);
    const Run run = run_planner(problem, PlannerOptions(), 100000);
    CHECK(run.finished);
    CHECK(run.makespan == optimum);
  }
}

TEST_CASE("pipeline plan: the window bound counts late work over the devices that may run it") {
  // A free operator r (F = B = 4) feeds three free operators x, y, z (F = B
  // = 2), no delays, one micro-batch, 2 devices. The longest path is 12
  // (F r, F x, B x, B r) and the load 20 / 2 = 10; but the three F and
  // three B of x, y, z all start at 4 or later and end 4 or more before the
  // end (B r follows them), so 2 (C - 4 - 4) >= 12 and C >= 14. The
  // optimum is 16: an operator's F and B share a device, so one device
  // runs two of x, y, z (8 from 4 on), then B r.
  Problem problem;
  problem.form = Form::kOperators;
  problem.devices = 2;
  problem.microbatches = 1;
  for (const char* name : {"r", "x", "y", "z"}) {
    OperatorSpec op;
    op.name = name;
    op.f = op.b = name[0] == 'r' ? 4 : 2;
    op.w = 0;
    problem.operators.push_back(op);
  }
  for (int32_t to = 1; to <= 3; ++to) problem.edges.push_back({0, to, 0.0});
  Result<Expansion> e = expand(problem, Placement());
  REQUIRE(e.is_ok());
  Result<PlanGraph> g = plan_graph_of(e.value());
  REQUIRE(g.is_ok());
  const int64_t scale = e.value().time_scale;
  CHECK(window_bound(g.value()) == 16 * scale);
  CHECK(path_bound(g.value()) == 12 * scale);
  CHECK(root_bound(g.value()) == 16 * scale);
  CHECK(brute_force(e.value()) == 16 * scale);
  const Run run = run_planner(problem, PlannerOptions(), 100000);
  CHECK(run.finished);
  CHECK(run.makespan == 16 * scale);
}

TEST_CASE("pipeline plan: bounds are rounded up to the time grid") {
  // Five independent ops of 2 ticks on two identical devices: the work
  // spread over both gives 5, the two largest of any three 4, but every
  // makespan is a multiple of 2 (the gcd of durations and delays), so the
  // bound is 6, the optimum (one device runs three of them).
  PlanGraph g;
  g.devices = 2;
  for (int32_t i = 0; i < 5; ++i) {
    PlanGroup group;
    group.devices = {0, 1};
    g.groups.push_back(group);
    PlanOp op;
    op.duration = 2;
    op.group = i;
    g.ops.push_back(op);
  }
  REQUIRE(g.finalize().is_ok());
  CHECK(g.grid == 2);
  CHECK(g.on_grid(5) == 6);
  CHECK(g.on_grid(6) == 6);
  CHECK(g.on_grid(kNoCap) == kNoCap);
  CHECK(window_bound(g) == 5);
  CHECK(root_bound(g) == 6);
  PlanEngine engine(g, EngineConfig());
  for (int32_t k = 0; k < 20 && !engine.finished(); ++k) engine.step(1000);
  CHECK(engine.finished());
  CHECK(engine.best().makespan == 6);
  CHECK(engine.lower_bound() == 6);
  // A delay of 1 on an arc brings the grid down to 1.
  g.arcs.push_back({0, 1, 1});
  REQUIRE(g.finalize().is_ok());
  CHECK(g.grid == 1);
  CHECK(g.on_grid(5) == 5);
}

TEST_CASE("pipeline plan: local search on device orders goes past DualPipe's lock step") {
  // DualPipe's example at 4 ranks: 8 micro-batches, F = B = W = 1, cap
  // PP+1 = 5, comm 0.25. After 20,000 nodes the planner without the order
  // search (plan/order_search.h) ends at 23.25 (F&B 2) and 24.75 (F&B
  // 2.5), its neighbourhood search keeping DualPipe's order outside each
  // window; with it, at 23 and 24.5, under the same cap.
  struct Case {
    double fb, without, with;
  };
  for (const Case c : {Case{2, 23.25, 23}, Case{2.5, 24.75, 24.5}}) {
    const Problem problem = dualpipe_four_ranks(c.fb, 0.25);
    Result<Expansion> e = expand(problem, Placement());
    REQUIRE(e.is_ok());
    const double scale = static_cast<double>(e.value().time_scale);
    PlannerOptions off;
    off.order_share = 0;
    const Run before = run_planner(problem, off, 20000);
    const Run after = run_planner(problem, PlannerOptions(), 20000);
    INFO("F&B " << c.fb);
    CHECK(before.makespan == static_cast<int64_t>(c.without * scale));
    CHECK(after.makespan == static_cast<int64_t>(c.with * scale));
    CHECK(after.bound <= after.makespan);
    CHECK(check_schedule(e.value(), after.best).valid);
    const Metrics metrics = measure(e.value(), after.best);
    for (int32_t d = 0; d < 4; ++d) CHECK(metrics.peak_activation[d] <= 5);
  }
}

TEST_CASE("pipeline plan: the order search reports only schedules within the caps") {
  // Started from a schedule above the cap (the uncapped problem's, on the
  // same ops), it searches through orders above the cap at a penalty and
  // reports only those within it; every one passes the checker.
  const Problem capped = dualpipe_four_ranks(2.5, 0.5, 4);
  Problem free = capped;
  free.mem_cap.clear();
  Result<Expansion> e = expand(capped, Placement());
  Result<Expansion> ef = expand(free, Placement());
  REQUIRE(e.is_ok());
  REQUIRE(ef.is_ok());
  Result<PlanGraph> g = plan_graph_of(e.value());
  Result<PlanGraph> gf = plan_graph_of(ef.value());
  REQUIRE(g.is_ok());
  REQUIRE(gf.is_ok());
  OrderSearch uncapped(gf.value());
  REQUIRE(uncapped.useful());
  Result<Generated> dualpipe = generate(free, "DualPipe");
  REQUIRE(dualpipe.is_ok());
  Result<Timeline> t = simulate(dualpipe.value().expansion, dualpipe.value().order);
  REQUIRE(t.is_ok());
  Result<PlanSchedule> start = plan_schedule_of(ef.value(), gf.value(), t.value());
  REQUIRE(start.is_ok());
  uncapped.reset(start.value());
  Rng rng(3);
  PlanSchedule over;
  REQUIRE(uncapped.run(20000, start.value().makespan, &rng, &over));
  CHECK(check_plan(gf.value(), over) == "");
  CHECK(check_plan(g.value(), over).find("memory") != std::string::npos);
  OrderSearch search(g.value());
  search.reset(over);
  CHECK(search.started());
  CHECK(search.best_makespan() >= kNoCap);  // no schedule within the cap yet
  int32_t reported = 0;
  int64_t upper = kNoCap;
  for (int32_t k = 0; k < 20; ++k) {
    PlanSchedule found;
    if (!search.run(2000, upper, &rng, &found)) continue;
    ++reported;
    CHECK(found.makespan < upper);
    CHECK(check_plan(g.value(), found) == "");
    upper = found.makespan;
  }
  CHECK(reported > 0);
  CHECK(search.best_makespan() == upper);
}

TEST_CASE("pipeline plan: DualPipe's placement is its own mirror, which the order search keeps") {
  // DualPipe's example at 4 ranks (8 micro-batches, F&B 2.5, comm 0.25,
  // cap 5): rank d with its directions swapped is rank 3 - d, and DualPipe's
  // schedule is its own mirror image.
  const Problem problem = dualpipe_four_ranks(2.5, 0.25);
  Result<Expansion> e = expand(problem, Placement());
  REQUIRE(e.is_ok());
  Result<PlanGraph> pg = plan_graph_of(e.value());
  REQUIRE(pg.is_ok());
  const PlanGraph& g = pg.value();
  REQUIRE(g.mirror_valid());
  for (int32_t i = 0; i < g.num_ops(); ++i) {
    CHECK(g.mirror[i] != i);
    CHECK(g.mirror[g.mirror[i]] == i);
  }
  Result<Generated> dualpipe = generate(problem, "DualPipe");
  REQUIRE(dualpipe.is_ok());
  Result<Timeline> t = simulate(dualpipe.value().expansion, dualpipe.value().order);
  REQUIRE(t.is_ok());
  Result<PlanSchedule> start = plan_schedule_of(e.value(), g, t.value());
  REQUIRE(start.is_ok());
  CHECK(mirror_symmetric(g, start.value()));
  PlanSchedule moved = start.value();
  moved.start[0] += g.grid;
  CHECK_FALSE(mirror_symmetric(g, moved));

  // Mirrored moves: every schedule reported is valid and its own mirror.
  OrderSearch search(g);
  REQUIRE(search.can_mirror());
  search.reset(start.value(), true);
  REQUIRE(search.mirrored());
  Rng rng(5);
  int64_t upper = start.value().makespan;
  int32_t reported = 0;
  for (int32_t k = 0; k < 10; ++k) {
    PlanSchedule found;
    if (!search.run(2000, upper, &rng, &found)) continue;
    ++reported;
    CHECK(check_plan(g, found) == "");
    CHECK(mirror_symmetric(g, found));
    upper = found.makespan;
  }
  CHECK(reported > 0);
  const double scale = static_cast<double>(e.value().time_scale);
  CHECK(start.value().makespan == static_cast<int64_t>(26.25 * scale));  // DualPipe
  CHECK(upper == static_cast<int64_t>(24.75 * scale));
  // Asked for plain moves, or started from an asymmetric schedule, it
  // searches every order.
  search.reset(start.value(), false);
  CHECK_FALSE(search.mirrored());
  PlanSchedule asymmetric;
  REQUIRE(search.run(20000, start.value().makespan, &rng, &asymmetric));
  REQUIRE_FALSE(mirror_symmetric(g, asymmetric));
  search.reset(asymmetric, true);
  CHECK_FALSE(search.mirrored());

  // No mirror where the problem is not its own mirror image: an odd number
  // of micro-batches, the linear placement, or an arc's delay changed.
  Problem odd = problem;
  odd.microbatches = 7;
  Result<Expansion> eo = expand(odd, Placement());
  REQUIRE(eo.is_ok());
  CHECK(plan_graph_of(eo.value()).value().mirror.empty());
  Problem linear = problem;
  linear.placement.kind = PlacementKind::kLinear;
  Result<Expansion> el = expand(linear, Placement());
  REQUIRE(el.is_ok());
  CHECK_FALSE(plan_graph_of(el.value()).value().mirror_valid());
  PlanGraph changed = g;
  changed.arcs[0].delay += 1;
  CHECK_FALSE(changed.mirror_valid());
  OrderSearch plain(changed);
  CHECK_FALSE(plain.can_mirror());
}

TEST_CASE("pipeline plan: on a graph with serial links time_orders times as the simulator does") {
  // Every published schedule of DualPipe's example at 4 ranks (F&B 2.5,
  // delay 0.5) that fits, as the planner holds it (full backwards opened):
  // its device orders and pairs, timed by time_orders on a graph with
  // serial_links and by the simulator on serial links, start every op at
  // the same time. On parallel links DualPipe's orders end sooner.
  Problem problem = dualpipe_four_ranks(2.5, 0.5);
  problem.serial_links = true;
  int32_t compared = 0;
  bool dualpipe_slower = false;
  for (const ScheduleInfo& info : list_schedules(problem)) {
    std::optional<Fitting> f = fitting_published(problem, info.name.c_str());
    if (!f) continue;
    CAPTURE(info.name);
    const Expansion& e = f->gen.expansion;
    PlanGraph g = f->graph;
    Result<PlanSchedule> held = plan_schedule_of(e, g, f->timeline);
    REQUIRE(held.is_ok());
    const auto orders = orders_of(g, held.value());
    const std::vector<int32_t>& partner = held.value().partner;
    Result<Timeline> simulated = simulate(e, order_of(e, timeline_of(e, g, held.value())));
    REQUIRE(simulated.is_ok());
    std::vector<int64_t> start(e.num_ops(), -1);
    for (const TimedSlot& ts : simulated.value().slots) {
      int32_t ops[3];
      for (int32_t k = 0, c = slot_ops(e, ts.slot, ops); k < c; ++k) start[ops[k]] = ts.start;
    }
    Result<PlanSchedule> parallel = time_orders(g, orders, partner);
    g.serial_links = true;
    Result<PlanSchedule> serial = time_orders(g, orders, partner);
    REQUIRE(parallel.is_ok());
    REQUIRE(serial.is_ok());
    CHECK(serial.value().start == start);
    CHECK(serial.value().makespan == measure(e, simulated.value()).makespan);
    ++compared;
    if (info.name == "DualPipe") {
      dualpipe_slower = parallel.value().makespan < serial.value().makespan;
    }
  }
  CHECK(compared >= 3);
  CHECK(dualpipe_slower);
}

TEST_CASE("pipeline plan: on serial links the engine's schedules are re-timed on the links") {
  // 2 stages, 4 micro-batches, delay 2: the engine proves 13 on parallel
  // links, a bound that holds on serial ones, where its schedules take 15.
  // The link-aware order search then finds 13 on the links: a proof.
  Problem small = uniform_stages(2, 4, 1, 1, 1, 0);
  small.comm = 2;
  small.serial_links = true;
  {
    Planner planner(small, PlannerOptions());
    REQUIRE(planner.status().is_ok());
    CHECK(planner.best_makespan() == 15);
    int64_t spent = 0;
    while (!planner.finished() && spent < 2000000) planner.step(10000), spent += 10000;
    CHECK(planner.proven());
    CHECK(planner.best_makespan() == 13);
    CHECK(planner.best_source() == "link order search");
    CHECK(check_schedule(planner.expansion(), planner.best()).valid);
  }
  // Delay 3: the engine proves 14 on parallel links; on serial ones the
  // search ends at 15 when its runs stop gaining, and the planner stops
  // there without claiming a proof.
  small.comm = 3;
  {
    Planner planner(small, PlannerOptions());
    REQUIRE(planner.status().is_ok());
    int64_t spent = 0;
    while (!planner.finished() && spent < 20000000) planner.step(10000), spent += 10000;
    CHECK(planner.finished());
    CHECK_FALSE(planner.proven());
    CHECK(planner.lower_bound() == 14);
    CHECK(planner.best_makespan() == 15);
    CHECK(check_schedule(planner.expansion(), planner.best()).valid);
  }
  // DualPipe's example at 4 ranks with F&B 2.5 and delay 0.5: a pair sends
  // its F's result and its B's on the same link, so DualPipe slows down; the
  // planner's schedule passes the checker on the links and is no worse than
  // any published schedule that fits.
  Problem problem = dualpipe_four_ranks(2.5, 0.5);
  problem.serial_links = true;
  int64_t best_published = -1, published_scale = 1;
  for (const ScheduleInfo& info : list_schedules(problem)) {
    std::optional<Fitting> f = fitting_published(problem, info.name.c_str());
    if (!f) continue;
    const int64_t m = measure(f->gen.expansion, f->timeline).makespan;
    const int64_t scale = f->gen.expansion.time_scale;
    if (best_published < 0 || m * published_scale < best_published * scale) {
      best_published = m, published_scale = scale;
    }
  }
  REQUIRE(best_published > 0);
  Planner planner(problem, PlannerOptions());
  REQUIRE(planner.status().is_ok());
  for (int32_t k = 0; k < 20 && !planner.finished(); ++k) planner.step(1000);
  REQUIRE(planner.has_best());
  const Expansion& e = planner.expansion();
  CHECK(e.serial_links);
  CHECK(check_schedule(e, planner.best()).valid);
  CHECK(measure(e, planner.best()).makespan == planner.best_ticks());
  CHECK(planner.best_ticks() * published_scale <= best_published * e.time_scale);
  CHECK(planner.lower_bound_ticks() <= planner.best_ticks());
}

TEST_CASE("pipeline plan: the same seed and work give the same schedule") {
  Problem problem = uniform_stages(4, 6, 1, 2, 1, 2, 0.5);
  problem.comm = 0.5;
  PlannerOptions options;
  options.seed = 7;
  const Run a = run_planner(problem, options, 20000);
  const Run b = run_planner(problem, options, 20000);
  REQUIRE(a.makespan > 0);
  CHECK(a.makespan == b.makespan);
  CHECK(a.bound == b.bound);
  REQUIRE(a.best.slots.size() == b.best.slots.size());
  for (size_t k = 0; k < a.best.slots.size(); ++k) {
    CHECK(a.best.slots[k].slot.op == b.best.slots[k].slot.op);
    CHECK(a.best.slots[k].start == b.best.slots[k].start);
  }
}

TEST_CASE("pipeline plan: options by name, by flag and from JSON, with range errors") {
  PlannerOptions options;
  CHECK(set_plan_option(&options, "seed", "5").is_ok());
  CHECK(options.seed == 5);
  CHECK(set_plan_option(&options, "time-limit", "2.5").is_ok());
  CHECK(options.time_limit_s == 2.5);
  Status bad = set_plan_option(&options, "symmetry", "2");
  CHECK(bad.message() == "option --symmetry: 2 is out of range (expected an integer from 0 to 1)");
  CHECK(set_plan_option(&options, "nonsense", "1").message() ==
        "unknown planner option 'nonsense'");
  CHECK(plan_options_from_json("o", R"({"seed": 9, "placement": "bidirectional"})", &options)
            .is_ok());
  CHECK(options.seed == 9);
  CHECK(options.placement.kind == PlacementKind::kBidirectional);
  const std::string sed = plan_options_from_json("o", R"({"sed": 9})", &options).message();
  CHECK(sed.find("o:1:2 (byte 1): ") == 0);
  CHECK(sed.find("found the key \"sed\" (did you mean \"seed\"?)") != std::string::npos);
}

}  // namespace
}  // namespace shardlab::pipeline
