// The plan lab's worker, in the shell of web/worker_shell.mjs: one wasm
// module and one PlanSession (wasm/plan_bindings.cpp) holding the parsed
// model, cluster and training. OPEN sets one or more of them (a preset's
// name, or a file's text read once: {model: {preset} | {text, source},
// cluster: ..., training: {gpus, global_batch, seq, fix}}) and replies with
// what the pickers show of each; PLAN runs the plan lab's search in time
// slices until it is finished, reaches its time limit or gets a STOP,
// posting the progress record (PROGRESS; INCUMBENT when the best plan or the
// bound improved) at most 10 times a second, and replies with the result
// (the core's plan JSON, the exports and the winning plan's timeline);
// LAYOUT answers the teaching lab's report of one part's layout.
//
// Call chain: lab.mjs -> plan_client.mjs -> postMessage -> worker.js ->
//             shardlab.js (Embind, wasm/plan_bindings.cpp) -> core/plan/
importScripts('../worker_boot.js');

const SLICE_MS = 40;  // search time between event-loop turns (a STOP gets through)
// Work per step: plan_with_costs' own slice (core/plan/plan.cpp), so a run cut
// by a work limit stops where the CLI's does.
const STEP_WORK = 256;

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

async function plan(req, run) {
  const options = {...(req.options || {}), time_limit_s: req.timeLimitS};
  const engine = R.unwrap(session.run(JSON.stringify(options)));
  try {
    const startedMs = performance.now();
    const elapsed = () => (performance.now() - startedMs) / 1000;
    const post = (improved) =>
        run.post(improved ? P.MSG.INCUMBENT : P.MSG.PROGRESS, {record: engine.progress(elapsed())});
    const {reason} = await L.runSlices({
      engine,
      run,
      timeLimitS: req.timeLimitS,
      elapsed,
      stepWork: STEP_WORK,
      sliceMs: SLICE_MS,
      dirty: false,
      report: (improved) => post(improved),
    });
    const searchS = elapsed();
    post(true);
    // Re-checking the winner, the why-not table and sizing, as the CLI does;
    // after a Stop only the re-check (the side searches block for seconds).
    const result = R.unwrap(engine.finish(searchS, reason !== 'stopped'));
    return {reason, searchS, elapsedS: elapsed(), ...result};
  } finally {
    engine.delete();
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
    };
  },
  runs: ['plan'],
  ops: {
    open,
    plan,
    layout: (req) => ({report: R.unwrap(session.layout(req.part, JSON.stringify(req.config)))}),
  },
});
