// One solver worker: a classic Web Worker holding one wasm module, one model
// and one Engine. It loads instances (streaming, see files.mjs), imports
// models other workers parsed, runs its engine in time slices and throttles
// what it reports to at most 10 Hz. The core never throttles; this file does.
// Right after a parse it computes a quick feasible plan (bindings' quickPlan),
// which START shows before the Engine's presolve and then offers to it.
//
// Call chain: app.mjs -> solver_client.mjs -> postMessage -> worker.js
//             -> shardlab.js (Embind, wasm/bindings.cpp) -> core/
importScripts('../shardlab.js');

const SLICE_MS = 40;                   // run the engine this long between event-loop turns
const STEP_WORK = 20000;               // work per Engine.step(), as in the native portfolio
const KEEP_STORED_BYTES = 512 * 1024;  // small files come back for inline links
const QUICK_WORK = 1e6;                // strategy evaluations for the quick plan (M needs ~0.5M)

let P = null;  // protocol.mjs
let F = null;  // files.mjs
let L = null;  // worker_loop.mjs
let M = null;  // the wasm module
let model = null;
let engine = null;
let engineKey = '';  // options + index the engine was built with
let run = null;      // the START being served: {id, stop}
let quick = null;    // {plan, cost}: a feasible plan to show before the engine is built
let held = null;     // the last plan offered while no engine existed

const booted = (async () => {
  [P, F, L] = await Promise.all(
      [import('../protocol.mjs'), import('../files.mjs'), import('../worker_loop.mjs')]);
  M = await createShardLab({locateFile: (file) => new URL(`../${file}`, self.location.href).href});
  postMessage(P.reply(P.MSG.READY, 0, {version: M.version()}));
})();

function heapInfo() {
  return {heapBytes: M.HEAPU8.length, heapPeakBytes: M.heapPeakBytes()};
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
  const plan = M.quickPlan(model, 1, QUICK_WORK);
  if (!plan.length) return null;
  const check = JSON.parse(M.evaluatePlan(model, plan));
  return check.feasible ? {plan, cost: check.cost} : null;
}

function openSource(source) {
  if (source.kind === 'file') return {stream: source.file.stream(), name: source.file.name};
  if (source.kind === 'bytes') {
    return {stream: new Blob([source.bytes]).stream(), name: source.name};
  }
  throw new Error(`unknown source kind ${source.kind}`);
}

async function openUrl(url) {
  let response;
  try {
    response = await fetch(url, {mode: 'cors'});
  } catch (error) {
    throw new F.LoadError(
        `${url}: cannot fetch the instance (${error.message}; the server ` +
        'must allow cross-origin requests)');
  }
  if (!response.ok) throw new F.LoadError(`${url}: the server answered ${response.status}`);
  const name = decodeURIComponent(new URL(url).pathname.split('/').pop() || url);
  const total = Number(response.headers.get('content-length')) || 0;
  return {stream: response.body, name, total};
}

async function load(req) {
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
        postMessage(P.reply(P.MSG.PROGRESS, req.id, {phase: 'load', bytes, total: size}));
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
  const reply = P.reply(P.MSG.DONE, req.id, {
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
  });
  const transfer = P.transferList(exported.fields);
  if (storedBytes) transfer.push(storedBytes.buffer);
  postMessage(reply, transfer);
  // While the page sets up its views, and before START builds the Engine.
  quick = quickIncumbent();
}

function importFields(req) {
  setModel(F.importModel(M, req.model));
  postMessage(P.reply(P.MSG.DONE, req.id, {digest: model.digest(), ...heapInfo()}));
}

const engineKeyOf = (options, index) => JSON.stringify([options, index]);

