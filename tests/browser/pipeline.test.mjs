// Browser tests of the pipeline lab (web/pipeline/) in headless Debian
// Chromium: schedules drawn with the native CLI's numbers, parameters that
// change them, two schedules compared, the planner's bound and gap, a
// permalink that restores the view in a fresh page, the exact error of a bad
// problem file and of a bad CSV, downloads, and the MIP mode. They wait on
// #lab-pipeline[data-status] and its data-computed counter, never sleep, and
// compare with `parity_native cli pipeline ...` (the native CLI).
import assert from 'node:assert/strict';
import {execFileSync, spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {test} from 'node:test';
import {pathToFileURL} from 'node:url';

import {drawn, openPage, scratchDir, SOURCE, text, useSite, waitStatus} from './harness.mjs';

const NATIVE = process.env.SHARDLAB_PARITY_NATIVE || path.join(SOURCE, 'build/wasm/parity_native');
const {num, percent} =
    await import(pathToFileURL(path.join(SOURCE, 'web/pipeline/readouts.mjs')).href);
const LAB = 'pipeline';
const SETTLED = ['ready', 'error'];
const RUN_ENDED = ['done', 'stopped', 'error'];
const TMP = scratchDir('shardlab-pipeline-');

const site = useSite();

// The native CLI: `shardlab pipeline ARGS` (JSON output parsed with --json).
function cli(args, cwd = TMP) {
  return execFileSync(NATIVE, ['cli', 'pipeline', ...args], {encoding: 'utf8', cwd});
}
const cliJson = (args) => JSON.parse(cli([...args, '--json']));
// The core's message of a failing command (without the CLI's "shardlab: ").
function cliFailure(args, cwd = TMP) {
  const run = spawnSync(NATIVE, ['cli', 'pipeline', ...args], {encoding: 'utf8', cwd});
  assert.notEqual(run.status, 0, `the CLI accepted ${args.join(' ')}`);
  return run.stderr.trim().replace(/^shardlab: /, '');
}

// The smallest makespan of the published schedules that apply and pass the check.
function bestPublished(args) {
  const names = [
    'GPipe', '1F1B', 'Interleaved1F1B', 'ZB-H1', 'ZB-H2', 'ZBV', 'DualPipe', 'DualPipeV', 'Chimera'
  ];
  const makespans = names
                        .map(
                            (name) => spawnSync(
                                NATIVE, ['cli', 'pipeline', ...args, '--schedule', name, '--json'],
                                {encoding: 'utf8', cwd: TMP}))
                        .filter((run) => run.status === 0)
                        .map((run) => JSON.parse(run.stdout).makespan);
  assert.ok(makespans.length > 0);
  return Math.min(...makespans);
}

function flags({p, m, F = 1, B = 1, W = 1, FB = null, comm = 0, cap = null}) {
  const out = ['--stages', p, '--microbatches', m, '--F', F, '--B', B, '--W', W, '--comm', comm];
  if (FB !== null) out.push('--FB', FB);
  if (cap !== null) out.push('--mem-cap', cap);
  return out.map(String);
}

const open = (hash) => openPage(site.browser, `${site.url}#v=3&lab=pipeline${hash}`);
const computed = (page) =>
    page.getAttribute('#lab-pipeline', 'data-computed').then((v) => Number(v || 0));

// Runs action (which changes the problem) and waits until that computation ended.
async function recompute(page, action, timeout = 60000) {
  const before = await computed(page);
  await action();
  await page.waitForFunction(
      (n) => Number(document.getElementById('lab-pipeline').dataset.computed || 0) > n, before,
      {timeout, polling: 50});
  await waitStatus(page, SETTLED, timeout, LAB);
}

async function settled(page) {
  await waitStatus(page, SETTLED, 60000, LAB);
  await page.waitForFunction(
      () => Number(document.getElementById('lab-pipeline').dataset.computed || 0) > 0, null,
      {timeout: 60000, polling: 50});
}

// The headline numbers as the page must print them for a schedule JSON.
async function assertHeadline(page, schedule) {
  assert.equal(await text(page, 'pl-schedule-name'), schedule.name);
  assert.equal(await text(page, 'pl-makespan'), num(schedule.makespan));
  const b = schedule.bubble;
  assert.equal(
      await text(page, 'pl-bubble-global'), `${num(b.global_total)} (${percent(b.global_rate)})`);
  assert.equal(
      await text(page, 'pl-bubble-span'), `${num(b.span_total)} (${percent(b.span_rate)})`);
  assert.equal(await text(page, 'pl-peak-act'), num(Math.max(...schedule.peak_activation)));
}

// The timeline's layer is drawn in later tasks than the view's change: its
// cells are there once data-cells is set again.
async function timelineDrawn(page) {
  await page.waitForFunction(
      () => document.querySelector('[data-testid=pl-timeline]').dataset.cells !== undefined, null,
      {timeout: 60000, polling: 50});
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve())));
  return drawn(page, 'pl-timeline');
}

