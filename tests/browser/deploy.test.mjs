// Browser test of the site served from a sub-path, as static hosts serve a
// project page (https://USER.github.io/shardlab/): build/wasm/site is linked
// at x/shardlab/ in a temporary folder, x is served, and /shardlab/ is opened.
// Every tab must load and solve, and no request may leave /shardlab/ (an
// absolute URL for a worker, the module, HiGHS or an example would).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {after, before, test} from 'node:test';

import {launch, openPage, scratchDir, serveSite, SITE, text, waitStatus} from './harness.mjs';

const served = {
  url: '',
  server: null,
  browser: null,
  dir: scratchDir('shardlab-subpath-')
};
before(async () => {
  fs.symlinkSync(path.resolve(SITE), path.join(served.dir, 'shardlab'), 'dir');
  // A decoy page at the root: the site only works if it finds everything
  // under /shardlab/.
  fs.writeFileSync(path.join(served.dir, 'index.html'), 'not the site\n');
  served.server = await serveSite(served.dir);
  served.browser = await launch();
});
after(async () => {
  if (served.browser) await served.browser.close();
  if (served.server) served.server.close();
});

test('every tab loads and solves from /shardlab/, and nothing is fetched outside it', async () => {
  const base = `${served.server.url}shardlab/`;
  const outside = [];
  const failed = [];
  const page = await openPage(served.browser, `${base}#v=3&lab=sharding&ex=example.json&t=1`, {
    prepare: async (context) => {
      context.on('request', (request) => {
        const url = request.url();
        if (/^https?:/.test(url) && !url.startsWith(base)) outside.push(url);
      });
      context.on('response', (response) => {
        if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
      });
    },
  });
  await waitStatus(page, ['done', 'stopped']);
  assert.equal(await text(page, 'best-cost'), '445');

  await page.click('[data-testid=tab-pipeline]');
  await waitStatus(page, ['ready'], 60000, 'pipeline');
  await page.selectOption('[data-testid=pl-example]', 'dualpipe_example.json');
  await page.waitForFunction(
      () => /DualPipe's example/.test(document.querySelector('[data-testid=pl-problem]').value));
  await waitStatus(page, ['ready'], 60000, 'pipeline');

  await page.click('[data-testid=tab-teach]');
  await waitStatus(page, ['done'], 60000, 'teach');
  assert.match(await text(page, 'teach-cost'), /\d/);
  await page.waitForSelector('[data-testid=handout-teach] h3');

  await page.click('[data-testid=tab-plan]');
  await waitStatus(page, ['done'], 90000, 'plan');

  assert.deepEqual(outside, [], 'requests outside /shardlab/');
  assert.deepEqual(failed, [], 'failed requests');
  assert.deepEqual(page.errors, []);
  assert.match(
      await page.getAttribute('[data-testid=permalink]', 'href'), /\/shardlab\/#v=3&lab=sharding/);
  await page.context().close();
});
