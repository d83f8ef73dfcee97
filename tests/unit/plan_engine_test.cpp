// The plan lab's engine on synthetic costs (plan_synthetic.h): the --fix
// grammar and its one-line refusals, in-flight memory from the schedule's
// order against the simulator, the bound's soundness and the search's
// optimality against brute force over every plan of small decision spaces,
// the stage DP against every split, the step model's breakdown, and
// determinism.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "core/pipeline/pipeline.h"
#include "core/plan/bound.h"
#include "core/plan/config.h"
#include "core/plan/inflight.h"
#include "core/plan/plan.h"
#include "core/plan/stage_dp.h"
#include "core/rng.h"
#include "tests/unit/plan_synthetic.h"

namespace shardlab::plan {
namespace {

using testing::SyntheticCosts;
using testing::SyntheticShape;

SyntheticShape small_shape() {
  SyntheticShape s;
  s.layers = 6;
  s.hidden = 256;
  s.heads = 4;
  s.vocab = 1000;
  s.seq = 128;
  s.tflops = 0.01;
  s.intra_GBps = 0.01;
  s.inter_GBps = 0.001;
  s.latency_us = 5;
  s.head_scale = 3;
  return s;
}

// The search tests' setup: small_shape()'s costs on nodes x per_node GPUs of
// memory_GB each, a global batch of sequences of 128 tokens, and options with
// no time limit (a test's answer never depends on the clock).
struct Setup {
  Setup(int32_t nodes, int32_t per_node, double memory_GB, int64_t batch)
      : costs(small_shape()),
        cluster(testing::synthetic_cluster(nodes, per_node, memory_GB)),
        training(testing::synthetic_training(batch, 128)) {
    options.time_limit_s = 1e9;
  }
  SyntheticCosts costs;
  Cluster cluster;
  Training training;
  PlanOptions options;
};

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t k = 1; k <= n; ++k) {
    if (n % k == 0) out.push_back(k);
  }
  return out;
}

// Every configuration of the decision space search.h describes, written
// again here from its rules.
std::vector<Plan> all_configs(const ModelFacts& facts, int64_t gpus, int64_t batch) {
  std::vector<Plan> out;
  for (int32_t t = 1; t <= gpus; t *= 2) {
    if (gpus % t != 0 || facts.heads % t != 0) continue;
    for (int64_t p : divisors(gpus / t)) {
      if (p > facts.layers) continue;
      const int64_t d = gpus / t / p;
      if (batch % d != 0) continue;
      for (int64_t b : divisors(batch / d)) {
        if (b > 16) continue;
        const int64_t m = batch / d / b;
        std::vector<std::pair<std::string, int32_t>> schedules;
        if (p == 1) {
          schedules.push_back({"1F1B", 1});
        } else {
          for (const char* name : {"1F1B", "ZB-H1", "ZB-H2", "GPipe"})
            schedules.push_back({name, 1});
          if (m % p == 0) {
            for (int32_t v = 2; v <= 8 && p * v <= facts.layers; ++v) {
              schedules.push_back({"Interleaved1F1B", v});
            }
          }
          if (2 * p <= facts.layers) schedules.push_back({"ZBV", 2});
          if (2 * p <= facts.layers && m >= 2 * p) schedules.push_back({"DualPipeV", 2});
        }
        for (const auto& [name, v] : schedules) {
          for (int zero = 0; zero <= (d > 1 ? 3 : 0); ++zero) {
            for (bool sp : {false, true}) {
              if (sp && t == 1) continue;
              for (Recompute rc : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
                Plan plan;
                plan.tp = t;
                plan.pp = static_cast<int32_t>(p);
                plan.dp = static_cast<int32_t>(d);
                plan.vpp = v;
                plan.schedule = name;
                plan.zero = zero;
                plan.sequence_parallel = sp;
                plan.recompute = rc;
                plan.microbatch_size = b;
                plan.microbatches = m;
                out.push_back(plan);
              }
            }
          }
        }
      }
    }
  }
  return out;
}

