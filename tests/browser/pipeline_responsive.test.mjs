// Browser tests of the pipeline tab's responsiveness and legibility (issue
// 26): schedules simulated one call each in the worker with the compare
// table filled row by row, in place, and no schedule parsed on the page;
// hovering redraws from a cached layer; every cell of DualPipe's example
// labelled, the reverse direction hatched in its kind's colour with a
// legend entry; a preset drops the previous preset's stacked schedule; row
// and memory-strip labels never overlap at p 32 and 64; a stop keeps the
// planner's best. Wall-clock figures (long tasks at p 64, m 512, Stop
// latencies) are tests/bench/page_responsive_bench.mjs's: a loaded machine
// would make them flaky here.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import {test} from 'node:test';

import {openPage, useSite, waitStatus} from './harness.mjs';

const LAB = 'pipeline';
const site = useSite();
const open = (hash, options = {}) =>
    openPage(site.browser, `${site.url}#v=3&lab=pipeline${hash}`, options);
const computed = (page) =>
    page.getAttribute('#lab-pipeline', 'data-computed').then((v) => Number(v || 0));

async function settled(page, before = 0) {
  await page.waitForFunction(
      (n) => Number(document.getElementById('lab-pipeline').dataset.computed || 0) > n, before,
      {timeout: 180000, polling: 50});
  await waitStatus(page, ['ready', 'error'], 180000, LAB);
  assert.equal(await page.getAttribute('#lab-pipeline', 'data-status'), 'ready');
}

async function choosePreset(page, id) {
  const before = await computed(page);
  await page.selectOption('[data-testid=pl-example]', id);
  await settled(page, before);
}

// The timeline's data attributes once its layer has been drawn.
function timelineData(page) {
  return page.$eval('[data-testid=pl-timeline]', (canvas) => ({...canvas.dataset}));
}

async function drawnTimeline(page) {
  await page.waitForFunction(() => {
    const canvas = document.querySelector('[data-testid=pl-timeline]');
    return canvas.dataset.drawn === 'true' && canvas.dataset.cells !== undefined;
  }, null, {timeout: 60000, polling: 50});
  return timelineData(page);
}

const positions = (list) => (list ? list.split(',').map(Number) : []);

test(
    'the compare table fills row by row from the worker; the page parses no schedule', async () => {
      // Record the compare table's pending rows whenever it changes, from the start.
      const page = await openPage(site.browser, `${site.url}#v=3&lab=pipeline&p=8&m=32`, {
        prepare: (context) => context.addInitScript(() => {
          window.rowStates = [];
          window.rowsRemoved = 0;
          document.addEventListener('DOMContentLoaded', () => {
            new MutationObserver((records) => {
              for (const record of records) {
                if (!record.target.closest || !record.target.closest('[data-testid=pl-compare]')) {
                  continue;
                }
                for (const node of [...record.removedNodes]) {
                  if (node.nodeName === 'TR') ++window.rowsRemoved;
                  if (node.querySelectorAll)
                    window.rowsRemoved += node.querySelectorAll('tr').length;
                }
              }
              const rows = [...document.querySelectorAll('[data-testid=pl-compare] tbody tr')];
              if (rows.length) {
                window.rowStates.push(rows.filter((r) => r.dataset.pending === 'true').length);
              }
            }).observe(document.body, {childList: true, subtree: true});
          });
        }),
      });
      await settled(page);
      const states = await page.evaluate(() => window.rowStates);
      assert.ok(states.some((n) => n > 0), `rows waited for the worker: ${states}`);
      assert.ok(new Set(states).size >= 3, `rows filled one by one: ${states}`);
      assert.equal(states[states.length - 1], 0, 'every row is filled at the end');
      // In place: a schedule arriving replaces its own row, not the table.
      const [removed, rows] = await page.evaluate(
          () =>
              [window.rowsRemoved,
               document.querySelectorAll('[data-testid=pl-compare] tbody tr').length]);
      assert.ok(removed <= 2 * rows, `rows replaced while filling: ${removed} (${rows} rows)`);
      // Drawn or not, no schedule is parsed on the page: the worker sends its
      // numbers, and the packed layout (typed arrays) of those drawn.
      const parsed = await page.evaluate(() => {
        const app = globalThis.shardlabPipeline;
        const drawn = [app.shown, app.stacked];
        return [...app.schedules]
            .filter(([, e]) => e.summary)
            .map(
                ([name, e]) =>
                    [name, e.parsed !== null,
                     drawn.includes(name) ? e.layout.slotStart instanceof Float64Array : null]);
      });
      assert.ok(parsed.length >= 6, `schedules simulated: ${parsed.map(([n]) => n)}`);
      for (const [name, isParsed, packed] of parsed) {
        assert.deepEqual([isParsed, packed !== false], [false, true], `${name}: parsed, packed`);
      }
      assert.deepEqual(page.errors, []);
      await page.close();
    });