function ensureEngine(options, index) {
  const key = engineKeyOf(options, index);
  if (engine && key === engineKey) return;
  const previous = engine && engine.hasBest() ? engine.bestPlan() : null;
  if (engine) engine.delete();
  engine = new M.Engine(model, JSON.stringify(options), index);
  const error = engine.error();
  if (error) {
    engine.delete();
    engine = null;
    throw new Error(error);
  }
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
function postQuick(id, baseS) {
  const plan = quick.plan.slice();
  postMessage(
      P.reply(P.MSG.INCUMBENT, id, {
        elapsedS: baseS,
        improvedS: baseS,
        finished: false,
        bound: '0',
        cost: quick.cost,
        steps: 0,
        stepsPerS: 0,
        stats: {phase: 'presolve'},
        plan,
        ...heapInfo(),
      }),
      [plan.buffer]);
}

function snapshot(id, withPlan, elapsedS, improvedS, steps, startedMs) {
  const stats = JSON.parse(engine.stats());
  const seconds = (performance.now() - startedMs) / 1000;
  const payload = {
    elapsedS,
    improvedS,
    finished: engine.finished(),
    bound: engine.lowerBound(),
    cost: engine.bestCost(),
    steps,
    stepsPerS: seconds > 0 ? steps / seconds : 0,
    stats,
    ...heapInfo(),
  };
  if (withPlan && engine.hasBest()) {
    const plan = engine.bestPlan();
    postMessage(P.reply(P.MSG.INCUMBENT, id, {...payload, plan}), [plan.buffer]);
  } else {
    postMessage(P.reply(withPlan ? P.MSG.INCUMBENT : P.MSG.PROGRESS, id, payload));
  }
}

async function start(req) {
  if (!model) throw new Error('no instance is loaded');
  if (run) throw new Error('this worker is already solving');
  const building = !engine || engineKey !== engineKeyOf(req.options, req.index);
  if (building && quick) postQuick(req.id, req.baseS || 0);
  ensureEngine(req.options, req.index);
  run = {id: req.id, stop: false};
  const startedMs = performance.now();
  const baseS = req.baseS || 0;
  const elapsed = () => baseS + (performance.now() - startedMs) / 1000;
  try {
    const {reason, dirty, improvedS, steps} = await L.runSlices({
      engine,
      run,
      timeLimitS: req.timeLimitS,
      elapsed,
      stepWork: STEP_WORK,
      sliceMs: SLICE_MS,
      dirty: engine.hasBest(),
      improvedS: elapsed(),
      report: (withPlan, c) =>
          snapshot(req.id, withPlan, elapsed(), c.improvedS, c.steps, startedMs),
    });
    snapshot(req.id, dirty, elapsed(), improvedS, steps, startedMs);
    postMessage(P.reply(P.MSG.DONE, req.id, {reason, elapsedS: elapsed()}));
  } finally {
    run = null;
  }
}

function stop(req) {
  if (run) run.stop = true;
  postMessage(P.reply(P.MSG.DONE, req.id, {wasRunning: Boolean(run)}));
}

function offer(req) {
  if (!engine && req.plan) held = req.plan;  // for the engine START will build
  const accepted = Boolean(engine && req.plan && engine.offer(req.plan));
  postMessage(P.reply(P.MSG.DONE, req.id, {accepted, held: !engine}));
}

async function handle(req) {
  const problem = P.checkRequest(req);
  if (problem) throw new Error(problem);
  switch (req.op) {
    case P.OP.LOAD:
      return load(req);
    case P.OP.MODEL:
      return importFields(req);
    case P.OP.START:
      return start(req);
    case P.OP.STOP:
      return stop(req);
    case P.OP.OFFER:
      return offer(req);
  }
}

// A module that cannot start (its wasm missing or refused) is reported once
// as an error with id 0, and every request then fails with the same message,
// so the page shows it instead of waiting for a READY that never comes.
const startFailure = (error) => `the solver could not start: ${error && error.message || error}`;
booted.catch((error) => postMessage({type: 'error', id: 0, message: startFailure(error)}));

self.onmessage = async (event) => {
  const req = event.data;
  try {
    await booted.catch((error) => {
      throw new Error(startFailure(error));
    });
    await handle(req);
  } catch (error) {
    postMessage(P.errorReply(req && req.id > 0 ? req.id : 0, error.message || String(error)));
  }
};
