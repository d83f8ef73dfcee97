// A Web Worker seen from the page: requests carry an id and resolve with the
// worker's DONE reply (or reject with its ERROR); PROGRESS and INCUMBENT
// replies go to onEvent(index, msg, op). Errors reject with a ShardLabError
// carrying the core's code (web/result.mjs). A worker that fails outside any
// request (its script, or its wasm module not starting) rejects `ready` and
// every pending call, so nothing waits forever. Shared by every lab's client
// (sharding/solver_client.mjs, the pipeline lab's clients, plan/plan_client.mjs);
// protocol.mjs defines the messages, worker_shell.mjs serves them.
// stoppable() is the one Stop of every client: the run ends in the click's
// own task with the client's best so far, even while its worker is inside
// a long synchronous step (a presolve, a planner's start, a plan's
// evaluation); the run's late messages still arrive and are kept, and a
// worker that has not ended its run within STOP_GRACE_MS (at once when it
// announced such a step: progress {busy}) is replaced. StoppableRuns runs
// a client's runs one after another.
import {MSG, request} from './protocol.mjs';
import {fromError, ShardLabError} from './result.mjs';

/** How long a stopped run's worker may take to end it before it is replaced. */
export const STOP_GRACE_MS = 100;

/**
 * A stop signal for one run: `promise` resolves and `fired` turns true
 * when `fire()` is called (the client's stop()).
 */
export function stopSignal() {
  const signal = {fired: false};
  signal.promise = new Promise((resolve) => {
    signal.fire = () => {
      signal.fired = true;
      resolve();
    };
  });
  return signal;
}

/**
 * Resolves with `call`, or with `fallback()` as soon as the stop `signal`
 * fires (in the same task); `call`'s late answer is dropped. For steps a
 * stop does not wait for and no worker needs replacing after: the MIP's
 * LP and start being made, the teaching lab's read of an instance (which
 * the next solve waits for).
 */
export function untilStopped(call, signal, fallback) {
  return Promise.race([call, signal.promise.then(() => fallback())]);
}

/**
 * The Stop of a run served by a worker, as every lab's client ends one.
 * `run` is the run's promise, `signal` its stopSignal(). The returned
 * promise resolves with the run's own answer or, once the signal fires,
 * with `stopped()` (the client's best so far) in that same task: microtasks
 * only, so the page shows the stop before it draws anything else. What
 * the worker still reports for the run reaches the client as before (and
 * is kept). A worker that has not ended its run within graceMs of the stop
 * is ended by `replace()` (the client makes a fresh one), at once when
 * `busy()` says it cannot answer before a long step ends (it announced the
 * step, or has not begun the run, which starts with one). The promise's
 * `settled` resolves once the run has ended or its worker was replaced:
 * the client's next run waits for it.
 */
export function stoppable(
    run, signal, {stopped, replace, busy = () => false, graceMs = STOP_GRACE_MS}) {
  let ended = false;
  const own = run.finally(() => {
    ended = true;
  });
  let swapped;
  const settled = Promise.race([
    own.then(() => {}, () => {}),
    new Promise((resolve) => {
      swapped = resolve;
    }),
  ]);
  const end = () => {
    if (!ended) replace();
    swapped();
  };
  const onStop = signal.promise.then(() => {
    if (ended) return own;
    if (busy()) {
      end();
    } else {
      const timer = setTimeout(end, graceMs);
      own.then(() => clearTimeout(timer), () => clearTimeout(timer));
    }
    return stopped();
  });
  const result = Promise.race([own, onStop]);
  result.settled = settled;
  return result;
}

/**
 * One client's runs, one after another: start() is stoppable() for the run
 * that body() makes once the last run has settled (ended, or its worker
 * was replaced after a stop), so a run never meets the last one's worker
 * still inside its step. The wait is part of the run: a stop during it
 * ends the run, body() is then never called, and nothing is replaced
 * (the run has reached no worker yet).
 */
export class StoppableRuns {
  constructor() {
    this.last = null;  // the last run's `settled`
  }

  /** Resolves once the last run has settled. */
  settled() {
    return this.last || Promise.resolve();
  }

  start(body, signal, {replace, busy = () => false, ...options}) {
    const previous = this.last;
    let waiting = previous !== null;
    const run = !waiting ? body() : previous.then(() => {
      waiting = false;
      return signal.fired ? undefined : body();
    });
    const result = stoppable(run, signal, {
      ...options,
      replace: () => waiting || replace(),
      busy: () => !waiting && busy(),
    });
    this.last = result.settled;
    return result;
  }
}

/** A promise that resolves in a later task (after what the page shows now). */
export const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

export class WorkerHandle {
  constructor(url, index, onEvent) {
    this.index = index;
    this.worker = new Worker(url);
    this.pending = new Map();
    this.nextId = 1;
    // The phase of the long step the worker announced ({busy: {phase}}),
    // until its next message; null when it is not inside one.
    this.busy = null;
    this.terminated = false;
    this.ready = new Promise((resolve, reject) => {
      // A failure outside any request (the worker's script, or its module
      // failing to start) rejects `ready` and every call still waiting, so
      // nothing waits forever on a dead worker.
      const fail = (error) => {
        reject(error);
        this.failPending(error);
      };
      this.worker.onerror = (event) => {
        event.preventDefault();
        fail(new ShardLabError(
            'Internal', `the worker ${url} failed: ${event.message || 'no reason given'}`));
      };
      this.worker.onmessage = (event) => {
        const msg = event.data;
        if (msg.type === MSG.PROGRESS && msg.busy) {
          this.busy = msg.busy.phase;
          return;
        }
        this.busy = null;
        if (msg.type === MSG.READY) return resolve(msg);
        if (msg.type === MSG.ERROR && msg.id === 0) return fail(fromError(msg.error));
        const call = this.pending.get(msg.id);
        if (!call) return;
        call.heard = true;
        if (msg.type === MSG.DONE || msg.type === MSG.ERROR) this.pending.delete(msg.id);
        if (msg.type === MSG.DONE)
          call.resolve(msg);
        else if (msg.type === MSG.ERROR)
          call.reject(fromError(msg.error));
        else
          onEvent(this.index, msg, call.op);
      };
    });
    this.ready.catch(() => {});  // observed by load() and start(); never unhandled
  }

  /** A request's promise; its `id` is the request's (events carry it). */
  call(op, payload = {}, transfer = []) {
    const id = this.nextId++;
    const promise = new Promise((resolve, reject) => {
      // A replaced worker answers nothing: its calls fail at once.
      if (this.terminated) throw new ShardLabError('Internal', 'the worker was stopped');
      this.pending.set(id, {resolve, reject, op});
      this.worker.postMessage(request(id, op, payload), transfer);
    });
    promise.id = id;
    return promise;
  }

  /**
   * True while request `id` is pending and the worker has sent nothing for
   * it: it has not begun it (a START or PLAN then begins with a step that
   * cannot see a STOP: the engine's presolve, the planner's start).
   */
  unheard(id) {
    const call = this.pending.get(id);
    return Boolean(call && !call.heard);
  }

  failPending(error) {
    for (const call of this.pending.values()) call.reject(error);
    this.pending.clear();
  }

  terminate() {
    this.terminated = true;
    this.busy = null;
    this.worker.terminate();
    this.failPending(new ShardLabError('Internal', 'the worker was stopped'));
  }
}
