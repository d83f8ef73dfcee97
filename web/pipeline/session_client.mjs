// The page's side of the pipeline worker (worker.js): the problem is opened
// once per change (OPEN parses it into the worker's session and lists its
// schedules), each schedule is simulated by its own call (SIMULATE, in the
// worker), and every later call names that session: layouts, check,
// export, import, the MIP's LP and column maps. The planner runs in the same
// worker (planner_client.mjs shares this handle). Schedules come back as
// ScheduleEntry: the numbers (summary), the timeline's packed layout
// (layout.mjs, made in the worker) while it is drawn, and either the JSON
// (planned, checked, imported, MIP schedules) or the name the worker keeps
// it under (the generated ones: their JSON never comes to the page unless
// it is downloaded). lab.mjs drives it; tests/web/pipeline_clients.test.mjs
// runs it against a fake worker.
import {OP} from '../protocol.mjs';
import {nextTask, WorkerHandle} from '../worker_client.mjs';

const decoder = new TextDecoder();

/**
 * A schedule seen from the page: `summary` (its numbers without the ops
 * and memory profile), `layout` (its timeline packed in typed arrays, or
 * null: fetched with layoutOf() when drawn, or packed from `schedule` by
 * the timeline), and its JSON: `held`, the name the worker keeps a
 * generated schedule under (its JSON is not here), or `raw`, the text or
 * its UTF-8 bytes (a transferred buffer: a 10 MB string copied into the
 * page costs a main-thread task of 0.3 s or more), decoded by `text` and
 * parsed by `schedule` only on first use.
 */
export class ScheduleEntry {
  constructor(text, summary = null, layout = null, held = null) {
    this.raw = text;  // a string, UTF-8 bytes (Uint8Array), or null when held
    this.held = held;
    this.parsed = summary ? null : JSON.parse(this.text);
    this.summary = summary || this.parsed;
    this.layout = layout;
  }

  get text() {
    if (this.raw === null) throw new Error(`the worker keeps ${this.held}'s JSON`);
    if (typeof this.raw !== 'string') this.raw = decoder.decode(this.raw);
    return this.raw;
  }

  get schedule() {
    if (!this.parsed) this.parsed = JSON.parse(this.text);
    return this.parsed;
  }

  /** The fields that name this schedule in a request: {name} or {schedule}. */
  ref() {
    return this.raw === null ? {name: this.held} : {schedule: this.raw};
  }
}

// A request's fields naming a schedule: an entry's, or JSON text or bytes.
const refOf = (s) => (s instanceof ScheduleEntry ? s.ref() : {schedule: s});

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
    if (this.reopening) return this.reopening.then(() => this.worker().ready);
    return this.worker().ready;
  }

  /** The phase of a long step the worker announced and is still inside, else null. */
  get busy() {
    return this.handle ? this.handle.busy : null;
  }

  call(op, payload = {}, transfer = []) {
    if (this.reopening) {
      return this.reopening.then(
          () => this.worker().call(op, {...payload, session: this.session}, transfer));
    }
    return this.worker().call(op, {...payload, session: this.session}, transfer);
  }

  /**
   * Replaces a worker stuck in a long step (a stopped planner's offer or
   * step on a large problem) by a fresh one with the same problem opened
   * again: calls made meanwhile wait for that OPEN. The old worker ends now
   * (its messages end with it); the new one is made in a later task, after
   * the page has shown the stop.
   */
  respawn() {
    if (!this.handle) return;
    const opened = this.opened;
    this.terminate();
    if (!opened) return;
    const reopening =
        nextTask()
            .then(() => (this.reopening === reopening ? this.worker().call(OP.OPEN, opened) : null))
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

  /**
   * One schedule of the open problem: a ScheduleEntry whose JSON the
   * worker keeps (with its layout when `withLayout`), or {error} when it
   * does not apply.
   */
  async simulate(name, withLayout = false) {
    const done = await this.call(OP.SIMULATE, {name, layout: withLayout});
    if (done.summary) return new ScheduleEntry(null, done.summary, done.layout || null, name);
    return done.bytes || done.text !== undefined ? entry(done) : {error: done.error};
  }

  /** Fills in an entry's layout (from the worker, for a held one); resolves to it. */
  async layoutOf(scheduleEntry) {
    if (!scheduleEntry.layout && scheduleEntry.held !== null) {
      scheduleEntry.layout = (await this.call(OP.LAYOUT, {name: scheduleEntry.held})).layout;
    }
    return scheduleEntry.layout;
  }

  /** An entry's JSON as the core wrote it: text, or UTF-8 bytes (fetched when held). */
  async jsonOf(scheduleEntry) {
    if (scheduleEntry.raw !== null) return scheduleEntry.raw;
    return (await this.call(OP.EXPORT, {name: scheduleEntry.held, format: 'schedule-json'})).bytes;
  }

  /**
   * A schedule JSON (text or UTF-8 bytes, which move to the worker)
   * re-timed and checked on the problem: a ScheduleEntry.
   */
  async check(schedule) {
    const transfer = ArrayBuffer.isView(schedule) ? [schedule.buffer] : [];
    return entry(await this.call(OP.CHECK, {schedule}, transfer));
  }

  /** schedule: an entry or its JSON; format: 'chrome-trace' or 'pytorch-csv'; the file's text. */
  async exportAs(schedule, format) {
    return (await this.call(OP.EXPORT, {...refOf(schedule), format})).text;
  }

  /** A schedule (an entry or its JSON) offered to the planner. */
  offer(schedule) {
    return this.call(OP.OFFER, refOf(schedule));
  }

  async importCsv(csv, source) {
    return entry(await this.call(OP.IMPORT_CSV, {csv, source}));
  }

  async emitLp(options) {
    return (await this.call(OP.EMIT_LP, {options})).lp;
  }

  /** The LP's column values of a schedule (an entry or its JSON): {name: value}. */
  async mipStart(options, schedule) {
    return (await this.call(OP.MIP_START, {options, ...refOf(schedule)})).columns;
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