// The structure that keeps a large schedule's opening free of long tasks
// (the times themselves are tests/bench/page_responsive_bench.mjs's): the
// main thread never parses a schedule's JSON nor decodes its text, and the
// timeline paints its cells without a canvas call per cell.
test(
    'a large schedule opens without its JSON on the main thread or a canvas call per cell',
    async () => {
      const [p, m] = [32, 128];
      const page = await open(`&p=${p}&m=${m}`, {
        prepare: (context) => context.addInitScript(() => {
          const seen = {parsed: 0, decoded: 0, rects: 0};
          window.mainThread = seen;
          const parse = JSON.parse;
          JSON.parse = function(text, ...rest) {
            seen.parsed = Math.max(seen.parsed, String(text).length);
            return parse.call(this, text, ...rest);
          };
          const decode = TextDecoder.prototype.decode;
          TextDecoder.prototype.decode = function(input, ...rest) {
            seen.decoded = Math.max(seen.decoded, input ? input.byteLength : 0);
            return decode.call(this, input, ...rest);
          };
          const count = (proto, name, key) => {
            const original = proto[name];
            proto[name] = function(...args) {
              ++seen[key];
              return original.apply(this, args);
            };
          };
          for (const proto of [CanvasRenderingContext2D.prototype, Path2D.prototype]) {
            count(proto, 'rect', 'rects');
          }
          count(CanvasRenderingContext2D.prototype, 'fillRect', 'rects');
          // Painted cells reach the layer through an offscreen canvas: how
          // tall the largest one drawn from was (drawing from a canvas copies
          // all of it).
          seen.sourceRows = 0;
          const drawImage = CanvasRenderingContext2D.prototype.drawImage;
          CanvasRenderingContext2D.prototype.drawImage = function(source, ...rest) {
            if (source instanceof OffscreenCanvas) {
              seen.sourceRows = Math.max(seen.sourceRows, source.height);
            }
            return drawImage.call(this, source, ...rest);
          };
        }),
      });
      await settled(page);
      const data = await drawnTimeline(page);
      const seen = await page.evaluate(() => window.mainThread);
      const ops = await page.evaluate(() => {
        const app = globalThis.shardlabPipeline;
        return app.schedules.get(app.shown).layout.nOps;
      });
      assert.ok(ops >= p * m * 2, `the shown schedule is large: ${ops} ops`);
      assert.ok(
          seen.parsed < 64 * 1024, `the largest JSON parsed on the main thread: ${seen.parsed}`);
      assert.ok(seen.decoded < 64 * 1024, `the largest text decoded there: ${seen.decoded}`);
      assert.ok(
          Number(data.painted) >= p * m * 2, `cells painted in the whole view: ${data.painted}`);
      // The layer is drawn in steps (one task runs as many as fit in 8 ms):
      // none paints more than a few thousand cells.
      assert.ok(
          Number(data.stepCells) <= 2000 && Number(data.stepCells) * 2 < Number(data.painted),
          `the most cells one step painted: ${data.stepCells} of ${data.painted}`);
      // Every canvas rectangle of the load (every layer drawn, the memory
      // strips, the other plots): far fewer than the cells.
      assert.ok(seen.rects < (p * m) / 4, `canvas rectangles: ${seen.rects} for ${data.painted}`);
      // Band by band (a step's rows), never the whole image of 32 rows of 9 px.
      assert.ok(
          seen.sourceRows > 0 && seen.sourceRows <= (p * 9) / 4,
          `the tallest canvas the cells were drawn from: ${seen.sourceRows} px`);
      assert.deepEqual(page.errors, []);
      await page.close();
    });

