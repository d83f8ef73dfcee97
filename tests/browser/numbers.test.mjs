// Browser tests of the page's numbers (issue 26, "Numbers"): costs and
// bounds grouped in full, gaps as percentages without e-notation, memory with
// units in the tooltips and the summary, and a cost curve whose axis is
// scaled from its second point, with the first plan said to be off-scale.
import assert from 'node:assert/strict';
import {test} from 'node:test';

import {openPage, text, useSite, waitStatus} from './harness.mjs';

const FINAL = ['done', 'stopped', 'error'];
const GROUPED = /^\d{1,3}(,\d{3})+$/;
const site = useSite();

test('the sharding readouts group costs and bounds and give the gap in percent', async () => {
  const page = await openPage(site.browser, `${site.url}#v=2&ex=asplos-2025-iopddl-G.json.gz&t=2`);
  await waitStatus(page, FINAL, 120000);
  const cost = await text(page, 'best-cost');
  assert.match(cost, GROUPED);
  assert.equal(
      cost.replace(/,/g, ''), await page.getAttribute('[data-testid=best-cost]', 'data-value'));
  assert.match(await text(page, 'lower-bound'), GROUPED);
  assert.match((await page.textContent('#gap')).trim(), /^(0|< 0\.0001|\d+(\.\d+)?)%$/);
  const summary = await page.textContent('#summary');
  assert.match(summary, /usage limit\s*[\d.]+ (kB|MB|GB) \([\d\u2009]+ B\)/);
  await page.context().close();
});

test('the memory tooltip gives usages with units', async () => {
  const page = await openPage(site.browser, `${site.url}#v=2&ex=asplos-2025-iopddl-G.json.gz&t=1`);
  await waitStatus(page, FINAL, 120000);
  const box = await (await page.$('[data-testid=memory-chart]')).boundingBox();
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5);
  await page.waitForSelector('#memory-tooltip:not([hidden])', {timeout: 10000});
  const tip = await page.textContent('#memory-tooltip');
  assert.match(tip, /usage [\d.,]+ (B|kB|MB|GB)/, tip);
  await page.context().close();
});

test(
    'the cost axis is scaled from the second point, and the first plan is said off-scale',
    async () => {
      const page =
          await openPage(site.browser, `${site.url}#v=2&ex=asplos-2025-iopddl-G.json.gz&t=2`);
      await waitStatus(page, FINAL, 120000);
      const costs = await page.evaluate(
          () => window.shardlab.client.trace.filter((e) => e[2]).map((e) => Number(e[3])));
      assert.ok(costs.length >= 2, 'a greedy plan, then better ones');
      // Wait for the frame that draws the final state.
      await page.waitForFunction(
          () => document.querySelector('[data-testid=cost-chart]').dataset.yDomain, null,
          {timeout: 5000});
      const [, top] = (await page.getAttribute('[data-testid=cost-chart]', 'data-y-domain'))
                          .split(',')
                          .map(Number);
      const last = costs[costs.length - 1];
      assert.ok(top < 1.5 * last, `the axis ends at ${top}, near the best ${last}`);
      if (costs[0] > top) {
        assert.equal(
            Number(await page.getAttribute('[data-testid=cost-chart]', 'data-off-scale')),
            costs[0]);
      }
      await page.context().close();
    });
