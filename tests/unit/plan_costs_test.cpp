// The plan lab's engine on its production costs (model_costs.h) for the
// GPT presets of Narayanan et al.'s Table 1 on dgx-a100-80gb: the memory
// the step model reports equals ZeRO's formulas, ZeRO-3's two gathered
// parts and Korthikanti's per-layer bytes exactly; the certified bound stays below every plan's
// simulated step time; a --fix of a published row reproduces its configuration; PlanRun's steps
// give plan_with_costs's answer, and with the page's yield one piece of a block's solve at most.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/plan/formulas.h"
#include "core/plan/inputs.h"
#include "core/plan/model_costs.h"
#include "core/plan/plan.h"

namespace shardlab::plan {
namespace {

struct Setup {
  ModelInput model;
  Cluster cluster;
  Training training;
  std::unique_ptr<ModelCosts> costs;
};

Setup setup(const std::string& preset, int64_t gpus, int64_t batch) {
  Setup s;
  Result<Transformer> t = model_preset(preset);
  REQUIRE(t.is_ok());
  s.model.transformer = t.value();
  Result<Cluster> c = cluster_preset("dgx-a100-80gb");
  REQUIRE(c.is_ok());
  s.cluster = c.value();
  REQUIRE(set_gpu_count(&s.cluster, gpus).is_ok());
  s.training.global_batch = batch;
  s.training.seq = 2048;
  Result<std::unique_ptr<ModelCosts>> costs = ModelCosts::create(s.model, s.cluster, s.training);
  REQUIRE(costs.is_ok());
  s.costs = std::move(costs).value();
  return s;
}

PlanOptions quick() {
  PlanOptions o;
  o.alternatives = false;
  o.sizing = false;
  o.work_limit = 200000;
  return o;
}

TEST_CASE("plan costs: memory fields equal ZeRO's and Korthikanti's formulas exactly") {
  // gpt-1.7b on 32 GPUs: one stage holds the whole model (the tied head once).
  Setup s = setup("gpt-1.7b", 32, 512);
  const Transformer& m = s.model.transformer;
  const int64_t psi = parameter_counts(m).total;
  for (int32_t zero = 0; zero <= 3; ++zero) {
    for (int32_t t : {1, 2, 4, 8}) {
      for (bool sp : {false, true}) {
        if (t == 1 && sp) continue;
        for (Recompute rc : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
          Plan p;
          p.tp = t;
          p.dp = 32 / t;
          p.pp = 1;
          p.zero = zero;
          p.sequence_parallel = sp;
          p.recompute = rc;
          p.microbatch_size = 2;
          p.microbatches = 512 / (2 * p.dp);
          p.stage_layers = {m.layers};
          Result<StepResult> r = evaluate(p, s.costs.get(), s.cluster, s.training);
          REQUIRE(r.is_ok());
          const MemoryReport& mem = r.value().memory;
          INFO("zero=" << zero << " t=" << t << " sp=" << sp
                       << " recompute=" << recompute_name(rc));
          CHECK(mem.activation_per_layer_bytes ==
                activation_bytes_per_layer(m, 2048, 2, t, sp, rc));
          if (t == 1) {
            // 16 Psi, 4 Psi + 12 Psi / d, 2 Psi + 14 Psi / d, 16 Psi / d (d divides Psi here).
            REQUIRE(psi % p.dp == 0);
            const int64_t d = p.dp;
            const int64_t want[4][3] = {{2 * psi, 2 * psi, 12 * psi},
                                        {2 * psi, 2 * psi, 12 * psi / d},
                                        {2 * psi, 2 * psi / d, 12 * psi / d},
                                        {2 * psi / d, 2 * psi / d, 12 * psi / d}};
            CHECK(mem.parameters == want[zero][0]);
            CHECK(mem.gradients == want[zero][1]);
            CHECK(mem.optimizer == want[zero][2]);
            // ZeRO-3 gathers the part running and the one prefetched in
            // full: on this one stage the embedding and a layer, the two
            // largest ((V + s) h and 12 h^2 + 13 h), 2 bytes each.
            const ParameterCounts pc = parameter_counts(m);
            CHECK(mem.gathered_parameters == (zero == 3 ? 2 * (pc.embedding + pc.per_layer) : 0));
          } else if (zero < 3) {
            CHECK(mem.gathered_parameters == 0);
          }
          CHECK(mem.peak == mem.parameters + mem.gradients + mem.optimizer +
                                mem.gathered_parameters + mem.activations);
        }
      }
    }
  }
}

TEST_CASE("plan costs: ZeRO-3 holds the running and the prefetched part in full, per device") {
  // gpt-7.5b (h 4096, 36 layers) on 128 GPUs, t = 1, four stages of 9 layers,
  // d = 32: each device holds its two largest parts gathered, 2 bytes a
  // parameter. The first stage: the embedding ((V + s) h) and a layer
  // (12 h^2 + 13 h); a middle one: two layers; the last: a layer and the
  // head (the tied word embeddings' copy V h and the final norm's 2 h).
  Setup s = setup("gpt-7.5b", 128, 512);
  const Transformer& m = s.model.transformer;
  const ParameterCounts pc = parameter_counts(m);
  Plan p;
  p.tp = 1;
  p.pp = 4;
  p.dp = 32;
  p.zero = 3;
  p.schedule = "1F1B";
  p.recompute = Recompute::kFull;
  p.microbatch_size = 1;
  p.microbatches = 512 / 32;
  p.stage_layers = {9, 9, 9, 9};
  Result<StepResult> r = evaluate(p, s.costs.get(), s.cluster, s.training);
  REQUIRE(r.is_ok());
  const std::vector<DeviceStep>& d = r.value().devices;
  REQUIRE(d.size() == 4);
  const int64_t h = m.hidden;
  CHECK(d[0].memory.gathered == 2 * (pc.embedding + pc.per_layer));
  CHECK(d[1].memory.gathered == 2 * (2 * pc.per_layer));
  CHECK(d[2].memory.gathered == 2 * (2 * pc.per_layer));
  CHECK(d[3].memory.gathered == 2 * (m.vocab * h + 2 * h + pc.per_layer));
  const MemoryReport& worst = r.value().memory;
  CHECK(worst.gathered_parameters == d[worst.device].memory.gathered);
  CHECK(worst.peak == d[worst.device].memory.total());
  // ZeRO-1: nothing gathered.
  p.zero = 1;
  Result<StepResult> one = evaluate(p, s.costs.get(), s.cluster, s.training);
  REQUIRE(one.is_ok());
  for (const DeviceStep& dev : one.value().devices) CHECK(dev.memory.gathered == 0);
}

TEST_CASE("plan costs: the bound is below every plan's simulated step time") {
  // gpt-7.5b on 128 GPUs (Table 1's third row): the free search's bound and
  // every pinned configuration's own bound against its exact step time.
  Setup s = setup("gpt-7.5b", 128, 512);
  const PlanResult free = plan_with_costs(s.costs.get(), s.cluster, s.training, Fix{}, quick());
  REQUIRE(free.status.is_ok());
  REQUIRE(free.found);
  CHECK(free.lower_bound_s <= free.best.step_time_s);
  int compared = 0;
  for (const char* text :
       {"tp=4,pp=1,recompute=full", "tp=2,pp=2,schedule=1f1b", "tp=8,pp=4,schedule=interleaved",
        "tp=1,pp=4,schedule=zb-h1", "tp=4,pp=2,schedule=zbv,recompute=selective,sp=on",
        "tp=1,pp=1,zero=3,mbs=4"}) {
    Result<Fix> fix = parse_fix(text);
    REQUIRE(fix.is_ok());
    const PlanResult pinned =
        plan_with_costs(s.costs.get(), s.cluster, s.training, fix.value(), quick());
    REQUIRE(pinned.status.is_ok());
    if (!pinned.found) continue;
    ++compared;
    INFO(std::string(text));
    // Sound up to rounding (the bound and the timeline add the same times
    // in other orders): plan.h's contract, 1e-9 relative.
    const double slack = 1 + 1e-9;
    CHECK(pinned.best.bound_s <= pinned.best.step_time_s * slack);
    CHECK(pinned.lower_bound_s <= pinned.best.step_time_s * slack);
    CHECK(free.lower_bound_s <= pinned.best.step_time_s * slack);
    if (free.proven) CHECK(free.best.step_time_s <= pinned.best.step_time_s);
  }
  CHECK(compared >= 5);
}

TEST_CASE("plan costs: --fix of a published row reproduces its configuration") {
  // Table 1, 39.1B: (t, p, d) = (8, 2, 32) on 512 GPUs, batch 1536, with
  // interleaving and full recomputation as the paper ran it.
  Setup s = setup("gpt-39.1b", 512, 1536);
  Result<Fix> fix = parse_fix("tp=8,pp=2,dp=32,schedule=interleaved,recompute=full,mbs=1");
  REQUIRE(fix.is_ok());
  const PlanResult r = plan_with_costs(s.costs.get(), s.cluster, s.training, fix.value(), quick());
  REQUIRE(r.status.is_ok());
  REQUIRE(r.found);
  const Plan& p = r.best.plan;
  CHECK(p.tp == 8);
  CHECK(p.pp == 2);
  CHECK(p.dp == 32);
  CHECK(p.schedule == "Interleaved1F1B");
  CHECK(p.vpp >= 2);
  CHECK(p.recompute == Recompute::kFull);
  CHECK(p.microbatch_size == 1);
  CHECK(p.microbatches == 1536 / 32);
  int32_t layers = 0;
  for (int32_t n : p.stage_layers) layers += n;
  CHECK(layers == 48);
  CHECK(r.best.memory.peak <= r.best.memory.limit);
  // The throughput is Eq. 3's FLOPs over the step.
  const double flops = hardware_flops(s.model.transformer, 1536, 2048, Recompute::kFull);
  CHECK(r.best.tflops_per_gpu == doctest::Approx(flops / r.best.step_time_s / 512 / 1e12));
}

TEST_CASE("plan run: its steps give plan_with_costs's answer, and progress reports through it") {
  Setup s = setup("gpt-3.6b", 64, 512);
  PlanOptions o = quick();
  o.alternatives = true;
  o.sizing = true;
  o.side_work = 3000;
  const PlanResult once = plan_with_costs(s.costs.get(), s.cluster, s.training, Fix{}, o);
  PlanRun run(s.costs.get(), s.cluster, s.training, Fix{}, o);
  REQUIRE(run.status().is_ok());
  int64_t steps = 0;
  bool saw_alternatives = false;
  CHECK(!run.evaluated());
  CHECK(!run.snapshot().found);
  PlanResult early;
  while (!run.finished()) {
    run.step();
    ++steps;
    // The first moment the plan is evaluated: the page shows this snapshot.
    if (run.evaluated() && !early.found) {
      early = run.snapshot();
      CHECK(early.alternatives.empty());
    }
    const Progress p = run.progress(0);
    const Counters::Entry* phase = p.counters.find("phase");
    REQUIRE(phase != nullptr);
    if (phase->text == "alternatives") saw_alternatives = true;
    REQUIRE(steps < 1000000);
  }
  const Progress last = run.progress(1.5);
  CHECK(last.finished);
  CHECK(last.elapsed_s == 1.5);
  const PlanResult stepped = run.finish();
  REQUIRE(stepped.found);
  CHECK(saw_alternatives);
  CHECK(stepped.best.step_time_s == once.best.step_time_s);
  CHECK(stepped.lower_bound_s == once.lower_bound_s);
  CHECK(stepped.alternatives.size() == once.alternatives.size());
  CHECK(stepped.sizing.smallest_gpus == once.sizing.smallest_gpus);
  CHECK(plan_json(stepped).size() > 0);
  CHECK(last.incumbent == stepped.best.step_time_s);
  // The snapshot taken before the why-not rows holds the final plan.
  REQUIRE(early.found);
  CHECK(plan_summary(early.best.plan) == plan_summary(stepped.best.plan));
  CHECK(early.best.plan.stage_layers == stepped.best.plan.stage_layers);
  CHECK(early.best.step_time_s == stepped.best.step_time_s);
  CHECK(early.lower_bound_s == stepped.lower_bound_s);
  // A bad fix: the status at once, finished, nothing to step.
  Result<Fix> bad = parse_fix("tp=3");
  REQUIRE(bad.is_ok());
  PlanRun refused(s.costs.get(), s.cluster, s.training, bad.value(), o);
  CHECK(!refused.status().is_ok());
  CHECK(refused.finished());
  CHECK(!refused.finish().status.is_ok());
}

TEST_CASE("plan run: time_up() ends the run; the rows and sizing not done say so") {
  Setup s = setup("gpt-3.6b", 64, 512);
  PlanOptions o = quick();
  o.alternatives = true;
  o.sizing = true;
  o.side_work = 3000;
  const PlanResult whole = plan_with_costs(s.costs.get(), s.cluster, s.training, Fix{}, o);
  REQUIRE(whole.found);
  REQUIRE(whole.alternatives.size() >= 3);
  CHECK(!whole.time_limit_reached);
  CHECK(whole.sizing.reason.empty());
  CHECK(whole.sizing.smallest_gpus > 0);
  // During the why-not rows, after the first two: those two stay, the one
  // running keeps its best plan (or says so), the rest and sizing say so.
  {
    PlanRun run(s.costs.get(), s.cluster, s.training, Fix{}, o);
    while (!run.finished() && run.snapshot().alternatives.size() < 2) run.step();
    REQUIRE(!run.finished());
    run.step();  // the third row's search starts
    run.time_up();
    CHECK(run.finished());
    const PlanResult r = run.finish();
    REQUIRE(r.found);
    CHECK(r.time_limit_reached);
    CHECK(r.best.step_time_s == whole.best.step_time_s);
    REQUIRE(r.alternatives.size() == whole.alternatives.size());
    for (size_t i = 0; i < r.alternatives.size(); ++i) {
      CAPTURE(r.alternatives[i].name);
      CHECK(r.alternatives[i].name == whole.alternatives[i].name);
      if (i < 2) {
        CHECK(r.alternatives[i].reason == whole.alternatives[i].reason);
        CHECK(r.alternatives[i].step_time_s == whole.alternatives[i].step_time_s);
      } else if (!whole.alternatives[i].applicable) {
        CHECK(r.alternatives[i].reason == whole.alternatives[i].reason);  // no search needed
      } else if (i > 2 || !r.alternatives[i].fits) {
        CHECK(!r.alternatives[i].fits);
        CHECK(r.alternatives[i].reason == kNotEvaluated);
      }
    }
    CHECK(r.sizing.smallest_gpus == 0);
    CHECK(r.sizing.reason == kNotEvaluated);
    CHECK(plan_json(r, -1).find("\"reason\":\"not evaluated within the time limit\"") !=
          std::string::npos);
    CHECK(plan_text(r).find("sizing: not evaluated within the time limit") != std::string::npos);
  }
  // During the main search: its best so far is evaluated, every row says so.
  {
    PlanRun run(s.costs.get(), s.cluster, s.training, Fix{}, o);
    while (run.progress(0).counters.find("phase")->text != "search") run.step();
    run.step();
    run.time_up();
    const PlanResult r = run.finish();
    REQUIRE(r.found);  // a textbook seed at least
    CHECK(r.time_limit_reached);
    CHECK(r.best.step_time_s >= whole.best.step_time_s);
    REQUIRE(r.alternatives.size() > 0);
    for (const Alternative& a : r.alternatives) {
      CHECK(!a.fits);
      CHECK((!a.applicable || a.reason == kNotEvaluated));
    }
    CHECK(plan_text(r).find("not evaluated within the time limit") != std::string::npos);
    CHECK(r.sizing.reason == kNotEvaluated);
  }
}

// Issue 26's Stop within 200 ms, right after Start: the page's worker steps
// the run with a yield that always says stop, and then no step holds a
// whole block solve: the run's first steps generate the first seed's layer
// and build its engine, one piece each (block.h BlockCache::advance), and
// every step runs one piece at most. The answer is that of a run without
// the yield (whose steps run whole solves), on the page's default problem.
TEST_CASE("plan run: a yield that says stop runs one piece of a block's solve a step") {
  Setup whole = setup("gpt-1.7b", 32, 512);
  Setup sliced = setup("gpt-1.7b", 32, 512);
  const PlanOptions o = quick();
  const auto run_to_end = [&](Setup& s, bool yield, int64_t* most_pieces) {
    PlanRun run(s.costs.get(), s.cluster, s.training, Fix{}, o);
    if (yield) run.set_yield([] { return true; });
    *most_pieces = 0;
    int64_t steps = 0;
    while (!run.finished()) {
      const int64_t before = s.costs->solve_pieces();
      run.step();
      *most_pieces = std::max(*most_pieces, s.costs->solve_pieces() - before);
      if (yield && ++steps <= 2) {
        CHECK(s.costs->solves() == 0);
        CHECK(s.costs->solve_pieces() == steps);
      }
    }
    return run.finish();
  };
  int64_t whole_most = 0, sliced_most = 0;
  const PlanResult a = run_to_end(whole, false, &whole_most);
  const PlanResult b = run_to_end(sliced, true, &sliced_most);
  REQUIRE(a.found);
  CHECK(plan_json(a) == plan_json(b));
  CHECK(whole.costs->solves() == sliced.costs->solves());
  CHECK(sliced.costs->solves() > 3);
  // Each solve: generated, its engine built, its price (and its engine's steps).
  CHECK(sliced.costs->solve_pieces() >= 3 * sliced.costs->solves());
  CHECK(whole_most >= 3);
  CHECK(sliced_most == 1);
}

}  // namespace
}  // namespace shardlab::plan
