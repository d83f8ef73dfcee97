// Browser tests of the playground in headless Debian Chromium (playwright-core)
// against `python3 -m http.server` serving build/wasm/site. They wait on
// #lab-sharding[data-status], never sleep, and compare against the native build
// (build/wasm/parity_native) where an exact value is expected.
import assert from 'node:assert/strict';
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {test} from 'node:test';

import {drawn, openPage, scratchDir, SHARED, SOURCE, status, text, useSite, waitSaved, waitStatus} from './harness.mjs';

const NATIVE = process.env.SHARDLAB_PARITY_NATIVE || path.join(SOURCE, 'build/wasm/parity_native');
const EXAMPLE = path.join(SOURCE, 'examples/example.json');
const B = path.join(SOURCE, 'examples/asplos-2025-iopddl-B.json.gz');
const G = path.join(SOURCE, 'examples/asplos-2025-iopddl-G.json.gz');
const M = path.join(SHARED, 'benchmarks/asplos-2025-iopddl-M.json.gz');
const FINAL = ['done', 'stopped', 'error'];

const site = useSite();

function native(args, cwd) {
  return JSON.parse(execFileSync(NATIVE, args, {encoding: 'utf8', cwd}));
}

// Drops a file on the page the way a user would (a synthetic drop event).
async function dropFile(page, file) {
  const bytes = Array.from(fs.readFileSync(file));
  const name = path.basename(file);
  await page.evaluate(({bytes, name}) => {
    const data = new DataTransfer();
    data.items.add(new File([new Uint8Array(bytes)], name));
    document.body.dispatchEvent(new DragEvent('drop', {dataTransfer: data, bubbles: true}));
  }, {bytes, name});
}

// Runs action (which opens an instance) and waits until that open settled,
// and then (unless settle is false) until the solving that follows ended.
async function opening(page, action, {timeout = 120000, settle = true} = {}) {
  const before = Number((await page.getAttribute('#lab-sharding', 'data-opened')) || 0);
  await action();
  await page.waitForFunction(
      (n) => Number(document.getElementById('lab-sharding').dataset.opened || 0) > n, before,
      {timeout, polling: 50});
  if (settle) await waitStatus(page, FINAL, timeout);
}

// Clicks at once, without Playwright's wait for an enabled button: the run
// may end between reading the status and the click (a no-op then).
function clickNow(page, testid) {
  return page.$eval(`[data-testid=${testid}]`, (button) => button.click());
}

// An exact integer readout, shown grouped ("217,039"): its digits.
async function digits(page, testid) {
  const value = await text(page, testid);
  assert.match(
      value, /^\d{1,3}(,\d{3})*$/, `${testid} should be a grouped integer, got '${value}'`);
  return value.replace(/,/g, '');
}

async function readStored(page) {
  return page.evaluate(() => new Promise((resolve, reject) => {
                         const req = indexedDB.open('shardlab');
                         req.onerror = () => reject(req.error);
                         req.onsuccess = () => {
                           const db = req.result;
                           const all = db.transaction('best').objectStore('best').getAll();
                           all.onsuccess = () => {
                             db.close();
                             resolve(all.result.map((r) => ({...r, plan: Array.from(r.plan)})));
                           };
                         };
                       }));
}

test(
    'opening the page with nothing given solves a bundled example; ?time and ?workers set controls',
    async () => {
      const page = await openPage(site.browser, `${site.url}?time=3&workers=2`);
      await waitStatus(page, FINAL);
      assert.equal(await page.inputValue('#time-limit'), '3');
      assert.equal(await page.inputValue('#workers'), '2');
      assert.equal(await status(page), 'done');
      await digits(page, 'best-cost');
      assert.ok((await page.$$eval('#examples option', (o) => o.length)) >= 4, 'the examples menu');
      assert.deepEqual(page.errors, []);
      await page.context().close();
    });

test('drop example.json and see cost 445', async () => {
  const page = await openPage(site.browser, `${site.url}?time=5#v=2&ex=example.json&t=1`);
  await waitStatus(page, FINAL);
  await opening(page, () => dropFile(page, EXAMPLE));
  assert.equal(await text(page, 'best-cost'), '445');
  assert.equal(await text(page, 'error'), '');
  assert.equal(await page.isVisible('[data-testid=error]'), false);
  await page.context().close();
});

