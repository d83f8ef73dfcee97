// The page's side of the sharding solver workers: spawns N workers (worker.js), has
// worker 0 parse the instance once and copies the model's typed arrays to the
// others, starts and stops the portfolio, and relays each better plan to the
// other workers by message (no SharedArrayBuffer). It keeps the overall best,
// bound and trace that lab.mjs shows and downloads, and each worker's last
// progress record (stats[i]: {record, stats: its counters, elapsedS, ...}).
import {MSG, OP} from '../protocol.mjs';
import {nextTask, StoppableRuns, stopSignal, WorkerHandle} from '../worker_client.mjs';

const better = (a, b) => b === null || BigInt(a) < BigInt(b);  // decimal cost strings

// Copies of a model's ArrayBuffers for one more worker.
function copyModel(model) {
  return {...model, fields: model.fields.map((buffer) => buffer.slice(0))};
}

export class SolverClient {
  /**
   * handlers: onLoadProgress(bytes, total), onImprove({seconds, engine, cost,
   * bound, plan}), onStats(index, msg), each optional.
   */
  constructor(workerUrl, count, handlers = {}) {
    this.url = workerUrl;
    this.handlers = handlers;
    this.workers = [];
    this.model = null;  // exported fields, kept for workers added later
    this.runs = new StoppableRuns();
    this.reset();
    this.resize(count);
  }

  reset() {
    this.best = null;  // {cost, plan, engine, seconds}
    this.bound = '0';
    this.trace = [];  // [seconds, engine, found, cost, bound]
    this.stats = [];
    this.elapsedS = 0;
    this.runStartedMs = null;  // the running start(): when it began (epoch ms)
    this.runBaseS = 0;         // solving time before it
    this.runLimitS = 0;        // the cumulative limit it runs to
  }

  /** Solving time now: of the running start() while one runs, else the total. */
  liveElapsedS() {
    if (this.runStartedMs === null) return this.elapsedS;
    return this.runBaseS + (performance.timeOrigin + performance.now() - this.runStartedMs) / 1000;
  }

  get count() {
    return this.workers.length;
  }

  resize(count) {
    while (this.workers.length > count) this.workers.pop().terminate();
    while (this.workers.length < count) {
      const handle = this.spawn(this.workers.length);
      this.workers.push(handle);
      if (this.model && this.workers.length > 1) this.sendModel(handle);
    }
  }

  spawn(index) {
    return new WorkerHandle(this.url, index, (i, msg, op) => this.onEvent(i, msg, op));
  }

  sendModel(handle) {
    const copy = copyModel(this.model);
    handle.loaded = handle.call(OP.MODEL, {model: copy}, copy.fields);
    handle.loaded.catch(() => {});  // observed by the next start()
    return handle.loaded;
  }

  /**
   * Replaces worker `index` (stuck in a long step after a stop) by a fresh
   * one: its engine is rebuilt by the next start(), which offers it the best
   * plan. The old worker ends now (its messages end with it); the new one is
   * made in a later task, after the page has shown the stop (a worker's
   * start, and its wasm compiling beside the page, must not delay that), and
   * start(), load() and offer() wait for it (this.runs, replaced()). The model is
   * copied to it only when it is next used (modelReady()): copying a large
   * model blocks the page for tens of milliseconds.
   */
  respawn(index) {
    this.workers[index].terminate();
    if (this.replacing) return;
    this.replacing = nextTask().then(() => {
      this.replacing = null;
      this.workers.forEach((old, i) => {
        if (!old.terminated) return;
        const handle = this.spawn(i);
        this.workers[i] = handle;
        handle.needsModel = this.model !== null;
      });
    });
  }

  /**
   * Resolves once the last run has ended, or its workers still inside a
   * step after its stop were replaced, and the replacements exist.
   */
  async replaced() {
    await this.runs.settled();
    if (this.replacing) await this.replacing;
  }

  /** Resolves once worker `handle` is up and holds the model. */
  modelReady(handle) {
    if (!handle.needsModel) return handle.loaded || handle.ready;
    handle.needsModel = false;
    return handle.ready.then(() => this.sendModel(handle));
  }

  onEvent(index, msg, op) {
    if (op === OP.LOAD) {
      if (msg.load && this.handlers.onLoadProgress) {
        this.handlers.onLoadProgress(msg.load.bytes, msg.load.total);
      }
      return;
    }
    if (!msg.record) return;
    this.stats[index] = {
      ...msg,
      stats: msg.record.counters,
      elapsedS: msg.record.elapsedS,
      cost: msg.exact.cost,
      bound: msg.exact.bound,
    };
    if (msg.type === MSG.INCUMBENT) this.improve(index, this.stats[index]);
    if (this.handlers.onStats) this.handlers.onStats(index, this.stats[index]);
  }

