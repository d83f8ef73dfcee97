// The page's side of the planner in the pipeline worker (worker.js, reached
// through the session client, whose open problem it plans): starts and
// stops runs, keeps the best schedule and the best lower bound across runs
// of the same problem (a stop, a crash or a new run never loses them: each
// run is offered the best so far), and reports improvements with the
// planner's progress record (core/progress.h). lab.mjs drives it;
// tests/web/pipeline_clients.test.mjs runs it against a fake worker.
import {MSG, OP} from '../protocol.mjs';
import {StoppableRuns, stopSignal} from '../worker_client.mjs';

import {ScheduleEntry} from './session_client.mjs';

export class PlannerClient {
  /**
   * sessions: the SessionClient (its worker runs the planner); handlers:
   * onIncumbent({schedule, makespan, bound, seconds}), onProgress({bound,
   * record, seconds}), each optional. The SessionClient's events go to
   * onEvent().
   */
  constructor(sessions, handlers = {}) {
    this.sessions = sessions;
    this.handlers = handlers;
    this.running = null;
    this.runs = new StoppableRuns();
    this.reset(null);
  }

  /** Forgets the best schedule and bound (a different problem). */
  reset(problemKey) {
    this.problemKey = problemKey;
    this.best = null;    // {schedule (object), text, makespan, seconds}
    this.bound = null;   // the best proven lower bound on the makespan
    this.record = null;  // the last progress record
    this.elapsedS = 0;   // solving time over all runs of this problem
    // Requests of the worker issued before now belong to the old problem:
    // their late events (a stopped run still reporting) are dropped.
    const handle = this.sessions.handle;
    this.freshFrom = handle ? handle.nextId : 0;
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
    const record = msg.record;
    if (!record || msg.id < this.freshFrom) return;
    const seconds = this.baseS + record.elapsedS;
    if (this.bound === null || record.bound > this.bound) this.bound = record.bound;
    this.record = record;
    if (msg.type === MSG.INCUMBENT && msg.schedule) {
      this.consider(msg.schedule, seconds, msg.summary || null, msg.layout || null);
    }
    if (this.best && this.bound !== null && this.bound > this.best.makespan) {
      this.bound = this.best.makespan;
    }
    if (this.handlers.onProgress) this.handlers.onProgress({bound: this.bound, record, seconds});
  }

  /**
   * Keeps a schedule (a ScheduleEntry, JSON text or its UTF-8 bytes with
   * its summary and packed layout when the worker made them, or an object)
   * when it beats the best; true if it did. best is a ScheduleEntry with
   * makespan and seconds: its JSON is parsed here only when no summary came
   * with it.
   */
  consider(schedule, seconds = this.elapsedS, summary = null, layout = null) {
    const given = schedule instanceof ScheduleEntry;
    const parsed = !given && schedule !== null && typeof schedule === 'object' &&
        !ArrayBuffer.isView(schedule);
    const entry = given ? schedule :
        parsed          ? new ScheduleEntry(JSON.stringify(schedule), schedule) :
                          new ScheduleEntry(schedule, summary, layout);
    if (parsed) entry.parsed = schedule;
    const object = entry.summary;
    if (!object || !Number.isFinite(object.makespan) || object.valid === false) return false;
    if (this.best && this.best.makespan <= object.makespan) return false;
    this.best = Object.assign(entry, {makespan: object.makespan, seconds});
    if (this.handlers.onIncumbent) {
      this.handlers.onIncumbent({entry: this.best, ...this.best, bound: this.bound});
    }
    return true;
  }

  /**
   * Runs the planner on the session's problem until timeLimitS, a proof or
   * a stop; offers (ScheduleEntry or JSON texts, e.g. from a link or IndexedDB) and
   * the best so far go in first. Resolves to {reason, elapsedS}; reason is
   * 'finished', 'time' or 'stopped'. A stop resolves it at once, in the
   * task of the click: the page's drawing of the last schedule (tens of
   * milliseconds a task) must not delay it. The best reported so far is
   * kept, and so is a schedule the worker's last slice still reports. A
   * worker that has not ended its run within STOP_GRACE_MS (a large
   * problem's offers or planner start), or at once when it announced that
   * step, is replaced (SessionClient.respawn()); the next run waits for
   * that (this.runs).
   */
  async plan(options, timeLimitS, offers = []) {
    if (this.running) throw new Error('the planner is already running');
    const signal = stopSignal();
    this.signal = signal;
    const sessions = this.sessions;
    const startedAtMs = performance.timeOrigin + performance.now();  // the limit counts from here
    this.baseS = this.elapsedS;
    let planning = null;  // {handle, id} of the PLAN once sent
    let stopped = false;  // ended by the stop: the clock is the stop's
    const run = async () => {
      await sessions.ready();
      // Entries go by reference or as bytes: never decoded on the page.
      const carried = this.best ? [this.best, ...offers] : offers;
      for (const schedule of carried) {
        if (signal.fired) break;
        await sessions.offer(schedule);
      }
      if (signal.fired) return {reason: 'stopped', elapsedS: this.elapsedS};
      const call = sessions.call(OP.PLAN, {options, timeLimitS, startedAtMs});
      planning = {handle: sessions.handle, id: call.id};
      const done = await call;
      if (stopped) return null;
      this.elapsedS = this.baseS + done.elapsedS;
      return {reason: done.reason, elapsedS: this.elapsedS};
    };
    this.running = this.runs.start(run, signal, {
      stopped: () => {
        stopped = true;
        this.elapsedS = this.baseS + (this.record ? this.record.elapsedS : 0);
        return {reason: 'stopped', elapsedS: this.elapsedS};
      },
      replace: () => {
        sessions.respawn();
        this.freshFrom = 0;  // the new worker's ids start again; the old one is gone
      },
      // A worker that announced a long step (the planner's start), or has
      // not begun the PLAN (which starts with it), cannot answer before
      // that ends.
      busy: () => sessions.busy !== null ||
          (planning !== null && planning.id !== undefined && planning.handle === sessions.handle &&
           planning.handle.unheard(planning.id)),
    });
    try {
      return await this.running;
    } finally {
      this.running = null;
      this.signal = null;
    }
  }

  /**
   * Stops the running plan: plan() resolves with reason 'stopped' at once;
   * this resolves when the worker has answered the STOP (or was replaced).
   */
  stop() {
    if (!this.running) return Promise.resolve();
    this.signal.fire();
    return this.sessions.call(OP.STOP).catch(() => {});
  }
}
