// The page's side of the planner worker (worker.js): starts and stops runs,
// keeps the best schedule and the best lower bound across runs of the same
// problem (a stop, a crash or a new run never loses them: each run is
// offered the best so far), and reports improvements. lab.mjs drives it;
// tests/web/pipeline_clients.test.mjs runs it against a fake worker.
import {MSG, OP} from '../protocol.mjs';
import {WorkerHandle} from '../worker_client.mjs';

export class PlannerClient {
  /**
   * handlers: onIncumbent({schedule, makespan, bound, seconds}),
   * onProgress({bound, stats, seconds, steps}), each optional.
   */
  constructor(url, handlers = {}) {
    this.url = url;
    this.handlers = handlers;
    this.handle = null;
    this.running = null;
    this.stopAsked = false;
    this.reset(null);
  }

  /** Forgets the best schedule and bound (a different problem). */
  reset(problemKey) {
    this.problemKey = problemKey;
    this.best = null;   // {schedule (object), text, makespan, seconds}
    this.bound = null;  // the best proven lower bound on the makespan
    this.stats = null;
    this.elapsedS = 0;  // solving time over all runs of this problem
  }

  worker() {
    if (!this.handle) {
      this.handle = new WorkerHandle(this.url, 0, (i, msg) => this.onEvent(msg));
    }
    return this.handle;
  }

  get gap() {
    if (!this.best || this.bound === null) return null;
    return this.best.makespan > 0 ?
        Math.max(0, this.best.makespan - this.bound) / this.best.makespan :
        0;
  }

  get proven() {
    return this.best !== null && this.bound !== null && this.bound >= this.best.makespan - 1e-9;
  }

  onEvent(msg) {
    const seconds = this.baseS + (msg.elapsedS || 0);
    if (Number.isFinite(msg.bound) && (this.bound === null || msg.bound > this.bound)) {
      this.bound = msg.bound;
    }
    if (msg.stats) this.stats = msg.stats;
    if (msg.type === MSG.INCUMBENT && msg.schedule) this.consider(msg.schedule, seconds);
    if (this.best && this.bound !== null && this.bound > this.best.makespan) {
      this.bound = this.best.makespan;
    }
    if (this.handlers.onProgress) {
      this.handlers.onProgress({bound: this.bound, stats: this.stats, seconds, steps: msg.steps});
    }
  }

  /** Keeps a schedule (JSON text or object) when it beats the best; true if it did. */
  consider(schedule, seconds = this.elapsedS) {
    const object = typeof schedule === 'string' ? JSON.parse(schedule) : schedule;
    if (!object || !Number.isFinite(object.makespan) || object.valid === false) return false;
    if (this.best && this.best.makespan <= object.makespan) return false;
    const text = typeof schedule === 'string' ? schedule : JSON.stringify(schedule);
    this.best = {schedule: object, text, makespan: object.makespan, seconds};
    if (this.handlers.onIncumbent) {
      this.handlers.onIncumbent({...this.best, bound: this.bound});
    }
    return true;
  }

  /**
   * Runs the planner on problem (JSON text) until timeLimitS, a proof or a
   * stop; offers (schedule JSON texts, e.g. from a link or IndexedDB) and the
   * best so far go in first. Resolves to {reason, elapsedS}; reason is
   * 'finished', 'time' or 'stopped'.
   */
  async plan(problem, options, timeLimitS, offers = []) {
    if (this.running) throw new Error('the planner is already running');
    this.stopAsked = false;
    const handle = this.worker();
    this.running = (async () => {
      await handle.ready;
      const carried = this.best ? [this.best.text, ...offers] : offers;
      for (const schedule of carried) await handle.call(OP.OFFER, {schedule});
      if (this.stopAsked) return {reason: 'stopped', elapsedS: 0};
      this.baseS = this.elapsedS;
      const done = await handle.call(OP.PLAN, {problem, options, timeLimitS});
      this.elapsedS = this.baseS + done.elapsedS;
      return {reason: done.reason, elapsedS: this.elapsedS};
    })();
    try {
      return await this.running;
    } finally {
      this.running = null;
    }
  }

  /** Stops the running plan (it then resolves with reason 'stopped'). */
  async stop() {
    this.stopAsked = true;
    if (this.handle && this.running) await this.handle.call(OP.STOP);
  }

  terminate() {
    if (this.handle) this.handle.terminate();
    this.handle = null;
  }
}
