// The plan lab's worker, in the shell of web/worker_shell.mjs: one wasm
// module and one PlanSession (wasm/plan_bindings.cpp) holding the parsed
// model, cluster and training. OPEN sets one or more of them (a preset's
// name, or a file's text read once: {model: {preset} | {text, source},
// cluster: ..., training: {gpus, global_batch, seq, fix}}) and replies with
// what the pickers show of each; PLAN runs the plan lab's search in time
// slices until it is finished, reaches its time limit or gets a STOP,
// posting the progress record (PROGRESS; INCUMBENT when the best plan or the
// bound improved, and once with the evaluated plan before the why-not rows
// and sizing) at most 10 times a second, and replies with the result
// (the core's plan JSON, the exports and the winning plan's timeline);
// LAYOUT answers the teaching lab's report of one part's layout.
//
// Call chain: lab.mjs -> plan_client.mjs -> postMessage -> worker.js ->
//             shardlab.js (Embind, wasm/plan_bindings.cpp) -> core/plan/
importScripts('../worker_boot.js');

const SLICE_MS = 40;  // steps between event-loop turns (a STOP gets through)
// The worker loop's work argument: PlanRun bounds its own steps.
const STEP_WORK = 0;

let P = null;  // protocol.mjs
let L = null;  // worker_loop.mjs
let R = null;  // result.mjs
let M = null;  // the wasm module
let session = null;

// Each input: a preset by name, or a file's text (errors name its source).
function setInput(kind, input) {
  const Kind = kind[0].toUpperCase() + kind.slice(1);
  if (input.preset !== undefined) return R.unwrap(session[`set${Kind}Preset`](input.preset));
  return R.unwrap(session[`set${Kind}Text`](input.text, input.source || `${kind}.json`));
}

function open(req) {
  const out = {};
  if (req.model) out.model = setInput('model', req.model);
  if (req.cluster) out.cluster = setInput('cluster', req.cluster);
  if (req.training) out.training = R.unwrap(session.setTraining(JSON.stringify(req.training)));
  return out;
}

// As the CLI's plan_with_costs: the time limit bounds the whole run. The
// main search ends at its share of it (searchTimeLimitS), the evaluation,
// the why-not rows and sizing go on in their own bounded steps until the
// limit, when timeUp() ends them (the rows not done say so); a STOP ends
// the run where it is, with the answer so far.
async function plan(req, run) {
  const options = {...(req.options || {}), time_limit_s: req.timeLimitS};
  const engine = R.unwrap(session.run(JSON.stringify(options)));
  try {
    const startedMs = performance.now();
    const elapsed = () => (performance.now() - startedMs) / 1000;
    // The evaluated plan goes to the page once, before the why-not rows and
    // sizing (INCUMBENT {record, plan: finish()'s shape without the timeline}).
    let early = false;
    const post = (improved) => {
      const record = engine.progress(elapsed());
      if (!early && record.counters && engine.snapshot) {
        const plan = R.unwrap(engine.snapshot());
        if (plan) {
          early = true;
          return run.post(P.MSG.INCUMBENT, {record, plan});
        }
      }
      run.post(improved ? P.MSG.INCUMBENT : P.MSG.PROGRESS, {record});
    };
    const slices = (timeLimitS, dirty) => L.runSlices({
      engine,
      run,
      timeLimitS,
      elapsed,
      stepWork: STEP_WORK,
      sliceMs: SLICE_MS,
      dirty,
      report: (improved) => post(improved),
    });
    let {reason, dirty} = await slices(engine.searchTimeLimitS(), false);
    const searchS = elapsed();
    if (reason === 'time') {
      engine.stopSearch();
      ({reason, dirty} = await slices(req.timeLimitS, dirty));
      if (reason === 'time') {
        engine.timeUp();
        ({reason, dirty} = await slices(Infinity, dirty));
        if (reason === 'finished') reason = 'time';
      }
    }
    post(true);
    // A stopped run answers without its timeline (a long pipeline's
    // simulation and JSON take seconds).
    const result = R.unwrap(engine.finish(reason !== 'stopped'));
    return {reason, searchS, elapsedS: elapsed(), ...result};
  } finally {
    engine.delete();
  }
}

// The wasm engine compiles each function on its first call, and a run's
// first steps and its answer call most of the lab's code for the first
// time: in a fresh module the first block solve took 140-250 ms and the
// first stopped answer up to 230 ms (tests/bench/plan_stop_bench.mjs, node),
// nearly all of it compiling, and a Stop right after Start waited for it.
// One small plan, run whole at boot (before the tab shows 'planning'),
// compiles that code first; its answer is not used. READY says what it ran.
const WARM_UP = {
  model: 'gpt-1.7b',
  cluster: 'dgx-a100-80gb',
  training: {gpus: 4, global_batch: 8, seq: 2048, fix: ''},
  options: {work_limit: 100, alternatives: false, sizing: false},
};

function warmUp() {
  const startedMs = performance.now();
  const warm = new M.PlanSession();
  try {
    R.unwrap(warm.setModelPreset(WARM_UP.model));
    R.unwrap(warm.setClusterPreset(WARM_UP.cluster));
    R.unwrap(warm.setTraining(JSON.stringify(WARM_UP.training)));
    const engine = R.unwrap(warm.run(JSON.stringify(WARM_UP.options)));
    try {
      let steps = 0;
      for (; !engine.finished(); ++steps) engine.step(STEP_WORK);
      engine.progress(0);
      R.unwrap(engine.snapshot());
      const done = R.unwrap(engine.finish(true));
      return {steps, found: JSON.parse(done.json).found, ms: performance.now() - startedMs};
    } finally {
      engine.delete();
    }
  } catch (error) {
    // Only a slower first run depends on it: the lab starts anyway.
    return {error: error.message};
  } finally {
    warm.delete();
  }
}

shardlabWorker({
  name: 'the plan lab',
  root: '../',
  scripts: ['shardlab.js'],
  modules: {P: 'protocol.mjs', L: 'worker_loop.mjs', R: 'result.mjs'},
  boot: async ({modules}) => {
    ({P, L, R} = modules);
    M = await createShardLab(
        {locateFile: (file) => new URL(`../${file}`, self.location.href).href});
    session = new M.PlanSession();
    return {
      version: R.unwrap(M.version()),
      models: R.unwrap(M.PlanSession.modelPresets()),
      clusters: R.unwrap(M.PlanSession.clusterPresets()),
      warmUp: warmUp(),
    };
  },
  runs: ['plan'],
  ops: {
    open,
    plan,
    layout: (req) => ({report: R.unwrap(session.layout(req.part, JSON.stringify(req.config)))}),
  },
});
