// The page's side of the plan worker (worker.js): sets the session's inputs
// (each a preset's name or a file's text, sent once per change), runs the
// search with its progress records going to onRecord, stops it, and asks for
// a part's layout. A run's result comes back as the core's plan JSON (text,
// kept for downloads, and parsed), the exports and the timeline's schedule
// JSON. lab.mjs drives it. A Stop after the plan has been evaluated ends the
// run on the page within STOP_GRACE_MS (worker_client.mjs untilStopped) with
// that plan, even while the worker is inside a long step (a long pipeline's
// simulation, the why-not rows); the worker's late answer is dropped.
import {MSG, OP} from '../protocol.mjs';
import {stopSignal, untilStopped, WorkerHandle} from '../worker_client.mjs';

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
    this.running = null;
    this.stopAsked = false;
    this.signal = null;
    this.early = null;  // the running search's evaluated plan, once the worker sent it
  }

  worker() {
    if (!this.handle) {
      this.handle = new WorkerHandle(this.url, 0, (i, msg) => {
        if (msg.plan) this.early = msg.plan;
        if (msg.record) this.onRecord(msg.record, msg.type === MSG.INCUMBENT, msg.plan || null);
      });
    }
    return this.handle;
  }

  /** The worker's READY: {version, models, clusters} (the preset names). */
  ready() {
    return this.worker().ready;
  }

  /** input: {preset} or {text, source}; resolves to the model's description. */
  async setModel(input) {
    return (await this.worker().call(OP.OPEN, {model: input})).model;
  }

  async setCluster(input) {
    return (await this.worker().call(OP.OPEN, {cluster: input})).cluster;
  }

  /** training: {gpus, global_batch, seq, fix}; resolves to {fix} (normalised). */
  async setTraining(training) {
    return (await this.worker().call(OP.OPEN, {training})).training;
  }

  /**
   * Runs the search until it is finished, timeLimitS passes or stop() is
   * called; resolves to {reason, searchS, elapsedS, text (the plan JSON),
   * result (parsed), megatron, megatronNotes, torchtitan, timeline (schedule
   * JSON text or null), timelineError}.
   */
  async plan(options, timeLimitS) {
    if (this.running) throw new Error('the plan lab is already planning');
    this.stopAsked = false;
    this.early = null;
    const signal = stopSignal();
    this.signal = signal;
    const startedMs = performance.now();
    const call = this.worker().call(OP.PLAN, {options, timeLimitS});
    this.running = call;
    // Stopped with an evaluated plan: that plan, without the side searches
    // and the timeline the worker had not finished; before one, the worker's
    // own answer (the search's best so far).
    const stopped = () => {
      if (!this.early) return call;
      const elapsedS = (performance.now() - startedMs) / 1000;
      return {...this.early, reason: 'stopped', searchS: elapsedS, elapsedS, timeline: null};
    };
    try {
      const done = await untilStopped(call, signal, stopped);
      return {...done, text: done.json, result: JSON.parse(done.json)};
    } finally {
      this.running = null;
      this.signal = null;
    }
  }

  /** Stops the running search; the run then resolves with its best plan. */
  async stop() {
    this.stopAsked = true;
    if (this.signal) this.signal.fire();
    if (this.running) await this.worker().call(OP.STOP);
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
