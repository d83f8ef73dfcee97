// Browser tests of Stop on every tab with an engine (issue 26: Stop takes
// effect at once and keeps the best result): each tab's worker is served
// with a step that never ends after its first better plan (a presolve or a
// large schedule's JSON as a loaded machine makes them), so the Stop lands
// while the worker cannot answer. The tab must end in 'stopped' with that
// plan shown, and its next run must work (the stuck worker replaced). The
// MIP's HiGHS blocks its worker by design: the same contract. No wall time
// is asserted: the stuck step lasts far longer than any wait here.
//   node tests/browser/stop.test.mjs   (after cmake --build --preset wasm)
import assert from 'node:assert/strict';
import {test} from 'node:test';

import {holdGrace, openPage, status, stuckWorker, text, useSite, waitStatus} from './harness.mjs';

const site = useSite();
const ENDED = ['stopped', 'done', 'error'];
const ENGINE_CREATE = 'ensureEngine(req.options, req.index);';
const digits = async (page, testid) => (await text(page, testid)).replace(/[^0-9]/g, '');

test(
    'sharding: Stop ends a run whose worker is stuck, keeps its plan, and Start runs again',
    async () => {
      // Stuck in building the engine (its presolve), after the quick plan.
      const page = await openPage(
          site.browser, `${site.url}?time=600&workers=1#v=2&ex=example.json`,
          {prepare: stuckWorker('sharding/worker.js', ENGINE_CREATE)});
      await waitStatus(page, 'solving');
      await page.waitForFunction(() => window.shardlab.client.best !== null, null, {polling: 50});
      // Copies of the model sent to a worker (each blocks the page while the
      // arrays are copied: tens of milliseconds on a large instance).
      await page.evaluate(() => {
        const client = window.shardlab.client;
        const send = client.sendModel.bind(client);
        window.modelCopies = 0;
        client.sendModel = (handle) => {
          ++window.modelCopies;
          return send(handle);
        };
      });
      await page.click('[data-testid=stop]');
      await waitStatus(page, ENDED, 30000);
      assert.equal(await status(page), 'stopped');
      // The stuck worker is replaced, but gets the model only when the next
      // run needs it: nothing is copied after the Stop (before, a copy ran
      // in the next task and could delay what the Stop shows).
      await page.waitForTimeout(500);
      assert.equal(await page.evaluate(() => window.modelCopies), 0);
      const best = await page.evaluate(() => window.shardlab.client.best.cost);
      assert.equal(
          await digits(page, 'best-cost'), best, 'the plan found before the stop is shown');
      assert.equal(await page.isDisabled('[data-testid=start]'), false);
      await page.click('[data-testid=start]');
      await waitStatus(page, 'done', 60000);
      assert.equal(
          await page.evaluate(() => window.modelCopies), 1, 'the new worker got the model');
      const cost = await digits(page, 'best-cost');
      assert.ok(BigInt(cost) <= BigInt(best), `the next run keeps the plan: ${cost} <= ${best}`);
      assert.deepEqual(page.errors, []);
      await page.context().close();
    });

