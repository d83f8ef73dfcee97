// The page's side of the pipeline worker (worker.js): the problem is opened
// once per change (OPEN parses it into the worker's session and lists its
// schedules), each schedule is simulated by its own call (SIMULATE, in the
// worker), and every later call names that session: check, export, import,
// the MIP's LP and column maps. The planner runs in the same worker
// (planner_client.mjs shares this handle). Schedules come back as
// ScheduleEntry: the text (kept for downloads and offers), the numbers
// (summary), the timeline's packed layout (layout.mjs, made in the worker)
// and the whole schedule parsed only when something reads it.
// lab.mjs drives it; tests/web/pipeline_clients.test.mjs runs it against a
// fake worker.
import {OP} from '../protocol.mjs';
import {WorkerHandle} from '../worker_client.mjs';

const decoder = new TextDecoder();

/**
 * A schedule seen from the page: `text` (the core's schedule JSON),
 * `summary` (its numbers without the ops and memory profile), `layout` (its
 * timeline packed in typed arrays, or null: the timeline packs `schedule`)
 * and `schedule` (the whole JSON, parsed on first use: a p 64, m 512
 * schedule's JSON is 10 MB, and the page reads it only for a download or
 * when the worker sent no layout). The worker sends large texts as UTF-8
 * bytes (a transferred buffer: a 10 MB string copied into the page costs a
 * main-thread task of 0.3 s or more); `text` decodes them on first use.
 */
export class ScheduleEntry {
  constructor(text, summary = null, layout = null) {
    this.raw = text;  // a string, or UTF-8 bytes (Uint8Array)
    this.parsed = summary ? null : JSON.parse(this.text);
    this.summary = summary || this.parsed;
    this.layout = layout;
  }

  get text() {
    if (typeof this.raw !== 'string') this.raw = decoder.decode(this.raw);
    return this.raw;
  }

  get schedule() {
    if (!this.parsed) this.parsed = JSON.parse(this.text);
    return this.parsed;
  }
}

// A reply's schedule: packed by the worker (bytes, summary, layout) or text.
const entry = (done) =>
    (done.bytes ? new ScheduleEntry(done.bytes, done.summary, done.layout || null) :
                  new ScheduleEntry(done.text));

export class SessionClient {
  /** onEvent(msg, op): PROGRESS and INCUMBENT replies (the planner's). */
  constructor(url, onEvent = () => {}) {
    this.url = url;
    this.onEvent = onEvent;
    this.handle = null;
    this.session = null;  // the id of the open session
  }

  worker() {
    if (!this.handle) {
      this.handle = new WorkerHandle(this.url, 0, (i, msg, op) => this.onEvent(msg, op));
    }
    return this.handle;
  }

  /** The worker's READY: {version, planOptions (the planner's option schema)}. */
  ready() {
    return this.worker().ready;
  }

  call(op, payload = {}) {
    if (this.reopening) {
      return this.reopening.then(() => this.worker().call(op, {...payload, session: this.session}));
    }
    return this.worker().call(op, {...payload, session: this.session});
  }

  /**
   * Replaces a worker stuck in a long step (a stopped planner's offer or
   * step on a large problem) by a fresh one with the same problem opened
   * again: calls made meanwhile wait for that OPEN. The old worker's
   * messages end with it.
   */
  respawn() {
    if (!this.handle) return;
    const opened = this.opened;
    this.terminate();
    if (!opened) return;
    const reopening = this.worker()
                          .call(OP.OPEN, opened)
                          .then(
                              (done) => {
                                if (this.reopening !== reopening) return;
                                this.session = done.session;
                                this.reopening = null;
                              },
                              () => {
                                if (this.reopening === reopening) this.reopening = null;
                              });
    this.reopening = reopening;
  }

  /**
   * Opens a problem (JSON text; errors name `source`): resolves to
   * {normalized, list, schedules: Map(name -> ScheduleEntry | {error})};
   * the schedules are those the worker simulated with the OPEN (none from
   * worker.js: simulate() asks for each). The session is the current one
   * only once this resolves.
   */
  async open(text, source = 'problem') {
    this.reopening = null;  // this OPEN supersedes a respawn's
    const done = await this.worker().call(OP.OPEN, {text, source});
    this.session = done.session;
    this.opened = {text, source};
    const schedules = new Map();
    for (const [name, s] of Object.entries(done.schedules || {})) {
      schedules.set(name, s.text === undefined ? {error: s.error} : entry(s));
    }
    return {normalized: done.normalized, list: done.list, schedules};
  }

  /** One schedule of the open problem: a ScheduleEntry, or {error} when it does not apply. */
  async simulate(name) {
    const done = await this.call(OP.SIMULATE, {name});
    return done.bytes || done.text !== undefined ? entry(done) : {error: done.error};
  }

  /** A schedule JSON re-timed and checked on the problem: a ScheduleEntry. */
  async check(scheduleText) {
    return entry(await this.call(OP.CHECK, {schedule: scheduleText}));
  }

  /** format: 'chrome-trace' or 'pytorch-csv'; the file's text. */
  async exportAs(scheduleText, format) {
    return (await this.call(OP.EXPORT, {schedule: scheduleText, format})).text;
  }

  async importCsv(csv, source) {
    return entry(await this.call(OP.IMPORT_CSV, {csv, source}));
  }

  async emitLp(options) {
    return (await this.call(OP.EMIT_LP, {options})).lp;
  }

  /** The LP's column values of a schedule ({name: value}). */
  async mipStart(options, scheduleText) {
    return (await this.call(OP.MIP_START, {options, schedule: scheduleText})).columns;
  }

  async scheduleFromMip(options, columns) {
    return entry(await this.call(OP.FROM_MIP, {options, columns}));
  }

  terminate() {
    if (this.handle) this.handle.terminate();
    this.handle = null;
    this.session = null;
    this.reopening = null;
  }
}
