// Browser tests of the page shell (web/app.mjs): one tab per lab, the active
// tab and each tab's state in the URL fragment, older links still opening
// the sharding lab, and unreadable links reported. Labs' own behaviour is
// tested in their own files.
import assert from 'node:assert/strict';
import {test} from 'node:test';

import {openPage, status, text, useSite, waitStatus} from './harness.mjs';

const FINAL = ['done', 'stopped', 'error'];
const site = useSite();

const activeLab = (page) => page.getAttribute('#app', 'data-lab');
const fragment = (page) => page.evaluate(() => location.hash);

test('tabs switch labs, and the address bar carries the active tab with its state', async () => {
  const page = await openPage(site.browser, `${site.url}#v=3&lab=sharding&ex=example.json&t=1`);
  await waitStatus(page, FINAL);
  assert.equal(await text(page, 'best-cost'), '445');
  assert.equal(await activeLab(page), 'sharding');
  // The link is final once it carries the run's status (the cost comes first).
  await page.waitForFunction(() => /cost=445/.test(location.hash) && /[#&]st=/.test(location.hash));
  const shardingFragment = await fragment(page);
  assert.match(shardingFragment, /^#v=3&lab=sharding&ex=example.json&t=1&.*sol=.*&cost=445(&|$)/);

  await page.click('[data-testid=tab-teach]');
  assert.equal(await activeLab(page), 'teach');
  assert.equal(await page.getAttribute('[data-testid=tab-teach]', 'aria-selected'), 'true');
  assert.equal(await page.isVisible('#lab-sharding'), false);
  assert.match(await fragment(page), /^(#v=3&lab=teach.*)?$/);

  await page.click('[data-testid=tab-sharding]');
  assert.equal(await activeLab(page), 'sharding');
  assert.equal(await fragment(page), shardingFragment, 'the sharding state comes back');
  assert.equal(await text(page, 'best-cost'), '445', 'the lab kept running state while hidden');

  // A reload keeps the tab and its state: the plan comes back from the link.
  await page.reload();
  await waitStatus(page, FINAL);
  assert.equal(await activeLab(page), 'sharding');
  // The run's own status comes back with it: example.json is proven, so "done".
  assert.equal(await status(page), 'done');
  assert.equal(await text(page, 'best-cost'), '445');
  await page.context().close();
});

test('a link to another lab opens that tab without starting the sharding lab', async () => {
  const page = await openPage(site.browser, `${site.url}#v=3&lab=pipeline`);
  await page.waitForFunction(() => document.getElementById('app').dataset.lab === 'pipeline');
  assert.equal(await page.isVisible('#lab-pipeline'), true);
  assert.equal(await page.isVisible('#lab-sharding'), false);
  assert.equal(await status(page), 'idle', 'the sharding lab was not mounted');
  assert.equal(await page.evaluate(() => globalThis.shardlab === undefined), true);
  await page.context().close();
});

test('an unreadable link says why and the page still opens the sharding lab', async () => {
  for (const [hash, want] of [
           [
             '#v=9&lab=teach',
             /This link cannot be read: this link has version 9; this page reads versions 1 to 3/
           ],
           ['#v=3&lab=nope', /This link cannot be read: this link names the lab 'nope'/],
  ]) {
    const page = await openPage(site.browser, `${site.url}?time=1${hash}`);
    await waitStatus(page, FINAL);
    assert.match(await text(page, 'link-problems'), want);
    assert.equal(await activeLab(page), 'sharding');
    assert.match(await text(page, 'best-cost'), /^[\d,]+$/, 'the default example was solved');
    await page.context().close();
  }
});