  // The portfolio's board: better plans are recorded and sent to the others.
  // msg.cost and msg.bound are the exact decimal strings.
  improve(index, msg) {
    let changed = false;
    if (msg.cost && msg.plan && better(msg.cost, this.best && this.best.cost)) {
      this.best = {cost: msg.cost, plan: msg.plan, engine: index, seconds: msg.improvedS};
      changed = true;
      this.workers.forEach((handle, i) => {
        // (A replaced worker gets the best plan with its model, at the next start().)
        if (i !== index && !handle.needsModel) {
          handle.call(OP.OFFER, {plan: msg.plan.slice()}).catch(() => {});
        }
      });
    }
    if (BigInt(msg.bound) > BigInt(this.bound)) {
      this.bound = msg.bound;
      changed = true;
    }
    if (this.best && BigInt(this.bound) > BigInt(this.best.cost)) this.bound = this.best.cost;
    if (!changed) return;
    const found = this.best !== null;
    this.trace.push([msg.improvedS, index, found, found ? this.best.cost : '0', this.bound]);
    if (this.handlers.onImprove) {
      this.handlers.onImprove({...this.best, bound: this.bound, seconds: msg.improvedS});
    }
  }

  /** Parses on worker 0, then copies the arrays to the others. */
  async load(source) {
    await this.replaced();
    await Promise.all(this.workers.map((w) => w.ready));
    const transfer = source.kind === 'bytes' ? [source.bytes.buffer] : [];
    const result = await this.workers[0].call(OP.LOAD, {source}, transfer);
    this.model = result.model;
    this.reset();
    this.workers[0].loaded = null;
    this.workers.forEach((w) => {
      w.needsModel = false;
    });
    await Promise.all(this.workers.slice(1).map((handle) => this.sendModel(handle)));
    return result;
  }

  /** A plan from elsewhere (a permalink, IndexedDB): every engine gets it. */
  async offer(plan, cost) {
    if (better(cost, this.best && this.best.cost)) {
      this.best = {cost, plan, engine: -1, seconds: this.elapsedS};
    }
    if (this.replacing) await this.replacing;  // (offered inside a run too: start()'s carry)
    await Promise.all(this.workers.map(
        (w) => this.modelReady(w).then(() => w.call(OP.OFFER, {plan: plan.slice()}))));
  }

  /**
   * Runs every engine until timeLimitS of solving time (counted across
   * resumes, and from this call: the offers and each engine's presolve
   * count), a stop, or until all are finished. Resolves to the reasons.
   * runStartedMs (epoch milliseconds, performance.timeOrigin + now) says
   * when this run started; runLimitS is the limit it runs to.
   * carry ({plan, cost}, optional) is offered to every engine first. A stop
   * that comes while that offer or a worker's start-up is still pending is
   * kept: no engine is started, and every reason is 'stopped'. (A worker
   * ignores a STOP that arrives before its START.) A stop resolves it at
   * once, in the click's task (worker_client.mjs stoppable): best and bound
   * are the best so far, and what the engines report afterwards is still
   * kept. A worker that has not answered its START within STOP_GRACE_MS
   * (inside a long step: a presolve), or at once when every running worker
   * announced such a step, is replaced (respawn()); the next start() waits
   * for that.
   */
  async start(options, timeLimitS, carry = null) {
    const signal = stopSignal();  // this run's: a later start() has its own
    this.signal = signal;
    const startedAtMs = performance.timeOrigin + performance.now();
    const baseS = this.elapsedS;
    const limit = baseS >= timeLimitS ? baseS + timeLimitS : timeLimitS;
    this.runStartedMs = startedAtMs;
    this.runBaseS = baseS;
    this.runLimitS = limit;
    try {
      // The offer and the workers' start-up are inside the race too: a
      // worker still finishing a stopped run answers them only afterwards.
      const pending = new Map();  // workers whose START has not answered: its id
      const run = async () => {
        if (this.replacing) await this.replacing;
        if (carry) await this.offer(carry.plan, carry.cost);
        await Promise.all(this.workers.map((w) => this.modelReady(w)));
        if (signal.fired) return this.workers.map(() => ({reason: 'stopped', elapsedS: baseS}));
        return Promise.all(this.workers.map((handle, index) => {
          const call = handle.call(OP.START, {
            options: {...options, workers: this.workers.length},
            index,
            timeLimitS: limit,
            baseS,
            startedAtMs,
          });
          call.then(() => pending.delete(handle), () => pending.delete(handle));
          pending.set(handle, call.id);
          return call;
        }));
      };
      const running = this.runs.start(run, signal, {
        // The run's clock at the stop (the workers' own clocks count the
        // same time), so the stored record of a stopped run is newer than
        // those written while it ran.
        stopped: () => {
          const stoppedS = this.liveElapsedS();
          return this.workers.map(() => ({reason: 'stopped', elapsedS: stoppedS}));
        },
        // A worker still inside its step is replaced, so the next start()
        // (or load()) never waits for it.
        replace: () => this.workers.forEach((handle, i) => {
          if (pending.has(handle)) this.respawn(i);
        }),
        // Workers that all announced a long step (an engine's presolve), or
        // have not begun their START (a new engine's presolve comes first,
        // and a worker with its engine answers a START at once), cannot
        // answer before that ends.
        busy: () => pending.size > 0 &&
            [...pending].every(([handle, id]) => handle.busy || handle.unheard(id)),
      });
      const done = await running;
      this.elapsedS = Math.max(baseS, ...done.map((d) => d.elapsedS));
      return done.map((d) => d.reason);
    } finally {
      this.runStartedMs = null;
    }
  }

  /**
   * Asks every engine to stop; the running start() resolves at once.
   * Resolves when the workers have answered (or were replaced).
   */
  stop() {
    if (this.signal) this.signal.fire();
    return Promise.all(this.workers.map((w) => w.call(OP.STOP).catch(() => {})));
  }

  terminate() {
    this.resize(0);
  }
}
