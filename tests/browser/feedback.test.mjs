// Browser tests of feedback next to the action (issue 26, web/feedback.mjs):
// on the pipeline tab the PyTorch CSV button is disabled for DualPipe and
// says why (title and aria-describedby), the core's refusal of an export
// appears beside the button rather than at the top of the page, and
// downloads and "Copy link" confirm themselves beside their buttons; the
// sharding tab's downloads and copy do the same, and before an instance is
// open its Start, downloads and copy are disabled with the reason.
import assert from 'node:assert/strict';
import {test} from 'node:test';

import {openPage, text, useSite, waitSaved, waitStatus} from './harness.mjs';

const site = useSite();
const clipboard = (context) =>
    context.grantPermissions(['clipboard-read', 'clipboard-write'], {origin: site.url});

// The text an element's aria-describedby points at.
const description = (page, selector) => page.$eval(
    selector,
    (el) => (el.getAttribute('aria-describedby') || '')
                .split(/\s+/)
                .filter(Boolean)
                .map((id) => document.getElementById(id).textContent)
                .filter(Boolean)
                .join(' '));

async function settledPipeline(page) {
  await page.waitForFunction(
      () => Number(document.getElementById('lab-pipeline')?.dataset.computed || 0) > 0, null,
      {timeout: 60000, polling: 50});
  await waitStatus(page, ['ready', 'error'], 60000, 'pipeline');
}

async function saved(page, testid) {
  const [download] =
      await Promise.all([page.waitForEvent('download'), page.click(`[data-testid=${testid}]`)]);
  await page.waitForFunction(
      (id) => document.querySelector(`[data-testid=${id}-feedback]`)?.textContent, testid);
  const said = await text(page, `${testid}-feedback`);
  return {file: download.suggestedFilename(), said};
}

test(
    'pipeline: a disabled CSV export says why, and a refusal shows beside its button', async () => {
      const page = await openPage(
          site.browser, `${site.url}#v=3&lab=pipeline&p=4&m=8&s=DualPipe`, {prepare: clipboard});
      await settledPipeline(page);
      assert.equal(await text(page, 'pl-schedule-name'), 'DualPipe');
      const csv = '[data-testid=pl-download-csv]';
      assert.equal(await page.isDisabled(csv), true);
      const why =
          'PyTorch CSV: needs a schedule whose stages run on one rank each (DualPipe runs ' +
          'two parameter copies in opposite directions; torch:DualPipeV is the form PyTorch runs)';
      assert.equal(await page.getAttribute(csv, 'title'), why);
      assert.equal(await description(page, csv), why);

      // The core refuses the same schedule; its words land beside the button,
      // not in the page's error box at the top.
      await page.$eval(csv, (button) => {
        button.disabled = false;
      });
      await page.click(csv);
      await page.waitForFunction(
          () => document.querySelector('[data-testid=pl-download-csv-feedback]')?.textContent);
      assert.match(
          await text(page, 'pl-download-csv-feedback'),
          /^the PyTorch schedule CSV cannot hold DualPipe: it runs two parameter copies/);
      assert.equal(await page.isHidden('[data-testid=pl-error]'), true);
      assert.equal(
          await page.$eval(csv, (b) => b.nextElementSibling.dataset.testid),
          'pl-download-csv-feedback');

      // 1F1B fits the format: the button is enabled again, with its own title.
      await page.selectOption('[data-testid=pl-schedule]', '1F1B');
      await page.waitForFunction(
          (s) => !document.querySelector(s).disabled, csv, {timeout: 30000, polling: 50});
      assert.equal(
          await page.getAttribute(csv, 'title'), 'torch.distributed.pipelining\'s schedule CSV');
      assert.equal(await description(page, csv), '');
      const got = await saved(page, 'pl-download-csv');
      assert.equal(got.said, `Saved ${got.file}`);
      assert.match(got.file, /1F1B\.csv$/);
      for (const testid of ['pl-download-json', 'pl-download-trace', 'pl-download-problem']) {
        const {file, said} = await saved(page, testid);
        assert.equal(said, `Saved ${file}`, testid);
      }

      await page.click('#pl-copy-link');
      await page.waitForFunction(
          () =>
              document.getElementById('pl-copy-link-feedback')?.textContent === 'Copied the link');
      assert.equal(
          await page.evaluate(() => navigator.clipboard.readText()),
          await page.getAttribute('[data-testid=pl-permalink]', 'href'));
      assert.equal(await page.getAttribute('#pl-copy-link-feedback', 'aria-live'), 'polite');
      assert.deepEqual(page.errors, []);
      await page.context().close();
    });

