// Browser tests of the page's accessibility on every tab: axe-core (npm,
// node_modules/axe-core) finds no serious or critical violation in the light
// and the dark palette; no panel is a live region, each tab has one small
// status-only live region; every plot has a data table; a 390 px phone
// never scrolls sideways; prefers-color-scheme: dark gives a dark page.
import assert from 'node:assert/strict';
import path from 'node:path';
import {test} from 'node:test';

import {openPage, SOURCE, useSite, waitStatus} from './harness.mjs';

const site = useSite();
const AXE = path.join(SOURCE, 'node_modules/axe-core/axe.min.js');
// What each tab shows once it has settled (its data-status).
const SETTLED = {
  sharding: ['done', 'stopped'],
  pipeline: ['ready'],
  teach: ['done'],
  plan: ['done'],
};
const LINK = {
  sharding: '#v=3&lab=sharding&ex=example.json&t=1',
  pipeline: '#v=3&lab=pipeline',
  teach: '#v=3&lab=teach',
  plan: '#v=3&lab=plan',
};

async function openTab(lab, options = {}) {
  const page = await openPage(site.browser, `${site.url}${LINK[lab]}`, options);
  await waitStatus(page, SETTLED[lab], 90000, lab);
  return page;
}

/** axe's serious and critical violations on the page, one line each. */
async function seriousViolations(page) {
  await page.addScriptTag({path: AXE});
  const violations = await page.evaluate(async () => {
    const result = await globalThis.axe.run(document, {resultTypes: ['violations']});
    return result.violations.map(
        (v) => ({
          id: v.id,
          impact: v.impact,
          nodes: v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')}: ${n.failureSummary}`),
        }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.join(' | ')}`);
}

for (const scheme of ['light', 'dark']) {
  test(`axe finds no serious or critical violation on any tab (${scheme})`, async () => {
    for (const lab of Object.keys(LINK)) {
      const context = {colorScheme: scheme};
      const page = await openTab(lab, {
        prepare: async (ctx) => ctx.setExtraHTTPHeaders({}),
        viewport: {width: 1360, height: 1000},
      });
      await page.emulateMedia(context);
      assert.deepEqual(await seriousViolations(page), [], `the ${lab} tab, ${scheme}`);
      await page.context().close();
    }
  });
}

// Beside the tab's status region, the only live regions are the small ones
// next to a control (web/feedback.mjs: "Copied", a refusal), silent until
// that control is used.
test('no panel is a live region; each tab has one small status-only live region', async () => {
  for (const lab of Object.keys(LINK)) {
    const page = await openTab(lab);
    const found = await page.evaluate((lab) => {
      const section = document.getElementById(`lab-${lab}`);
      return [...section.querySelectorAll('[aria-live], [role=status], [role=log]')]
          .filter((el) => el.getAttribute('aria-live') !== 'off')
          .map((el) => ({
                 testid: el.dataset.testid || el.id,
                 text: el.textContent.trim(),
                 feedback: el.classList.contains('feedback'),
               }));
    }, lab);
    assert.equal(await page.getAttribute(`#lab-${lab}`, 'aria-live'), null);
    const regions = found.filter((r) => !r.feedback);
    assert.deepEqual(regions.map((r) => r.testid), [`live-${lab}`], `the ${lab} tab`);
    assert.deepEqual(
        found.filter((r) => r.feedback && r.text).map((r) => r.testid), [],
        `the ${lab} tab's feedback regions are silent until their control is used`);
    const status = await page.getAttribute(`#lab-${lab}`, 'data-status');
    assert.match(regions[0].text, new RegExp(`^\\w+ lab: ${status}$`));
    await page.context().close();
  }
});

test('every plot has a data table with its numbers', async () => {
  const tables = {
    sharding: ['cost-chart-table', 'memory-chart-table'],
    pipeline: ['pl-timeline-table'],
    plan: ['plan-memory-table'],
  };
  for (const [lab, ids] of Object.entries(tables)) {
    const page = await openTab(lab);
    for (const id of ids) {
      const table = `[data-testid=${id}]`;
      await page.click(`${table} summary`);
      await page.waitForFunction(
          (sel) => document.querySelectorAll(`${sel} tbody tr`).length > 0 &&
              document.querySelectorAll(`${sel} thead th`).length > 1,
          table);
      const headers =
          await page.$$eval(`${table} thead th`, (ths) => ths.map((t) => t.textContent));
      const first = await page.$$eval(
          `${table} tbody tr:first-child td`, (tds) => tds.map((t) => t.textContent));
      assert.equal(first.length, headers.length, `${id}: ${headers.join(', ')}`);
      if (id === 'cost-chart-table') {
        assert.deepEqual(headers, ['time', 'best cost', 'lower bound', 'gap']);
        const last = await page.$$eval(
            `${table} tbody tr:last-child td`, (tds) => tds.map((t) => t.textContent));
        assert.equal(last[1], '445', 'the example\'s optimum is the last best cost');
      }
    }
    await page.context().close();
  }
});

test('a 390 px phone never scrolls sideways, on any tab', async () => {
  for (const lab of Object.keys(LINK)) {
    const page = await openTab(lab, {viewport: {width: 390, height: 844}});
    const widths = await page.evaluate(
        () => ({
          scroll: document.documentElement.scrollWidth,
          wide: [
            ...document.querySelectorAll('body *')
          ].filter((el) => el.getBoundingClientRect().right > 391 && el.offsetParent !== null)
                    .slice(0, 5)
                    .map(
                        (el) => `${el.tagName.toLowerCase()}#${
                            el.id || el.dataset.testid || el.className}`),
        }));
    assert.ok(
        widths.scroll <= 390,
        `the ${lab} tab is ${widths.scroll} px wide: ${widths.wide.join(', ')}`);
    await page.context().close();
  }
});

test('prefers-color-scheme: dark gives a dark page with light text', async () => {
  const page = await openTab('sharding');
  await page.emulateMedia({colorScheme: 'dark'});
  const colours = await page.evaluate(() => {
    const parse = (c) => c.match(/\d+(\.\d+)?/g).slice(0, 3).map(Number);
    const lum = ([r, g, b]) => (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
    const body = getComputedStyle(document.body);
    const panel = getComputedStyle(document.querySelector('.readouts'));
    return {
      page: lum(parse(body.backgroundColor)),
      ink: lum(parse(body.color)),
      panel: lum(parse(panel.backgroundColor)),
    };
  });
  assert.ok(colours.page < 0.15, `page luminance ${colours.page}`);
  assert.ok(colours.panel < 0.2, `panel luminance ${colours.panel}`);
  assert.ok(colours.ink > 0.75, `text luminance ${colours.ink}`);
  await page.context().close();
});