const rowMakespan = (page, name) => page.$eval(
    `[data-testid=pl-compare] tr[data-schedule="${name}"] td:nth-child(4)`, (td) => td.textContent);

test('an example is drawn with the native CLI\'s numbers, for every schedule', async () => {
  const page = await open('');
  await settled(page);
  assert.equal(await page.getAttribute('#lab-pipeline', 'data-status'), 'ready');
  const params = {p: 4, m: 8};
  await assertHeadline(page, cliJson([...flags(params), '--schedule', '1F1B']));
  assert.equal(await timelineDrawn(page), true);
  assert.equal(
      await page.getAttribute('[data-testid=pl-timeline]', 'data-schedules'), '1F1B,ZB-H1');
  for (const name of ['GPipe', 'ZB-H1', 'ZB-H2', 'ZBV', 'DualPipe']) {
    assert.equal(
        await rowMakespan(page, name),
        num(cliJson([...flags(params), '--schedule', name]).makespan), name);
  }
  assert.match(await text(page, 'pl-closed-form'), /^\(p-1\)\(F\+B\+W\) = 9$/);

  await recompute(page, () => page.selectOption('[data-testid=pl-example]', 'dualpipe'));
  await assertHeadline(
      page, cliJson([...flags({p: 8, m: 20, FB: 3, cap: 9}), '--schedule', 'DualPipe']));

  // A bundled problem file, by the example list and then by its permalink.
  const file = path.join(SOURCE, 'examples/pipeline/uneven_stages.json');
  await recompute(page, () => page.selectOption('[data-testid=pl-example]', 'uneven_stages.json'));
  await page.selectOption('[data-testid=pl-schedule]', 'ZB-H1');
  await assertHeadline(page, cliJson([file, '--schedule', 'ZB-H1']));
  await page.waitForFunction(() => /&ex=uneven_stages.json&.*s=ZB-H1/.test(location.hash));
  assert.equal(
      await page.getAttribute('[data-testid=pl-p]', 'disabled'), '',
      'the form cannot say this problem');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a problem file opens on its first valid schedule', async () => {
  // DualPipe's example caps memory at 9 activations: GPipe (20) is listed
  // first but breaks the cap, so the view opens on 1F1B.
  const page = await open('&ex=dualpipe_example.json');
  await settled(page);
  assert.equal(await page.getAttribute('[data-testid=pl-timeline]', 'data-schedules'), '1F1B');
  const file = path.join(SOURCE, 'examples/pipeline/dualpipe_example.json');
  await assertHeadline(page, cliJson([file, '--schedule', '1F1B']));
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('changing p and m changes the schedules and their numbers', async () => {
  const page = await open('&p=4&m=8&s=1F1B');
  await settled(page);
  const before = await text(page, 'pl-makespan');
  await recompute(
      page,
      () =>
          page.fill('[data-testid=pl-p]', '6').then(() => page.press('[data-testid=pl-p]', 'Tab')));
  const six = cliJson([...flags({p: 6, m: 8}), '--schedule', '1F1B']);
  await assertHeadline(page, six);
  assert.notEqual(await text(page, 'pl-makespan'), before);
  await recompute(
      page,
      () => page.fill('[data-testid=pl-m]', '12')
                .then(() => page.press('[data-testid=pl-m]', 'Tab')));
  await assertHeadline(page, cliJson([...flags({p: 6, m: 12}), '--schedule', '1F1B']));
  await page.waitForFunction(() => /p=6&m=12/.test(location.hash));
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('serial links slow DualPipe as the CLI says, and travel in the link', async () => {
  const problem = {p: 4, m: 8, FB: 2.5, comm: 0.5, cap: 5};
  const page = await open('&p=4&m=8&FB=2.5&comm=0.5&cap=5&s=DualPipe');
  await settled(page);
  await assertHeadline(page, cliJson([...flags(problem), '--schedule', 'DualPipe']));
  await recompute(page, () => page.selectOption('[data-testid=pl-links]', '1'));
  const serial = cliJson([...flags(problem), '--links', 'serial', '--schedule', 'DualPipe']);
  assert.equal(serial.problem.links, 'serial');
  await assertHeadline(page, serial);
  await page.waitForFunction(() => /&ln=1&/.test(location.hash));
  const link = await page.evaluate(() => location.hash);
  assert.deepEqual(page.errors, []);
  await page.context().close();
  const again = await openPage(site.browser, `${site.url}${link}`);
  await settled(again);
  assert.equal(await again.$eval('[data-testid=pl-links]', (s) => s.value), '1');
  await assertHeadline(again, serial);
  assert.deepEqual(again.errors, []);
  await again.context().close();
});

test('two schedules compared: one shown, another stacked on the same time scale', async () => {
  const page = await open('&p=4&m=8&s=1F1B');
  await settled(page);
  await page.selectOption('[data-testid=pl-compare-select]', 'ZBV');
  await page.waitForFunction(
      () => document.querySelector('[data-testid=pl-timeline]').dataset.schedules === '1F1B,ZBV');
  await page.check('[data-testid=pl-compare] tr[data-schedule="ZB-H2"] input[type=radio]');
  await page.waitForFunction(
      () => document.querySelector('[data-testid=pl-timeline]').dataset.schedules === 'ZB-H2,ZBV');
  await assertHeadline(page, cliJson([...flags({p: 4, m: 8}), '--schedule', 'ZB-H2']));
  await page.waitForFunction(() => /&s=ZB-H2&vs=ZBV/.test(location.hash));
  assert.equal(await timelineDrawn(page), true);
  await page.context().close();
});

test(
    'the planner: bound <= makespan, the gap shown, and a permalink restores the view',
    async () => {
      const page = await open('&p=4&m=6&F=1&B=2&W=1&s=1F1B&t=3');
      await settled(page);
      // The planner starts from the best published schedule (on its placement).
      const best = bestPublished(flags({p: 4, m: 6, B: 2}));
      await page.click('[data-testid=pl-start]');
      await waitStatus(page, ['planning', ...RUN_ENDED], 30000, LAB);
      await waitStatus(page, RUN_ENDED, 60000, LAB);
      assert.notEqual(
          await page.getAttribute('#lab-pipeline', 'data-status'), 'error',
          await text(page, 'pl-error'));
      const incumbent = Number(await page.getAttribute('[data-testid=pl-incumbent]', 'data-value'));
      const bound = Number(await page.getAttribute('[data-testid=pl-bound]', 'data-value'));
      assert.ok(incumbent <= best, `planned ${incumbent} vs best generated ${best}`);
      assert.ok(bound <= incumbent, `bound ${bound} <= ${incumbent}`);
      assert.match(await text(page, 'pl-gap'), /^(0 \(proven optimal\)|[\d.]+ \([\d.]+%\))$/);
      assert.equal(await text(page, 'pl-schedule-name'), 'planned');
      assert.equal(await rowMakespan(page, 'planned'), num(incumbent));
      assert.match(await text(page, 'pl-valid'), /^valid$/);
      await page.waitForFunction(() => /&plan=/.test(location.hash));
      const link = await page.getAttribute('[data-testid=pl-permalink]', 'href');
      const stored = await page.evaluate(
          () => new Promise((resolve, reject) => {
            const req = indexedDB.open('shardlab');
            req.onerror = () => reject(req.error);
            req.onsuccess = () => {
              const all = req.result.transaction('pipeline').objectStore('pipeline').getAll();
              all.onsuccess = () => resolve(all.result.map((r) => r.makespan));
            };
          }));
      assert.deepEqual(stored, [incumbent], 'IndexedDB keeps the best planned schedule');
      // The same browser, a link without the plan: it comes back from IndexedDB.
      await page.goto('about:blank');
      await page.goto(link.replace(/&plan=[^&]*/, ''));
      await settled(page);
      assert.equal(await rowMakespan(page, 'planned'), num(incumbent));
      assert.match(
          await text(page, 'pl-note'),
          /^The best planned schedule kept in this browser \(makespan /);
      await page.context().close();

      const fresh =
          await openPage(site.browser, link);  // a new context: no IndexedDB, only the link
      await settled(fresh);
      assert.equal(await text(fresh, 'pl-schedule-name'), 'planned');
      assert.equal(await text(fresh, 'pl-makespan'), num(incumbent));
      assert.equal(await fresh.inputValue('[data-testid=pl-p]'), '4');
      assert.equal(await fresh.inputValue('[data-testid=pl-time]'), '3');
      assert.equal(
          await fresh.getAttribute('[data-testid=pl-timeline]', 'data-schedules'), 'planned,1F1B');
      assert.equal(
          await text(fresh, 'pl-incumbent'), num(incumbent),
          'the planner starts from the linked schedule');
      assert.deepEqual(fresh.errors, []);
      await fresh.context().close();
    });

test(
    'changing the problem during a run stops it, and nothing of the old problem leaks',
    async () => {
      // A problem the planner does not close in a minute (1.6% open after 10 s natively).
      const page = await open('&p=8&m=24&F=1&B=2&W=1.5&comm=0.3&cap=10&s=1F1B&t=60');
      await settled(page);
      await page.click('[data-testid=pl-start]');
      await waitStatus(page, 'planning', 30000, LAB);
      await page.waitForFunction(
          () => document.querySelector('[data-testid=pl-compare] tr[data-schedule="planned"]'));
      await recompute(
          page,
          () => page.fill('[data-testid=pl-p]', '7')
                    .then(() => page.press('[data-testid=pl-p]', 'Tab')));
      assert.equal(await page.getAttribute('#lab-pipeline', 'data-status'), 'ready');
      assert.equal(await page.$('[data-testid=pl-compare] tr[data-schedule="planned"]'), null);
      assert.equal(await text(page, 'pl-incumbent'), '');
      assert.doesNotMatch(
          await page.getAttribute('[data-testid=pl-timeline]', 'data-schedules'), /planned/);
      const devices = await page.evaluate(
          () => new Promise((resolve, reject) => {
            const req = indexedDB.open('shardlab');
            req.onerror = () => reject(req.error);
            req.onsuccess = () => {
              const all = req.result.transaction('pipeline').objectStore('pipeline').getAll();
              all.onsuccess = () => resolve(all.result.map(
                  (r) => JSON.parse(new TextDecoder().decode(r.schedule)).problem.devices));
            };
          }));
      assert.ok(
          devices.length > 0 && devices.every((d) => d === 8),
          `stored schedules belong to the p = 8 problem: ${devices}`);
      await page.context().close();
    });

test('a bad problem file shows the core\'s exact error, and the view stays', async () => {
  const bad = path.join(TMP, 'bad_problem.json');
  fs.writeFileSync(bad, '{\n  "devices": 4,\n  "microbatches": 0\n}\n');
  const want = cliFailure(['bad_problem.json']);
  const page = await open('');
  await settled(page);
  const before = await text(page, 'pl-makespan');
  await recompute(page, () => page.setInputFiles('[data-testid=pl-problem-file]', bad));
  assert.equal(await page.getAttribute('#lab-pipeline', 'data-status'), 'error');
  assert.equal(await text(page, 'pl-error'), want);
  assert.equal(await text(page, 'pl-makespan'), before, 'the previous schedule stays on screen');
  await page.context().close();
});

test(
    'downloads carry the core\'s content; a CSV imports, and a bad one shows the row', async () => {
      const page = await open('&p=4&m=8&s=ZB-H1');
      await settled(page);
      const args = [...flags({p: 4, m: 8}), '--schedule', 'ZB-H1'];
      const download = async (testid) => {
        const [file] = await Promise.all(
            [page.waitForEvent('download'), page.click(`[data-testid=${testid}]`)]);
        return {name: file.suggestedFilename(), bytes: fs.readFileSync(await file.path())};
      };
      const json = await download('pl-download-json');
      assert.equal(json.name, 'p4-m8-ZB-H1.schedule.json');
      assert.deepEqual(JSON.parse(json.bytes), cliJson(args));
      cli([...args, '--trace', 'zbh1.trace.json', '--csv', 'zbh1.csv']);
      const trace = await download('pl-download-trace');
      assert.equal(
          trace.bytes.toString(), fs.readFileSync(path.join(TMP, 'zbh1.trace.json'), 'utf8'));
      assert.ok(Array.isArray(JSON.parse(trace.bytes).traceEvents));
      const csv = await download('pl-download-csv');
      assert.equal(csv.bytes.toString(), fs.readFileSync(path.join(TMP, 'zbh1.csv'), 'utf8'));
      const png = await download('pl-download-png');
      assert.deepEqual([...png.bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);

      await page.setInputFiles('[data-testid=pl-import]', path.join(TMP, 'zbh1.csv'));
      await page.waitForFunction(
          () => document.querySelector('[data-testid=pl-compare] tr[data-schedule="imported"]'));
      assert.equal(await text(page, 'pl-schedule-name'), 'imported');
      assert.equal(await text(page, 'pl-makespan'), num(cliJson(args).makespan));

      const lines = fs.readFileSync(path.join(TMP, 'zbh1.csv'), 'utf8').split('\n');
      lines[2] = lines[2].replace(/F/, 'X');
      fs.writeFileSync(path.join(TMP, 'bad.csv'), lines.join('\n'));
      const want = cliFailure([...flags({p: 4, m: 8}), '--import-csv', 'bad.csv']);
      // The refusal shows beside the import control, not at the top of the
      // tab; the lab stays usable.
      await page.setInputFiles('[data-testid=pl-import]', path.join(TMP, 'bad.csv'));
      await page.waitForFunction(
          () => document.querySelector('[data-testid=pl-import-feedback]').textContent !== '' &&
              !document.querySelector('[data-testid=pl-import-feedback]')
                   .textContent.startsWith('Imported'),
          null, {timeout: 30000, polling: 50});
      assert.equal(await text(page, 'pl-import-feedback'), want);
      assert.equal(await page.getAttribute('[data-testid=pl-import]', 'aria-invalid'), 'true');
      assert.equal(await page.isHidden('[data-testid=pl-error]'), true);
      assert.equal(await page.getAttribute('#lab-pipeline', 'data-status'), 'ready');
      await page.context().close();
    });

test('MIP mode: HiGHS in its worker, warm-started, reaches the planner\'s optimum', async () => {
  // On the linear placement: 18 ops, which HiGHS proves in seconds (the
  // planner's own choice here, V-shape, gives 36 ops that it does not close in 60 s).
  const params = {p: 2, m: 3};
  const planned =
      cliJson([...flags(params), '--plan', '--placement', 'linear', '--time-limit', '5']);
  const page = await open('&p=2&m=3&s=1F1B&t=30&pp=linear');
  await settled(page);
  await page.selectOption('[data-testid=pl-engine]', 'mip');
  await page.click('[data-testid=pl-start]');
  await waitStatus(page, ['solving', ...RUN_ENDED], 30000, LAB);
  await waitStatus(page, RUN_ENDED, 90000, LAB);
  assert.equal(
      await page.getAttribute('#lab-pipeline', 'data-status'), 'done',
      await text(page, 'pl-error'));
  assert.equal(await text(page, 'pl-incumbent'), num(planned.makespan));
  assert.equal(await rowMakespan(page, 'mip'), num(planned.makespan));
  assert.match(await text(page, 'pl-gap'), /proven optimal/);
  await page.context().close();
});
