// The planner box of the pipeline lab: Start/Stop of the chosen engine (the
// branch and bound in worker.js, or the MIP in highs_worker.js warm-started
// from the planner's incumbent), the live best makespan, lower bound and gap,
// the anytime curve, the engine's counters (from the one progress record),
// and the sizes where the MIP stops being useful. Its time control comes
// from the planner's option schema. Every better schedule goes to lab.mjs
// (onSchedule), which shows it, links it and keeps it in IndexedDB.
import {boundOnGrid, decimalsOf, elapsedOfLimit, fixed, gapPercent, grouped} from '../format.mjs';
import {applySchema, readOption, rowOf} from '../options_form.mjs';
import {formatSeconds} from '../plots/scales.mjs';
import {stopSignal, untilStopped} from '../worker_client.mjs';

import {AnytimeChart} from './anytime_chart.mjs';
import {MipClient} from './mip_client.mjs';
import {PlannerClient} from './planner_client.mjs';
import {num} from './readouts.mjs';

// Where the MIP stops being useful, measured on the emitted LP (uniform
// problems, F = B = W = 1, linear placement, no cap) with HiGHS 1.15.3 as wasm
// under node, 20 s per run, against the branch and bound on the same problems.
export const MIP_SIZES_NOTE = 'MIP sizes (HiGHS, 20 s, linear placement, unit times): ' +
    'p 4 m 4 (72 binaries) optimal in 1.4 s, p 6 m 6 (270) in 17 s, p 2 m 4 (36) in 14 s; ' +
    'p 4 m 6 (180) still 16% open and p 4 m 8 (336) 33% open at 20 s. ' +
    'The branch and bound proves each of them in under 0.05 s: past a few hundred ' +
    'binaries the MIP only confirms what the planner found.';

// The grid a makespan lies on: sums of the problem's durations, a device's
// share split over its chunks (a V-shape halves them: F 1 is two stages of
// 0.5), so no finer than the most decimals any number of the problem, or
// that number over the chunks, has (at most 6).
export function problemDecimals(problemText) {
  let most = 0;
  let chunks = 1;
  const walk = (v) => {
    if (typeof v === 'number') {
      most = Math.max(most, decimalsOf(v), decimalsOf(v / chunks));
    } else if (v && typeof v === 'object') {
      for (const item of Object.values(v)) walk(item);
    }
  };
  try {
    const problem = JSON.parse(problemText);
    if (problem && Number.isInteger(problem.chunks) && problem.chunks > 1) chunks = problem.chunks;
    walk(problem);
  } catch (error) {
    return 6;
  }
  return most;
}

// The gap between the best makespan and the bound (already on the grid).
const gapText = (best, bound, decimals) => {
  if (!Number.isFinite(best) || !Number.isFinite(bound)) return '';
  const gap = best > 0 ? Math.max(0, best - bound) / best : 0;
  return gap <= 1e-12 ? '0 (proven optimal)' :
                        `${fixed(best - bound, decimals)} (${gapPercent(gap)})`;
};

export class PlanPanel {
  /**
   * host: {section, sessions (session_client.mjs), problem() -> {key} | null,
   * bestGenerated() -> ScheduleEntry | null, onSchedule(kind, entry),
   * onRun(status, problemKey), onError(message), onSettings()}.
   */
  constructor(host) {
    this.host = host;
    const $ = (id) => host.section.querySelector(`#${id}`);
    this.$ = $;
    this.chart = new AnytimeChart($('pl-anytime'));
    this.schema = null;  // the planner's option schema (from the worker)
    this.planner = new PlannerClient(host.sessions, {
      onIncumbent: (best) => this.plannerIncumbent(best),
      onProgress: (p) => this.plannerProgress(p),
    });
    this.mip = new MipClient(new URL('highs_worker.js', import.meta.url).href, {
      onIncumbent: (inc) => this.mipIncumbent(inc),
      onProgress: (p) => this.mipProgress(p),
    });
    this.running = null;  // 'planner' | 'mip'
    this.run = null;      // the Promise of the running start()
    this.mipBest = null;  // {makespan, bound}
    $('pl-start').addEventListener('click', () => this.start());
    $('pl-stop').addEventListener('click', () => this.stop());
    $('pl-engine').addEventListener('change', () => {
      this.showNumbers();
      host.onSettings();
    });
    $('pl-time').addEventListener('change', () => host.onSettings());
    $('pl-placement').addEventListener('change', () => host.onSettings());
    $('pl-mip-sizes').textContent = MIP_SIZES_NOTE;
    this.setButtons();
  }

