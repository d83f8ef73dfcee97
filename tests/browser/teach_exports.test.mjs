// Browser tests of the teaching lab's exports and forces (issue 26): the JAX
// export is the core's runnable script (the native `teach --jax` text,
// checked by tests/cli/jax_check.py: Python parses it, one Mesh, one
// NamedSharding per tensor, and it runs against stand-ins for jax), and
// after a force it says which layouts were forced; every export has a Copy
// button with "Copied" beside it; forces accumulate as removable chips kept
// in the fragment; a mesh such as "3x" is refused beside its input.
import assert from 'node:assert/strict';
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {test} from 'node:test';

import {openPage, scratchDir, SOURCE, text, useSite, waitStatus} from './harness.mjs';

const NATIVE = process.env.SHARDLAB_PARITY_NATIVE || path.join(SOURCE, 'build/wasm/parity_native');
const CHECKER = path.join(SOURCE, 'tests/cli/jax_check.py');
const TMP = scratchDir('shardlab-teach-exports-');
const MLP = path.join(SOURCE, 'examples/teach/mlp.json');

const site = useSite();

// The native CLI's script for the MLP with these --force flags.
function nativeScript(forces = []) {
  const file = path.join(TMP, `native-${forces.length}.py`);
  execFileSync(
      NATIVE, ['cli', 'teach', MLP, ...forces.flatMap((f) => ['--force', f]), '--jax', file],
      {encoding: 'utf8'});
  return fs.readFileSync(file, 'utf8');
}

// jax_check.py's reading of a script: mesh, specs, who decided, what it printed.
function checked(script) {
  const file = path.join(TMP, 'page.py');
  fs.writeFileSync(file, script);
  return JSON.parse(execFileSync('python3', [CHECKER, file], {encoding: 'utf8'}));
}

const solves = (page) => page.getAttribute('#lab-teach', 'data-solves').then((n) => Number(n || 0));
async function solvedAfter(page, count) {
  await page.waitForFunction(
      (n) => Number(document.getElementById('lab-teach').dataset.solves || 0) > n, count,
      {timeout: 120000, polling: 50});
  await waitStatus(page, ['done', 'error'], 120000, 'teach');
}
const jax = (page) => page.textContent('[data-testid=teach-jax]');
const chips = (page) =>
    page.$$eval('[data-testid=teach-forces] li', (items) => items.map((li) => li.textContent));

async function force(page, node, strategy) {
  const count = await solves(page);
  await page.selectOption('[data-testid=teach-force-node]', node);
  await page.selectOption('[data-testid=teach-force-strategy]', strategy);
  await page.click('[data-testid=teach-force-button]');
  // Read at once: a message of this kind clears itself after a few seconds.
  const said = await text(page, 'teach-force-button-feedback');
  await solvedAfter(page, count);
  return said;
}