// Every split of the decision space: any composition with one chunk per
// device, the end-stage family otherwise (stage_dp.h).
std::vector<std::vector<int32_t>> all_splits(int32_t stages, int32_t layers, int32_t chunks) {
  std::vector<std::vector<int32_t>> out;
  if (chunks == 1) {
    std::vector<int32_t> cur;
    std::function<void(int32_t, int32_t)> rec = [&](int32_t k, int32_t left) {
      if (k == stages - 1) {
        cur.push_back(left);
        out.push_back(cur);
        cur.pop_back();
        return;
      }
      for (int32_t l = 1; l <= left - (stages - 1 - k); ++l) {
        cur.push_back(l);
        rec(k + 1, left - l);
        cur.pop_back();
      }
    };
    rec(0, layers);
    return out;
  }
  if (stages == 2) {
    for (int32_t a = 1; a < layers; ++a) out.push_back({a, layers - a});
    return out;
  }
  for (int32_t q = 1; (stages - 2) * q + 2 <= layers; ++q) {
    const int32_t ends = layers - (stages - 2) * q;
    for (int32_t a = 1; a < ends; ++a) {
      std::vector<int32_t> s(stages, q);
      s[0] = a;
      s[stages - 1] = ends - a;
      out.push_back(s);
    }
  }
  return out;
}

TEST_CASE("plan fix: the grammar, its round trip and its refusals") {
  Result<Fix> fix = parse_fix(
      "tp=8,pp=8,dp=48,schedule=interleaved,vpp=3,mbs=1,recompute=selective,sp=on,zero=1,ep=8");
  REQUIRE(fix.is_ok());
  CHECK(*fix.value().tp == 8);
  CHECK(*fix.value().schedule == "Interleaved1F1B");
  CHECK(*fix.value().recompute == Recompute::kSelective);
  CHECK(*fix.value().sequence_parallel);
  CHECK(
      fix_text(fix.value()) ==
      "tp=8,pp=8,dp=48,ep=8,vpp=3,sp=on,zero=1,schedule=Interleaved1F1B,mbs=1,recompute=selective");
  CHECK(parse_fix("schedule=zb-h1").value().schedule == "ZB-H1");
  CHECK(parse_fix("schedule=1f1b,layers=3/3").value().stage_layers == std::vector<int32_t>{3, 3});
  CHECK(parse_fix("").value().empty());
  CHECK(parse_fix("tp=x").status().message() == "--fix: at 'tp=x': expected a positive integer");
  CHECK(parse_fix("zero=4").status().message() == "--fix: at 'zero=4': expected 0, 1, 2 or 3");
  CHECK(parse_fix("schedule=dualpipe").status().message() ==
        "--fix: at 'schedule=dualpipe': expected 1f1b, interleaved, zb-h1, zb-h2, zbv, "
        "dualpipev or gpipe");
  CHECK(parse_fix("speed=fast")
            .status()
            .message()
            .rfind("--fix: at 'speed=fast': expected one of the keys", 0) == 0);
  CHECK(parse_fix("tp=8,,pp=2").status().code() == StatusCode::kInvalidArgument);

  SyntheticCosts costs(small_shape());
  const Cluster cluster = testing::synthetic_cluster(8, 8, 80);
  const Training training = testing::synthetic_training(512, 128);
  const auto refusal = [&](const char* text) {
    return check_fix(parse_fix(text).value(), costs.facts(), cluster, training).message();
  };
  CHECK(refusal("tp=8,pp=8,dp=48") == "tp=8 x pp=8 x dp=48 = 3072 GPUs, the cluster has 64");
  CHECK(refusal("tp=3") == "tp=3 = 3 GPUs does not divide the cluster's 64");
  CHECK(refusal("tp=8") == "tp=8 does not divide the 4 attention heads");
  CHECK(refusal("pp=8") == "pp=8 stages, the model has 6 layers");
  CHECK(refusal("pp=2,schedule=interleaved,vpp=4") ==
        "pp=2 x 4 chunks = 8 stages, the model has 6 layers");
  CHECK(refusal("schedule=zbv,vpp=3") == "ZBV puts 2 chunks on each device (a V); vpp=3");
  CHECK(refusal("dp=64,mbs=2,microbatches=8") ==
        "dp=64 x mbs=2 x microbatches=8 = 1024 sequences, the global batch is 512");
  CHECK(refusal("ep=2") == "ep=2 needs a mixture-of-experts model");
  CHECK(refusal("tp=1,sp=on") == "sp=on needs tp > 1");
  CHECK(refusal("tp=2,pp=2") == "");
}

