// The plan lab in the page against issue 23's "≤ 30 s in the page" and issue
// 26's "Stop within 200 ms" (prints tables; never passes or fails on time).
// Headless Debian Chromium via tests/browser/harness.mjs on build/wasm/site;
// the rows of Narayanan et al.'s Table 1 from ../shared/reference; the page's
// plan compared with `shardlab plan --json` (build/native/shardlab). Wall
// seconds on the page's clock, and the CPU seconds Chromium's processes
// spent on the row (boot, planning and drawing), which a loaded machine
// does not inflate.
//   node tests/bench/plan_page_bench.mjs [--rows 1,5,10] [--time-limit 30] [--no-stop]
//                                        [--stop-after 1,3,6] [--cli PATH]
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {parseArgs} from 'node:util';

import {launch, openPage, serveSite, SHARED, SOURCE, table} from '../browser/harness.mjs';

const {values: args} = parseArgs({
  options: {
    'rows': {type: 'string', default: ''},
    'time-limit': {type: 'string', default: '30'},
    'stop-after': {type: 'string', default: '1,3,6,12'},
    'no-stop': {type: 'boolean', default: false},
    'no-table': {type: 'boolean', default: false},
    'cli': {type: 'string', default: path.join(SOURCE, 'build/native/shardlab')},
  }
});
const TIME_LIMIT_S = Number(args['time-limit']);

// The presets of Table 1's rows (as tests/bench/plan_bench.py names them).
const PRESETS = {
  '1.7': 'gpt-1.7b',
  '3.6': 'gpt-3.6b',
  '7.5': 'gpt-7.5b',
  '18.4': 'gpt-18.4b',
  '39.1': 'gpt-39.1b',
  '76.1': 'gpt-76.1b',
  '145.6': 'gpt-145.6b',
  '310.1': 'gpt-310.1b',
  '529.6': 'gpt-529.6b',
  '1008.0': 'gpt-1t',
};

function readRows() {
  const file = path.join(SHARED, 'reference/megatron_weak_scaling.csv');
  const [header, ...lines] = fs.readFileSync(file, 'utf8').trim().split('\n');
  const keys = header.split(',');
  return lines.map((line) => Object.fromEntries(line.split(',').map((v, i) => [keys[i], v])));
}

function cli(model, gpus, batch) {
  const out = execFileSync(
      args.cli,
      [
        'plan', model, '--cluster', 'dgx-a100-80gb', '--gpus', String(gpus), '--global-batch',
        String(batch), '--seq', '2048', '--time-limit', String(TIME_LIMIT_S), '--json'
      ],
      {encoding: 'utf8', maxBuffer: 1 << 28});
  return JSON.parse(out);
}

// The first path where two JSON values differ, or '' when they are equal.
function firstDifference(a, b, where = '$') {
  if (typeof a !== typeof b || Array.isArray(a) !== Array.isArray(b) ||
      (a === null) !== (b === null)) {
    return where;
  }
  if (a === null || typeof a !== 'object') return a === b ? '' : where;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    const d =
        firstDifference(a[key], b[key], Array.isArray(a) ? `${where}[${key}]` : `${where}.${key}`);
    if (d) return d;
  }
  return '';
}

// Before the page's scripts run: every data-status of #lab-plan and the
// moments the plan card gets rows, on the page's clock (no polling).
function recordMoments() {
  window.planMoments = {status: [], card: []};
  const seen = new WeakSet();
  const watch = () => {
    const lab = document.getElementById('lab-plan');
    const card = lab && lab.querySelector('[data-testid=plan-card]');
    if (!lab || !card || seen.has(lab)) return false;
    seen.add(lab);
    const note = () => window.planMoments.status.push([performance.now(), lab.dataset.status]);
    new MutationObserver(note).observe(lab, {attributes: true, attributeFilter: ['data-status']});
    new MutationObserver(() => {
      if (card.childElementCount)
        window.planMoments.card.push([performance.now(), lab.dataset.status]);
    }).observe(card, {childList: true});
    if (lab.dataset.status) note();
    return true;
  };
  new MutationObserver((_, observer) => watch() && observer.disconnect())
      .observe(document, {childList: true, subtree: true});
}

// CPU ticks (user + system) of every process under `root` (Chromium's
// processes: its renderers run the page and its worker), by pid, from
// /proc; a busy machine stretches wall time, not these.
function cpuTree(root) {
  const ticks = new Map();
  const parent = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(name), Number(fields[1]));
      ticks.set(Number(name), Number(fields[11]) + Number(fields[12]));
    } catch (error) {
      // the process ended meanwhile
    }
  }
  const under = (pid) => {
    for (let p = pid; p > 1; p = parent.get(p) || 0) {
      if (p === root) return true;
    }
    return false;
  };
  return new Map([...ticks].filter(([pid]) => under(pid)));
}

const cpuSince = (root, before) => {
  let total = 0;
  for (const [pid, t] of cpuTree(root)) total += t - (before.get(pid) || 0);
  return total / 100;  // USER_HZ
};