test('sharding: downloads and Copy link confirm beside their buttons', async () => {
  const page = await openPage(
      site.browser, `${site.url}?time=1#v=2&ex=example.json&t=1`, {prepare: clipboard});
  await waitStatus(page, ['done', 'stopped', 'error'], 120000);
  await waitSaved(page);  // the link is not rewritten under the copy
  const result = await saved(page, 'download-result');
  assert.equal(result.file, 'example.result.json');
  assert.equal(result.said, 'Saved example.result.json');
  await page.click('#copy-link');
  await page.waitForFunction(
      () => document.getElementById('copy-link-feedback')?.textContent === 'Copied the link');
  assert.equal(
      await page.evaluate(() => navigator.clipboard.readText()),
      await page.getAttribute('[data-testid=permalink]', 'href'));
  assert.equal(
      await page.$eval('#copy-link', (b) => b.nextElementSibling.id), 'copy-link-feedback');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('sharding: with no instance, Start and the downloads are disabled and say why', async () => {
  // The default example cannot be read: the tab has no instance.
  const page = await openPage(site.browser, `${site.url}#v=2&ex=example.json`, {
    prepare: (context) => context.route('**/examples/example.json', (route) => route.abort()),
  });
  await waitStatus(page, 'error', 60000);
  const open = 'open an instance first (an example above, a file, or drop one on the page)';
  for (const [id, label] of [
           ['start', 'Start'], ['download-result', 'Result JSON'],
           ['download-line', 'Solution line'], ['copy-link', 'Copy link']]) {
    assert.equal(await page.isDisabled(`#${id}`), true, id);
    assert.equal(await page.getAttribute(`#${id}`, 'title'), `${label}: ${open}`);
    assert.equal(await description(page, `#${id}`), `${label}: ${open}`);
  }
  assert.equal(await page.getAttribute('#stop', 'title'), 'Stop: nothing is running (press Start)');
  // Once an instance is open and solved, they are enabled and say nothing more.
  await page.context().unroute('**/examples/example.json');
  await page.selectOption('#examples', 'example.json');
  await waitStatus(page, ['done', 'stopped'], 120000);
  for (const id of ['start', 'download-result', 'download-line', 'copy-link']) {
    assert.equal(await page.isDisabled(`#${id}`), false, id);
    assert.equal(await description(page, `#${id}`), '', id);
  }
  assert.equal(await page.isDisabled('#stop'), true);
  await page.context().close();
});

test('teach: a disabled export says why until there is something to export', async () => {
  const page = await openPage(site.browser, `${site.url}#v=3&lab=teach&ex=mlp.json`);
  await waitStatus(page, ['done', 'error'], 120000, 'teach');
  assert.equal(await page.isDisabled('[data-testid=teach-copy-jax]'), false);
  assert.equal(await description(page, '[data-testid=teach-copy-jax]'), '');
  // An empty model: the model's exports say why they are off.
  await page.fill('[data-testid=teach-text]', '');
  assert.equal(await page.isDisabled('[data-testid=teach-save-model]'), true);
  assert.equal(
      await page.getAttribute('[data-testid=teach-save-model]', 'title'),
      'Download the model: the model text is empty');
  assert.equal(
      await description(page, '[data-testid=teach-copy-model]'),
      'Copy the model: the model text is empty');
  await page.context().close();
});
