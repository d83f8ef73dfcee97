// The page's side of the plan worker (worker.js): sets the session's inputs
// (each a preset's name or a file's text, sent once per change), runs the
// search with its progress records going to onRecord, stops it, and asks for
// a part's layout. A run's result comes back as the core's plan JSON (text,
// kept for downloads, and parsed), the exports and the timeline's schedule
// JSON. lab.mjs drives it; tests/web/plan_client.test.mjs runs it against a
// fake worker. A Stop ends the run in the click's own task
// (worker_client.mjs stoppable); a worker that has not ended its run within
// STOP_GRACE_MS is replaced by one holding the same inputs.
import {MSG, OP} from '../protocol.mjs';
import {nextTask, StoppableRuns, stopSignal, WorkerHandle} from '../worker_client.mjs';

// A worker's answer as plan() resolves it: the plan JSON parsed too.
const answer = (done) => ({...done, text: done.json, result: JSON.parse(done.json)});

export class PlanClient {
  /**
   * onRecord(record, improved, plan): every PROGRESS and INCUMBENT of a run;
   * plan, once a run, is the evaluated plan before the why-not rows and
   * sizing end ({json, megatron, ...} as plan() resolves, timeline null).
   */
  constructor(url, onRecord = () => {}) {
    this.url = url;
    this.onRecord = onRecord;
    this.handle = null;
    this.inputs = {};  // what the session holds: the OPEN that gives a new worker the same
    this.running = null;
    this.runs = new StoppableRuns();
    this.signal = null;
    this.early = null;  // the running search's evaluated plan, once the worker sent it
  }

  worker() {
    if (!this.handle) {
      this.handle = new WorkerHandle(this.url, 0, (i, msg) => {
        if (msg.plan) this.early = msg.plan;
        if (msg.record) this.onRecord(msg.record, msg.type === MSG.INCUMBENT, msg.plan || null);
      });
      // A replacement's session starts with the inputs its predecessor held.
      if (Object.keys(this.inputs).length) {
        this.handle.call(OP.OPEN, {...this.inputs}).catch(() => {});
      }
    }
    return this.handle;
  }

  /** The worker's READY: {version, models, clusters} (the preset names). */
  ready() {
    return this.worker().ready;
  }

  // One OPEN; what the worker accepted is what a replacement gets.
  async open(kind, input) {
    const done = await this.worker().call(OP.OPEN, {[kind]: input});
    this.inputs[kind] = input;
    return done[kind];
  }

  /** input: {preset} or {text, source}; resolves to the model's description. */
  setModel(input) {
    return this.open('model', input);
  }

  setCluster(input) {
    return this.open('cluster', input);
  }

  /** training: {gpus, global_batch, seq, fix}; resolves to {fix} (normalised). */
  setTraining(training) {
    return this.open('training', training);
  }

  /**
   * Runs the search until it is finished, timeLimitS passes or stop() is
   * called; resolves to {reason, searchS, elapsedS, text (the plan JSON),
   * result (parsed), megatron, megatronNotes, torchtitan, timeline (schedule
   * JSON text or null), timelineError}. A stop resolves it at once: with
   * the evaluated plan once the worker sent it (without the why-not rows,
   * sizing and timeline it had not finished), else with {reason: 'stopped',
   * result: null, later}: `later` resolves to the worker's stopped answer
   * (its best plan) when the worker ends its run within STOP_GRACE_MS, or
   * to null when the worker was replaced instead.
   */
  async plan(options, timeLimitS) {
    if (this.running) throw new Error('the plan lab is already planning');
    this.early = null;
    const signal = stopSignal();
    this.signal = signal;
    const startedMs = performance.now();
    let answered = null;  // the worker's answer, once the PLAN is sent
    const run = () => {
      answered = this.worker().call(OP.PLAN, {options, timeLimitS}).then(answer);
      return answered;
    };
    const running = this.runs.start(run, signal, {
      stopped: () => {
        if (!this.early) {
          const later = answered ? answered.catch(() => null) : Promise.resolve(null);
          return {reason: 'stopped', result: null, later};
        }
        const elapsedS = (performance.now() - startedMs) / 1000;
        return answer(
            {...this.early, reason: 'stopped', searchS: elapsedS, elapsedS, timeline: null});
      },
      replace: () => this.respawn(),
    });
    this.running = running;
    try {
      return await running;
    } finally {
      this.running = null;
      this.signal = null;
    }
  }

  /**
   * Ends a worker still inside a stopped run's step; its replacement (made
   * in a later task, once the page has shown the stop) boots and gets the
   * same inputs.
   */
  respawn() {
    this.terminate();
    nextTask().then(() => this.worker());
  }

  /** Stops the running search; the run then resolves at once (see plan()). */
  async stop() {
    if (this.signal) this.signal.fire();
    if (this.running) await this.worker().call(OP.STOP).catch(() => {});
  }

  /** The teaching lab's report (JSON text) of a part's layout: part layer | embedding | head. */
  async layout(part, config) {
    return (await this.worker().call(OP.LAYOUT, {part, config})).report;
  }

  terminate() {
    if (this.handle) this.handle.terminate();
    this.handle = null;
  }
}
