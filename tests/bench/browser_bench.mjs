// Browser benchmark of the playground (prints tables; never passes or fails
// on time). Headless Debian Chromium via playwright-core against
// python3 -m http.server on build/wasm/site; instances from ../shared.
//   node tests/bench/browser_bench.mjs [--seconds 60] [--workers 1] [--curves B,G,V]
// Needs the wasm build (site + parity_native) and the native CLI
// (build/native/shardlab, or --cli PATH) for the curve comparison.
import {execFileSync, spawn} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {parseArgs} from 'node:util';

import {launch, openPage, serveSite, SHARED, SOURCE, table, waitStatus} from '../browser/harness.mjs';

const {values: args} = parseArgs({
  options: {
    seconds: {type: 'string', default: '60'},
    workers: {type: 'string', default: '1'},
    curves: {type: 'string', default: 'B,G,V'},
    steps: {type: 'string', default: '30'},
    cli: {type: 'string', default: path.join(SOURCE, 'build/native/shardlab')},
  }
});
const SECONDS = Number(args.seconds);
const WORKERS = Number(args.workers);
const NATIVE = process.env.SHARDLAB_PARITY_NATIVE || path.join(SOURCE, 'build/wasm/parity_native');
const instance = (id) => path.join(SHARED, `benchmarks/asplos-2025-iopddl-${id}.json.gz`);
const FINAL = ['done', 'stopped', 'error'];

const mb = (bytes) => (bytes / 1e6).toFixed(1);

// 1. Choosing M.json.gz to the first feasible plan on screen, as a user would.
async function loadSpeed(browser, url) {
  const file = instance('M');
  const page =
      await openPage(browser, `${url}?time=${SECONDS}&workers=${WORKERS}#v=2&ex=example.json&t=1`);
  await waitStatus(page, FINAL);
  // Every cost shown for M, with the page's clock: the first is what the bar
  // measures; the first after it with an engine phase is the Engine's own.
  await page.evaluate(() => {
    const cost = document.querySelector('[data-testid=best-cost]');
    window.benchShown = [];
    new MutationObserver(() => {
      const {load, client} = window.shardlab;
      if (!/^[\d,]+$/.test(cost.textContent) || !load || !load.name.includes('-M')) return;
      const stats = client.stats.find(Boolean);
      window.benchShown.push([performance.now(), cost.textContent, stats ? stats.stats.phase : '']);
    }).observe(cost, {childList: true, characterData: true, subtree: true});
  });
  const started = await page.evaluate(() => performance.now());
  await page.setInputFiles('[data-testid=file-input]', file);
  await page.waitForFunction(
      () => window.benchShown.some(([, , phase]) => phase && phase !== 'presolve'), null,
      {polling: 10, timeout: 120000});
  const shown = (await page.evaluate(() => window.benchShown))
                    .map(([ms, cost, phase]) => [(ms - started) / 1000, cost, phase]);
  const engineFirst = shown.find(([, , phase]) => phase !== 'presolve');
  const load = await page.evaluate(() => {
    const {seconds, jsonBytes, fileBytes, heapPeakBytes, heapBytes, info} = window.shardlab.load;
    return {seconds, jsonBytes, fileBytes, heapPeakBytes, heapBytes, modelBytes: info.memoryBytes};
  });
  await page.$eval('[data-testid=stop]', (b) => b.click());
  await waitStatus(page, FINAL);
  await page.context().close();
  return {toPlan: shown[0][0], firstCost: shown[0][1], engineFirst, ...load};
}

