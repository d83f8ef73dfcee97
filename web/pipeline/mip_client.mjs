// The page's side of the HiGHS worker (highs_worker.js): one MIP solve at a
// time on the LP text the core emits, warm-started from a schedule's column
// values; HiGHS's progress arrives as the one progress record. HiGHS blocks its worker while it
// runs, so stop() terminates the worker (a fresh one starts on the next solve) and the solve
// resolves with the last incumbent it reported. lab.mjs maps column values back to a schedule with
// the core (pipelineScheduleFromMip).
import {MSG, OP} from '../protocol.mjs';
import {WorkerHandle} from '../worker_client.mjs';

export class MipClient {
  /**
   * handlers: onIncumbent({objective, columns, seconds}) with columns
   * {name: value}; onProgress({primal, dual, gap, nodes, seconds}).
   */
  constructor(url, handlers = {}) {
    this.url = url;
    this.handlers = handlers;
    this.handle = null;
    this.running = null;
    this.stopped = false;
    this.last = null;
  }

  onEvent(msg) {
    if (msg.type === MSG.PROGRESS && msg.model) {
      this.names = msg.model.names;
      this.start = msg.model.start;
      return;
    }
    const r = msg.record;
    if (!r) return;
    if (msg.type === MSG.INCUMBENT) {
      this.last = {objective: r.incumbent, columns: this.columns(msg.values), seconds: r.elapsedS};
      if (r.bound > 0) this.progress = {...this.progress, dual: r.bound};
      if (this.handlers.onIncumbent) this.handlers.onIncumbent(this.last);
      return;
    }
    this.progress = {
      primal: r.incumbent,
      dual: r.bound,
      gap: r.found ? r.gap : null,
      nodes: r.counters.nodes,
      seconds: r.elapsedS,
      record: r,
    };
    if (this.handlers.onProgress) this.handlers.onProgress(this.progress);
  }

  columns(values) {
    const out = {};
    if (!this.names) return out;
    for (let i = 0; i < values.length; ++i) out[this.names[i]] = values[i];
    return out;
  }

  /**
   * Solves lp (CPLEX-LP text) for timeLimitS with start {name: value} (may
   * be null). Resolves to {status, objective, dual, gap, columns, seconds,
   * start: {given, missing}}; status 'stopped' after stop(), with the last
   * incumbent's objective and columns (or null).
   */
  async solve(lp, start, timeLimitS) {
    if (this.running) throw new Error('the MIP is already running');
    this.stopped = false;
    this.last = null;
    this.names = null;
    this.progress = null;
    if (!this.handle) this.handle = new WorkerHandle(this.url, 0, (i, msg) => this.onEvent(msg));
    const names = start ? Object.keys(start) : [];
    const payload = {lp, timeLimitS, start: {names, values: names.map((n) => start[n])}};
    const handle = this.handle;
    // A stop while the worker is still starting must end the solve too.
    const stopped = new Promise((resolve, reject) => {
      this.abort = () => reject(new Error('stopped'));
    });
    this.running =
        Promise.race([handle.ready.then(() => handle.call(OP.SOLVE_LP, payload)), stopped]);
    try {
      const done = await this.running;
      return {...done, columns: this.columns(done.values), start: this.start};
    } catch (error) {
      if (!this.stopped) throw error;
      const last = this.last;
      const p = this.progress || {};
      return {
        status: 'stopped',
        objective: last ? last.objective : null,
        dual: Number.isFinite(p.dual) ? p.dual : null,
        gap: Number.isFinite(p.gap) ? p.gap : null,
        columns: last ? last.columns : null,
        seconds: p.seconds ?? (last ? last.seconds : 0),
        start: this.start,
      };
    } finally {
      this.running = null;
    }
  }

  /** Ends the running solve by terminating its worker. */
  stop() {
    if (!this.running || !this.handle) return;
    this.stopped = true;
    this.abort();
    this.handle.terminate();
    this.handle = null;
  }
}
