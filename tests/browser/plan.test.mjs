// Browser tests of the plan lab's tab (web/plan/): picking a preset shows
// the plan whose JSON and card numbers equal `shardlab plan --json`'s
// (the native CLI through the parity driver); changing the GPU count plans
// again and the plan changes, again equal to the CLI's; the permalink the
// tab wrote restores the same inputs and plan in a fresh browser context;
// the exports show the same Megatron-LM arguments; no console error.
import assert from 'node:assert/strict';
import {execFileSync} from 'node:child_process';
import path from 'node:path';
import {test} from 'node:test';
import {pathToFileURL} from 'node:url';

import {openPage, SITE, SOURCE, text, useSite, waitStatus} from './harness.mjs';

const site = useSite();
const NATIVE = process.env.SHARDLAB_PARITY_NATIVE || path.join(SITE, '../parity_native');
const {cardRows, numberRows} = await import(pathToFileURL(path.join(SITE, 'plan/card.mjs')).href);

// The searches here end proven in about a second on a quiet machine; the
// CLI's limit is generous so that a loaded machine cannot cut its side short
// (the JSON holds no limit, only the work done, equal when both end proven).
function cli(model, gpus, batch, seq = 2048) {
  const args = [
    'cli', 'plan', model, '--gpus', String(gpus), '--global-batch', String(batch), '--time-limit',
    '300'
  ];
  return JSON.parse(
      execFileSync(NATIVE, [...args, '--seq', String(seq), '--json'], {encoding: 'utf8'}));
}

const runs = (page) => page.getAttribute('#lab-plan', 'data-runs').then((n) => Number(n || 0));

// Waits for the run after `count` finished runs, then for a settled status.
async function nextRun(page, count) {
  await page.waitForFunction(
      (n) => Number(document.getElementById('lab-plan').dataset.runs || 0) > n, count,
      {timeout: 120000, polling: 50});
  await waitStatus(page, ['done', 'stopped', 'error'], 120000, 'plan');
}

// The page's answer (the core's plan JSON the tab shows) and its card texts.
const pageResult = (page) => page.evaluate(() => globalThis.shardlabPlan.done.result);

async function assertShows(page, want) {
  assert.equal(await page.getAttribute('#lab-plan', 'data-status'), 'done');
  assert.deepEqual(await pageResult(page), want);
  for (const [testid, , value] of [...cardRows(want.plan), ...numberRows(want)]) {
    assert.equal(await text(page, testid), value, testid);
  }
  const memory = await page.$$eval(
      '[data-testid=plan-memory] .plan-bar-row', (rows) => rows.map((r) => r.dataset.device));
  assert.equal(memory.length, want.devices.length);
}

test(
    'pick a preset: the plan and its numbers equal the CLI\'s; more GPUs change it; the permalink restores it',
    async () => {
      const page = await openPage(site.browser, `${site.url}#v=3&lab=plan`);
      await waitStatus(page, ['done', 'error'], 120000, 'plan');
      assert.equal(await text(page, 'plan-error').catch(() => ''), '');
      assert.deepEqual(await pageResult(page), cli('gpt-1.7b', 32, 512));

      // Pick another preset.
      let count = await runs(page);
      await page.selectOption('[data-testid=plan-model]', 'llama3-8b');
      await nextRun(page, count);
      const llama32 = cli('llama3-8b', 32, 512);
      await assertShows(page, llama32);
      assert.match(await text(page, 'plan-status-text'), /^done: /);
      assert.match(await text(page, 'plan-megatron'), /--tensor-model-parallel-size/);
      assert.match(await text(page, 'plan-torchtitan'), /\[parallelism\]/);

      // Fewer GPUs: a different plan, again the CLI's.
      count = await runs(page);
      await page.fill('[data-testid=plan-gpus]', '8');
      await page.$eval('[data-testid=plan-gpus]', (i) => i.dispatchEvent(new Event('change')));
      await nextRun(page, count);
      const llama8 = cli('llama3-8b', 8, 512);
      await assertShows(page, llama8);
      assert.notDeepEqual(llama8.plan, llama32.plan);
      assert.notEqual(await text(page, 'plan-step-time'), numberRows(llama32)[0][2]);

      // The permalink, opened in a fresh context (no IndexedDB), restores it.
      const link = page.url();
      assert.match(link, /lab=plan/);
      assert.match(link, /m=llama3-8b/);
      assert.match(link, /g=8/);
      assert.deepEqual(page.errors, []);
      await page.context().close();
      const again = await openPage(site.browser, link);
      await waitStatus(again, ['done', 'error'], 120000, 'plan');
      assert.equal(await again.inputValue('[data-testid=plan-model]'), 'llama3-8b');
      assert.equal(await again.inputValue('[data-testid=plan-gpus]'), '8');
      await assertShows(again, llama8);
      assert.deepEqual(again.errors, []);
      await again.context().close();
    });