for (const [file, label] of [[B, 'B'], [G, 'G']]) {
  test(
      `choose ${label}.json.gz and see a feasible cost, a bound and the three views drawn`,
      async () => {
        const page = await openPage(site.browser, `${site.url}?time=4#v=2&ex=example.json&t=4`);
        await waitStatus(page, FINAL);
        await opening(page, () => page.setInputFiles('[data-testid=file-input]', file));
        const cost = await digits(page, 'best-cost');
        const bound = await digits(page, 'lower-bound');
        assert.ok(BigInt(bound) <= BigInt(cost));
        const check = native(['digest', file]);
        assert.match(await page.textContent('#summary'), new RegExp(check.sha256));
        for (const view of ['cost-chart', 'memory-chart', 'strategy-view']) {
          assert.ok(await drawn(page, view), `${view} is drawn`);
        }
        await page.screenshot(
            {path: path.join(os.tmpdir(), `shardlab-${label}.png`), fullPage: true});
        assert.deepEqual(page.errors, []);
        await page.context().close();
      });
}

// M cannot be proven in minutes (its bound stays 0.012% below the cost
// after 180 s natively), so the stop always lands in a running engine.
test(
    'stop and resume: the stop lands in a running solve, the resumed engine starts from its plan',
    async (t) => {
      if (!fs.existsSync(M))
        return t.skip(`${M} is absent (the contest instances are in ../shared)`);
      const page =
          await openPage(site.browser, `${site.url}?time=600&workers=1#v=2&ex=example.json`);
      await waitStatus(page, FINAL);
      await opening(page, () => page.setInputFiles('[data-testid=file-input]', M), {settle: false});
      // The engine's own plan (past the quick plan shown during presolve).
      await page.waitForFunction(() => {
        const s = window.shardlab.client.stats[0];
        return s && s.stats.phase !== 'presolve' && s.cost !== null;
      }, null, {polling: 50, timeout: 120000});
      assert.equal(await status(page), 'solving');
      await clickNow(page, 'stop');
      await waitStatus(page, FINAL);
      assert.equal(await status(page), 'stopped', 'a solve of M is stopped, never done');
      const before = await digits(page, 'best-cost');
      const stoppedAt = await page.evaluate(() => window.shardlab.client.elapsedS);
      assert.ok(stoppedAt > 0);
      assert.equal(await page.isDisabled('[data-testid=stop]'), true);
      // Resume: every record the engine sends must carry a plan at least as good
      // as the one it was stopped with, and its clock goes on from the stop.
      await page.evaluate(() => {
        window.resumed = [];
        const client = window.shardlab.client;
        const onStats = client.handlers.onStats;
        client.handlers.onStats = (index, msg) => {
          window.resumed.push({cost: msg.cost, elapsedS: msg.elapsedS, phase: msg.stats.phase});
          onStats(index, msg);
        };
      });
      await page.click('[data-testid=start]');
      await page.waitForFunction(
          () => window.resumed.length >= 3, null, {polling: 50, timeout: 60000});
      assert.equal(await status(page), 'solving');
      await clickNow(page, 'stop');
      await waitStatus(page, FINAL);
      assert.equal(await status(page), 'stopped');
      const resumed = await page.evaluate(() => window.resumed);
      for (const r of resumed) {
        assert.notEqual(r.cost, null, 'the resumed engine has a plan from its first record');
        assert.ok(BigInt(r.cost) <= BigInt(before), `resumed at ${r.cost} <= ${before}`);
        assert.ok(r.elapsedS >= stoppedAt, `its clock goes on: ${r.elapsedS} >= ${stoppedAt}`);
        assert.notEqual(r.phase, 'presolve', 'the engine is not rebuilt');
      }
      assert.ok(BigInt(await digits(page, 'best-cost')) <= BigInt(before));
      assert.deepEqual(page.errors, []);
      await page.context().close();
    });

