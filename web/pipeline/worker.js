// The pipeline planner in a Web Worker: one wasm module, one PipelinePlanner
// (the anytime branch and bound of core/pipeline/planner.h). PLAN runs it in
// time slices until it proves optimality, reaches its time limit or gets a
// STOP, posting each better schedule (INCUMBENT) and the bound with the
// engine's counters (PROGRESS) at most 10 times a second; DONE carries the
// best schedule, so the page never loses it. OFFER hands it a schedule found
// elsewhere (a permalink, IndexedDB, the MIP).
//
// Call chain: lab.mjs -> planner_client.mjs -> postMessage -> worker.js
//             -> shardlab.js (Embind, wasm/pipeline_planner_bindings.cpp)
//             -> core/pipeline/planner.h
importScripts('../shardlab.js');

const SLICE_MS = 40;  // planner time between event-loop turns (a STOP gets through)
const STEP_WORK = 2000;

let P = null;  // protocol.mjs
let L = null;  // worker_loop.mjs
let M = null;  // the wasm module
let planner = null;
let run = null;  // the PLAN being served: {id, stop}
let held = [];   // schedules offered while no planner exists

const booted = (async () => {
  [P, L] = await Promise.all([import('../protocol.mjs'), import('../worker_loop.mjs')]);
  M = await createShardLab({locateFile: (file) => new URL(`../${file}`, self.location.href).href});
  postMessage(P.reply(P.MSG.READY, 0, {version: M.version()}));
})();

// The bindings report a bad problem as {"error": ...} JSON or by throwing.
function errorOf(text) {
  if (typeof text !== 'string' || !text.startsWith('{"error"')) return '';
  return JSON.parse(text).error;
}

function makePlanner(problem, options) {
  if (planner) planner.delete();
  planner = null;
  let made;
  try {
    made = new M.PipelinePlanner(problem, JSON.stringify(options));
  } catch (error) {
    throw new Error(
        typeof error === 'number' ? `the planner failed (${error})` :
                                    String(error.message || error));
  }
  const error = typeof made.error === 'function' ? made.error() : '';
  if (error) {
    made.delete();
    throw new Error(error);
  }
  planner = made;
  for (const schedule of held) planner.offer(schedule);
  held = [];
}

function snapshot(id, withSchedule, elapsedS, improvedS, steps) {
  const stats = JSON.parse(planner.statsJson() || '{}');
  const payload = {
    elapsedS,
    improvedS,
    steps,
    finished: planner.finished(),
    bound: planner.lowerBound(),
    stats,
  };
  if (withSchedule) {
    const best = planner.bestJson();
    if (best && !errorOf(best)) {
      postMessage(P.reply(P.MSG.INCUMBENT, id, {...payload, schedule: best}));
      return;
    }
  }
  postMessage(P.reply(P.MSG.PROGRESS, id, payload));
}

async function plan(req) {
  if (run) throw new Error('the planner is already running');
  makePlanner(req.problem, req.options || {});
  run = {id: req.id, stop: false};
  const startedMs = performance.now();
  const elapsed = () => (performance.now() - startedMs) / 1000;
  try {
    const {reason, improvedS, steps} = await L.runSlices({
      engine: planner,
      run,
      timeLimitS: req.timeLimitS,
      elapsed,
      stepWork: STEP_WORK,
      sliceMs: SLICE_MS,
      dirty: planner.bestMakespan() >= 0,  // has a schedule (without building its JSON)
      report: (withBest, c) => snapshot(req.id, withBest, elapsed(), c.improvedS, c.steps),
    });
    snapshot(req.id, true, elapsed(), improvedS, steps);
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
  let accepted = false;
  if (planner)
    accepted = Boolean(planner.offer(req.schedule));
  else
    held.push(req.schedule);
  postMessage(P.reply(P.MSG.DONE, req.id, {accepted, held: !planner}));
}

async function handle(req) {
  const problem = P.checkRequest(req);
  if (problem) throw new Error(problem);
  switch (req.op) {
    case P.OP.PLAN:
      return plan(req);
    case P.OP.STOP:
      return stop(req);
    case P.OP.OFFER:
      return offer(req);
    default:
      throw new Error(`the planner worker does not serve '${req.op}'`);
  }
}

const startFailure = (error) => `the planner could not start: ${error && error.message || error}`;
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