// 2. Pure reading throughput in wasm (chunks already gunzipped in memory),
// on a fresh module, and its peak heap against the compact model.
async function readThroughput(browser, url, id) {
  const page = await openPage(browser, `${url}#v=2&ex=example.json&t=1`);
  await waitStatus(page, FINAL);
  await page.route('**/bench-instance.json.gz', (route) => route.fulfill({path: instance(id)}));
  const result = await page.evaluate(async () => {
    const M = await createShardLab();
    const body =
        (await fetch('bench-instance.json.gz')).body.pipeThrough(new DecompressionStream('gzip'));
    const chunks = [];
    for (const reader = body.getReader();;) {
      const {done, value} = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    const heapBefore = M.heapPeakBytes();
    const loader = new M.Loader('bench');
    const started = performance.now();
    let bytes = 0;
    for (const chunk of chunks) {
      for (let at = 0; at < chunk.length; at += 1 << 16) {  // as files.mjs feeds
        const piece = chunk.subarray(at, at + (1 << 16));
        loader.buffer(piece.length).set(piece);
        const error = loader.feed(piece.length);
        if (error) throw new Error(error);
        bytes += piece.length;
      }
    }
    const error = loader.finish();
    const seconds = (performance.now() - started) / 1000;
    if (error) throw new Error(error);
    const model = loader.model();
    return {
      bytes,
      seconds,
      heapPeak: M.heapPeakBytes() - heapBefore,
      modelBytes: model.memoryBytes(),
      chunk: chunks[0].length
    };
  });
  await page.context().close();
  return result;
}

// 3. The same seed and step count in Chromium (main thread) and natively.
async function engineRatio(browser, url, id, steps) {
  const page = await openPage(browser, `${url}#v=2&ex=example.json&t=1`);
  await waitStatus(page, FINAL);
  await page.route('**/bench-instance.json.gz', (route) => route.fulfill({path: instance(id)}));
  const wasm = await page.evaluate(async ({steps}) => {
    const M = await createShardLab();
    const files = await import('./files.mjs');
    const {model} = await files.loadInstance(M, (await fetch('bench-instance.json.gz')).body, 'x');
    const constructing = performance.now();
    const engine = new M.Engine(model, JSON.stringify({seed: 1}), 0);
    const started = performance.now();
    let done = 0;
    while (done < steps && !engine.finished()) {
      engine.step(20000);
      ++done;
    }
    return {
      constructSeconds: (started - constructing) / 1000,
      seconds: (performance.now() - started) / 1000,
      steps: done,
      cost: engine.bestCost()
    };
  }, {steps});
  await page.context().close();
  const native = JSON.parse(execFileSync(
      NATIVE, ['run', instance(id), '1', '0', String(steps), '20000'],
      {encoding: 'utf8', maxBuffer: 1 << 26}));
  return {wasm, native};
}

// 4. The anytime curve in the page vs the native CLI, same engines and time.
async function browserCurve(browser, url, id) {
  const page =
      await openPage(browser, `${url}?time=${SECONDS}&workers=${WORKERS}#v=2&ex=example.json&t=1`);
  await waitStatus(page, FINAL);
  const before = Number((await page.getAttribute('#lab-sharding', 'data-opened')) || 0);
  await page.setInputFiles('[data-testid=file-input]', instance(id));
  await page.waitForFunction(
      (n) => Number(document.getElementById('lab-sharding').dataset.opened) > n, before,
      {timeout: 120000});
  await waitStatus(page, FINAL, (SECONDS + 120) * 1000);
  const trace = await page.evaluate(() => window.shardlab.client.trace);
  await page.screenshot({path: `/tmp/shardlab-bench-${id}.png`, fullPage: true});
  await page.context().close();
  return trace.filter((r) => r[2]).map(([t, , , cost, bound]) => [t, Number(cost), Number(bound)]);
}

function nativeCurve(id) {
  return new Promise((resolve, reject) => {
    const child = spawn(
        args.cli,
        ['solve', instance(id), '--time-limit', String(SECONDS), '--workers', String(WORKERS)],
        {stdio: ['ignore', 'pipe', 'inherit']});
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('exit', () => {
      const points = [];
      for (const m of out.matchAll(/^#\s+([\d.]+)s\s+cost (\d+)\s+bound (\d+)/gm)) {
        points.push([Number(m[1]), Number(m[2]), Number(m[3])]);
      }
      resolve(points);
    });
  });
}

const at = (points, t) => {
  let last = null;
  for (const p of points)
    if (p[0] <= t) last = p;
  return last;
};

async function main() {
  const missing =
      ['M', ...args.curves.split(',').filter(Boolean)].filter((id) => !fs.existsSync(instance(id)));
  if (missing.length) {
    console.log(
        `Instances ${missing.join(', ')} are absent from ${SHARED}/benchmarks: ` +
        'those rows are left out.');
  }
  const server = await serveSite();
  const browser = await launch();
  try {
    console.log(
        `browser benchmark: Chromium ${browser.version()}, ${WORKERS} engine(s), ` +
        `curves at ${SECONDS} s`);
    if (fs.existsSync(instance('M'))) {
      const l = await loadSpeed(browser, server.url);
      const r = await readThroughput(browser, server.url, 'M');
      table('Load of M.json.gz (2.0 MB gzip, 70 MB JSON)', ['measure', 'value', 'bar'], [
        [
          'choose file -> first feasible plan on screen',
          `${l.toPlan.toFixed(2)} s (cost ${l.firstCost})`, '<= 2.5 s'
        ],
        [
          'choose file -> the Engine\'s first plan on screen',
          `${l.engineFirst[0].toFixed(2)} s (cost ${l.engineFirst[1]})`, ''
        ],
        [
          'worker read (stream + gunzip + hash + parse)',
          `${l.seconds.toFixed(3)} s, ` +
              `${(l.jsonBytes / 1e6 / l.seconds).toFixed(0)} MB/s of JSON`,
          ''
        ],
        [
          'pure parse in wasm (gunzipped chunks)',
          `${r.seconds.toFixed(3)} s, ` +
              `${(r.bytes / 1e6 / r.seconds).toFixed(0)} MB/s`,
          '>= 200 MB/s'
        ],
        [
          'peak wasm heap while parsing / compact model',
          `${mb(r.heapPeak)} MB / ` +
              `${mb(r.modelBytes)} MB = ${(r.heapPeak / r.modelBytes).toFixed(2)}x`,
          '<= 1.5x'
        ],
        [
          'worker heap after load (memory size, allocator peak)',
          `${mb(l.heapBytes)} MB, ${mb(l.heapPeakBytes)} MB`, ''
        ],
      ]);
    }
    const ratioRows = [];
    for (const [id, steps] of [['M', Number(args.steps)], ['V', Number(args.steps) * 4]]) {
      if (!fs.existsSync(instance(id))) continue;
      const {wasm, native} = await engineRatio(browser, server.url, id, steps);
      const wasmTotal = wasm.constructSeconds + wasm.seconds;
      ratioRows.push([
        id, `seed 1, ${wasm.steps} x 20000`, wasm.cost, native.cost,
        wasm.cost === native.cost ? 'same' : 'DIFFERENT',
        `${wasm.constructSeconds.toFixed(3)} / ${native.construct_seconds.toFixed(3)} = ` +
            (wasm.constructSeconds / native.construct_seconds).toFixed(2),
        `${wasm.seconds.toFixed(3)} / ${native.step_seconds.toFixed(3)} = ` +
            (wasm.seconds / native.step_seconds).toFixed(2),
        (wasmTotal / native.seconds).toFixed(2)
      ]);
    }
    table(
        'Engine: same seed and steps, Chromium main thread vs native, wasm s / native s ' +
            '(bar: ratio <= 1.5)',
        [
          'inst', 'run', 'wasm cost', 'native cost', 'cost', 'construct (presolve)', 'steps',
          'total ratio'
        ],
        ratioRows);
    const curveRows = [];
    for (const id of args.curves.split(',').filter(Boolean).filter(
             (i) => fs.existsSync(instance(i)))) {
      const web = await browserCurve(browser, server.url, id);
      const cli = fs.existsSync(args.cli) ? await nativeCurve(id) : [];
      for (const t of [SECONDS / 10, SECONDS / 2, SECONDS]) {
        const w = at(web, t);
        const n = at(cli, t);
        const diff = w && n ? `${((100 * (w[1] - n[1])) / n[1]).toFixed(3)}%` : 'n/a';
        curveRows.push(
            [id, `${t} s`, w ? w[1] : '-', w ? w[2] : '-', n ? n[1] : '-', n ? n[2] : '-', diff]);
      }
    }
    table(
        `Anytime curve, ${WORKERS} engine(s): page vs native CLI (bar: within 0.1%)`,
        ['inst', 'at', 'page cost', 'page bound', 'CLI cost', 'CLI bound', 'cost diff'], curveRows);
  } finally {
    await browser.close();
    server.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