test(
    'teach: Stop explains the best plan while the worker is stuck, and Solve works again',
    async () => {
      const page = await openPage(site.browser, `${site.url}#v=3&lab=teach&ex=mlp.json&t=600`, {
        prepare: stuckWorker(
            'sharding/worker.js', 'run.post(P.MSG.INCUMBENT, {...payload, plan}, [plan.buffer]);')
      });
      await waitStatus(page, 'solving', 60000, 'teach');
      await page.waitForFunction(
          () => window.shardlabTeach.client.best !== null, null, {polling: 50, timeout: 60000});
      // What the page shows when it asks its teaching worker for the
      // explanation; the page's own module neither generates nor explains.
      await page.evaluate(() => {
        const app = window.shardlabTeach;
        window.onPage = 0;
        for (const name of ['teachExplain', 'teachGenerate']) {
          const own = app.M[name];
          app.M[name] = (...args) => {
            window.onPage += 1;
            return own(...args);
          };
        }
        const call = app.teacher.call.bind(app.teacher);
        app.teacher.call = (op, payload, ...rest) => {
          if (payload.call === 'explain' && !window.atExplain) {
            const q = (id) => document.querySelector(`[data-testid=${id}]`).textContent;
            window.atExplain = {
              status: document.getElementById('lab-teach').dataset.status,
              text: q('teach-status-text'),
              cost: q('teach-cost'),
            };
          }
          return call(op, payload, ...rest);
        };
      });
      // data-solves counts the stopped run once its explanation is shown.
      const running = Number(await page.getAttribute('#lab-teach', 'data-solves') || 0);
      await page.click('[data-testid=teach-stop]');
      await waitStatus(page, ENDED, 30000, 'teach');
      assert.equal(await status(page, 'teach'), 'stopped');
      await page.waitForFunction(
          (n) => Number(document.getElementById('lab-teach').dataset.solves || 0) > n, running,
          {polling: 50, timeout: 60000});
      const best = await page.evaluate(() => window.shardlabTeach.client.best.cost);
      const before = await page.evaluate(() => window.atExplain);
      assert.equal(before.status, 'stopped', 'the stop is shown before the explanation');
      assert.match(before.text, /^stopped: .*\(explaining…\)$/);
      assert.equal(before.cost.replace(/^.*\(|[^0-9]/g, ''), best, 'with the plan\'s cost');
      assert.match(await text(page, 'teach-status-text'), /^stopped: (best found|proven optimal)$/);
      assert.match(await text(page, 'teach-cost'), /ns\)$/, 'the stopped plan is explained');
      const solves = Number(await page.getAttribute('#lab-teach', 'data-solves') || 0);
      await page.click('[data-testid=teach-solve]');
      await page.waitForFunction(
          (n) => Number(document.getElementById('lab-teach').dataset.solves || 0) > n, solves,
          {polling: 50, timeout: 60000});
      assert.equal(await status(page, 'teach'), 'done');
      assert.match(await text(page, 'teach-status-text'), /^done: proven optimal/);
      assert.equal(await page.evaluate(() => window.onPage), 0, 'all in the teaching worker');
      assert.deepEqual(page.errors, []);
      await page.context().close();
    });

// DualPipe's example: the planner proves it in about 2 s once it runs.
test(
    'pipeline planner: Stop keeps the planned schedule while the worker is stuck, and the ' +
        'next run proves it',
    async () => {
      const page = await openPage(
          site.browser, `${site.url}#v=3&lab=pipeline&ex=dualpipe_example.json&t=600`, {
            // After snapshot()'s INCUMBENT (its transfer list ends the call).
            prepare: stuckWorker('pipeline/worker.js', 'summary, layout}, buffers);')
          });
      await waitStatus(page, 'ready', 120000, 'pipeline');
      await page.click('[data-testid=pl-start]');
      await waitStatus(page, 'planning', 60000, 'pipeline');
      await page.waitForFunction(
          () => document.querySelector('[data-testid=pl-incumbent]').dataset.value !== '', null,
          {polling: 50, timeout: 60000});
      const planned = await page.getAttribute('[data-testid=pl-incumbent]', 'data-value');
      await page.click('[data-testid=pl-stop]');
      await waitStatus(page, ENDED, 30000, 'pipeline');
      assert.equal(await status(page, 'pipeline'), 'stopped');
      assert.equal(await page.getAttribute('[data-testid=pl-incumbent]', 'data-value'), planned);
      assert.equal(
          await page.getAttribute('[data-testid=pl-timeline]', 'data-schedules')
              .then((s) => s.split(',')[0]),
          'planned', 'the planned schedule stays on the timeline');
      await page.click('[data-testid=pl-start]');
      await waitStatus(page, ['done', 'error'], 90000, 'pipeline');
      assert.equal(await status(page, 'pipeline'), 'done');
      assert.match(await text(page, 'pl-gap'), /proven optimal/);
      assert.deepEqual(page.errors, []);
      await page.context().close();
    });

