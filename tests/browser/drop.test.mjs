// Browser tests of the page-wide drop zone (web/drop.mjs, web/sniff.mjs): a
// file dropped on any tab is recognised by its content and opened in its own
// tab with that tab's loader, the overlay shows while a file is dragged, every
// tab says files can be dropped, binary never lands in a text box, and a file
// no tab reads gets one line.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {test} from 'node:test';
import zlib from 'node:zlib';

import {activeLab, dropFile, openPage, SOURCE, text, useSite, waitStatus} from './harness.mjs';

const site = useSite();
const example = (rel) => fs.readFileSync(path.join(SOURCE, 'examples', rel));
const FINAL = ['done', 'stopped', 'error'];

async function dropMessage(page) {
  await page.waitForSelector('[data-testid=drop-message]:not([hidden])');
  return text(page, 'drop-message-text');
}

test(
    'a gzip instance dropped on the pipeline tab opens in the sharding tab, never as text',
    async () => {
      const page = await openPage(site.browser, `${site.url}#v=3&lab=pipeline`);
      await waitStatus(page, ['ready'], 60000, 'pipeline');
      await dropFile(page, 'asplos-2025-iopddl-B.json.gz', example('asplos-2025-iopddl-B.json.gz'));
      assert.equal(await page.evaluate(() => globalThis.overlayShown), true, 'the overlay showed');
      assert.match(
          await dropMessage(page),
          /^Opened asplos-2025-iopddl-B\.json\.gz as a contest instance in the Sharding tab\.$/);
      await page.waitForFunction(() => document.getElementById('app').dataset.lab === 'sharding');
      await page.waitForFunction(
          () => /iopddl-B/.test(document.getElementById('instance-name').textContent));
      const box = await page.inputValue('[data-testid=pl-problem]');
      assert.doesNotMatch(box, /[\u0000-\u0008\ufffd]/, 'no binary in the problem box');
      assert.equal(await page.isHidden('[data-testid=drop-overlay]'), true);
      await page.context().close();
    });

test('each kind of file opens in its tab, from any tab', async () => {
  const page = await openPage(site.browser, `${site.url}#v=3&lab=sharding&ex=example.json&t=1`);
  await waitStatus(page, FINAL);

  // A pipeline problem, dropped on the sharding tab.
  await dropFile(page, 'dualpipe.json', example('pipeline/dualpipe_example.json'));
  assert.match(await dropMessage(page), /as a pipeline problem in the Pipeline tab/);
  assert.equal(await activeLab(page), 'pipeline');
  await page.waitForFunction(
      () => /DualPipe's example/.test(document.querySelector('[data-testid=pl-problem]').value));

  // A teaching model, dropped on the pipeline tab (the teach tab had no drop at all).
  const mlp = fs.readFileSync(path.join(SOURCE, 'web/teach/examples/mlp.json'));
  await dropFile(page, 'my_mlp.json', mlp);
  assert.match(await dropMessage(page), /my_mlp\.json as a teaching model in the Teach tab/);
  assert.equal(await activeLab(page), 'teach');
  await page.waitForFunction(
      () => document.querySelector('[data-testid=teach-text]').value.includes('"W1"'));
  await waitStatus(page, ['done'], 60000, 'teach');

  // A Hugging Face config.json and a plan model with repeat go to the plan tab.
  await dropFile(page, 'config.json', example('plan/models/qwen2-0.5b.json'));
  assert.match(
      await dropMessage(page), /config\.json as a Hugging Face config\.json in the Plan tab/);
  assert.equal(await activeLab(page), 'plan');
  await page.waitForFunction(
      () => /file: config\.json/.test(
          (document.querySelector('[data-testid=plan-model]').selectedOptions[0] ||
           {}).textContent));
  await dropFile(page, 'block.json', example('plan/models/parallel_block.json'));
  assert.match(await dropMessage(page), /block\.json as a plan model in the Plan tab/);
  await dropFile(page, 'h100.json', example('plan/clusters/dgx-h100-80gb.json'));
  assert.match(await dropMessage(page), /h100\.json as a cluster file in the Plan tab/);
  await page.waitForFunction(
      () => /file: h100\.json/.test(
          (document.querySelector('[data-testid=plan-cluster]').selectedOptions[0] ||
           {}).textContent));

  // A PyTorch schedule CSV goes to the pipeline tab's import.
  const csv = fs.readFileSync(path.join(SOURCE, 'tests/data/pytorch/dualpipev_4rank_10mb.csv'));
  await dropFile(page, 'schedule.csv', csv);
  assert.match(
      await dropMessage(page), /schedule\.csv as a PyTorch schedule CSV in the Pipeline tab/);
  assert.equal(await activeLab(page), 'pipeline');

  // A gzip of a pipeline problem is inflated: text reaches the box, not bytes.
  await dropFile(page, 'uneven.json.gz', zlib.gzipSync(example('pipeline/uneven_stages.json')));
  assert.match(
      await dropMessage(page), /uneven\.json\.gz as a pipeline problem in the Pipeline tab/);
  await page.waitForFunction(
      () => /"format"/.test(document.querySelector('[data-testid=pl-problem]').value) &&
          !/\ufffd/.test(document.querySelector('[data-testid=pl-problem]').value));
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a file no tab reads gets one line, and every tab says that files can be dropped', async () => {
  const page = await openPage(site.browser, `${site.url}#v=3&lab=teach`);
  await waitStatus(page, ['done'], 60000, 'teach');
  const before = await page.inputValue('[data-testid=teach-text]');
  await dropFile(
      page, 'photo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]));
  const line = await dropMessage(page);
  assert.match(
      line,
      /^photo\.png: not a file ShardLab opens \(found binary content at byte \d+\); drop a contest instance/);
  assert.doesNotMatch(line, /\n/);
  assert.equal(await page.getAttribute('[data-testid=drop-message]', 'class'), 'drop-message bad');
  await dropFile(page, 'other.json', Buffer.from('{"hello": 1, "world": [2]}'));
  assert.match(
      await dropMessage(page),
      /other\.json: not a file ShardLab opens \(found a JSON object with keys "hello", "world"\)/);
  assert.equal(await activeLab(page), 'teach', 'an unknown file changes no tab');
  assert.equal(await page.inputValue('[data-testid=teach-text]'), before);

  // Dragging over the page and away hides the overlay again.
  await dropFile(page, 'x.json', Buffer.from('{}'), {leave: true});
  assert.equal(await page.evaluate(() => globalThis.overlayShown), true);
  assert.equal(await page.isHidden('[data-testid=drop-overlay]'), true);

  for (const lab of ['sharding', 'pipeline', 'teach', 'plan']) {
    await page.click(`[data-testid=tab-${lab}]`);
    await page.waitForSelector(`[data-testid=drop-hint-${lab}]`, {state: 'visible'});
    assert.match(await text(page, `drop-hint-${lab}`), /^Drop a file anywhere on the page/);
  }
  await page.context().close();
});