test('the JAX export is the runnable script the CLI writes, and says what was forced', async () => {
  const page = await openPage(site.browser, `${site.url}#v=3&lab=teach&ex=mlp.json`);
  await waitStatus(page, ['done', 'error'], 120000, 'teach');
  const free = await jax(page);
  assert.equal(free, nativeScript());
  const got = checked(free);
  assert.deepEqual(got.mesh_shape, [8]);
  assert.deepEqual(got.axes, ['x']);
  assert.deepEqual(Object.keys(got.specs).sort(), ['W1', 'W2', 'a', 'h', 'x', 'y']);
  assert.deepEqual(got.specs.W1, [null, 'x']);
  assert.equal(got.printed.length, 6, 'one example array per tensor');
  assert.ok(got.header.includes('Chosen by the solver: all 6 layouts below.'), got.header);
  assert.match(free, /^mesh = Mesh\(np\.array\(devices\[:8\]\)\.reshape\(8\), \('x',\)\)$/m);

  await force(page, 'h', 'b:x');
  const forced = await jax(page);
  assert.equal(forced, nativeScript(['h=b:x']));
  const after = checked(forced);
  assert.ok(after.header.includes('Forced by the user: h = b:x.'), after.header);
  assert.doesNotMatch(forced, /Chosen by the solver: all/);
  assert.equal(after.who.h, 'einsum bd,df->bf; forced by the user: b:x');
  assert.match(after.who.W1, /; chosen by the solver: /);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('every export has a Copy button, and "Copied" appears beside it', async () => {
  const page = await openPage(site.browser, `${site.url}#v=3&lab=teach&ex=mlp.json`, {
    prepare: (context) =>
        context.grantPermissions(['clipboard-read', 'clipboard-write'], {origin: site.url})
  });
  await waitStatus(page, ['done', 'error'], 120000, 'teach');
  const want = {
    jax: await jax(page),
    model: await page.inputValue('[data-testid=teach-text]'),
  };
  for (const key of ['jax', 'report', 'instance', 'sidecar', 'model']) {
    assert.equal(await page.isDisabled(`[data-testid=teach-copy-${key}]`), false, key);
    await page.click(`[data-testid=teach-copy-${key}]`);
    const feedback = `[data-testid=teach-copy-${key}-feedback]`;
    await page.waitForFunction(
        (s) => document.querySelector(s)?.textContent === 'Copied', feedback);
    // Beside the button: its next sibling, on the same line.
    assert.equal(
        await page.$eval(
            `[data-testid=teach-copy-${key}]`, (b) => b.nextElementSibling.dataset.testid),
        `teach-copy-${key}-feedback`);
    const [button, message] = await Promise.all([
      page.locator(`[data-testid=teach-copy-${key}]`).boundingBox(),
      page.locator(feedback).boundingBox()
    ]);
    assert.ok(Math.abs(button.y - message.y) < button.height, `${key}: on the button's line`);
    assert.equal(await page.getAttribute(feedback, 'aria-live'), 'polite');
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    if (want[key]) assert.equal(copied, want[key], key);
    if (key === 'report') assert.equal(JSON.parse(copied).model, 'mlp');
    // The generated instance's bytes stay on the page after a copy went to the solver.
    if (key === 'instance') {
      assert.equal(
          `${JSON.parse(copied).problem.nodes.costs.length} nodes`,
          (await text(page, 'teach-instance')).split(',')[0]);
    }
  }
  await page.click('[data-testid=teach-copy-link]');
  await page.waitForFunction(
      () => document.querySelector('[data-testid=teach-copy-link-feedback]')?.textContent ===
          'Copied the link');
  assert.equal(
      await page.evaluate(() => navigator.clipboard.readText()),
      await page.evaluate(() => location.href));
  // The script downloads under the model's name, and says so beside the button.
  const [download] = await Promise.all(
      [page.waitForEvent('download'), page.click('[data-testid=teach-save-jax]')]);
  assert.equal(download.suggestedFilename(), 'mlp_sharding.py');
  assert.equal(fs.readFileSync(await download.path(), 'utf8'), want.jax);
  assert.equal(await text(page, 'teach-save-jax-feedback'), 'Saved mlp_sharding.py');
  await page.context().close();
});

test('without the asynchronous clipboard, Copy falls back and still says "Copied"', async () => {
  const page = await openPage(site.browser, `${site.url}#v=3&lab=teach&ex=mlp.json`, {
    prepare: (context) => context.addInitScript(() => {
      Object.defineProperty(Navigator.prototype, 'clipboard', {get: () => undefined});
    })
  });
  await waitStatus(page, ['done', 'error'], 120000, 'teach');
  await page.click('[data-testid=teach-copy-jax]');
  await page.waitForFunction(
      () => document.querySelector('[data-testid=teach-copy-jax-feedback]')?.textContent);
  assert.match(
      await text(page, 'teach-copy-jax-feedback'),
      /^(Copied|Selected: press Ctrl\+C \(⌘C\) to copy)$/);
  await page.context().close();
});

test('forces accumulate as removable chips, kept in the link', async () => {
  const page = await openPage(site.browser, `${site.url}#v=3&lab=teach&ex=mlp.json`);
  await waitStatus(page, ['done', 'error'], 120000, 'teach');
  assert.deepEqual(await chips(page), []);
  assert.equal(await force(page, 'h', 'b:x'), 'Forced h = b:x; solving');
  await force(page, 'y', 'b:x');
  assert.deepEqual(await chips(page), ['h = b:x×', 'y = b:x×']);
  assert.match(await page.evaluate(() => location.hash), /&f=h%3Db%3Ax%3By%3Db%3Ax/);
  for (const op of ['h', 'y']) {
    assert.match(
        await page.getAttribute(`[data-testid=teach-ops] tr[data-op="${op}"]`, 'class'), /forced/);
  }
  assert.match(await text(page, 'teach-force'), /^Forcing h=b:x, y=b:x: /);
  assert.ok(checked(await jax(page)).header.includes('Forced by the user: h = b:x, y = b:x.'));

  // Forcing a forced node again replaces its strategy (one per node), and says so.
  assert.equal(
      await force(page, 'h', 'replicated'), 'h: b:x → replicated (one strategy per node); solving');
  assert.deepEqual(await chips(page), ['h = replicated×', 'y = b:x×']);

  // × removes one chip and solves again.
  const count = await solves(page);
  await page.click('[data-testid=teach-forces] li[data-node="h"] button');
  await solvedAfter(page, count);
  assert.deepEqual(await chips(page), ['y = b:x×']);
  assert.doesNotMatch(
      await page.getAttribute('[data-testid=teach-ops] tr[data-op="h"]', 'class') || '', /forced/);
  assert.match(await page.evaluate(() => location.hash), /&f=y%3Db%3Ax(&|$)/);
  assert.equal(
      await page.getAttribute('[data-testid=teach-forces] li button', 'aria-label'),
      'Remove the force y = b:x');

  // The link brings the chips back.
  await force(page, 'W1', 'replicated');
  const link = await page.evaluate(() => location.href);
  const again = await openPage(site.browser, link);
  await waitStatus(again, ['done', 'error'], 120000, 'teach');
  assert.deepEqual(await chips(again), ['y = b:x×', 'W1 = replicated×']);
  assert.match(
      await text(again, 'teach-force'),
      /^Forcing W1=replicated, y=b:x: |^Forcing y=b:x, W1=replicated: /);
  await again.context().close();
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a mesh such as "3x" is refused beside the input, never changed into another', async () => {
  const page = await openPage(site.browser, `${site.url}#v=3&lab=teach&ex=mlp.json`);
  await waitStatus(page, ['done', 'error'], 120000, 'teach');
  const model = await page.inputValue('[data-testid=teach-text]');
  const count = await solves(page);
  await page.fill('[data-testid=teach-mesh]', '3x');
  await page.dispatchEvent('[data-testid=teach-mesh]', 'change');
  await page.waitForFunction(
      () => document.querySelector('[data-testid=teach-mesh-feedback]')?.textContent);
  assert.equal(
      await text(page, 'teach-mesh-feedback'),
      'Mesh refused: axis 2 of "3x" has no size: write the devices per axis, such as 8 or 4x2');
  assert.equal(await page.getAttribute('[data-testid=teach-mesh]', 'aria-invalid'), 'true');
  assert.equal(await page.inputValue('[data-testid=teach-mesh]'), '3x', 'the text stays as typed');
  assert.equal(await page.inputValue('[data-testid=teach-text]'), model, 'the model is unchanged');
  assert.equal(await solves(page), count, 'nothing was solved');
  assert.equal(await page.getAttribute('#lab-teach', 'data-status'), 'done');
  // The message sits beside the mesh input (after its label), on its line.
  const [input, message] = await Promise.all([
    page.locator('[data-testid=teach-mesh]').boundingBox(),
    page.locator('[data-testid=teach-mesh-feedback]').boundingBox()
  ]);
  assert.ok(Math.abs(input.y - message.y) < 2 * input.height);
  assert.ok(message.x > input.x);

  for (const [typed, reason] of [
           ['2x2x2x2x2', 'Mesh refused: "2x2x2x2x2" has 5 axes; a mesh has 1 to 4'],
           ['512x256', 'Mesh refused: "512x256" is 131,072 devices; a mesh has at most 65,536'],
           ['0', 'Mesh refused: "0" is 0: every axis has at least 1 device'],
  ]) {
    await page.fill('[data-testid=teach-mesh]', typed);
    await page.dispatchEvent('[data-testid=teach-mesh]', 'change');
    await page.waitForFunction(
        (want) => document.querySelector('[data-testid=teach-mesh-feedback]')?.textContent === want,
        reason);
  }
  assert.equal(await solves(page), count);

  await page.fill('[data-testid=teach-mesh]', '4x2');
  await page.dispatchEvent('[data-testid=teach-mesh]', 'change');
  await solvedAfter(page, count);
  assert.equal(await text(page, 'teach-mesh-feedback'), '');
  assert.equal(await page.getAttribute('[data-testid=teach-mesh]', 'aria-invalid'), null);
  assert.match(
      await page.inputValue('[data-testid=teach-text]'),
      /"mesh": \{"shape": \[4, 2\], "axes": \["x", "y"\]/);
  assert.deepEqual(checked(await jax(page)).mesh_shape, [4, 2]);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
