// The one worker shell of every lab (sharding, pipeline, HiGHS, and the ones
// to come): boot, start failure, dispatch and stop, written once. A lab's
// worker (classic; see worker_boot.js) describes itself with a spec:
//   {
//     name: 'the planner',            // in messages: "the planner could not start: ..."
//     root: '../',                    // the site's root, relative to the worker
//     scripts: ['shardlab.js'],       // classic scripts to load first (under root)
//     modules: {L: 'worker_loop.mjs'},// ES modules to import (under root)
//     boot: async ({modules}) => ({version}),  // set up; the READY payload
//     runs: ['plan'],                 // ops that run until done or STOPped, one at a time
//     ops: {plan: async (req, run) => payload, offer: (req) => payload},
//   }
// Each handler gets the request and a run context {id, stop, post(type,
// payload, transfer)}; what it returns is the DONE payload (add
// [TRANSFER]: [buffers] to move buffers, and [AFTER]: fn for work to do
// right after DONE is posted, in the same task), what it throws becomes the ERROR
// reply {error: {code, message}} (a ShardLabError keeps its core code).
// STOP is the shell's: it sets `stop` on the running run and answers
// {wasRunning}. Any request that comes while a stopped run still finishes
// its step waits until that run has ended (the page's clients resolve a
// stopped run at once, see worker_client.mjs, so a resume or a new problem
// can come first, and must not find the engine in use); a run requested
// while another runs unstopped is refused. A boot that fails is reported once with id 0, and every
// request then fails with the same reason. Node-tested against a fake scope
// (tests/web/worker_shell.test.mjs).
import {checkRequest, errorReply, MSG, OP, reply} from './protocol.mjs';
import {ShardLabError} from './result.mjs';

/** Put on a handler's return value: the buffers to transfer with DONE. */
export const TRANSFER = Symbol('transfer');
/** Put on a handler's return value: a function run right after DONE is posted. */
export const AFTER = Symbol('after');

export function serve(scope, spec, kept = []) {
  const root = spec.root || '../';
  const at = (relative) => new URL(`${root}${relative}`, scope.location.href).href;
  const runs = new Set(spec.runs || []);
  const modules = {};
  let running = null;  // the run context being served

  const booted = (async () => {
    for (const script of spec.scripts || []) scope.importScripts(at(script));
    for (const [key, relative] of Object.entries(spec.modules || {})) {
      modules[key] = await import(at(relative));
    }
    const ready = (spec.boot && (await spec.boot({modules, scope}))) || {};
    scope.postMessage(reply(MSG.READY, 0, {version: '', ...ready}));
  })();
  const startFailure = (error) => new ShardLabError(
      'Internal', `${spec.name} could not start: ${(error && error.message) || error}`);
  booted.catch((error) => scope.postMessage(errorReply(0, startFailure(error))));

  async function dispatch(req) {
    await booted.catch((error) => {
      throw startFailure(error);
    });
    const problem = checkRequest(req);
    if (problem) throw new ShardLabError('InvalidArgument', problem);
    if (req.op === OP.STOP) {
      const wasRunning = Boolean(running);
      if (running) running.stop = true;
      return {wasRunning};
    }
    while (running && running.stop) await running.ended;
    const handler = spec.ops[req.op];
    if (!handler)
      throw new ShardLabError('InvalidArgument', `${spec.name} does not serve '${req.op}'`);
    let ended = null;
    const run = {
      id: req.id,
      stop: false,
      ended: new Promise((resolve) => {
        ended = resolve;
      }),
      post: (type, payload = {}, transfer = []) =>
          scope.postMessage(reply(type, req.id, payload), transfer),
    };
    if (runs.has(req.op)) {
      if (running) throw new ShardLabError('InvalidArgument', `${spec.name} is already running`);
      running = run;
    }
    try {
      return (await handler(req, run)) || {};
    } finally {
      if (running === run) running = null;
      ended();
    }
  }

  async function handle(req) {
    try {
      const payload = await dispatch(req);
      scope.postMessage(reply(MSG.DONE, req.id, payload), payload[TRANSFER] || []);
      if (payload[AFTER]) payload[AFTER]();
    } catch (error) {
      scope.postMessage(errorReply(req && req.id > 0 ? req.id : 0, error));
    }
  }

  scope.onmessage = (event) => handle(event.data);
  for (const event of kept) handle(event.data);
  return {booted, modules};
}