  get engine() {
    return this.$('pl-engine').value;
  }

  /** The planner's option schema: the controls take their ranges and defaults from it. */
  applySchema(schema) {
    this.schema = schema;
    applySchema(this.host.section, schema);
  }

  settings() {
    const time = this.schema ? rowOf(this.schema, 'time_limit_s') : null;
    const t = time ? readOption(this.$('pl-time'), time) : Number(this.$('pl-time').value) || 10;
    return {
      timeS: t,
      mip: this.engine === 'mip',
      placement: this.$('pl-placement').value || null,
    };
  }

  applySettings({timeS, mip, placement}) {
    if (timeS !== undefined && timeS !== null) this.$('pl-time').value = String(timeS);
    if (mip !== undefined) this.$('pl-engine').value = mip ? 'mip' : 'planner';
    if (placement !== undefined) this.$('pl-placement').value = placement || '';
    this.showNumbers();
  }

  /** The planner's and the MIP's options (core/pipeline/plan/options.def). */
  options() {
    const {placement} = this.settings();
    return placement ? {placement} : {};
  }

  setButtons() {
    this.$('pl-start').disabled = Boolean(this.running) || !this.host.problem();
    this.$('pl-stop').disabled = !this.running;
  }

  /** A different problem: stops any run and forgets its best and bound. */
  async reset(key) {
    await this.stop();
    this.planner.reset(key);
    this.mipBest = null;
    this.chart.reset(null);
    this.chart.setReferences([]);
    this.$('pl-stats').textContent = '';
    this.$('pl-plan-note').textContent = '';
    this.showNumbers();
  }

  /**
   * A schedule from elsewhere (link, IndexedDB, import): the planner starts
   * from it. bound (optional): the lower bound proven with it before (the
   * stored record's), kept when it does not exceed the makespan.
   */
  offer(entry, bound = null) {
    const kept = this.planner.consider(entry, 0);
    if (Number.isFinite(bound) && bound <= entry.summary.makespan + 1e-9 &&
        (this.planner.bound === null || bound > this.planner.bound)) {
      this.planner.bound = bound;
    }
    this.showNumbers();
    return kept;
  }

  showNumbers() {
    const set = (id, text) => {
      this.$(id).textContent = text;
    };
    const mip = this.engine === 'mip';
    const best = mip ?
        this.mipBest :
        this.planner.best && {makespan: this.planner.best.makespan, bound: this.planner.bound};
    // A bound is a lower bound on a makespan on the problem's grid: a MIP's
    // 12.999999 on integer durations is 13 (ceil'd, never rounded down).
    const problem = this.host.problem();
    const makespan = best ? best.makespan : null;
    // A makespan found is on the grid by definition: never print it coarser.
    const decimals = Math.max(
        problem && problem.normalized ? problemDecimals(problem.normalized) : 6,
        Number.isFinite(makespan) ? decimalsOf(makespan) : 0);
    const raw = best ? best.bound : null;
    const bound = Number.isFinite(raw) && raw !== null ?
        Math.min(boundOnGrid(raw, decimals), Number.isFinite(makespan) ? makespan : Infinity) :
        raw;
    set('pl-incumbent', Number.isFinite(makespan) ? fixed(makespan, decimals) : '');
    set('pl-bound', Number.isFinite(bound) ? fixed(bound, decimals) : '');
    set('pl-gap', gapText(makespan, bound, decimals));
    this.$('pl-incumbent').dataset.value = Number.isFinite(makespan) ? String(makespan) : '';
    this.$('pl-bound').dataset.value = Number.isFinite(bound) ? String(bound) : '';
  }

