// The message protocol between the page (solver_client.mjs) and each solver
// worker (worker.js). Requests carry an id and an op; every reply echoes the
// id and has one of five types. Errors come back as {type: 'error', id, message}.
// Pure module: also imported by node unit tests (tests/web/protocol.test.mjs).

export const MSG = Object.freeze({
  READY: 'ready',          // the worker's module is loaded (id 0)
  PROGRESS: 'progress',    // loading bytes, or engine counters while solving
  INCUMBENT: 'incumbent',  // a better plan (and bound) from this worker's engine
  DONE: 'done',            // the request finished; carries its result
  ERROR: 'error',          // the request failed; carries the core's message
});

export const OP = Object.freeze({
  LOAD: 'load',    // {source}: stream and parse an instance; reply with model fields
  MODEL: 'model',  // {fields, name, hasLimit, limit}: import a model parsed elsewhere
  START: 'start',  // {options, index, timeLimitS, baseS}: run the engine
  STOP: 'stop',    // stop the running START (which then replies done)
  OFFER: 'offer',  // {plan}: an incumbent found by another worker
  // The pipeline lab (web/pipeline/worker.js and highs_worker.js); STOP and
  // OFFER ({schedule}: a schedule JSON text) serve them too.
  PLAN: 'plan',          // {problem, options, timeLimitS}: run the pipeline planner
  SOLVE_LP: 'solve-lp',  // {lp, start: {names, values}, timeLimitS}: HiGHS on LP text
});

// Worker-side throttle for progress and incumbent messages: at most 10 Hz.
export const PROGRESS_INTERVAL_MS = 100;

const MSG_TYPES = new Set(Object.values(MSG));
const OPS = new Set(Object.values(OP));

export function request(id, op, payload = {}) {
  if (!OPS.has(op)) throw new Error(`unknown op '${op}'`);
  if (!Number.isInteger(id) || id <= 0) throw new Error(`a request needs a positive id`);
  return {...payload, id, op};
}

export function reply(type, id, payload = {}) {
  if (!MSG_TYPES.has(type)) throw new Error(`unknown message type '${type}'`);
  return {...payload, id, type};
}

export function errorReply(id, message) {
  return reply(MSG.ERROR, id, {message: String(message)});
}

// Returns an error text for a malformed message, or '' when it is fine.
export function checkRequest(msg) {
  if (!msg || typeof msg !== 'object') return 'a request must be an object';
  if (!OPS.has(msg.op)) return `unknown op '${msg && msg.op}'`;
  if (!Number.isInteger(msg.id) || msg.id <= 0) return 'a request needs a positive id';
  return '';
}

export function checkReply(msg) {
  if (!msg || typeof msg !== 'object') return 'a reply must be an object';
  if (!MSG_TYPES.has(msg.type)) return `unknown message type '${msg && msg.type}'`;
  if (!Number.isInteger(msg.id) || msg.id < 0) return 'a reply needs an id';
  if (msg.type === MSG.ERROR && typeof msg.message !== 'string') return 'an error needs a message';
  return '';
}

// Lets at most one event through per interval; `force` always passes (the
// last update of a run must never be dropped).
export class Throttle {
  constructor(intervalMs = PROGRESS_INTERVAL_MS) {
    this.intervalMs = intervalMs;
    this.last = -Infinity;
  }
  pass(nowMs, force = false) {
    if (!force && nowMs - this.last < this.intervalMs) return false;
    this.last = nowMs;
    return true;
  }
}

// The ArrayBuffers of a model's fields, for postMessage's transfer list.
export function transferList(fields) {
  return fields.map((f) => (f instanceof ArrayBuffer ? f : f.buffer));
}
