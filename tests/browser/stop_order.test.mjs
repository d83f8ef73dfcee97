// Browser tests of what a Stop waits for (issue 26: Stop takes effect within
// 200 ms on every tab), on the sharding tab and the pipeline planner, whose
// workers are served stuck inside a long step (harness.mjs stuckWorker):
//   - a worker that announced the step (progress {busy}: a presolve, the
//     planner's start) cannot answer, so the stop does not wait the grace
//     (STOP_GRACE_MS): with the page's grace timers held back, it still ends;
//     so does one that has not begun the run (which starts with such a step);
//   - the stuck worker's replacement is made after the tab shows 'stopped';
//   - the sharding tab shows 'stopped' before its link and stored record are
//     rewritten (compression held back), and data-saved counts the run once
//     they carry the stop.
//   - a Stop ends the run in the click's own task (worker_client.mjs
//     stoppable): the teaching tab and the plan tab, their workers stuck
//     after a plan was reported, show 'stopped' with that plan while the
//     grace is held back, and a plan worker still stuck after the grace is
//     replaced by one holding the same inputs.
// Order and structure only, never wall time.
//   node tests/browser/stop_order.test.mjs   (after cmake --build --preset wasm)
import assert from 'node:assert/strict';
import {test} from 'node:test';

import {holdGrace, openPage, status, stuckWorker, text, useSite, waitStatus} from './harness.mjs';

const site = useSite();

// The sharding worker sticks right after building its engine (inside the
// presolve it announced); the pipeline worker right after making its
// planner (inside the start it announced).
const SHARDING = ['sharding/worker.js', 'ensureEngine(req.options, req.index);'];
const PLANNER = [
  'pipeline/worker.js',
  'const made = R.unwrap(current(req).planner(JSON.stringify(req.options || {})));'
];
// The plan worker sticks in its first report after the evaluated plan (the
// why-not rows, sizing, or the run's last report): it never answers.
const PLAN =
    ['plan/worker.js', 'run.post(improved ? P.MSG.INCUMBENT : P.MSG.PROGRESS, {record});', 'early'];
// The teaching lab's worker sticks right after reporting its first plan.
const TEACH =
    ['sharding/worker.js', 'run.post(P.MSG.INCUMBENT, {...payload, plan}, [plan.buffer]);'];
const ENDED = ['stopped', 'done', 'error'];

// A page script: each worker made records the tab's status at that moment
// (holdGrace, harness.mjs, holds the stop's grace timers back).
function recordSpawns(context) {
  return context.addInitScript(() => {
    const Base = window.Worker;
    window.spawns = [];
    window.Worker = class extends Base {
      constructor(url, ...rest) {
        super(url, ...rest);
        const lab = (/(sharding|pipeline|plan)\/worker\.js/.exec(String(url)) || [])[1];
        if (lab) {
          window.spawns.push({lab, status: document.getElementById(`lab-${lab}`).dataset.status});
        }
      }
    };
  });
}

// The sharding tab solving example.json with its worker stuck in the
// presolve, the quick plan shown (and, when `announced`, the presolve
// announced to the page).
async function stuckSharding(prepare, announced = false) {
  const page = await openPage(site.browser, `${site.url}?time=600&workers=1#v=2&ex=example.json`, {
    prepare: async (context) => {
      await stuckWorker(...SHARDING)(context);
      if (prepare) await prepare(context);
    }
  });
  await waitStatus(page, 'solving');
  await page.waitForFunction(() => window.shardlab.client.best !== null, null, {polling: 50});
  if (announced) {
    await page.waitForFunction(
        () => window.shardlab.client.workers[0].busy === 'presolve', null, {polling: 50});
  }
  return page;
}

