// Browser benchmark of the page's responsiveness (issue 26's "no freezes";
// prints tables, never passes or fails on time): main-thread long tasks
// (PerformanceObserver 'longtask', over 50 ms as Chromium reports them; the
// bar counts those over 100 ms) while the pipeline tab opens p 64, m 512,
// while the mouse moves over its timeline and while its planner runs; and
// the latency of Stop on every tab (click to data-status stopped/done), once
// soon after the start and once in a running engine; and the teaching tab's
// long tasks on a 12-block model from Solve to its stopped plan explained.
//   node tests/bench/page_responsive_bench.mjs [--p 64] [--m 512] [--only
//   planner,mip,sharding,teach,plan,pipeline]
// (planner and mip: Stop on DualPipe's example; plan: the plan tab's default
// model and cluster, then GPT-3 175B on 64 A100, each stopped in a fresh
// page soon after Start and in its running search; pipeline: p by m's long
// tasks, hover and the planner's Stop there).
// Needs the wasm build (build/wasm/site; SHARDLAB_SITE=DIR serves another
// build's site, such as main's, to compare in the same minutes) and
// ../shared/benchmarks for the sharding tab. Figures depend on the machine's
// load: say it when quoting (the load average is printed at the end).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {parseArgs} from 'node:util';

import {deepTransformer, launch, serveSite, SHARED, table, waitStatus} from '../browser/harness.mjs';

const {values: args} = parseArgs({
  options: {
    p: {type: 'string', default: '64'},
    m: {type: 'string', default: '512'},
    only: {type: 'string', default: 'planner,mip,sharding,teach,plan,pipeline'},
  }
});
const ONLY = new Set(args.only.split(','));
const ENDED = ['stopped', 'done', 'error'];
// Rows are printed as they are measured too (a loaded machine may take long).
const rows = [];
const stops = [];
const push = (list, row) => {
  list.push(row);
  console.log(`# ${row.join(' | ')}`);
};

// Every page records its long tasks from its first moment.
async function openPage(browser, url) {
  const context = await browser.newContext({viewport: {width: 1360, height: 1000}});
  await context.addInitScript(() => {
    window.benchLongTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.benchLongTasks.push([e.startTime, e.duration]);
    }).observe({type: 'longtask', buffered: true});
  });
  const page = await context.newPage();
  page.on('pageerror', (error) => console.log(`page error: ${error}`));
  await page.goto(url);
  return page;
}

// Long tasks since `since` (page clock): [count over 100 ms, the longest, count over 50 ms].
async function longTasks(page, since = 0) {
  const list = await page.evaluate(
      (t) => window.benchLongTasks.filter(([start]) => start >= t).map(([, d]) => d), since);
  return [list.filter((d) => d > 100).length, Math.round(Math.max(0, ...list)), list.length];
}

const now = (page) => page.evaluate(() => performance.now());

