// Browser tests of restoring a run (issue 26, "Restore"): a permalink and the
// browser's IndexedDB record bring back the cost, the bound, the curve and
// the status exactly, said as "restored from <date>"; whatever of a link
// cannot be applied is named at the top of the tab it opens; ex= opens only
// the bundled examples, on every tab. Waits on data-status, never sleeps.
import assert from 'node:assert/strict';
import {test} from 'node:test';

import {openPage, status, text, useSite, waitStatus} from './harness.mjs';

const FINAL = ['done', 'stopped', 'error'];
const site = useSite();

// What the sharding tab shows of a run, for comparing two pages.
async function shown(page) {
  return {
    status: await status(page),
    cost: await text(page, 'best-cost'),
    bound: await text(page, 'lower-bound'),
    gap: (await page.textContent('#gap')).trim(),
    trace: await page.evaluate(
        () => window.shardlab.client.trace.filter((e) => e[2]).map(([, , , c, b]) => [c, b])),
  };
}

test('a permalink restores the cost, bound, curve and status of the run exactly', async () => {
  const page = await openPage(site.browser, `${site.url}#v=2&ex=asplos-2025-iopddl-G.json.gz&t=3`);
  await waitStatus(page, FINAL, 120000);
  const before = await shown(page);
  assert.equal(before.status, 'done');
  assert.notEqual(before.bound, '0');
  // The link is rewritten 300 ms after the last change; take it once it holds the end.
  await page.waitForFunction(
      () => /&st=done/.test(document.querySelector('[data-testid=permalink]').href), null,
      {timeout: 10000, polling: 100});
  const link = await page.getAttribute('[data-testid=permalink]', 'href');
  await page.context().close();

  const fresh = await openPage(site.browser, link);
  await waitStatus(fresh, FINAL, 120000);
  const after = await shown(fresh);
  assert.deepEqual(after, before);
  assert.match(
      await fresh.textContent('#stored-note'),
      /^Restored from this link, saved \d{4}-\d\d-\d\d \d\d:\d\d UTC: cost [\d,]+, lower bound [\d,]+, done\.$/);
  assert.equal(await fresh.getAttribute('[data-testid=cost-chart]', 'data-drawn'), 'true');
  assert.match(await text(fresh, 'elapsed'), /^\d+\.\d \/ 3 s$/);
  assert.equal(await fresh.isVisible('[data-testid=link-problems]'), false);
  assert.deepEqual(fresh.errors, []);
  await fresh.context().close();
});

test('a reload restores the stored run from IndexedDB, bound and curve included', async () => {
  const page = await openPage(site.browser, `${site.url}#v=2&ex=asplos-2025-iopddl-G.json.gz&t=2`);
  await waitStatus(page, FINAL, 120000);
  const before = await shown(page);
  // Saved at the end of the run (scheduleSave(0)); wait for the record.
  await page.waitForFunction(
      () => new Promise((resolve) => {
        const req = indexedDB.open('shardlab');
        req.onsuccess = () => {
          const all = req.result.transaction('best').objectStore('best').getAll();
          all.onsuccess = () => resolve(all.result.some((r) => r.status === 'done' && r.trace));
          all.onerror = () => resolve(false);
        };
        req.onerror = () => resolve(false);
      }),
      null, {timeout: 10000, polling: 200});
  // The same link without the plan: only the browser's record can restore it.
  await page.goto(`${site.url}?reload=1#v=3&lab=sharding&ex=asplos-2025-iopddl-G.json.gz&t=2`);
  await waitStatus(page, FINAL, 120000);
  const after = await shown(page);
  assert.deepEqual(after, before);
  assert.match(await page.textContent('#stored-note'), /^Restored from this browser, saved /);
  await page.context().close();
});

test('an unknown version is named at the top of the tab, not silently replaced', async () => {
  const page = await openPage(site.browser, `${site.url}#v=9&lab=sharding&ex=example.json`);
  await page.waitForSelector('[data-testid=link-problems]', {timeout: 30000});
  const box = await page.$('[data-testid=link-problems]');
  assert.match(await box.textContent(), /this link has version 9; this page reads versions 1 to 3/);
  const rect = await box.boundingBox();
  assert.ok(rect && rect.y + rect.height <= 1000, `the notice is on screen (y ${rect && rect.y})`);
  await page.context().close();
});

test('bad keys and values of a sharding link are each named; the rest applies', async () => {
  const page = await openPage(
      site.browser, `${site.url}#v=3&lab=sharding&ex=example.json&t=abc&zz=1&st=running&w=1`);
  await waitStatus(page, FINAL);
  const problems = await text(page, 'link-problems');
  assert.match(problems, /t=abc: not a number >= 0; not applied/);
  assert.match(problems, /zz=1: the sharding lab has no key 'zz'; ignored/);
  assert.match(problems, /st=running: not a run status/);
  assert.equal(await text(page, 'best-cost'), '445', 'the example in the link opened');
  await page.context().close();
});

test('ex= opens only the bundled examples, on every tab', async () => {
  for (const [lab, hash] of [
           ['sharding', '#v=3&lab=sharding&ex=../../../../etc/passwd'],
           ['pipeline', '#v=3&lab=pipeline&ex=../../../../etc/passwd'],
           ['teach', '#v=3&lab=teach&ex=../../../../etc/passwd'],
  ]) {
    const requested = [];
    const page = await openPage(site.browser, `${site.url}${hash}`, {
      prepare: async (context) => context.on('request', (r) => requested.push(r.url())),
    });
    await page.waitForSelector(`#lab-${lab} [data-testid=link-problems]`, {timeout: 30000});
    assert.match(
        await page.textContent(`#lab-${lab} [data-testid=link-problems]`),
        /ex=\.\.\/\.\.\/\.\.\/\.\.\/etc\/passwd: not one of the bundled examples/, lab);
    assert.deepEqual(
        requested.filter((u) => /passwd/.test(u)), [], `${lab} fetched nothing outside`);
    await page.context().close();
  }
});

test('bad keys of a pipeline link are named at the top of its tab', async () => {
  const page = await openPage(site.browser, `${site.url}#v=3&lab=pipeline&p=four&zz=1&ex=zb`);
  await page.waitForSelector('#lab-pipeline [data-testid=link-problems]', {timeout: 30000});
  const problems = await page.textContent('#lab-pipeline [data-testid=link-problems]');
  assert.match(problems, /p=four: not a number; not applied/);
  assert.match(problems, /zz=1: the pipeline lab has no key 'zz'; ignored/);
  await page.context().close();
});