// p 4, m 8 on the linear placement: HiGHS takes the warm start at once and
// leaves a third of the gap open after 20 s, so the stop lands in its search.
test('pipeline MIP: Stop ends HiGHS with its best kept, and the next solve runs', async () => {
  const page =
      await openPage(site.browser, `${site.url}#v=3&lab=pipeline&p=4&m=8&s=1F1B&t=600&pp=linear`);
  await waitStatus(page, 'ready', 120000, 'pipeline');
  await page.selectOption('[data-testid=pl-engine]', 'mip');
  for (let run = 0; run < 2; ++run) {
    await page.click('[data-testid=pl-start]');
    await waitStatus(page, 'solving', 60000, 'pipeline');
    await page.waitForFunction(  // HiGHS's first incumbent (from the warm start)
        () => document.querySelector('[data-testid=pl-incumbent]').dataset.value !== '', null,
        {polling: 50, timeout: 60000});
    const found = await page.getAttribute('[data-testid=pl-incumbent]', 'data-value');
    await page.click('[data-testid=pl-stop]');
    await waitStatus(page, ENDED, 30000, 'pipeline');
    assert.equal(await status(page, 'pipeline'), 'stopped', `run ${run}`);
    assert.match(await text(page, 'pl-plan-note'), /^HiGHS: stopped|^Stopped|^$/);
    const kept = await page.getAttribute('[data-testid=pl-incumbent]', 'data-value');
    assert.ok(Number(kept) <= Number(found), `the best makespan stays shown: ${kept} <= ${found}`);
  }
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

// The plan tab (issue 26: Stop within 200 ms on every tab): the engine's
// every step runs at most two long parts (a block solve, a schedule order, a
// simulation), as its progress counters report (step_long_parts), so the
// worker serves a STOP between two short steps; the stopped answer skips the
// timeline's simulation (seconds on a long pipeline) and says so. GPT-3 175B
// on 64 A100 searches for seconds: the Stop lands in its running search.
// Structure only, no wall time: every record the worker posted is read.
test(
    'plan: every engine step is bounded, and Stop ends the search with its best plan', async () => {
      const page =
          await openPage(site.browser, `${site.url}#v=3&lab=plan&m=gpt3-175b&g=64&b=1536&t=600`, {
            // The worker is never replaced (a loaded machine may take
            // longer than the grace to end its step): its stopped answer
            // is what this test reads.
            prepare: async (context) => {
              await holdGrace(context);
              await context.addInitScript(() => {
                const Base = window.Worker;
                window.planRecords = [];
                window.Worker = class extends Base {
                  constructor(...args) {
                    super(...args);
                    this.addEventListener('message', (e) => {
                      if (e.data && e.data.record) {
                        window.planRecords.push(
                            {...e.data.record.counters, found: e.data.record.found});
                      }
                    });
                  }
                };
              });
            },
          });
      await waitStatus(page, 'planning', 120000, 'plan');
      // Some search done: the seeds' plans timed (a record with a plan found).
      await page.waitForFunction(
          () => window.planRecords.some((c) => c.phase === 'search' && c.timed > 0), null,
          {polling: 50, timeout: 120000});
      const runs = Number(await page.getAttribute('#lab-plan', 'data-runs') || 0);
      await page.click('[data-testid=plan-stop]');
      await waitStatus(page, ENDED, 120000, 'plan');
      assert.equal(await status(page, 'plan'), 'stopped');
      // The stopped run's plan is shown once the run is counted (the status
      // comes first, in the click's task).
      await page.waitForFunction(
          (n) => Number(document.getElementById('lab-plan').dataset.runs || 0) > n, runs,
          {polling: 50, timeout: 60000});
      const records = await page.evaluate(() => window.planRecords);
      assert.ok(records.length > 0);
      for (const c of records) {
        assert.equal(typeof c.step_long_parts, 'number', 'the run reports its steps\' long parts');
        assert.ok(
            c.step_long_parts <= 2, `a step ran ${c.step_long_parts} long parts (${c.phase})`);
      }
      assert.ok(records.at(-1).long_parts > 2, 'the run did long parts over several steps');
      const shown = await page.evaluate(() => globalThis.shardlabPlan.done);
      assert.equal(shown.reason, 'stopped');
      assert.ok(shown.result.found, 'the best plan so far is kept');
      assert.equal(shown.timeline, null);
      assert.match(await text(page, 'plan-timeline-note'), /not drawn for a stopped run/);
      assert.deepEqual(page.errors, []);
      await page.context().close();
    });

// A Stop pressed as the run starts, while the tab still sends its inputs to
// the worker (no search there to stop yet), ends that run before its search
// starts; Plan then plans again.
test('plan: Stop while the inputs are sent ends the run before its search', async () => {
  const page = await openPage(site.browser, `${site.url}#v=3&lab=plan&t=600`);
  await waitStatus(page, ENDED, 120000, 'plan');
  const runs = Number(await page.getAttribute('#lab-plan', 'data-runs'));
  // Stop is pressed in the same task that shows 'planning' (a mutation
  // observer's callback runs before the run's first message is answered).
  await page.evaluate(() => {
    const section = document.getElementById('lab-plan');
    const observer = new MutationObserver(() => {
      if (section.dataset.status !== 'planning') return;
      observer.disconnect();
      document.querySelector('[data-testid=plan-stop]').click();
    });
    observer.observe(section, {attributes: true, attributeFilter: ['data-status']});
    const batch = document.getElementById('plan-batch');
    batch.value = '256';
    batch.dispatchEvent(new Event('change', {bubbles: true}));
  });
  await page.waitForFunction(
      (n) => Number(document.getElementById('lab-plan').dataset.runs) > n, runs,
      {polling: 50, timeout: 120000});
  assert.equal(await status(page, 'plan'), 'stopped');
  assert.equal(await text(page, 'plan-status-text'), 'stopped: no plan found yet');
  await page.click('[data-testid=plan-run]');
  await page.waitForFunction(
      (n) => Number(document.getElementById('lab-plan').dataset.runs) > n + 1, runs,
      {polling: 50, timeout: 120000});
  assert.equal(await status(page, 'plan'), 'done');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

// The plan worker compiles its code at boot (V8 compiles a wasm function on
// its first call; a fresh page's first block solve and first stopped answer
// were mostly that): one small plan runs whole before READY, so that a Stop
// right after Start lands within a short step. READY reports it.
test('plan: the worker runs a small plan at boot, before it says READY', async () => {
  const page = await openPage(site.browser, `${site.url}#v=3&lab=plan&t=600`, {
    prepare: (context) => context.addInitScript(() => {
      const Base = window.Worker;
      window.planReady = [];
      window.Worker = class extends Base {
        constructor(url, ...rest) {
          super(url, ...rest);
          this.addEventListener('message', (e) => {
            if (String(url).includes('plan/worker.js') && e.data && e.data.type === 'ready') {
              window.planReady.push(e.data);
            }
          });
        }
      };
    }),
  });
  await waitStatus(page, ENDED, 120000, 'plan');
  const ready = await page.evaluate(() => window.planReady);
  assert.equal(ready.length, 1);
  const warm = ready[0].warmUp;
  assert.ok(warm, 'READY reports the warm-up');
  assert.equal(warm.error, undefined);
  assert.equal(warm.found, true, 'the warm-up plan was found, evaluated and answered');
  assert.ok(warm.steps > 3, `the warm-up ran the run's steps: ${warm.steps}`);
  assert.equal(await status(page, 'plan'), 'done');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