async function openRow(browser, url, model, gpus, batch) {
  return openPage(
      browser,
      `${url}#v=3&lab=plan&m=${model}&c=dgx-a100-80gb&g=${gpus}&b=${batch}&t=${TIME_LIMIT_S}`,
      {prepare: (context) => context.addInitScript(recordMoments)});
}

const settled = (page) => page.waitForFunction(() => {
  const s = document.getElementById('lab-plan')?.dataset.status;
  return s === 'done' || s === 'stopped' || s === 'error';
}, null, {timeout: 600000, polling: 100});

// 1. Each row planned in the page: start (status "planning"), first plan on
// the card, final plan (status "done"), and the page's JSON against the CLI's.
async function rows(browser, url, wanted) {
  const out = [];
  for (const row of wanted) {
    const model = PRESETS[row.params_B];
    const root = process.pid;  // Chromium (and http.server) run under this node process
    const before = cpuTree(root);
    const page = await openRow(browser, url, model, row.gpus, row.global_batch);
    await settled(page);
    const cpuS = root ? cpuSince(root, before).toFixed(2) : '-';
    const got = await page.evaluate(
        () => ({
          moments: window.planMoments,
          status: document.getElementById('lab-plan').dataset.status,
          result: globalThis.shardlabPlan.done && globalThis.shardlabPlan.done.result,
        }));
    await page.context().close();
    const start = got.moments.status.find(([, s]) => s === 'planning');
    const end = got.moments.status.findLast(([, s]) => s === 'done');
    const first = got.moments.card[0];
    const s = (m) => (m && start ? ((m[0] - start[0]) / 1000).toFixed(2) : '-');
    const want = cli(model, row.gpus, row.global_batch);
    const diff = got.result ? firstDifference(got.result, want) : '$';
    const r = got.result || {};
    out.push([
      `${row.params_B}B`, row.gpus, row.global_batch, got.status, s(end), s(first), cpuS,
      r.found ? (r.proven ? '0 (proven)' : `${(100 * r.gap).toFixed(2)}%`) : '-',
      diff ? `no (${diff})` : 'yes'
    ]);
    console.error(`row ${row.params_B}B: ${out.at(-1).join(' ')}`);
  }
  table(
      `Table 1 in the page (time limit ${
          TIME_LIMIT_S} s; seconds from "planning" on the page's clock)`,
      [
        'params', 'GPUs', 'batch', 'status', 'final plan s', 'first plan s', 'page CPU s', 'gap',
        '= CLI JSON'
      ],
      out);
}

// 2. Stop during a long planning (GPT-3 175B on 64 A100): the click after
// `after` seconds of planning, the milliseconds until data-status says
// stopped, and whether the card still shows a plan (the best so far).
async function stops(browser, url, afters) {
  const out = [];
  for (const after of afters) {
    const page = await openRow(browser, url, 'gpt3-175b', 64, 1536);
    await page.waitForFunction(
        () => document.getElementById('lab-plan')?.dataset.status === 'planning', null,
        {timeout: 120000, polling: 20});
    await page.waitForTimeout(after * 1000);
    const before = await page.evaluate(
        () => ({
          status: document.getElementById('lab-plan').dataset.status,
          progress: document.querySelector('[data-testid=plan-progress]').textContent,
        }));
    if (before.status !== 'planning') {
      out.push([after, '-', `already ${before.status}`, '-', '-']);
      await page.context().close();
      continue;
    }
    const clicked = await page.evaluate(() => {
      const t = performance.now();
      document.getElementById('plan-stop').click();
      return t;
    });
    await settled(page);
    const got = await page.evaluate(
        () => ({
          moments: window.planMoments,
          card: document.querySelector('[data-testid=plan-card]').childElementCount,
          result: globalThis.shardlabPlan.done && globalThis.shardlabPlan.done.result,
          phase: document.querySelector('[data-testid=plan-progress]').textContent,
        }));
    await page.context().close();
    const stopped = got.moments.status.find(([t, s]) => t >= clicked && s === 'stopped');
    const r = got.result || {};
    out.push([
      after, before.progress.replace(/\s+/g, ' ').slice(0, 60),
      stopped ? (stopped[0] - clicked).toFixed(0) : 'not stopped',
      r.found ? `${r.step_time_s.toFixed(2)} s` : 'none', got.card > 0 ? 'yes' : 'no'
    ]);
    console.error(`stop after ${after} s: ${out.at(-1).join(' ')}`);
  }
  table(
      'Stop on the plan tab (GPT-3 175B, 64 A100, batch 1536): ms from the click to "stopped"',
      ['after s', 'progress when clicked', 'stop ms', 'best plan kept', 'card shows it'], out);
}

const all = readRows();
const pick = args.rows ? args.rows.split(',').map((n) => all[Number(n) - 1]) : all;
const server = await serveSite();
const browser = await launch();
try {
  console.log(`${os.cpus().length} cores, load average ${
      os.loadavg().map((l) => l.toFixed(1)).join(' ')} at start`);
  if (!args['no-table']) await rows(browser, server.url, pick);
  if (!args['no-stop']) {
    await stops(browser, server.url, args['stop-after'].split(',').map(Number));
  }
  console.log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} at the end`);
} finally {
  await browser.close();
  server.close();
}
