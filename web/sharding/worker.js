// One solver worker of the sharding lab: one wasm module, one model and one
// Engine, in the shell of web/worker_shell.mjs (boot, start failure,
// dispatch, STOP). It loads instances (streaming, see files.mjs), imports
// models other workers parsed, runs its engine in time slices
// (worker_loop.mjs) and sends the engine's progress record (core/progress.h)
// at most 10 times a second; the core never throttles, this file does.
// Right after a parse it computes a quick feasible plan (bindings'
// quickPlan), which START shows before the Engine's presolve and then offers
// to it. It also serves the teaching lab's generate and explain (TEACH).
//
// Call chain: lab.mjs -> solver_client.mjs -> postMessage -> worker.js
//             -> shardlab.js (Embind, wasm/bindings.cpp) -> core/
importScripts('../worker_boot.js');

const SLICE_MS = 40;                   // run the engine this long between event-loop turns
const STEP_WORK = 20000;               // work per Engine.step(), as in the native portfolio
const KEEP_STORED_BYTES = 512 * 1024;  // small files come back for inline links
const QUICK_WORK = 1e6;                // strategy evaluations for the quick plan (M needs ~0.5M)

let P = null;  // protocol.mjs
let F = null;  // files.mjs
let L = null;  // worker_loop.mjs
let R = null;  // result.mjs
let S = null;  // worker_shell.mjs
let M = null;  // the wasm module
let model = null;
let engine = null;
let engineKey = '';  // options + index the engine was built with
let quick = null;    // {plan, cost}: a feasible plan to show before the engine is built
let held = null;     // the last plan offered while no engine existed

function heapInfo() {
  return {heapBytes: M.HEAPU8.length, heapPeakBytes: R.unwrap(M.heapPeakBytes())};
}

function setModel(next) {
  if (engine) engine.delete();
  if (model) model.delete();
  engine = null;
  engineKey = '';
  quick = null;
  held = null;
  model = next;
}

// A first feasible plan without presolve (greedy from the least-usage plan),
// kept only when the independent checker accepts it.
function quickIncumbent() {
  const plan = R.unwrap(M.quickPlan(model, 1, QUICK_WORK));
  if (!plan) return null;
  const check = R.unwrap(M.evaluatePlan(model, plan));
  return check.feasible ? {plan, cost: check.cost} : null;
}

function openSource(source) {
  if (source.kind === 'file') return {stream: source.file.stream(), name: source.file.name};
  if (source.kind === 'bytes') {
    return {stream: new Blob([source.bytes]).stream(), name: source.name};
  }
  throw new R.ShardLabError('InvalidArgument', `unknown source kind ${source.kind}`);
}

async function openUrl(url) {
  let response;
  try {
    response = await fetch(url, {mode: 'cors'});
  } catch (error) {
    throw new R.ShardLabError(
        'IoError',
        `${url}: cannot fetch the instance (${error.message}; the server ` +
            'must allow cross-origin requests)');
  }
  if (!response.ok)
    throw new R.ShardLabError('IoError', `${url}: the server answered ${response.status}`);
  const name = decodeURIComponent(new URL(url).pathname.split('/').pop() || url);
  const total = Number(response.headers.get('content-length')) || 0;
  return {stream: response.body, name, total};
}

async function load(req, run) {
  const {stream, name, total} =
      req.source.kind === 'url' ? await openUrl(req.source.url) : openSource(req.source);
  const size = total || (req.source.file ? req.source.file.size : 0) ||
      (req.source.bytes ? req.source.bytes.byteLength : 0);
  const progress = new P.Throttle();
  const kept = [];
  let keptBytes = 0;
  // Tee the raw chunks of small files so the page can put them in a link.
  const keeping = new TransformStream({
    transform(chunk, controller) {
      keptBytes += chunk.length;
      if (keptBytes <= KEEP_STORED_BYTES) kept.push(chunk);
      controller.enqueue(chunk);
    },
  });
  const loaded = await F.loadInstance(M, stream.pipeThrough(keeping), name, {
    onProgress: (bytes) => {
      if (progress.pass(performance.now())) {
        run.post(P.MSG.PROGRESS, {load: {bytes, total: size}});
      }
    },
  });
  setModel(loaded.model);
  const exported = F.exportModel(model);
  let storedBytes = null;
  if (keptBytes <= KEEP_STORED_BYTES) {
    storedBytes = new Uint8Array(keptBytes);
    let at = 0;
    for (const chunk of kept) {
      storedBytes.set(chunk, at);
      at += chunk.length;
    }
  }
  const transfer = P.transferList(exported.fields);
  if (storedBytes) transfer.push(storedBytes.buffer);
  return {
    name,
    info: F.describeModel(model),
    model: exported,
    sha256: loaded.sha256,
    fileBytes: loaded.fileBytes,
    jsonBytes: loaded.jsonBytes,
    gzip: loaded.gzip,
    seconds: loaded.seconds,
    storedBytes,
    ...heapInfo(),
    [S.TRANSFER]: transfer,
    // While the page sets up its views, and before START builds the Engine;
    // a START waits for it, and cannot see a STOP meanwhile (busy).
    [S.AFTER]: () => {
      run.post(P.MSG.PROGRESS, {busy: {phase: 'quick plan'}});
      quick = quickIncumbent();
      run.post(P.MSG.PROGRESS, {busy: {phase: null}});
    },
  };
}

function importFields(req) {
  setModel(F.importModel(M, req.model));
  return {digest: model.digest(), ...heapInfo()};
}

const engineKeyOf = (options, index) => JSON.stringify([options, index]);