test('a reload restores the stored plan from IndexedDB without planning again', async () => {
  const url = `${site.url}#v=3&lab=plan&m=gpt-1.7b&c=dgx-a100-80gb&g=16&b=256`;
  const page = await openPage(site.browser, url);
  await waitStatus(page, ['done', 'error'], 120000, 'plan');
  const want = cli('gpt-1.7b', 16, 256);
  await assertShows(page, want);
  await page.reload();
  await waitStatus(page, ['done', 'error'], 120000, 'plan');
  assert.match(await text(page, 'plan-restored'), /^restored from /);
  assert.match(await text(page, 'plan-status-text'), /^restored: /);
  assert.deepEqual(await pageResult(page), want);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a bad GPU count and a bad --fix show one line each, next to the controls', async () => {
  const page = await openPage(site.browser, `${site.url}#v=3&lab=plan&g=8&b=64`);
  await waitStatus(page, ['done', 'error'], 120000, 'plan');
  const count = await runs(page);
  await page.fill('[data-testid=plan-fix]', 'tp=banana');
  await page.$eval('[data-testid=plan-fix]', (i) => i.dispatchEvent(new Event('change')));
  await nextRun(page, count);
  assert.equal(await page.getAttribute('#lab-plan', 'data-status'), 'error');
  assert.match(await text(page, 'plan-error'), /tp/);
  // A GPU count the page cannot read never reaches the worker.
  await page.fill('[data-testid=plan-fix]', '');
  const again = await runs(page);
  await page.fill('[data-testid=plan-gpus]', '-3');
  await page.$eval('[data-testid=plan-gpus]', (i) => i.dispatchEvent(new Event('change')));
  await nextRun(page, again);
  assert.equal(await text(page, 'plan-error'), 'GPUs: expected a positive integer, found "-3"');
  await page.context().close();
});

test('an uploaded config.json is planned as the CLI plans the file', async () => {
  const file = path.join(SOURCE, 'examples/plan/models/mistral-7b.json');
  const page = await openPage(site.browser, `${site.url}#v=3&lab=plan&g=16&b=128`);
  await waitStatus(page, ['done', 'error'], 120000, 'plan');
  const count = await runs(page);
  await page.setInputFiles('[data-testid=plan-model-file]', file);
  await nextRun(page, count);
  const want = JSON.parse(execFileSync(
      NATIVE, ['cli', 'plan', file, '--gpus', '16', '--global-batch', '128', '--json'],
      {encoding: 'utf8'}));
  await assertShows(page, want);
  assert.equal(
      await page.$eval('[data-testid=plan-model]', (s) => s.selectedOptions[0].textContent),
      'file: mistral-7b.json');
  // The file's text travels in the permalink.
  assert.match(page.url(), /mt=/);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('Stop ends a long run with its best plan so far', async () => {
  const page = await openPage(
      site.browser, `${site.url}#v=3&lab=plan&m=gpt3-175b&c=dgx-a100-80gb&g=1024&b=1536&t=60`);
  await waitStatus(page, ['planning'], 120000, 'plan');
  await page.click('[data-testid=plan-stop]');
  await waitStatus(page, ['stopped', 'done', 'error'], 60000, 'plan');
  assert.equal(await page.getAttribute('#lab-plan', 'data-status'), 'stopped');
  assert.match(await text(page, 'plan-status-text'), /^stopped: /);
  assert.equal(await page.isDisabled('[data-testid=plan-stop]'), true);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
