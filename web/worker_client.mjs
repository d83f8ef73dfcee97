// A Web Worker seen from the page: requests carry an id and resolve with the
// worker's DONE reply (or reject with its ERROR); PROGRESS and INCUMBENT
// replies go to onEvent(index, msg, op). Errors reject with a ShardLabError
// carrying the core's code (web/result.mjs). A worker that fails outside any
// request (its script, or its wasm module not starting) rejects `ready` and
// every pending call, so nothing waits forever. Shared by every lab's client
// (sharding/solver_client.mjs, the pipeline lab's clients); protocol.mjs
// defines the messages, worker_shell.mjs serves them. untilStopped() lets a
// client end a run on Stop within STOP_GRACE_MS even while its worker is
// inside a long synchronous step (a presolve, a planner's start, a large
// schedule's JSON): the run's late messages still arrive and are kept. A
// worker that announced such a step (progress {busy}) cannot answer at all
// until it ends, so the stop does not wait the grace for it.
import {MSG, request} from './protocol.mjs';
import {fromError, ShardLabError} from './result.mjs';

/** How long a stopped run may take to answer before its client ends it itself. */
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
 * Resolves with the run's DONE (`call`), unless the stop `signal` fired and
 * graceMs passed without it: then with `fallback()` (the client's view of
 * the stopped run), and the DONE, when it comes, is dropped. When `busy()`
 * is true as the signal fires (the run's workers are all inside a step they
 * announced as long: WorkerHandle.busy), the grace is not waited.
 */
export function untilStopped(
    call, signal, fallback, {graceMs = STOP_GRACE_MS, busy = () => false} = {}) {
  const late =
      signal.promise.then(() => busy() || new Promise((resolve) => setTimeout(resolve, graceMs)))
          .then(() => fallback());
  return Promise.race([call, late]);
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