  references() {
    const generated = this.host.bestGenerated();
    const refs = [];
    const summary = generated && (generated.summary || generated.schedule);
    if (summary) refs.push([`best generated (${summary.name})`, summary.makespan, '#a16207']);
    if (this.engine === 'mip' && this.planner.best)
      refs.push(['branch and bound', this.planner.best.makespan, '#0f766e']);
    return refs;
  }

  // ---- the branch and bound ----

  plannerIncumbent(best) {
    this.host.onSchedule('planned', best.entry);
    if (this.running === 'planner')
      this.chart.addOverall(best.seconds, best.makespan, best.bound ?? 0);
    this.showNumbers();
  }

  plannerProgress({bound, record, seconds}) {
    const best = this.planner.best;
    if (best && Number.isFinite(bound))
      this.chart.addOverall(seconds, best.makespan, bound);
    else
      this.chart.setTime(seconds);
    this.$('pl-stats').textContent = statsLine(record.counters, record.elapsedS, this.limitS);
    this.warmStartReference(record.counters);
    this.showNumbers();
  }

  // The planner says which published schedules run on its placement and how
  // long they take: the best of them is the line its curve must beat.
  warmStartReference(counters) {
    const starts = Object.entries(counters.warm_start || {}).filter(([, v]) => Number.isFinite(v));
    if (!starts.length || this.referenced === counters.placement) return;
    this.referenced = counters.placement;
    const [name, value] = starts.reduce((a, b) => (b[1] < a[1] ? b : a));
    this.chart.setReferences([[name, value, '#a16207']]);
  }

  // ---- the MIP ----

  async mipIncumbent({objective, columns, seconds}) {
    try {
      const entry = await this.host.sessions.scheduleFromMip(this.runOptions, columns);
      this.mipBest = {
        makespan: entry.summary.makespan,
        bound: this.mipBest ? this.mipBest.bound : null
      };
      this.host.onSchedule('mip', entry);
    } catch (error) {
      this.$('pl-plan-note').textContent =
          `HiGHS found objective ${num(objective)}, but it does not map back ` +
          `to a schedule: ${error.message}`;
    }
    this.chart.addOverall(
        seconds, objective,
        this.mipBest && Number.isFinite(this.mipBest.bound) ? this.mipBest.bound : 0);
    this.showNumbers();
  }

  mipProgress({primal, dual, gap, nodes, seconds}) {
    if (Number.isFinite(dual)) {
      this.mipBest = {...(this.mipBest || {makespan: null}), bound: dual};
      if (Number.isFinite(primal) && primal < 1e300) this.chart.addOverall(seconds, primal, dual);
    }
    this.chart.setTime(seconds || 0);
    const parts = [];
    if (nodes !== null && nodes !== undefined) parts.push(`${grouped(nodes)} nodes`);
    if (Number.isFinite(gap) && gap < 1e300) parts.push(`HiGHS gap ${gapPercent(gap)}`);
    this.$('pl-stats').textContent = `HiGHS: ${parts.join(', ')}`;
    this.showNumbers();
  }

  // ---- runs ----

  start() {
    const problem = this.host.problem();
    if (!problem || this.running) return this.run;
    this.run = this.execute(problem);
    return this.run;
  }

