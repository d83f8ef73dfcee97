// What the plan tab's worker does between Start and a Stop, timed on the
// wasm module under node (prints tables; never passes or fails on time):
// the session's inputs, run() (the costs and PlanRun's construction), every
// step of the first seconds (its phase and the long parts it ran: block
// solves, orders, simulations), and the answer to a Stop at a few moments
// (progress, snapshot and finish(false), as web/plan/worker.js calls them).
// Each case runs in a fresh node process, so that the module's code is as
// cold as in a fresh page right after Start.
//   node tests/bench/plan_stop_bench.mjs [--steps 12]
// Needs build/wasm/site. Figures depend on the machine's load: say it when
// quoting. tests/bench/page_responsive_bench.mjs --only plan measures the
// same Stops in Chromium, click to status.
import {execFileSync} from 'node:child_process';
import os from 'node:os';
import {fileURLToPath} from 'node:url';
import {parseArgs} from 'node:util';

const {values: args} = parseArgs({
  options: {
    steps: {type: 'string', default: '12'},
    case: {type: 'string'},
    stop: {type: 'string'},
  }
});

const CASES = {
  'default (gpt-1.7b, 32 A100)': {model: 'gpt-1.7b', gpus: 32, batch: 512, stops: [100, 1000]},
  'GPT-3 175B, 64 A100': {model: 'gpt3-175b', gpus: 64, batch: 1536, stops: [100, 1000, 3000]},
};

const counter = (record, name) => (record.counters || {})[name];

// One case, one stop moment, in this process: prints one JSON line.
async function measure(name, stopMs) {
  const {createModule, unwrap} = await import('../wasm/module.mjs');
  const c = CASES[name];
  const t0 = performance.now();
  const M = await createModule();
  const tModule = performance.now();
  const s = new M.PlanSession();
  unwrap(s.setModelPreset(c.model));
  unwrap(s.setClusterPreset('dgx-a100-80gb'));
  unwrap(s.setTraining(JSON.stringify({gpus: c.gpus, global_batch: c.batch, seq: 2048, fix: ''})));
  const tInputs = performance.now();
  const run = unwrap(s.run(JSON.stringify({time_limit_s: 600})));
  const tRun = performance.now();
  const steps = [];
  let parts = counter(run.progress(0), 'long_parts');
  while (!run.finished() && performance.now() - tRun < stopMs) {
    const before = run.progress(0);
    const a = performance.now();
    run.step(0);
    const ms = performance.now() - a;
    const after = run.progress(0);
    const now = counter(after, 'long_parts');
    steps.push({
      at: a - tRun,
      ms,
      phase: counter(before, 'phase'),
      parts: now - parts,
      work: counter(after, 'work') - counter(before, 'work'),
    });
    parts = now;
  }
  const a = performance.now();
  const record = run.progress(1);
  const snapshot = unwrap(run.snapshot());
  const tSnapshot = performance.now();
  const done = unwrap(run.finish(false));
  const tFinish = performance.now();
  run.delete();
  s.delete();
  console.log(JSON.stringify({
    name,
    stopMs,
    moduleMs: tModule - t0,
    inputsMs: tInputs - tModule,
    runMs: tRun - tInputs,
    steps,
    stop: {
      progressSnapshotMs: tSnapshot - a,
      finishMs: tFinish - tSnapshot,
      found: record.found,
      evaluated: snapshot !== null,
      jsonBytes: done.json.length,
    },
  }));
}

const fmt = (ms) => ms.toFixed(1);

if (args.case) {
  await measure(args.case, Number(args.stop));
} else {
  const self = fileURLToPath(import.meta.url);
  const shown = Number(args.steps);
  const stopRows = [];
  for (const [name, c] of Object.entries(CASES)) {
    for (const stopMs of c.stops) {
      const out = execFileSync(
          process.execPath, [self, '--case', name, '--stop', String(stopMs)],
          {encoding: 'utf8', maxBuffer: 64 << 20});
      const r = JSON.parse(out.trim().split('\n').pop());
      const longest = r.steps.reduce((m, s) => (s.ms > m.ms ? s : m), {ms: 0});
      stopRows.push([
        `${name}, ${stopMs} ms in`, fmt(r.moduleMs), fmt(r.inputsMs), fmt(r.runMs),
        String(r.steps.length),
        `${fmt(longest.ms)} (${longest.phase}, ${longest.parts} parts, at ${fmt(longest.at || 0)})`,
        fmt(r.stop.progressSnapshotMs), fmt(r.stop.finishMs),
        `${r.stop.found ? 'found' : 'none'}${r.stop.evaluated ? ', evaluated' : ''}`
      ]);
      if (stopMs === c.stops[c.stops.length - 1]) {
        console.log(`\n${name}: the first ${shown} steps after run()`);
        console.log('| step | at ms | ms | phase | long parts | work |');
        console.log('|---|---|---|---|---|---|');
        r.steps.slice(0, shown).forEach(
            (s, i) => console.log(`| ${i + 1} | ${fmt(s.at)} | ${fmt(s.ms)} | ${s.phase} | ${
                s.parts} | ${s.work} |`));
      }
    }
  }
  console.log(`\nload average: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${
      os.cpus().length} cores`);
  console.log(
      '| case | module ms | inputs ms | run() ms | steps | longest step ms | ' +
      'progress+snapshot ms | finish(false) ms | at the stop |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const row of stopRows) console.log(`| ${row.join(' | ')} |`);
}