test('a permalink restores the same plan and cost in a fresh page', async () => {
  for (const [name, time] of [['example.json', 2], ['asplos-2025-iopddl-G.json.gz', 3]]) {
    const page = await openPage(site.browser, `${site.url}#v=2&ex=${name}&t=${time}`);
    await waitStatus(page, FINAL);
    const cost = await digits(page, 'best-cost');
    await waitSaved(page);  // the link carries the run's end
    const link = await page.getAttribute('[data-testid=permalink]', 'href');
    assert.match(link, /#v=3&lab=sharding&ex=.*&sol=.*&cost=\d+/);
    await page.context().close();
    const fresh = await openPage(site.browser, link);
    await waitStatus(fresh, FINAL);
    // The link's run status comes back (done, or stopped when the link
    // predates the end), and no engine ran (restore.test.mjs has the rest).
    assert.ok(['done', 'stopped'].includes(await status(fresh)));
    assert.equal(
        await fresh.evaluate(() => window.shardlab.client.stats.length), 0,
        'a link restores its plan without solving');
    assert.equal(await digits(fresh, 'best-cost'), cost);
    assert.deepEqual(fresh.errors, []);
    await fresh.context().close();
  }
});

test('a small local file travels inside the link', async () => {
  const page = await openPage(site.browser, `${site.url}#v=2&ex=example.json&t=1`);
  await waitStatus(page, FINAL);
  await opening(page, () => page.setInputFiles('[data-testid=file-input]', EXAMPLE));
  const link = await page.getAttribute('[data-testid=permalink]', 'href');
  assert.match(link, /&inst=[\w-]+&name=example.json/);
  await page.context().close();
  const fresh = await openPage(site.browser, link);
  await waitStatus(fresh, FINAL);
  assert.equal(await text(fresh, 'best-cost'), '445');
  await fresh.context().close();
});

test('a malformed file shows the exact error and the page stays usable', async (t) => {
  const dir = scratchDir('shardlab-bad-', t);
  const good = fs.readFileSync(EXAMPLE, 'utf8');
  const bad = path.join(dir, 'broken.json');
  fs.writeFileSync(bad, good.replace('[95]', '[95, 96]'));
  const want = native(['error', 'broken.json'], dir).message;
  assert.notEqual(want, '');
  const page = await openPage(site.browser, `${site.url}#v=2&ex=example.json&t=1`);
  await waitStatus(page, FINAL);
  assert.equal(await text(page, 'best-cost'), '445');
  await opening(page, () => page.setInputFiles('[data-testid=file-input]', bad));
  assert.equal(await status(page), 'error');
  assert.equal(await text(page, 'error'), want);
  assert.ok(await page.isVisible('[data-testid=error]'));
  assert.equal(await text(page, 'best-cost'), '445', 'the earlier result stays on screen');
  assert.ok(await drawn(page, 'memory-chart'));
  await opening(page, () => page.setInputFiles('[data-testid=file-input]', G));
  assert.equal(await page.isVisible('[data-testid=error]'), false);
  await digits(page, 'best-cost');
  await page.context().close();
});

test('a solver module that cannot load is reported instead of waited for', async () => {
  // `first` requests of shardlab.wasm succeed: 0 fails the page's own module,
  // 1 lets the page start and fails the workers' modules.
  for (const first of [0, 1]) {
    let requests = 0;
    const page = await openPage(site.browser, `${site.url}#v=2&ex=example.json&t=1`, {
      prepare: (context) => context.route(
          '**/shardlab.wasm', (route) => (requests++ < first ? route.continue() : route.abort())),
    });
    await waitStatus(page, 'error');
    assert.equal(await text(page, 'error'), 'the solver could not start: Failed to fetch');
    assert.ok(requests > first, `the workers asked for the module too (first=${first})`);
    await page.context().close();
  }
});

test('the best plan is kept in IndexedDB across a reload', async () => {
  const page = await openPage(site.browser, `${site.url}#v=2&ex=example.json&t=2`);
  await waitStatus(page, FINAL);
  assert.equal(await text(page, 'best-cost'), '445');
  const sha = native(['digest', EXAMPLE]).sha256;
  await page.waitForFunction(
      () => new Promise((resolve) => {
        const req = indexedDB.open('shardlab');
        req.onsuccess = () => {
          const db = req.result;
          if (!db.objectStoreNames.contains('best')) {  // the page has not created it yet
            db.close();
            return resolve(false);
          }
          const count = db.transaction('best').objectStore('best').count();
          count.onsuccess = () => {
            db.close();
            resolve(count.result > 0);
          };
        };
        req.onerror = () => resolve(false);
      }),
      null, {polling: 100, timeout: 10000});
  await page.reload();
  await waitStatus(page, FINAL);
  const stored = await readStored(page);
  const record = stored.find((r) => r.sha256 === sha);
  assert.ok(record, 'a record for example.json');
  assert.equal(record.cost, '445');
  assert.deepEqual(record.plan, [0, 0, 2, 1, 0]);
  assert.match(await page.textContent('#stored-note'), /cost 445/);
  await page.context().close();
});

test('the result JSON download matches the page and the CLI format', async () => {
  const page = await openPage(site.browser, `${site.url}#v=2&ex=asplos-2025-iopddl-G.json.gz&t=3`);
  await waitStatus(page, FINAL);
  const cost = await digits(page, 'best-cost');
  const [download] = await Promise.all(
      [page.waitForEvent('download'), page.click('[data-testid=download-result]')]);
  const result = JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
  assert.equal(result.format, 'shardlab-result');
  assert.equal(result.cost, cost);
  assert.equal(result.feasible, true);
  assert.equal(result.instance.sha256, native(['digest', G]).sha256);
  assert.equal(result.instance.name, 'asplos-2025-iopddl-G');
  assert.equal(result.solution.length, 816);
  assert.equal(result.lower_bound, await digits(page, 'lower-bound'));
  assert.ok(result.trace.length >= 1);
  assert.equal(result.trace[result.trace.length - 1][1], cost);
  const [line] = await Promise.all([page.waitForEvent('download'), page.click('#download-line')]);
  assert.equal(
      fs.readFileSync(await line.path(), 'utf8').trim(), `[${result.solution.join(', ')}]`);
  await page.context().close();
});

test('#src=URL loads the instance from that URL', async () => {
  const src = encodeURIComponent(`${site.url}examples/example.json`);
  const page = await openPage(site.browser, `${site.url}#src=${src}`);
  await waitStatus(page, FINAL);
  assert.equal(await text(page, 'best-cost'), '445');
  const missing =
      await openPage(site.browser, `${site.url}#src=${encodeURIComponent(`${site.url}nope.json`)}`);
  await waitStatus(missing, 'error');
  assert.match(await text(missing, 'error'), /nope\.json: the server answered 404/);
  await page.context().close();
  await missing.context().close();
});

test(
    'a large local file travels as name and SHA-256; the page asks for it and checks it',
    async () => {
      const page = await openPage(site.browser, `${site.url}#v=2&ex=example.json&t=1`);
      await waitStatus(page, FINAL);
      await opening(page, () => page.setInputFiles('[data-testid=file-input]', B));
      const cost = await digits(page, 'best-cost');
      // The link is rewritten after the run ends: wait for it to carry the final cost.
      await page.waitForFunction(
          (c) => new RegExp(`[#&]cost=${c}(&|$)`)
                     .test(document.querySelector('[data-testid=permalink]').getAttribute('href')),
          cost, {timeout: 10000, polling: 50});
      const link = await page.getAttribute('[data-testid=permalink]', 'href');
      const ended = await status(page);
      const sha = native(['digest', B]).sha256;
      assert.match(link, new RegExp(`file=asplos-2025-iopddl-B.json.gz&sha=${sha}`));
      await page.context().close();
      const fresh = await openPage(site.browser, link);
      await fresh.waitForSelector('#file-request:not([hidden])');
      assert.match(await fresh.textContent('#file-request'), /asplos-2025-iopddl-B\.json\.gz/);
      await opening(fresh, () => fresh.setInputFiles('[data-testid=file-input]', G));
      assert.equal(await status(fresh), 'error', 'a different file is refused');
      assert.match(await text(fresh, 'error'), /the link was made with/);
      await fresh.context().close();
      const again = await openPage(site.browser, link);
      await again.waitForSelector('#file-request:not([hidden])');
      await opening(again, () => again.setInputFiles('[data-testid=file-input]', B));
      assert.equal(await status(again), ended, 'the run comes back with its own status');
      assert.equal(await digits(again, 'best-cost'), cost);
      await again.context().close();
    });

test('the plots download as one PNG', async () => {
  const page = await openPage(site.browser, `${site.url}#v=2&ex=asplos-2025-iopddl-B.json.gz&t=3`);
  await waitStatus(page, FINAL);
  const [download] =
      await Promise.all([page.waitForEvent('download'), page.click('#download-png')]);
  assert.equal(download.suggestedFilename(), 'asplos-2025-iopddl-B-plots.png');
  const png = fs.readFileSync(await download.path());
  assert.deepEqual([...png.subarray(1, 4)], [...Buffer.from('PNG')]);
  assert.ok(png.length > 10000, `a real picture (${png.length} bytes)`);
  await page.context().close();
});