// Clicks Stop in the page and resolves when the lab's status has ended: ms.
function stopLatency(page, lab, testid) {
  return page.evaluate(
      ({lab, testid, ended}) => new Promise((resolve) => {
        const section = document.getElementById(`lab-${lab}`);
        if (ended.includes(section.dataset.status)) {
          return resolve({ms: '-', status: `${section.dataset.status} before the click`});
        }
        const t0 = performance.now();
        const observer = new MutationObserver(() => {
          if (!ended.includes(section.dataset.status)) return;
          observer.disconnect();
          const said = section.querySelector('[data-testid$=status-text]');
          const status = section.dataset.status + (said ? ` (${said.textContent})` : '');
          resolve({ms: Math.round(performance.now() - t0), status});
        });
        observer.observe(section, {attributes: true, attributeFilter: ['data-status']});
        document.querySelector(`[data-testid=${testid}]`).click();
      }),
      {lab, testid, ended: ENDED});
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Mouse moves over the timeline: each from the event to the frame that drew it (ms).
async function hover(page, moves = 30) {
  return page.evaluate(async (moves) => {
    const canvas = document.querySelector('[data-testid=pl-timeline]');
    const box = canvas.getBoundingClientRect();
    const times = [];
    for (let i = 0; i < moves; ++i) {
      const t0 = performance.now();
      canvas.dispatchEvent(new MouseEvent('mousemove', {
        clientX: box.left + 70 + ((box.width - 90) * i) / moves,
        clientY: box.top + 30 + ((i * 37) % 200),
        bubbles: true,
      }));
      await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    return {median: Math.round(times[times.length >> 1]), max: Math.round(times[times.length - 1])};
  }, moves);
}

async function pipeline(browser, url) {
  const {p, m} = args;
  const page = await openPage(browser, `${url}#v=3&lab=pipeline&p=${p}&m=${m}&t=600`);
  const t0 = Date.now();
  await waitStatus(page, ['ready', 'error'], 1800000, 'pipeline');
  const openS = ((Date.now() - t0) / 1000).toFixed(1);
  const [over, longest, all] = await longTasks(page);
  push(rows, [`pipeline p ${p} m ${m}: open and simulate (${openS} s)`, over, longest, all]);
  const before = await now(page);
  const moved = await hover(page);
  push(rows, [
    `pipeline: 30 mouse moves (median ${moved.median} ms, max ${moved.max} ms)`,
    ...(await longTasks(page, before))
  ]);
  const planned = await now(page);
  await page.click('[data-testid=pl-start]');
  await waitStatus(page, 'planning', 60000, 'pipeline');
  await sleep(3000);
  const stop = await stopLatency(page, 'pipeline', 'pl-stop');
  push(stops, [`pipeline planner, p ${p} m ${m}, 3 s in`, stop.ms, stop.status]);
  push(rows, [`pipeline: planner 3 s and its stop`, ...(await longTasks(page, planned))]);
  await page.context().close();
}

async function pipelineSmall(browser, url, engine) {
  // DualPipe's example: the planner proves it in about 2 s, so stop soon.
  const page = await openPage(browser, `${url}#v=3&lab=pipeline&ex=dualpipe_example.json&t=600`);
  await waitStatus(page, ['ready', 'error'], 120000, 'pipeline');
  if (engine === 'mip') await page.selectOption('[data-testid=pl-engine]', 'mip');
  for (const delayMs of [300, 1500]) {
    await page.click('[data-testid=pl-start]');
    await waitStatus(page, engine === 'mip' ? 'solving' : 'planning', 60000, 'pipeline');
    await sleep(delayMs);
    const stop = await stopLatency(page, 'pipeline', 'pl-stop');
    push(stops, [`pipeline ${engine}, DualPipe's example, ${delayMs} ms in`, stop.ms, stop.status]);
  }
  await page.context().close();
}

async function sharding(browser, url) {
  const file = path.join(SHARED, 'benchmarks/asplos-2025-iopddl-M.json.gz');
  if (!fs.existsSync(file)) return push(stops, ['sharding (M absent)', '', '']);
  const page = await openPage(browser, `${url}?time=600&workers=1#v=2&ex=example.json`);
  await waitStatus(page, ENDED);
  await page.setInputFiles('[data-testid=file-input]', file);
  await waitStatus(page, 'solving', 120000);
  await sleep(100);
  let stop = await stopLatency(page, 'sharding', 'stop');
  push(stops, ['sharding M, 100 ms after solving shows', stop.ms, stop.status]);
  await page.click('[data-testid=start]');
  await waitStatus(page, 'solving', 60000);
  await sleep(3000);
  stop = await stopLatency(page, 'sharding', 'stop');
  push(stops, ['sharding M, resumed, 3 s in', stop.ms, stop.status]);
  await page.context().close();
}

// The transformer example (solved in about a second), then twelve of its
// blocks (tests/browser/harness.mjs deepTransformer: still running after
// 15 s), each stopped early and once its engine has its own plan.
async function teach(browser, url) {
  const page = await openPage(browser, `${url}#v=3&lab=teach&ex=transformer.json&t=600`);
  await waitStatus(page, 'solving', 120000, 'teach');
  await sleep(100);
  let stop = await stopLatency(page, 'teach', 'teach-stop');
  push(stops, ['teach transformer, 100 ms after solving shows', stop.ms, stop.status]);
  await waitStatus(page, ENDED, 120000, 'teach');
  await page.$eval('[data-testid=teach-text]', (area, text) => {
    area.value = text;
    area.dispatchEvent(new Event('input', {bubbles: true}));
  }, deepTransformer());
  for (const delayMs of [100, 3000]) {
    await waitStatus(page, ENDED, 120000, 'teach');
    const solves = await page.getAttribute('#lab-teach', 'data-solves');
    const pressed = await now(page);
    await page.click('[data-testid=teach-solve]');
    await waitStatus(page, 'solving', 60000, 'teach');
    await sleep(delayMs);
    stop = await stopLatency(page, 'teach', 'teach-stop');
    push(stops, [`teach 12 transformer blocks, ${delayMs} ms in`, stop.ms, stop.status]);
    // Generating, solving, the stop and the explanation shown.
    await page.waitForFunction(
        (n) => document.getElementById('lab-teach').dataset.solves !== n, solves,
        {polling: 50, timeout: 120000});
    push(rows, [
      `teach 12 blocks: Solve, Stop ${delayMs} ms in, explained`,
      ...(await longTasks(page, pressed))
    ]);
  }
  await page.context().close();
}

// The plan tab plans on opening. Each Stop is measured in a fresh page, so
// that the block solves of its first steps (memoised in the worker's
// session) are still to do when the click comes soon after Start. The
// default model and cluster (gpt-1.7b on 32 A100: planned in about 2 s),
// then Table 1's long case (GPT-3 175B on 64 A100, batch 1536), whose search
// runs about 5 s. `after` counts from the moment the tab says "planning".
async function planTab(browser, url) {
  const cases = [
    ['default (gpt-1.7b, 32 A100)', '', [100, 1000]],
    ['GPT-3 175B, 64 A100', '&m=gpt3-175b&g=64&b=1536', [100, 1000, 3000]],
  ];
  for (const [name, keys, afters] of cases) {
    for (const afterMs of afters) {
      const page = await openPage(browser, `${url}#v=3&lab=plan&t=600${keys}`);
      await page.waitForFunction(
          () => document.getElementById('lab-plan')?.dataset.status === 'planning', null,
          {timeout: 120000, polling: 10});
      await sleep(afterMs);
      const stop = await stopLatency(page, 'plan', 'plan-stop');
      push(stops, [`plan ${name}, ${afterMs} ms in`, stop.ms, stop.status]);
      await page.context().close();
    }
  }
}

const server = await serveSite();
const browser = await launch();
try {
  if (ONLY.has('planner')) await pipelineSmall(browser, server.url, 'planner');
  if (ONLY.has('mip')) await pipelineSmall(browser, server.url, 'mip');
  if (ONLY.has('sharding')) await sharding(browser, server.url);
  if (ONLY.has('teach')) await teach(browser, server.url);
  if (ONLY.has('plan')) await planTab(browser, server.url);
  if (ONLY.has('pipeline')) await pipeline(browser, server.url);
} finally {
  await browser.close();
  server.close();
}
console.log(`load average at the end: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${
    os.cpus().length} cores`);
table('Main-thread long tasks', ['phase', 'over 100 ms', 'longest ms', 'over 50 ms'], rows);
table('Stop: click to the status', ['tab and moment', 'ms', 'status'], stops);
