// The page's side of the pipeline worker (worker.js): the problem is opened
// once per change (OPEN parses it into the worker's session and lists its
// schedules), each schedule is simulated by its own call (SIMULATE, in the
// worker), and every later call names that session: check, export, import,
// the MIP's LP and column maps. The planner runs in the same worker
// (planner_client.mjs shares this handle). Schedules come back as
// ScheduleEntry: the text (kept for downloads and offers), the numbers
// (summary) and the whole schedule parsed only when something reads it.
// lab.mjs drives it; tests/web/pipeline_clients.test.mjs runs it against a
// fake worker.
import {OP} from '../protocol.mjs';
import {WorkerHandle} from '../worker_client.mjs';

/**
 * A schedule seen from the page: `text` (the core's schedule JSON),
 * `summary` (its numbers without the ops and memory profile) and
 * `schedule` (the whole JSON, parsed on first use: a p 64, m 512 schedule's
 * JSON is 10 MB, and only the drawn ones are read).
 */
export class ScheduleEntry {
  constructor(text, summary = null) {
    this.text = text;
    this.parsed = summary ? null : JSON.parse(text);
    this.summary = summary || this.parsed;
  }

  get schedule() {
    if (!this.parsed) this.parsed = JSON.parse(this.text);
    return this.parsed;
  }
}

const entry = (text) => new ScheduleEntry(text);

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
    return this.worker().call(op, {...payload, session: this.session});
  }

  /**
   * Opens a problem (JSON text; errors name `source`): resolves to
   * {normalized, list, schedules: Map(name -> ScheduleEntry | {error})};
   * the schedules are those the worker simulated with the OPEN (none from
   * worker.js: simulate() asks for each). The session is the current one
   * only once this resolves.
   */
  async open(text, source = 'problem') {
    const done = await this.worker().call(OP.OPEN, {text, source});
    this.session = done.session;
    const schedules = new Map();
    for (const [name, s] of Object.entries(done.schedules || {})) {
      schedules.set(name, s.text === undefined ? {error: s.error} : entry(s.text));
    }
    return {normalized: done.normalized, list: done.list, schedules};
  }

  /** One schedule of the open problem: a ScheduleEntry, or {error} when it does not apply. */
  async simulate(name) {
    const done = await this.call(OP.SIMULATE, {name});
    return done.text === undefined ? {error: done.error} :
                                     new ScheduleEntry(done.text, done.summary);
  }

  /** A schedule JSON re-timed and checked on the problem: {text, schedule}. */
  async check(scheduleText) {
    return entry((await this.call(OP.CHECK, {schedule: scheduleText})).text);
  }

  /** format: 'chrome-trace' or 'pytorch-csv'; the file's text. */
  async exportAs(scheduleText, format) {
    return (await this.call(OP.EXPORT, {schedule: scheduleText, format})).text;
  }

  async importCsv(csv, source) {
    return entry((await this.call(OP.IMPORT_CSV, {csv, source})).text);
  }

  async emitLp(options) {
    return (await this.call(OP.EMIT_LP, {options})).lp;
  }

  /** The LP's column values of a schedule ({name: value}). */
  async mipStart(options, scheduleText) {
    return (await this.call(OP.MIP_START, {options, schedule: scheduleText})).columns;
  }

  async scheduleFromMip(options, columns) {
    return entry((await this.call(OP.FROM_MIP, {options, columns})).text);
  }

  terminate() {
    if (this.handle) this.handle.terminate();
    this.handle = null;
    this.session = null;
  }
}
