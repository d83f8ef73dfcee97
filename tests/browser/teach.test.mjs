// Browser tests of the teaching lab (web/teach/): the MLP example solves to
// Megatron's layout; raising its batch from 4096 to 262144 switches the
// layout to data parallelism, with the changed rows highlighted; the state
// survives a reload through the permalink and, without one, through
// IndexedDB; forcing a strategy shows the cost
// difference and the bound; a bad model shows its exact error.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {test} from 'node:test';

import {openPage, SOURCE, text, useSite, waitStatus} from './harness.mjs';

const site = useSite();

const solves = (page) => page.getAttribute('#lab-teach', 'data-solves').then((n) => Number(n || 0));

// Waits for the run after `count` finished runs to finish.
async function nextSolve(page, count) {
  await page.waitForFunction(
      (n) => Number(document.getElementById('lab-teach').dataset.solves || 0) > n, count,
      {timeout: 120000, polling: 50});
}

const opStrategy = (page, op) =>
    page.textContent(`[data-testid=teach-ops] tr[data-op="${op}"] td.strategy`);

test('the MLP switches from tensor parallel to data parallel when its batch grows', async () => {
  const page = await openPage(site.browser, `${site.url}#v=3&lab=teach&ex=mlp.json`);
  await waitStatus(page, ['done', 'error'], 120000, 'teach');
  assert.match(await text(page, 'teach-textbook'), /^Textbook: Megatron tensor parallel on 'x'/);
  for (const op of ['h', 'a', 'y']) assert.equal(await opStrategy(page, op), 'f:x');
  assert.match(
      await page.textContent('[data-testid=teach-ops] tr[data-op="y"]'),
      /all-reduce on x of 8\.39 MB \(partial sums over f, op y, 151\.8 µs\)/);
  assert.match(await text(page, 'teach-bound'), /proven optimal/);
  assert.equal(await page.inputValue('[data-testid=teach-batch]'), '4096');
  // ZeRO's table for the MLP's 8,388,608 parameters on 8 devices.
  assert.deepEqual(
      await page.$$eval(
          '[data-testid=teach-zero] tbody tr', (rows) => rows.map((r) => r.textContent)),
      [
        'data parallel (16P)134.22 MB134.22 MB', 'ZeRO-1 (4P + 12P/N)46.14 MB46.14 MB',
        'ZeRO-2 (2P + 14P/N)31.46 MB31.46 MB', 'ZeRO-3 (16P/N)16.78 MB16.78 MB'
      ]);

  const count = await solves(page);
  // One edit, one change event (as a user typing and leaving the field).
  await page.$eval('[data-testid=teach-batch]', (input) => {
    input.value = '262144';
    input.dispatchEvent(new Event('change'));
  });
  await nextSolve(page, count);
  await waitStatus(page, ['done', 'error'], 120000, 'teach');
  assert.match(
      await page.inputValue('[data-testid=teach-text]'), /"x": +\{"shape": \[262144, 1024\]\}/);
  assert.match(
      await text(page, 'teach-textbook'),
      /^Textbook: data parallel on 'x' \(b split, gradients all-reduced\)/);
  for (const op of ['h', 'a', 'y']) {
    assert.equal(await opStrategy(page, op), 'b:x');
    assert.equal(
        await page.getAttribute(`[data-testid=teach-ops] tr[data-op="${op}"]`, 'data-changed'),
        'true');
  }
  assert.match(await text(page, 'teach-changes'), /h: f:x → b:x/);
  assert.match(await text(page, 'teach-jax'), /'W1': NamedSharding\(mesh, P\(None, None\)\)/);
  assert.deepEqual(page.errors, []);

  // The permalink carries the edited model: a fresh page shows the same answer.
  const link = await page.evaluate(() => location.href);
  assert.match(link, /#v=3&lab=teach&m=/);
  const again = await openPage(site.browser, link);
  await waitStatus(again, ['done', 'error'], 120000, 'teach');
  assert.match(await text(again, 'teach-textbook'), /^Textbook: data parallel on 'x'/);
  assert.equal(await again.inputValue('[data-testid=teach-batch]'), '262144');
  await again.close();

  // Without a model in the link, the tab opens the last model (IndexedDB).
  const restored = await page.context().newPage();
  await restored.goto(`${site.url}#v=3&lab=teach`);
  await waitStatus(restored, ['done', 'error'], 120000, 'teach');
  assert.match(
      await restored.inputValue('[data-testid=teach-text]'), /"x": +\{"shape": \[262144, 1024\]\}/);
  assert.match(await text(restored, 'teach-textbook'), /^Textbook: data parallel on 'x'/);
  await restored.close();
  await page.close();
});

test('forcing a strategy shows the cost difference and the bound', async () => {
  const page = await openPage(site.browser, `${site.url}#v=3&lab=teach&ex=mlp.json`);
  await waitStatus(page, ['done', 'error'], 120000, 'teach');
  const count = await solves(page);
  await page.selectOption('[data-testid=teach-force-node]', 'h');
  await page.selectOption('[data-testid=teach-force-strategy]', 'b:x');
  await page.click('[data-testid=teach-force-button]');
  await nextSolve(page, count);
  await waitStatus(page, ['done', 'error'], 120000, 'teach');
  const sentence = await text(page, 'teach-force');
  assert.match(
      sentence,
      /^Forcing h=b:x: .* \(bound .*, proven\) against the free optimum 366\.9 µs \(bound 366\.9 µs\): \+/);
  assert.equal(await opStrategy(page, 'h'), 'b:x');
  assert.match(await page.evaluate(() => location.hash), /&f=h%3Db%3Ax/);
  await page.close();
});

test('a bad model shows its exact error: file, line, column, byte, path, expectation', async () => {
  const page = await openPage(site.browser, `${site.url}#v=3&lab=teach&ex=mlp.json`);
  await waitStatus(page, ['done', 'error'], 120000, 'teach');
  const good = fs.readFileSync(path.join(SOURCE, 'examples/teach/mlp.json'), 'utf8');
  const bad = good.replace('"bd,df->bf"', '"bd,dq->bf"');
  const byte = Buffer.from(bad.slice(0, bad.indexOf('"bd,dq->bf"'))).length;
  const count = await solves(page);
  await page.fill('[data-testid=teach-text]', bad);
  await page.click('[data-testid=teach-solve]');
  await nextSolve(page, count);
  await waitStatus(page, 'error', 60000, 'teach');
  assert.equal(
      await text(page, 'teach-error'),
      `mlp.json:13:29 (byte ${byte}): at ops[0].einsum: expected every output letter ` +
          'among the inputs\' letters, found \'f\' only in the output');
  await page.close();
});

// Twelve transformer blocks on 1 GB per device: natively the bound is still
// 0.4% below the cost after 15 s, so the stop lands in a running solve.
function deepTransformer() {
  const base =
      JSON.parse(fs.readFileSync(path.join(SOURCE, 'examples/teach/transformer.json'), 'utf8'));
  const model = {...base, name: 'transformer_x12', mesh: {...base.mesh, device_memory_GB: 1}};
  model.tensors = {x: base.tensors.x};
  model.ops = [];
  let previous = 'x';
  for (let i = 0; i < 12; ++i) {
    for (const w of ['Wq', 'Wk', 'Wv', 'Wo', 'W1', 'W2'])
      model.tensors[`${w}_${i}`] = base.tensors[w];
    for (const op of base.ops) {
      const inputs = op.inputs.map((t) => (t === 'x' ? previous : `${t}_${i}`));
      model.ops.push({...op, name: `${op.name}_${i}`, inputs});
    }
    previous = `r2_${i}`;
  }
  return JSON.stringify(model, null, 1);
}

test('Stop ends a running solve and explains the best plan found so far', async () => {
  const page = await openPage(site.browser, `${site.url}#v=3&lab=teach&ex=mlp.json&t=600`);
  await waitStatus(page, ['done', 'error'], 120000, 'teach');
  assert.equal(await page.inputValue('[data-testid=teach-time]'), '600');
  assert.equal(await page.isDisabled('[data-testid=teach-stop]'), true, 'nothing to stop');
  const count = await solves(page);
  await page.fill('[data-testid=teach-text]', deepTransformer());
  await page.click('[data-testid=teach-solve]');
  await waitStatus(page, 'solving', 120000, 'teach');
  // The engine's own plan of this model, past the quick plan of its
  // presolve. Until the client has loaded transformer_x12 (load() resets
  // stats), stats[0] is still the finished MLP solve's: a Stop then lands
  // in the read and rightly ends with no plan.
  await page.waitForFunction(() => {
    const client = globalThis.shardlabTeach.client;
    const s = client.stats[0];
    return client.model && client.model.name === 'transformer_x12' && s &&
        s.stats.phase !== 'presolve' && s.cost !== null;
  }, null, {polling: 50, timeout: 120000});
  assert.equal(await page.isDisabled('[data-testid=teach-stop]'), false);
  await page.click('[data-testid=teach-stop]');
  await nextSolve(page, count);
  assert.equal(await page.getAttribute('#lab-teach', 'data-status'), 'stopped');
  assert.equal(await text(page, 'teach-status-text'), 'stopped: best found');
  assert.match(await text(page, 'teach-cost'), /\([\d,]+ ns\)$/);
  assert.doesNotMatch(await text(page, 'teach-bound'), /proven optimal/);
  assert.equal(
      await page.$$eval('[data-testid=teach-ops] tbody tr', (rows) => rows.length), 12 * 14);
  assert.deepEqual(page.errors, []);
  await page.close();
});
