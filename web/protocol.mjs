// The message protocol between the page (web/worker_client.mjs and each
// lab's client) and the labs' workers (served by web/worker_shell.mjs).
// Requests carry an id and an op; every reply echoes the id and has one of
// five types with a typed payload:
//   ready      {version}                       the worker's modules loaded (id 0)
//   progress   {record} | {load} | {model}     an engine's progress record, bytes
//              | {busy}                        read ({bytes, total}), a MIP's
//                                              column names ({names, start}), or
//                                              {busy: {phase}}: the worker enters a
//                                              long call that cannot see a STOP (a
//                                              presolve, a planner's start); its
//                                              next message (or {busy: {phase:
//                                              null}}) says it has left it
//   incumbent  {record, ...solution}           a better solution (plan, schedule,
//                                              column values) with its record
//   done       the op's own payload            the request finished
//   error      {error: {code, message}}        the request failed (web/result.mjs)
// The record is the core's progress record (core/progress.h), the same for
// every engine: {elapsedS, found, incumbent, bound, gap, finished, counters}.
// Pure module: also imported by node unit tests (tests/web/protocol.test.mjs).
import {CODES, errorOf} from './result.mjs';

export const MSG = Object.freeze({
  READY: 'ready',
  PROGRESS: 'progress',
  INCUMBENT: 'incumbent',
  DONE: 'done',
  ERROR: 'error',
});

export const OP = Object.freeze({
  STOP: 'stop',    // stop the running run (START, PLAN), which then replies done
  OFFER: 'offer',  // a solution found elsewhere: {plan}, {schedule} (JSON text or bytes) or {name}
  // The sharding lab (web/sharding/worker.js).
  LOAD: 'load',    // {source}: stream and parse an instance; reply with model fields
  MODEL: 'model',  // {model: {fields, name, hasLimit, limit}}: import a model parsed elsewhere
  START: 'start',  // {options, index, timeLimitS, baseS}: run the engine
  // The teaching lab's wasm calls, on a sharding worker of its own:
  // {call: 'generate', text, name, options}: {instance (UTF-8 bytes), sidecar, model};
  // {call: 'explain', text, request}: {report} (teachExplain's JSON text).
  TEACH: 'teach',
  // The pipeline lab (web/pipeline/worker.js): a session per problem.
  OPEN: 'open',  // {text, source} | {flags}: parse the problem, list its schedules
  // A schedule in the pipeline ops below is {name} (a generated one, whose
  // JSON the worker keeps since its SIMULATE) or {schedule} (text or bytes).
  SIMULATE: 'simulate',      // {name, layout}: {name, summary, layout if asked} | {name, error}
  CHECK: 'check',            // a schedule: re-timed and checked
  EXPORT: 'export',          // a schedule and {format}: trace or CSV text, or 'schedule-json' bytes
  IMPORT_CSV: 'import-csv',  // {csv, source}: a PyTorch schedule CSV, timed
  EMIT_LP: 'emit-lp',        // {options}: the MIP as CPLEX-LP text
  MIP_START: 'mip-start',    // {options} and a schedule: its column values
  FROM_MIP: 'from-mip',      // {options, columns}: the schedule of column values
  PLAN: 'plan',              // {options, timeLimitS}: run the planner on the session
  // HiGHS (web/pipeline/highs_worker.js).
  SOLVE_LP: 'solve-lp',  // {lp, start: {names, values}, timeLimitS}
  // The plan lab (web/plan/worker.js) serves OPEN ({model, cluster, training},
  // each optional: a preset's name or a file's text), PLAN and LAYOUT: {part,
  // config}, the teaching lab's report of a part's layout. The pipeline lab
  // serves LAYOUT too: {name}, the layout of a schedule it keeps.
  LAYOUT: 'layout',
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

/** An ERROR reply; the error keeps its core code (web/result.mjs). */
export function errorReply(id, error) {
  return reply(MSG.ERROR, id, {error: errorOf(error)});
}

/** (incumbent - bound) / incumbent as the core computes it: 0 when proven, 1 when none. */
export function relativeGap(found, incumbent, bound) {
  if (!found) return 1;
  if (bound >= incumbent) return 0;
  const scale = Math.abs(incumbent);
  return scale > 0 ? (incumbent - bound) / scale : 1;
}

/**
 * A progress record for engines outside the core (HiGHS): incumbent null
 * when none is known; gap as the core computes it.
 */
export function makeRecord({elapsedS, incumbent = null, bound, finished = false, counters = {}}) {
  const found = Number.isFinite(incumbent);
  return {
    elapsedS,
    found,
    incumbent: found ? incumbent : null,
    bound,
    gap: relativeGap(found, incumbent, bound),
    finished,
    counters,
  };
}

/** An error text for a malformed progress record, or ''. */
export function checkRecord(r) {
  if (!r || typeof r !== 'object') return 'a record must be an object';
  if (!Number.isFinite(r.elapsedS) || r.elapsedS < 0) return 'a record needs elapsedS >= 0';
  if (typeof r.found !== 'boolean') return 'a record needs found (true or false)';
  if (r.found ? !Number.isFinite(r.incumbent) : r.incumbent !== null) {
    return 'a record\'s incumbent is a number when found, else null';
  }
  if (!Number.isFinite(r.bound)) return 'a record needs a finite bound';
  if (!(Number.isFinite(r.gap) && r.gap >= 0)) return 'a record needs a gap >= 0';
  if (typeof r.finished !== 'boolean') return 'a record needs finished (true or false)';
  if (!r.counters || typeof r.counters !== 'object' || Array.isArray(r.counters)) {
    return 'a record needs counters (an object)';
  }
  return '';
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
  switch (msg.type) {
    case MSG.READY:
      return typeof msg.version === 'string' ? '' : 'ready needs the version';
    case MSG.ERROR: {
      const e = msg.error;
      if (!e || typeof e.message !== 'string') return 'an error needs a message';
      return CODES.includes(e.code) ? '' : `an error's code must be one of ${CODES.join(', ')}`;
    }
    case MSG.PROGRESS: {
      const kinds = ['record', 'load', 'model', 'busy'].filter((k) => msg[k] !== undefined);
      if (kinds.length !== 1) return 'progress carries one of record, load, model or busy';
      if (kinds[0] === 'record') return checkRecord(msg.record);
      if (kinds[0] === 'busy') {
        const phase = msg.busy && msg.busy.phase;
        return typeof phase === 'string' || phase === null ?
            '' :
            'busy progress needs a phase (or null)';
      }
      if (kinds[0] === 'load') {
        return Number.isFinite(msg.load.bytes) && Number.isFinite(msg.load.total) ?
            '' :
            'load progress needs bytes and total';
      }
      return Array.isArray(msg.model.names) ? '' : 'model progress needs the column names';
    }
    case MSG.INCUMBENT:
      return checkRecord(msg.record);
    default:
      return '';
  }
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