function ensureEngine(options, index) {
  const key = engineKeyOf(options, index);
  if (engine && key === engineKey) return;
  const previous = engine && engine.progress(0).found ? R.unwrap(engine.bestPlan()) : null;
  const made = R.unwrap(M.Engine.create(model, JSON.stringify(options), index));
  if (engine) engine.delete();
  engine = made;
  engineKey = key;
  // A new seed keeps what was found; the engine takes only better plans, so
  // its own first plan stands when it beats the quick one (as natively).
  for (const plan of [previous, held, quick && quick.plan]) {
    if (plan) engine.offer(plan);
  }
  held = null;
  quick = null;
}

// The quick plan as this START's first incumbent, before the Engine exists.
function postQuick(run, baseS) {
  const plan = quick.plan.slice();
  const cost = Number(quick.cost);
  const record =
      P.makeRecord({elapsedS: baseS, incumbent: cost, bound: 0, counters: {phase: 'presolve'}});
  const exact = {cost: quick.cost, bound: '0'};
  run.post(
      P.MSG.INCUMBENT,
      {record, plan, exact, improvedS: baseS, steps: 0, stepsPerS: 0, ...heapInfo()},
      [plan.buffer]);
}

// The engine's record with the exact cost and bound (decimal strings), this
// worker's steps and, when it improved, the plan.
function snapshot(run, withPlan, elapsedS, improvedS, steps, startedMs) {
  const record = engine.progress(elapsedS);
  const seconds = (performance.now() - startedMs) / 1000;
  const payload = {
    record,
    exact: engine.exact(),
    improvedS,
    steps,
    stepsPerS: seconds > 0 ? steps / seconds : 0,
    ...heapInfo(),
  };
  if (withPlan && record.found) {
    const plan = R.unwrap(engine.bestPlan());
    run.post(P.MSG.INCUMBENT, {...payload, plan}, [plan.buffer]);
  } else {
    run.post(P.MSG.PROGRESS, payload);
  }
}

// The page's clock in epoch milliseconds: a worker's performance.now()
// counts from its own start, so times cross the seam as timeOrigin + now.
const epochMs = () => performance.timeOrigin + performance.now();

// A START: req.timeLimitS of solving time in all (req.baseS of it spent by
// earlier runs), counted from req.startedAtMs, the page's Start press, so
// the messages, the offers and the Engine's presolve count too. The Engine
// gets the time left (Engine.setTimeLeft), so a long step returns between
// two rounds once the limit has passed instead of at its end.
async function start(req, run) {
  if (!model) throw new R.ShardLabError('InvalidArgument', 'no instance is loaded');
  const baseS = req.baseS || 0;
  const startedAtMs = req.startedAtMs || epochMs();
  const elapsed = () => baseS + (epochMs() - startedAtMs) / 1000;
  const building = !engine || engineKey !== engineKeyOf(req.options, req.index);
  if (building && quick) postQuick(run, baseS);
  // The Engine's presolve cannot see a STOP (seconds on a large instance):
  // the page ends a run stopped inside it at once (worker_client.mjs).
  // runSlices' first report says it has ended.
  if (building) run.post(P.MSG.PROGRESS, {busy: {phase: 'presolve'}});
  ensureEngine(req.options, req.index);
  engine.setTimeLeft(req.timeLimitS - elapsed());
  const startedMs = performance.now();
  const {reason, dirty, improvedS, steps} = await L.runSlices({
    engine,
    run,
    timeLimitS: req.timeLimitS,
    elapsed,
    stepWork: STEP_WORK,
    sliceMs: SLICE_MS,
    dirty: engine.progress(0).found,
    improvedS: elapsed(),
    report: (withPlan, c) => snapshot(run, withPlan, elapsed(), c.improvedS, c.steps, startedMs),
  });
  snapshot(run, dirty, elapsed(), improvedS, steps, startedMs);
  return {reason, elapsedS: elapsed()};
}

// The teaching lab's generate and explain (wasm/teach_bindings.cpp), here
// so that a deep model's hundreds of milliseconds are not the page's. The
// instance goes to the page as UTF-8 bytes in a transferred buffer: a deep
// model's is megabytes, which as a string the page would copy in and then
// encode again for the solver's worker.
const encoder = new TextEncoder();

function teach(req) {
  if (req.call === 'generate') {
    const g = R.unwrap(M.teachGenerate(req.text, req.name, req.options));
    const instance = encoder.encode(g.instance);
    return {instance, sidecar: g.sidecar, model: g.model, [S.TRANSFER]: [instance.buffer]};
  }
  if (req.call === 'explain') return {report: R.unwrap(M.teachExplain(req.text, req.request))};
  throw new R.ShardLabError('InvalidArgument', `unknown teach call '${req.call}'`);
}

function offer(req) {
  if (!engine && req.plan) held = req.plan;  // for the engine START will build
  const accepted = Boolean(engine && req.plan && engine.offer(req.plan));
  return {accepted, held: !engine};
}

shardlabWorker({
  name: 'the solver',
  root: '../',
  scripts: ['shardlab.js'],
  modules: {
    P: 'protocol.mjs',
    F: 'files.mjs',
    L: 'worker_loop.mjs',
    R: 'result.mjs',
    S: 'worker_shell.mjs'
  },
  boot: async ({modules}) => {
    ({P, F, L, R, S} = modules);
    M = await createShardLab(
        {locateFile: (file) => new URL(`../${file}`, self.location.href).href});
    return {version: R.unwrap(M.version())};
  },
  runs: ['start'],
  ops: {load, model: importFields, start, offer, teach},
});