TEST_CASE("plan inflight: the order's counts give the simulator's peak on any stage times") {
  Rng rng(7);
  for (const std::string& name : plan_schedule_names()) {
    if (name == "ZBV") continue;
    for (int32_t p : {2, 3, 4}) {
      for (int32_t m : {4, 8, 9}) {
        const int32_t chunks = name == "Interleaved1F1B" ? 2 : name == "DualPipeV" ? 2 : 1;
        pipeline::Problem problem;
        problem.devices = p;
        problem.microbatches = m;
        problem.uniform = false;
        problem.placement.chunks = chunks;
        std::vector<int64_t> act, keep;
        for (int32_t k = 0; k < p * chunks; ++k) {
          pipeline::StageSpec s;
          s.f = 1 + rng.below(9);
          s.b = 1 + rng.below(9);
          s.w = 1 + rng.below(9);
          s.act = 10 + rng.below(90);
          s.keep = rng.below(static_cast<uint32_t>(s.act));
          s.comm = rng.below(3);
          act.push_back(static_cast<int64_t>(s.act));
          keep.push_back(name == "ZB-H1" || name == "ZB-H2" || name == "DualPipeV"
                             ? static_cast<int64_t>(s.keep)
                             : 0);
          problem.stages.push_back(s);
        }
        Result<pipeline::ScheduleResult> run = pipeline::run_schedule(problem, name);
        if (!run.is_ok()) continue;  // e.g. interleaved with m not a multiple of p
        INFO(name, " p=", p, " m=", m);
        InflightCache cache;
        Result<const InflightProfile*> profile = cache.get(schedule_shape(name, chunks), p, m);
        REQUIRE(profile.is_ok());
        for (int32_t d = 0; d < p; ++d) {
          const int64_t simulated =
              std::llround(run.value().expansion.mem_value(run.value().metrics.peak_activation[d]));
          CHECK(profile.value()->peak_bytes(d, act, keep) == simulated);
        }
      }
    }
  }
}