  async execute(problem) {
    const {timeS} = this.settings();
    this.limitS = timeS;
    this.running = this.engine;
    this.stopMip = stopSignal();  // a stop before HiGHS runs (LP and start still being made)
    this.runOptions = this.options();
    this.referenced = null;
    this.setButtons();
    this.chart.reset(null);
    this.chart.setReferences(this.references());
    this.$('pl-plan-note').textContent = '';
    this.host.onRun(this.running === 'mip' ? 'solving' : 'planning', problem.key);
    let status = 'done';
    try {
      if (this.running === 'planner') {
        const generated = this.host.bestGenerated();
        const offers = generated ? [generated] : [];
        const done = await this.planner.plan(this.runOptions, timeS, offers);
        status = done.reason === 'stopped' ? 'stopped' : 'done';
        const best = this.planner.best;
        const where = best && best.summary.problem ?
            ` on the ${best.summary.problem.placement} placement` :
            '';
        this.$('pl-plan-note').textContent = this.planner.proven ?
            `Proven optimal${where} in ${formatSeconds(done.elapsedS)}.` :
            done.reason === 'stopped' ?
            'Stopped; the best schedule is kept.' :
            `Time limit reached after ${formatSeconds(done.elapsedS)}; the best schedule is kept.`;
      } else {
        status = await this.runMip(problem, timeS);
      }
    } catch (error) {
      status = 'error';
      this.host.onError(error.message || String(error));
    } finally {
      this.running = null;
      this.setButtons();
      this.showNumbers();
      this.host.onRun(status, problem.key);
    }
  }

  async runMip(problem, timeS) {
    const sessions = this.host.sessions;
    const options = this.runOptions;
    // A stop while the session writes the LP or the start (long on large
    // problems) ends the run at once; HiGHS never starts.
    const stopped = {};
    const unlessStopped = (call) => untilStopped(call, this.stopMip, () => stopped);
    const lp = await unlessStopped(sessions.emitLp(options));
    if (lp === stopped) return 'stopped';
    const incumbent = this.planner.best || this.host.bestGenerated();
    let start = null;
    try {
      start = incumbent ? await unlessStopped(sessions.mipStart(options, incumbent)) : null;
    } catch (error) {
      this.$('pl-plan-note').textContent = `No warm start (${error.message}).`;
    }
    if (start === stopped) return 'stopped';
    this.mipBest = null;
    const done = await this.mip.solve(lp, start, timeS);
    if (done.columns && Object.keys(done.columns).length && done.status !== 'stopped') {
      try {
        const entry = await sessions.scheduleFromMip(options, done.columns);
        this.mipBest = {makespan: entry.summary.makespan, bound: done.dual};
        this.host.onSchedule('mip', entry);
      } catch (error) {
        this.$('pl-plan-note').textContent =
            `The MIP's answer does not map back to a schedule: ${error.message}`;
      }
    } else if (this.mipBest && Number.isFinite(done.dual)) {
      this.mipBest.bound = done.dual;
    }
    const warm = done.start ?
        ` Warm start: ${done.start.given} columns from ${
            incumbent ? (incumbent.summary || incumbent.schedule).name : 'none'}` +
            (done.start.missing ? ` (${done.start.missing} names not in the LP).` : '.') :
                                  '';
    this.$('pl-plan-note').textContent =
        `HiGHS: ${done.status} after ${formatSeconds(done.seconds || 0)}.${warm}`;
    return done.status === 'stopped' ? 'stopped' : 'done';
  }

  /** Stops the run and resolves once it has ended (its last schedule taken). */
  async stop() {
    if (this.running === 'planner') await this.planner.stop();
    if (this.running === 'mip') {
      this.stopMip.fire();
      this.mip.stop();
    }
    if (this.run) await this.run;
  }
}

// The planner's counters worth a glance (all of them when none of these is there).
const STATS_SHOWN = ['phase', 'ops', 'nodes', 'best_source', 'dives', 'lns_improvements', 'offers'];

function statsLine(counters, seconds, limitS) {
  const shown = STATS_SHOWN.filter((k) => k in counters);
  return (shown.length ? shown.map((k) => [k, counters[k]]) : Object.entries(counters))
      .filter(([, v]) => typeof v === 'number' || typeof v === 'boolean' || typeof v === 'string')
      .map(([k, v]) => `${k.replace(/_/g, ' ')} ${typeof v === 'number' ? num(v) : v}`)
      .concat(Number.isFinite(seconds) ? [elapsedOfLimit(seconds, limitS)] : [])
      .join(' \u00b7 ');
}