// The pipeline tab planning DualPipe's example with its worker stuck in
// the planner's start (and, when `announced`, that start announced).
async function stuckPlanner(prepare, announced = false) {
  const page =
      await openPage(site.browser, `${site.url}#v=3&lab=pipeline&ex=dualpipe_example.json&t=600`, {
        prepare: async (context) => {
          await stuckWorker(...PLANNER)(context);
          if (prepare) await prepare(context);
        }
      });
  await waitStatus(page, 'ready', 120000, 'pipeline');
  await page.click('[data-testid=pl-start]');
  await waitStatus(page, 'planning', 60000, 'pipeline');
  if (announced) {
    await page.waitForFunction(
        () => window.shardlabPipeline.sessions.busy === 'start', null,
        {polling: 50, timeout: 60000});
  }
  return page;
}

test('sharding: a Stop in an announced presolve does not wait the grace', async () => {
  const page = await stuckSharding((context) => holdGrace(context), true);
  const best = await page.evaluate(() => window.shardlab.client.best.cost);
  await page.click('[data-testid=stop]');
  // Before, the run ended only when the grace timer fired: never, here.
  await waitStatus(page, ['stopped', 'done', 'error'], 30000);
  assert.equal(await status(page), 'stopped');
  assert.equal(await page.evaluate(() => window.heldGrace), 0, 'no grace timer was set');
  assert.equal(await page.evaluate(() => window.shardlab.client.best.cost), best);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('sharding: the stuck worker is replaced after the tab shows the stop', async () => {
  const page = await stuckSharding(recordSpawns);
  await page.click('[data-testid=stop]');
  await waitStatus(page, ['stopped', 'done', 'error'], 30000);
  await page.waitForFunction(
      () => window.spawns.filter((s) => s.lab === 'sharding').length === 2, null, {polling: 50});
  assert.deepEqual(
      await page.evaluate(() => window.spawns.filter((s) => s.lab === 'sharding')),
      [
        {lab: 'sharding', status: 'idle'},
        {lab: 'sharding', status: 'stopped'},
      ],
      'the replacement is made once the tab says stopped');
  // The next run works on the replacement, with the model copied to it.
  await page.click('[data-testid=start]');
  await waitStatus(page, 'done', 60000);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('sharding: the stop shows before the link and the stored record carry it', async () => {
  const page = await stuckSharding();
  const saved = Number(await page.getAttribute('#lab-sharding', 'data-saved') || 0);
  // Compression (the link's plan and curve) is held back from here on.
  await page.evaluate(() => {
    const Base = window.CompressionStream;
    window.releaseCompression = [];
    window.CompressionStream = class {
      constructor(format) {
        const real = new Base(format);
        const gate = window.compressionOpen ?
            null :
            new Promise((resolve) => window.releaseCompression.push(resolve));
        this.writable = real.writable;
        this.readable = real.readable.pipeThrough(new TransformStream({start: () => gate}));
      }
    };
  });
  await page.click('[data-testid=stop]');
  // Before, the tab turned 'stopped' only once the link was written.
  await waitStatus(page, ['stopped', 'done', 'error'], 30000);
  assert.equal(await status(page), 'stopped');
  assert.equal(
      await page.getAttribute('#lab-sharding', 'data-saved'), saved ? String(saved) : null);
  await page.evaluate(() => {
    window.compressionOpen = true;
    window.releaseCompression.forEach((release) => release());
  });
  await page.waitForFunction(
      (n) => Number(document.getElementById('lab-sharding').dataset.saved || 0) > n, saved,
      {polling: 50, timeout: 30000});
  assert.match(await page.getAttribute('[data-testid=permalink]', 'href'), /&st=stopped(&|$)/);
  const stored = await page.evaluate(
      () => new Promise((resolve, reject) => {
        const req = indexedDB.open('shardlab');
        req.onsuccess = () => {
          const all = req.result.transaction('best').objectStore('best').getAll();
          all.onsuccess = () => resolve(all.result.map((r) => [r.name, r.status, r.cost]));
          all.onerror = reject;
        };
        req.onerror = reject;
      }));
  const best = await page.evaluate(() => window.shardlab.client.best.cost);
  assert.deepEqual(stored, [['example.json', 'stopped', best]]);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('sharding: a Stop before the worker has begun its run does not wait the grace', async () => {
  // Stuck before START posts anything (as a worker still busy elsewhere).
  const page = await openPage(site.browser, `${site.url}?time=600&workers=1#v=2&ex=example.json`, {
    prepare: async (context) => {
      await stuckWorker('sharding/worker.js', 'async function start(req, run) {')(context);
      await holdGrace(context);
    }
  });
  await waitStatus(page, 'solving');
  await page.click('[data-testid=stop]');
  await waitStatus(page, ['stopped', 'done', 'error'], 30000);
  assert.equal(await status(page), 'stopped');
  assert.equal(await page.evaluate(() => window.heldGrace), 0, 'no grace timer was set');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('pipeline planner: a Stop in the announced start does not wait the grace', async () => {
  const page = await stuckPlanner((context) => holdGrace(context), true);
  await page.click('[data-testid=pl-stop]');
  await waitStatus(page, ['stopped', 'done', 'error'], 30000, 'pipeline');
  assert.equal(await status(page, 'pipeline'), 'stopped');
  assert.equal(await page.evaluate(() => window.heldGrace), 0, 'no grace timer was set');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('pipeline planner: the stuck worker is replaced after the tab shows the stop', async () => {
  const page = await stuckPlanner(recordSpawns);
  await page.click('[data-testid=pl-stop]');
  await waitStatus(page, ['stopped', 'done', 'error'], 30000, 'pipeline');
  await page.waitForFunction(
      () => window.spawns.filter((s) => s.lab === 'pipeline').length === 2, null, {polling: 50});
  const spawns = await page.evaluate(() => window.spawns.filter((s) => s.lab === 'pipeline'));
  assert.equal(spawns[1].status, 'stopped', 'the replacement is made once the tab says stopped');
  // The next run works on the replacement (the problem opened again): proven.
  await page.click('[data-testid=pl-start]');
  await waitStatus(page, ['done', 'error'], 90000, 'pipeline');
  assert.equal(await status(page, 'pipeline'), 'done');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

// The plan tab planning, with its plan evaluated early (the worker is then in its why-not rows).
async function planEvaluated(page) {
  await waitStatus(page, 'planning', 120000, 'plan');
  await page.waitForFunction(
      () => globalThis.shardlabPlan.done && globalThis.shardlabPlan.done.early, null,
      {polling: 50, timeout: 120000});
}

// Data-runs (plan) or data-solves (teach) past `n`: the stopped run's views are shown.
function waitCount(page, lab, attribute, n) {
  return page.waitForFunction(
      ({lab, attribute, n}) =>
          Number(document.getElementById(`lab-${lab}`).dataset[attribute] || 0) > n,
      {lab, attribute, n}, {polling: 50, timeout: 60000});
}

test('teach: a Stop shows the best plan at once while the worker is stuck', async () => {
  const page = await openPage(site.browser, `${site.url}#v=3&lab=teach&ex=mlp.json&t=600`, {
    prepare: async (context) => {
      await stuckWorker(...TEACH)(context);
      await holdGrace(context);
    }
  });
  await waitStatus(page, 'solving', 60000, 'teach');
  await page.waitForFunction(
      () => window.shardlabTeach.client.best !== null, null, {polling: 50, timeout: 60000});
  const solves = Number(await page.getAttribute('#lab-teach', 'data-solves') || 0);
  await page.click('[data-testid=teach-stop]');
  // Before, the solve waited for the worker's answer or the grace: never, here.
  await waitStatus(page, ENDED, 30000, 'teach');
  assert.equal(await status(page, 'teach'), 'stopped');
  await waitCount(page, 'teach', 'solves', solves);
  assert.match(await text(page, 'teach-status-text'), /^stopped: (best found|proven optimal)$/);
  assert.match(await text(page, 'teach-cost'), /ns\)$/, 'the best plan is explained');
  assert.ok(await page.evaluate(() => window.heldGrace) >= 1, 'the worker was given its grace');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('plan: a Stop shows the evaluated plan at once while the worker is stuck', async () => {
  const page = await openPage(site.browser, `${site.url}#v=3&lab=plan&t=600`, {
    prepare: async (context) => {
      await stuckWorker(...PLAN)(context);
      await holdGrace(context);
    }
  });
  await planEvaluated(page);
  const runs = Number(await page.getAttribute('#lab-plan', 'data-runs') || 0);
  await page.click('[data-testid=plan-stop]');
  // Before, the run waited for the grace after the stop: never, here.
  await waitStatus(page, ENDED, 30000, 'plan');
  assert.equal(await status(page, 'plan'), 'stopped');
  assert.match(await text(page, 'plan-status-text'), /^stopped: (proven optimal|gap )/);
  await waitCount(page, 'plan', 'runs', runs);
  const shown = await page.evaluate(() => {
    const done = globalThis.shardlabPlan.done;
    return {reason: done.reason, found: done.result.found, early: Boolean(done.early)};
  });
  assert.deepEqual(shown, {reason: 'stopped', found: true, early: false}, 'the plan is kept');
  assert.match(await text(page, 'plan-timeline-note'), /not drawn for a stopped run/);
  assert.ok(await page.evaluate(() => window.heldGrace) >= 1, 'the worker was given its grace');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('plan: the stuck worker is replaced after the stop, with the same inputs', async () => {
  const page = await openPage(site.browser, `${site.url}#v=3&lab=plan&t=600&g=16`, {
    prepare: async (context) => {
      await stuckWorker(...PLAN)(context);
      await recordSpawns(context);
    }
  });
  await planEvaluated(page);
  const runs = Number(await page.getAttribute('#lab-plan', 'data-runs') || 0);
  await page.click('[data-testid=plan-stop]');
  await waitCount(page, 'plan', 'runs', runs);
  assert.equal(await status(page, 'plan'), 'stopped');
  await page.waitForFunction(
      () => window.spawns.filter((s) => s.lab === 'plan').length === 2, null, {polling: 50});
  assert.deepEqual(
      await page.evaluate(() => window.spawns.filter((s) => s.lab === 'plan')),
      [{lab: 'plan', status: 'starting'}, {lab: 'plan', status: 'stopped'}],
      'the replacement is made once the tab says stopped');
  // The next run goes to the replacement, which holds the same inputs.
  await page.click('[data-testid=plan-run]');
  await waitCount(page, 'plan', 'runs', runs + 1);
  assert.equal(await status(page, 'plan'), 'done');
  assert.equal(await page.evaluate(() => globalThis.shardlabPlan.done.result.cluster.gpus), 16);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

// The page's first Intl.NumberFormat loads the locale's data (30-150 ms on
// a loaded machine): a Stop on the teaching tab once paid for it in its
// status line (the cost). The shell builds it as the page loads
// (format.mjs warmUp), before any lab formats a number.
test('the first number format is built as the page loads, not by a lab', async () => {
  const page = await openPage(site.browser, `${site.url}#v=3&lab=teach&ex=mlp.json&t=600`, {
    prepare: (context) => context.addInitScript(() => {
      const Base = Intl.NumberFormat;
      window.numberFormats = [];
      Intl.NumberFormat = function(...args) {
        window.numberFormats.push(new Error().stack);
        return new Base(...args);
      };
    }),
  });
  await waitStatus(page, ENDED, 60000, 'teach');
  const stacks = await page.evaluate(() => window.numberFormats);
  assert.ok(stacks.length >= 1, 'the tab formats numbers');
  assert.match(stacks[0], /warmUp/, `the first was built by: ${stacks[0]}`);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