TEST_CASE("plan bound: sound against every plan, the DP exact, the search optimal (brute force)") {
  for (const auto& space :
       {std::tuple{2, 2, 8, 0.05}, std::tuple{1, 4, 8, 0.03}, std::tuple{2, 2, 4, 1.0}}) {
    // Plain copies: clang 14 lets no lambda (INFO's) capture structured bindings.
    const int32_t nodes = std::get<0>(space), per_node = std::get<1>(space);
    const int64_t batch = std::get<2>(space);
    const double memory_GB = std::get<3>(space);
    SyntheticCosts costs(small_shape());
    const Cluster cluster = testing::synthetic_cluster(nodes, per_node, memory_GB);
    const Training training = testing::synthetic_training(batch, 128);
    INFO("nodes=", nodes, " x ", per_node, " batch=", batch, " memory=", memory_GB);
    double best = INFINITY;
    int64_t plans = 0, fitting = 0;
    for (const Plan& config : all_configs(costs.facts(), cluster.gpus(), batch)) {
      Result<StageModel> model = StageModel::build(config, &costs, cluster, training);
      REQUIRE(model.is_ok());
      InflightCache cache;
      Result<const InflightProfile*> profile =
          cache.get(model.value().shape(), config.pp, config.microbatches);
      REQUIRE(profile.is_ok());
      const double relaxed = relaxation_bound_s(model.value());
      const int64_t least = least_memory_bytes(model.value());
      double least_split_bound = INFINITY, least_fitting_bound = INFINITY;
      int64_t least_worst_memory = INT64_MAX;
      for (const std::vector<int32_t>& split :
           all_splits(stage_count(config), costs.facts().layers, model.value().shape().chunks)) {
        // Every split's bound and memory, whether or not its schedule runs.
        const std::vector<StageCost> stages = stage_costs(model.value(), split);
        const double split_bound = split_bound_s(model.value(), stages);
        int64_t worst = 0;
        for (const DeviceMemory& mem : device_memory(model.value(), *profile.value(), stages)) {
          worst = std::max(worst, mem.total());
        }
        least_split_bound = std::min(least_split_bound, split_bound);
        least_worst_memory = std::min(least_worst_memory, worst);
        if (worst <= model.value().memory_limit_bytes()) {
          least_fitting_bound = std::min(least_fitting_bound, split_bound);
        }
        CHECK(relaxed <= split_bound * (1 + 1e-9));
        CHECK(least <= worst);
        Plan plan = config;
        plan.stage_layers = split;
        Result<StepResult> r = evaluate(plan, &costs, cluster, training);
        if (!r.is_ok()) {
          INFO(plan_summary(plan), ": ", r.status().message());
          CHECK(plan.schedule == "ZBV");  // only ZBV's greedy may refuse some times
          continue;
        }
        ++plans;
        const StepResult& s = r.value();
        INFO(plan_summary(plan));
        CHECK(s.bound_s == split_bound);
        CHECK(s.memory.peak == worst);
        CHECK(s.bound_s <= s.step_time_s * (1 + 1e-9));
        const double sum = s.breakdown.compute_s + s.breakdown.tp_comm_s + s.breakdown.dp_comm_s +
                           s.breakdown.pp_bubble_s + s.breakdown.p2p_s;
        CHECK(sum == doctest::Approx(s.step_time_s).epsilon(1e-6));
        if (s.fits) {
          ++fitting;
          best = std::min(best, s.step_time_s);
        }
      }
      // The DP's values are the least bounds over the splits (with memory: that fit).
      const SplitChoice free = best_split(model.value(), nullptr);
      const SplitChoice fit = best_split(model.value(), profile.value());
      INFO(plan_summary(config));
      if (config.zero < 2 || config.dp == 1) {
        CHECK(free.bound_s == doctest::Approx(least_split_bound).epsilon(1e-12));
      } else {
        CHECK(free.bound_s <= least_split_bound * (1 + 1e-12));
      }
      CHECK(fit.fits == (least_fitting_bound < INFINITY));
      if (fit.fits) {
        if (config.zero < 2 || config.dp == 1) {
          CHECK(fit.bound_s == doctest::Approx(least_fitting_bound).epsilon(1e-12));
        } else {
          CHECK(fit.bound_s <= least_fitting_bound * (1 + 1e-12));
        }
      }
      CHECK(least_memory_split(model.value(), *profile.value()).bytes == least_worst_memory);
    }
    CHECK(plans > 100);
    CHECK(fitting > 0);
    PlanOptions options;
    options.alternatives = false;
    options.sizing = false;
    options.time_limit_s = 1e9;
    const PlanResult result = plan_with_costs(&costs, cluster, training, Fix{}, options);
    REQUIRE(result.status.is_ok());
    REQUIRE(result.found);
    CHECK(result.best.step_time_s == doctest::Approx(best).epsilon(1e-9));
    CHECK(result.lower_bound_s <= best * (1 + 1e-9));
    CHECK(result.gap >= 0);
  }
}

