// The page's side of the plan worker (worker.js): sets the session's inputs
// (each a preset's name or a file's text, sent once per change), runs the
// search with its progress records going to onRecord, stops it, and asks for
// a part's layout. A run's result comes back as the core's plan JSON (text,
// kept for downloads, and parsed), the exports and the timeline's schedule
// JSON. lab.mjs drives it.
import {MSG, OP} from '../protocol.mjs';
import {WorkerHandle} from '../worker_client.mjs';

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
  }

  worker() {
    if (!this.handle) {
      this.handle = new WorkerHandle(this.url, 0, (i, msg) => {
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
    this.running = this.worker().call(OP.PLAN, {options, timeLimitS});
    try {
      const done = await this.running;
      return {...done, text: done.json, result: JSON.parse(done.json)};
    } finally {
      this.running = null;
    }
  }

  /** Stops the running search; the run then resolves with its best plan. */
  async stop() {
    this.stopAsked = true;
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
