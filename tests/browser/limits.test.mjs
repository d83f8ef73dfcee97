// Browser tests of wall-clock limits (issue 26): the sharding tab shows the
// solving time against the limit ("1.4 / 2 s") while it runs and after, and
// the run's time is counted from Start. How far a run overshoots its limit
// is measured by tests/bench/page_limits_bench.mjs, never asserted here.
import assert from 'node:assert/strict';
import {test} from 'node:test';

import {openPage, text, useSite, waitStatus} from './harness.mjs';

const FINAL = ['done', 'stopped', 'error'];
const site = useSite();

test('the sharding tab shows "elapsed / limit s" while solving and after', async () => {
  const page = await openPage(site.browser, `${site.url}#v=2&ex=asplos-2025-iopddl-G.json.gz&t=2`);
  // G can be proven in a second or two: the solving state may be gone before a poll sees it.
  await waitStatus(page, ['solving', ...FINAL], 60000);
  await page.waitForFunction(
      () => /^\d+\.\d \/ 2 s$/.test(document.querySelector('[data-testid=elapsed]').textContent),
      null, {timeout: 10000, polling: 20});
  await waitStatus(page, FINAL, 120000);
  const shown = await text(page, 'elapsed');
  assert.match(shown, /^\d+\.\d \/ 2 s$/);
  const elapsedS = await page.evaluate(() => window.shardlab.client.elapsedS);
  const proven =
      await page.evaluate(() => window.shardlab.client.best.cost === window.shardlab.client.bound);
  assert.ok(
      proven || elapsedS >= 2, `the run used its limit or proved the optimum (${elapsedS} s)`);
  assert.equal(shown, `${elapsedS.toFixed(1)} / 2 s`);
  await page.context().close();
});

test('a resumed run counts on from the time already spent', async () => {
  const page = await openPage(site.browser, `${site.url}#v=2&ex=asplos-2025-iopddl-G.json.gz&t=1`);
  await waitStatus(page, FINAL, 120000);
  const first = await page.evaluate(() => window.shardlab.client.elapsedS);
  await page.click('[data-testid=start]');
  // The resumed run may end (proven) before a poll of the status sees
  // "solving": wait on its clock instead, then on the end of the run.
  await page.waitForFunction(
      (before) => window.shardlab.client.elapsedS > before, first, {timeout: 60000, polling: 20});
  await waitStatus(page, FINAL, 120000);
  const second = await page.evaluate(() => window.shardlab.client.elapsedS);
  // It runs one more second, unless it proves the optimum first (G can be).
  const proven =
      await page.evaluate(() => window.shardlab.client.best.cost === window.shardlab.client.bound);
  assert.ok(second > first, `${second} s after ${first} s`);
  assert.ok(proven || second >= first + 1, `${second} s after ${first} s and one more second`);
  // The limit shown is the run's: cumulative, one more second than the first run's time.
  assert.match(await text(page, 'elapsed'), new RegExp(`^${second.toFixed(1)} / [\\d.]+ s$`));
  await page.context().close();
});