TEST_CASE("plan search: a fixed plan is timed as given, and the result is deterministic") {
  Setup s(2, 2, 1.0, 8);
  const Fix fix =
      parse_fix("tp=1,pp=2,dp=2,schedule=1f1b,mbs=1,zero=0,recompute=none,layers=4/2").value();
  const PlanResult a = plan_with_costs(&s.costs, s.cluster, s.training, fix, s.options);
  REQUIRE(a.status.is_ok());
  REQUIRE(a.found);
  CHECK(a.best.plan.stage_layers == std::vector<int32_t>{4, 2});
  CHECK(a.proven);
  Plan plan = a.best.plan;
  const StepResult direct = evaluate(plan, &s.costs, s.cluster, s.training).value();
  CHECK(direct.step_time_s == a.best.step_time_s);
  const PlanResult b = plan_with_costs(&s.costs, s.cluster, s.training, fix, s.options);
  CHECK(plan_json(a) == plan_json(b));
  const PlanResult free1 = plan_with_costs(&s.costs, s.cluster, s.training, Fix{}, s.options);
  const PlanResult free2 = plan_with_costs(&s.costs, s.cluster, s.training, Fix{}, s.options);
  CHECK(plan_json(free1) == plan_json(free2));
  CHECK(free1.best.step_time_s <= a.best.step_time_s);
}

// The page's worker ends each step of the search after a slice of time
// (set_yield): a step then runs one unit (a configuration bounded, or one
// queue entry refined) past it, and the answer is the same unit for unit.
TEST_CASE("plan search: a yield ends a step after one unit and changes no answer") {
  Setup s(2, 2, 1.0, 8);
  s.options.alternatives = false;
  s.options.sizing = false;
  const auto run_to_end = [&](bool yield, int64_t* longest_step_work) {
    PlanRun run(&s.costs, s.cluster, s.training, Fix{}, s.options);
    if (yield) run.set_yield([] { return true; });
    int64_t before = 0;
    *longest_step_work = 0;
    while (!run.finished()) {
      run.step();
      int64_t work = 0;
      const Progress progress = run.progress(0);
      for (const Counters::Entry& e : progress.counters.entries()) {
        if (e.name == "work") work = e.integer;
      }
      *longest_step_work = std::max(*longest_step_work, work - before);
      before = work;
    }
    return run.finish();
  };
  int64_t longest_free = 0, longest_yield = 0;
  const PlanResult free = run_to_end(false, &longest_free);
  const PlanResult sliced = run_to_end(true, &longest_yield);
  REQUIRE(free.found);
  CHECK(plan_json(free) == plan_json(sliced));
  CHECK(longest_free > 1);
  CHECK(longest_yield <= 1 + 64 / 1000 + 1);  // one unit: 1, plus a DP's or simulation's share
  CHECK(longest_yield < longest_free);
}

// Issue 26's Stop within 200 ms: every step of a run, in every phase (the
// seeds, the search, the evaluation, the why-not rows, sizing), runs at
// most two long parts (a block solve, a schedule order's generation, a
// simulation: progress counter long_parts) once the caller's yield says its
// slice is over; the rest waits for the next step, undone. A run without a
// yield has steps with many more, and both runs give the same answer.
TEST_CASE("plan run: a yield that says stop bounds every step to two long parts, same answer") {
  Setup s(2, 4, 1.0, 16);
  s.options.side_work = 400;
  const auto counter = [](const Progress& p, const char* name) {
    const Counters::Entry* e = p.counters.find(name);
    REQUIRE(e != nullptr);
    return e->integer;
  };
  struct Steps {
    PlanResult result;
    int64_t most_parts = 0;  // measured here, step by step
    int64_t reported = 0;    // the run's own step_long_parts
    int64_t steps = 0;
    std::vector<std::string> phases;  // where the most was run
  };
  const auto run_to_end = [&](bool yield) {
    Steps out;
    PlanRun run(&s.costs, s.cluster, s.training, Fix{}, s.options);
    if (yield) run.set_yield([] { return true; });
    int64_t before = counter(run.progress(0), "long_parts");
    while (!run.finished()) {
      const std::string phase = run.progress(0).counters.find("phase")->text;
      run.step();
      ++out.steps;
      const Progress p = run.progress(0);
      const int64_t parts = counter(p, "long_parts") - before;
      before = counter(p, "long_parts");
      if (parts > out.most_parts) out.phases.clear();
      if (parts >= out.most_parts) out.phases.push_back(phase);
      out.most_parts = std::max(out.most_parts, parts);
      out.reported = counter(p, "step_long_parts");
    }
    out.result = run.finish();
    return out;
  };
  const Steps free = run_to_end(false);
  const Steps sliced = run_to_end(true);
  REQUIRE(free.result.found);
  CHECK(!free.result.alternatives.empty());
  CHECK(free.result.sizing.smallest_gpus > 0);
  CHECK(plan_json(free.result) == plan_json(sliced.result));
  CHECK(s.costs.solves() > 3);
  INFO("free: " << free.most_parts << " long parts in a step; sliced: " << sliced.most_parts << " ("
                << sliced.phases.front() << ")");
  CHECK(free.most_parts > 2);
  CHECK(sliced.most_parts <= 2);
  CHECK(sliced.reported == sliced.most_parts);
  CHECK(sliced.steps > free.steps);
}