// The compare and per-device tables sit below the timeline: while far from
// the view (a short window at p 64) the browser skips their layout
// (content-visibility), which every schedule arriving would redo (tens of
// milliseconds each at p 64).
test('the tables below the timeline are skipped by layout while off screen', async () => {
  const page = await open('&p=64&m=64', {viewport: {width: 1360, height: 400}});
  await settled(page);
  const rendered = (testid) => page.$eval(
      `[data-testid=${testid}] td`, (td) => td.checkVisibility({contentVisibilityAuto: true}));
  assert.equal(await rendered('pl-compare'), false, 'the compare table is skipped');
  assert.equal(await rendered('pl-devices'), false, 'the per-device table is skipped');
  await page.locator('[data-testid=pl-compare]').scrollIntoViewIfNeeded();
  await page.waitForFunction(
      () => document.querySelector('[data-testid=pl-compare] td').checkVisibility({
        contentVisibilityAuto: true
      }),
      null, {timeout: 10000, polling: 50});
  assert.match(await page.textContent('[data-testid=pl-compare] tr[data-schedule="1F1B"]'), /1F1B/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// What the page holds and moves of large schedules (the times are the
// bench's): the generated schedules' JSON stays in the worker, and the page
// keeps the layouts of the drawn ones only; a planner run offers the best
// generated schedule by name, and stores its best in IndexedDB as bytes:
// no large text is decoded, posted to a worker or stored from the main
// thread (a 10 MB string there was a long task at p 64, m 512).
test(
    'the page keeps only drawn schedules\' layouts; a planner run moves no large text',
    async () => {
      const LARGE = 64 * 1024;
      const page = await open('&p=32&m=128&t=600', {
        prepare: (context) => context.addInitScript(() => {
          const seen = {decoded: 0, posted: 0, stored: 0, storedTypes: []};
          window.mainThread = seen;
          const longest = (value, depth = 0) => {
            if (typeof value === 'string') return value.length;
            if (!value || typeof value !== 'object' || depth > 2 || ArrayBuffer.isView(value)) {
              return 0;
            }
            return Math.max(0, ...Object.values(value).map((v) => longest(v, depth + 1)));
          };
          const decode = TextDecoder.prototype.decode;
          TextDecoder.prototype.decode = function(input, ...rest) {
            seen.decoded = Math.max(seen.decoded, input ? input.byteLength : 0);
            return decode.call(this, input, ...rest);
          };
          const post = Worker.prototype.postMessage;
          Worker.prototype.postMessage = function(message, ...rest) {
            seen.posted = Math.max(seen.posted, longest(message));
            return post.call(this, message, ...rest);
          };
          const put = IDBObjectStore.prototype.put;
          IDBObjectStore.prototype.put = function(record, ...rest) {
            seen.stored = Math.max(seen.stored, longest(record));
            if (record && record.schedule !== undefined) {
              seen.storedTypes.push(
                  typeof record.schedule === 'string' ? 'string' :
                                                        record.schedule.constructor.name);
            }
            return put.call(this, record, ...rest);
          };
        }),
      });
      await settled(page);
      await drawnTimeline(page);
      const held = () => page.evaluate(() => {
        const app = globalThis.shardlabPipeline;
        return {
          shown: app.shown,
          stacked: app.stacked,
          json: [...app.schedules].filter(([, e]) => e.raw).map(([n]) => n),
          layouts: [...app.schedules].filter(([, e]) => e.layout).map(([n]) => n).sort(),
          all: [...app.schedules].filter(([, e]) => e.summary).length,
        };
      });
      let now = await held();
      assert.ok(now.all >= 6, `schedules simulated: ${now.all}`);
      assert.deepEqual(now.json, [], 'no generated schedule\'s JSON is on the page');
      assert.deepEqual(now.layouts, [now.shown, now.stacked].filter(Boolean).sort());
      // Another schedule shown: its layout comes from the worker, the old one's goes.
      const other = await page.evaluate(() => {
        const app = globalThis.shardlabPipeline;
        return [...app.schedules].find(
            ([n, e]) =>
                e.summary && e.summary.valid !== false && n !== app.shown && n !== app.stacked)[0];
      });
      await page.check(`[data-testid=pl-compare] tr[data-schedule="${other}"] input[type=radio]`);
      await page.waitForFunction(
          (name) => document.querySelector('[data-testid=pl-timeline]')
                        .dataset.schedules.split(',')[0] === name,
          other, {timeout: 60000, polling: 50});
      now = await held();
      assert.equal(now.shown, other);
      assert.deepEqual(now.layouts, [now.shown, now.stacked].filter(Boolean).sort());
      // The JSON download comes from the worker, as the core wrote it.
      const [file] = await Promise.all(
          [page.waitForEvent('download'), page.click('[data-testid=pl-download-json]')]);
      const downloaded = JSON.parse(fs.readFileSync(await file.path(), 'utf8'));
      assert.equal(downloaded.name, other);
      assert.equal(downloaded.ops.length, await page.evaluate(() => {
        const app = globalThis.shardlabPipeline;
        return app.schedules.get(app.shown).layout.nOps;
      }));
      // A planner run from the best generated schedule, stopped once it has a best.
      await page.click('[data-testid=pl-start]');
      await waitStatus(page, ['planning', 'done'], 60000, LAB);
      await page.waitForFunction(
          () => document.querySelector('[data-testid=pl-incumbent]').dataset.value !== '', null,
          {timeout: 120000, polling: 50});
      if (await page.getAttribute('#lab-pipeline', 'data-status') === 'planning') {
        await page.click('[data-testid=pl-stop]');
      }
      await waitStatus(page, ['stopped', 'done'], 120000, LAB);
      await page.waitForFunction(
          () => window.mainThread.storedTypes.length > 0, null, {timeout: 30000, polling: 50});
      const seen = await page.evaluate(() => window.mainThread);
      const bytes =
          await page.evaluate(() => globalThis.shardlabPipeline.extra.get('planned').raw.length);
      assert.ok(bytes > LARGE * 4, `the planned schedule's JSON is large: ${bytes} bytes`);
      assert.deepEqual([...new Set(seen.storedTypes)], ['Uint8Array'], 'stored as bytes');
      assert.ok(seen.stored < LARGE, `the longest string stored: ${seen.stored}`);
      assert.ok(seen.posted < LARGE, `the longest string posted to a worker: ${seen.posted}`);
      assert.ok(seen.decoded < LARGE, `the largest text decoded: ${seen.decoded}`);
      assert.deepEqual(page.errors, []);
      await page.close();
    });

test('hovering a cell redraws the highlight over the cached layer, not the cells', async () => {
  const page = await open('&p=8&m=32');
  await settled(page);
  const before = await drawnTimeline(page);
  const box = await page.locator('[data-testid=pl-timeline]').boundingBox();
  // Across the first device's row (the rows start below the block's title).
  for (let i = 0; i < 12; ++i) {
    await page.mouse.move(box.x + 80 + i * 40, box.y + 4 + 20 + 11);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
  }
  assert.equal(await page.isHidden('#pl-tooltip'), false, 'a cell is under the mouse');
  const after = await timelineData(page);
  assert.equal(after.layerDraws, before.layerDraws, 'the cells were not drawn again');
  await page.click('#pl-zoom-in');
  await page.waitForFunction(
      (n) => document.querySelector('[data-testid=pl-timeline]').dataset.layerDraws !== n,
      before.layerDraws, {timeout: 10000, polling: 50});
  await page.close();
});

test(
    'DualPipe\'s example: every cell labelled, the reverse direction hatched in its colour',
    async () => {
      const page = await open('');
      await settled(page);
      await choosePreset(page, 'dualpipe');
      const data = await drawnTimeline(page);
      assert.equal(data.schedules, 'DualPipe');
      assert.ok(Number(data.cells) >= 8 * 20 * 2, `cells in view: ${data.cells}`);
      assert.equal(data.labelled, data.cells, 'every cell carries its micro-batch');
      const colors = await page.evaluate(async () => {
        const cells = await import(new URL('pipeline/cells.mjs', location.href).href);
        return ['F', 'B', 'W'].map(
            (kind) =>
                [cells.colorOf({kind, direction: 0}), cells.colorOf({kind, direction: 1}),
                 cells.isReverse({kind, direction: 1}), cells.isReverse({kind, direction: 0})]);
      });
      for (const [forward, reverse, hatched, plain] of colors) {
        assert.equal(reverse, forward, 'the reverse direction keeps its kind\'s colour');
        assert.deepEqual([hatched, plain], [true, false], 'and is told by its hatch');
      }
      const legend = await page.textContent('#pl-legend');
      assert.match(legend, /reverse direction \(hatched\)/);
      assert.deepEqual(page.errors, []);
      await page.close();
    });

test('a preset drops the previous preset\'s stacked schedule', async () => {
  const page = await open('');
  await settled(page);
  assert.equal((await drawnTimeline(page)).schedules, '1F1B,ZB-H1', 'the first preset stacks');
  await choosePreset(page, 'dualpipe');
  assert.equal((await timelineData(page)).schedules, 'DualPipe');
  assert.equal(await page.inputValue('[data-testid=pl-compare-select]'), '');
  await choosePreset(page, 'zbv');
  assert.equal((await timelineData(page)).schedules, 'ZBV,DualPipeV', 'a preset\'s own stack');
  await page.close();
});

for (const p of [32, 64]) {
  test(`row and memory-strip labels never overlap at p ${p}`, async () => {
    const page = await open(`&p=${p}&m=${p}`);
    await settled(page);
    const data = await drawnTimeline(page);
    for (const key of ['rowLabels', 'stripLabels']) {
      const ys = positions(data[key]);
      assert.ok(ys.length >= 4 && ys.length < p, `${key} thinned: ${ys.length} of ${p}`);
      for (let i = 1; i < ys.length; ++i) {
        assert.ok(ys[i] - ys[i - 1] >= 12, `${key} ${ys[i - 1]} and ${ys[i]} overlap`);
      }
    }
    await page.close();
  });
}

test('a stop during planning ends the run with the planner\'s best schedule kept', async () => {
  const page = await open('&p=16&m=64&cap=17&t=600&pp=bidirectional&FB=3');
  await settled(page);
  await page.click('[data-testid=pl-start]');
  await waitStatus(page, 'planning', 60000, LAB);
  await page.waitForFunction(
      () => document.querySelector('[data-testid=pl-incumbent]').dataset.value !== '', null,
      {timeout: 60000, polling: 50});
  // Not proven in minutes: the stop lands in a running search.
  assert.equal(await page.getAttribute('#lab-pipeline', 'data-status'), 'planning');
  await page.$eval('[data-testid=pl-stop]', (button) => button.click());
  await waitStatus(page, ['stopped', 'done'], 60000, LAB);
  assert.equal(await page.getAttribute('#lab-pipeline', 'data-status'), 'stopped');
  const best = Number(await page.getAttribute('[data-testid=pl-incumbent]', 'data-value'));
  const planned = await page.evaluate(() => {
    const entry = globalThis.shardlabPipeline.extra.get('planned');
    return entry && (entry.summary || entry.schedule).makespan;
  });
  assert.equal(planned, best, 'the planned row is the best the planner reported');
  assert.equal(
      await page.$eval('[data-testid=pl-compare] tr[data-schedule=planned]', (r) => r.hidden),
      false);
  assert.equal(await page.isDisabled('[data-testid=pl-start]'), false);
  assert.deepEqual(page.errors, []);
  await page.close();
});
