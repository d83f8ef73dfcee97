// Browser tests of the onboarding (web/intro.mjs, web/markdown.mjs): every
// tab opens with a start-here card that says what to do first and explains
// its words (winner, best known, lower bound, gap, ...), the loaded example
// is named in its menu, and the course hand-outs are shown in the page
// beside their example, rendered from examples/teach/*.md and
// examples/plan/*.md.
import assert from 'node:assert/strict';
import {test} from 'node:test';

import {openPage, text, useSite, waitStatus} from './harness.mjs';

const site = useSite();

test(
    'a fresh page says what to do first, names the loaded example and explains its words',
    async () => {
      const page = await openPage(site.browser, `${site.url}?time=1`);
      await page.waitForSelector('[data-testid=intro-sharding][open]');
      assert.match(
          await text(page, 'intro-sharding'),
          /^Start here.*The page opened B, a bundled contest instance/s);
      await waitStatus(page, ['done', 'stopped']);
      assert.equal(await page.inputValue('#examples'), 'asplos-2025-iopddl-B.json.gz');
      assert.match(
          await page.$eval('#examples', (s) => s.selectedOptions[0].textContent),
          /^B: Transformer/);
      const terms = await page.$$eval(
          '[data-testid=glossary-sharding] dt', (dts) => dts.map((dt) => dt.textContent));
      for (const term of ['best cost', 'lower bound', 'gap', 'best known', 'winner', 'XLA']) {
        assert.ok(terms.includes(term), `the glossary explains ${term}: ${terms}`);
      }
      assert.match(
          await page.$eval('[data-testid=glossary-sharding]', (dl) => dl.textContent),
          /winner.*contest's winning team/);

      // Closed once, the card stays closed after a reload.
      await page.click('[data-testid=intro-sharding] summary');
      await page.reload();
      await page.waitForSelector('[data-testid=intro-sharding]');
      assert.equal(await page.$eval('[data-testid=intro-sharding]', (d) => d.open), false);
      for (const lab of ['pipeline', 'teach', 'plan']) {
        await page.click(`[data-testid=tab-${lab}]`);
        await page.waitForSelector(`[data-testid=intro-${lab}][open]`);
        assert.match(await text(page, `intro-${lab}`), /^Start here/);
      }
      await page.context().close();
    });

test('each teaching example shows its hand-out beside it, rendered from its Markdown', async () => {
  const page = await openPage(site.browser, `${site.url}#v=3&lab=teach`);
  await waitStatus(page, ['done'], 60000, 'teach');
  const heading = '[data-testid=handout-teach] h3';
  await page.waitForSelector(heading);
  assert.equal(
      await page.textContent(heading), 'Hand-out: how should a 2-layer MLP be split over 8 GPUs?');
  // Markdown, not its source: bold as <strong>, code as <code>, lists as <li>.
  const html = await page.$eval('[data-testid=handout-teach]', (box) => box.innerHTML);
  assert.match(html, /<strong>Model<\/strong>/);
  assert.match(html, /<code>bd,df-&gt;bf<\/code>/);
  assert.match(html, /<li>/);
  assert.doesNotMatch(await text(page, 'handout-teach'), /\*\*|```/);

  await page.selectOption('[data-testid=teach-example]', 'zero.json');
  await page.waitForFunction(
      () => document.querySelector('[data-testid=handout-teach]').dataset.handout === 'zero.md' &&
          document.querySelector('[data-testid=handout-teach] h3'));
  assert.match(await page.textContent(heading), /^Hand-out: /);
  assert.notEqual(
      await page.textContent(heading), 'Hand-out: how should a 2-layer MLP be split over 8 GPUs?');
  await page.context().close();
});

test('the plan tab offers its four hand-outs, tables and commands included', async () => {
  const page = await openPage(site.browser, `${site.url}#v=3&lab=plan`);
  await page.waitForSelector('[data-testid=handout-plan-choice]');
  const choices = await page.$$eval(
      '[data-testid=handout-plan-choice] option', (os) => os.map((o) => o.value).filter(Boolean));
  assert.deepEqual(
      choices.sort(),
      ['recompute_memory.md', 'tp_inside_node.md', 'when_pipelining_pays.md', 'zero_vs_tp.md']);
  await page.selectOption('[data-testid=handout-plan-choice]', 'tp_inside_node.md');
  await page.waitForSelector('[data-testid=handout-plan] h3');
  assert.equal(
      await page.textContent('[data-testid=handout-plan] h3'),
      'Hand-out: why does tensor parallelism stay inside a node?');
  assert.ok(await page.$('[data-testid=handout-plan] table th'), 'its table is a table');
  assert.ok(await page.$('[data-testid=handout-plan] pre code'), 'its commands are code');
  await page.context().close();
});