// A run stopped among the seeds' offers (a Stop right after Start, once the
// first textbook plan is timed) has bounded no configuration yet: its lower
// bound is 0 and its gap 100%, not the seed's own time (a gap of 0).
TEST_CASE("plan run: stopped among the seeds, the bound is 0 and the gap 100%") {
  Setup s(2, 4, 1.0, 16);
  PlanRun run(&s.costs, s.cluster, s.training, Fix{}, s.options);
  run.set_yield([] { return true; });
  Progress p = run.progress(0);
  for (int32_t steps = 0; !p.found && steps < 1000; ++steps) {
    run.step();
    p = run.progress(0);
  }
  REQUIRE(p.found);
  CHECK(p.counters.find("phase")->text == "seed");
  CHECK(p.bound == 0);
  CHECK(p.gap == 1);
  const PlanResult r = run.finish();
  REQUIRE(r.found);
  CHECK(r.lower_bound_s == 0);
  CHECK(r.gap == 1);
  CHECK_FALSE(r.proven);
}

TEST_CASE("plan step model: a model that fits nowhere says what it needs") {
  Setup s(1, 2, 0.005, 8);
  const PlanResult r = plan_with_costs(&s.costs, s.cluster, s.training, Fix{}, s.options);
  REQUIRE(r.status.is_ok());
  CHECK_FALSE(r.found);
  CHECK(r.needs_bytes > 5'000'000);
  CHECK(r.sizing.smallest_gpus > 2);
}

TEST_CASE("plan sizing: the yes/no memory hunt agrees with the least memory, on both sides") {
  SyntheticCosts costs(small_shape());
  const Training training = testing::synthetic_training(8, 128);
  int32_t yes = 0, no = 0;
  for (int32_t nodes : {1, 2, 4}) {
    const Cluster cluster = testing::synthetic_cluster(nodes, 2, 1.0);
    Planner all(&costs, cluster, training, Fix{}, SearchOptions{});
    const Planner::NeedsMemory least = all.least_memory(0);
    REQUIRE(least.any);
    for (const double f : {0.5, 0.9, 0.999, 1.0, 1.001, 1.5, 10.0}) {
      const int64_t limit = std::llround(static_cast<double>(least.bytes) * f);
      CAPTURE(nodes);
      CAPTURE(limit);
      Planner probe(&costs, cluster, training, Fix{}, SearchOptions{});
      const Planner::NeedsMemory found = probe.least_memory(limit);
      CHECK(found.any == (least.bytes <= limit));
      (found.any ? yes : no) += 1;
      if (!found.any) continue;
      // A plan that needs at most the limit (not necessarily the least).
      CHECK(found.bytes >= least.bytes);
      CHECK(found.bytes <= limit);
      Result<StepResult> r = evaluate(found.plan, &costs, cluster, training);
      CAPTURE(plan_summary(found.plan));
      if (r.is_ok()) {
        CHECK(r.value().memory.peak == found.bytes);
      } else {
        // ZBV is charged 1F1B's budget (inflight.h); its greedy may then find
        // no order for these stage times, as every search knows.
        CHECK(found.plan.schedule == "ZBV");
      }
    }
  }
  CHECK(yes > 0);
  CHECK(no > 0);
}

}  // namespace
}  // namespace shardlab::plan
