// Unit tests of web/sharding/solver_client.mjs against fake workers that speak the
// protocol: a stop must reach the run however early it comes. A real worker
// ignores a STOP that arrives before its START, so a stop pressed while the
// carried plan is being offered, or while a worker is still starting, used
// to be lost and the run went on to its time limit. A worker that does not
// answer a stop (inside a long step) is replaced, so the next run never waits.
import assert from 'node:assert/strict';
import path from 'node:path';
import {test} from 'node:test';
import {pathToFileURL} from 'node:url';

import {holdTimers} from './hold_timers.mjs';

const WEB = path.resolve(process.env.SHARDLAB_SOURCE_DIR || '.', 'web');
const {MSG, OP, reply} = await import(pathToFileURL(path.join(WEB, 'protocol.mjs')).href);

// Each fake records the ops it receives. READY comes after readyMs; OFFER is
// answered after offerMs; START runs until a STOP that arrives after it.
const fakes = [];
const timing = {
  readyMs: 0,
  offerMs: 0
};

class FakeWorker {
  constructor(url) {
    this.url = url;
    this.ops = [];
    this.running = null;  // the id of the START being served
    fakes.push(this);
    setTimeout(() => this.send(reply(MSG.READY, 0)), timing.readyMs);
  }

  send(msg) {
    if (this.onmessage) this.onmessage({data: msg});
  }

  postMessage(req) {
    this.ops.push(req.op);
    if (this.deaf) return;  // inside a long step (a presolve): nothing is answered
    if (req.op === OP.MODEL) {
      this.send(reply(MSG.DONE, req.id, {digest: 'fake'}));
    } else if (req.op === OP.OFFER) {
      setTimeout(() => this.send(reply(MSG.DONE, req.id, {accepted: true})), timing.offerMs);
    } else if (req.op === OP.START) {
      this.running = req.id;
    } else if (req.op === OP.STOP) {
      const run = this.running;
      this.running = null;
      if (run !== null) this.send(reply(MSG.DONE, run, {reason: 'stopped', elapsedS: 1}));
      this.send(reply(MSG.DONE, req.id, {wasRunning: run !== null}));
    }
  }

  terminate() {
    this.terminated = true;
  }
}

globalThis.Worker = FakeWorker;
const {SolverClient} =
    await import(pathToFileURL(path.join(WEB, 'sharding/solver_client.mjs')).href);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The run's reasons, or a failure naming the case if it is still running.
function settle(run, what) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: the run was not stopped`)), 2000);
  });
  return Promise.race([run, late]).finally(() => clearTimeout(timer));
}

function fresh(count, readyMs, offerMs) {
  fakes.length = 0;
  Object.assign(timing, {readyMs, offerMs});
  return new SolverClient('worker.js', count);
}

// Two workers with a model, 20 ms into a run.
async function twoRunning() {
  const client = fresh(2, 0, 0);
  client.model = {fields: [new Int32Array([1]).buffer], name: 'M'};
  const run = client.start({seed: 1}, 600);
  await sleep(20);
  return {client, run};
}

test('a stop while the carried plan is being offered starts no engine', async () => {
  const client = fresh(2, 0, 200);
  await Promise.all(client.workers.map((w) => w.ready));
  const run = client.start({seed: 1}, 600, {plan: Int32Array.of(0, 1, 2), cost: '10'});
  await sleep(20);
  assert.deepEqual(fakes.map((f) => f.ops), [[OP.OFFER], [OP.OFFER]]);
  await client.stop();
  assert.deepEqual(await settle(run, 'stop during the offer'), ['stopped', 'stopped']);
  assert.ok(fakes.every((f) => !f.ops.includes(OP.START)), 'no START was sent');
  assert.equal(client.best.cost, '10', 'the carried plan is kept');
});

test('a stop while the workers are starting up starts no engine', async () => {
  const client = fresh(2, 200, 0);
  const run = client.start({seed: 1}, 600);
  await sleep(20);
  await client.stop();
  assert.deepEqual(await settle(run, 'stop before ready'), ['stopped', 'stopped']);
  assert.ok(fakes.every((f) => !f.ops.includes(OP.START)), 'no START was sent');
});

test('a stop after the engines started ends their runs, and a new start runs again', async () => {
  const client = fresh(2, 0, 0);
  const run = client.start({seed: 1}, 600);
  await sleep(20);
  assert.ok(fakes.every((f) => f.running !== null), 'both engines run');
  await client.stop();
  assert.deepEqual(await settle(run, 'stop while running'), ['stopped', 'stopped']);
  // The run ends at the click: its clock is the page's then, not the
  // workers' answers (1 s here).
  assert.ok(client.elapsedS > 0 && client.elapsedS < 1, `elapsedS ${client.elapsedS}`);
  // The earlier stop must not cancel the next run.
  const again = client.start({seed: 1}, 600);
  await sleep(20);
  assert.ok(fakes.every((f) => f.running !== null), 'a later start runs the engines');
  await client.stop();
  assert.deepEqual(await settle(again, 'second stop'), ['stopped', 'stopped']);
});

test(
    'a worker stuck in a step after a stop is replaced, and gets the model at the next start',
    async () => {
      const client = fresh(2, 0, 0);
      const fields = [new Int32Array([1, 2, 3]).buffer];
      client.model = {fields, name: 'M'};
      const run = client.start({seed: 1}, 600);
      await sleep(20);
      fakes[1].deaf = true;  // worker 1 is inside a presolve
      const stopped = client.stop();
      assert.deepEqual(await settle(run, 'stop with a stuck worker'), ['stopped', 'stopped']);
      await stopped;
      await sleep(20);
      assert.equal(fakes.length, 3, 'one fresh worker');
      assert.equal(fakes[1].terminated, true, 'the stuck one is ended');
      assert.equal(fakes[0].terminated, undefined, 'the one that answered stays');
      assert.equal(client.workers[1].worker, fakes[2]);
      // The model is copied when the next run needs it, not while the Stop is
      // being shown (a large model's copy blocks the page).
      assert.deepEqual(fakes[2].ops, [], 'no copy of the model after the stop');
      const again = client.start({seed: 1}, 600);
      await sleep(20);
      assert.deepEqual(fakes[2].ops.slice(0, 2), [OP.MODEL, OP.START], 'the model, then the run');
      assert.ok(fakes[2].running !== null, 'the next start runs on the fresh worker');
      await client.stop();
      assert.deepEqual(await settle(again, 'stop after the respawn'), ['stopped', 'stopped']);
    });

// Runs `body` with the stop's grace timers (STOP_GRACE_MS) held back: they
// never fire, so a stop that still waits for its grace never resolves.
async function withoutGrace(body) {
  const {STOP_GRACE_MS} = await import(pathToFileURL(path.join(WEB, 'worker_client.mjs')).href);
  const timers = holdTimers(STOP_GRACE_MS);
  try {
    return await body(timers.held);
  } finally {
    timers.restore();
  }
}

test(
    'a stop while every worker announced a long step (a presolve) does not wait the grace',
    async () => {
      const {client, run} = await twoRunning();
      for (const fake of fakes) {  // each enters its presolve and answers nothing more
        fake.send(reply(MSG.PROGRESS, fake.running, {busy: {phase: 'presolve'}}));
        fake.deaf = true;
      }
      await withoutGrace(async (held) => {
        client.stop();
        assert.deepEqual(await settle(run, 'stop in announced presolves'), ['stopped', 'stopped']);
        assert.equal(held.length, 0, 'no grace timer was set');
      });
      assert.ok(fakes.slice(0, 2).every((f) => f.terminated), 'both busy workers are ended');
      assert.equal(fakes.length, 2, 'their replacements are made after the stop resolves');
      await sleep(20);
      assert.equal(fakes.length, 4, 'two fresh workers');
      const again = client.start({seed: 1}, 600);
      await sleep(20);
      assert.ok(fakes.slice(2).every((f) => f.running !== null), 'the next run uses them');
      await client.stop();
      assert.deepEqual(await settle(again, 'stop after the respawn'), ['stopped', 'stopped']);
    });

test('a worker that left its announced step answers the stop and keeps its engine', async () => {
  const client = fresh(1, 0, 0);
  const run = client.start({seed: 1}, 600);
  await sleep(20);
  const [fake] = fakes;
  fake.send(reply(MSG.PROGRESS, fake.running, {busy: {phase: 'presolve'}}));
  fake.send(reply(MSG.PROGRESS, fake.running, {
    record: {
      elapsedS: 0.5,
      found: false,
      incumbent: null,
      bound: 0,
      gap: 1,
      finished: false,
      counters: {}
    },
    exact: {cost: null, bound: '0'},
  }));
  assert.equal(client.workers[0].busy, null, 'its next message ends the announced step');
  await client.stop();
  assert.deepEqual(await settle(run, 'stop between slices'), ['stopped']);
  await sleep(20);
  assert.equal(fakes.length, 1, 'no worker was replaced');
  assert.equal(fake.terminated, undefined);
});

test('a stop before the worker has begun its START does not wait the grace', async () => {
  const client = fresh(1, 0, 0);
  await client.workers[0].ready;
  fakes[0].deaf = true;  // still in an earlier step: the START is not read yet
  const run = client.start({seed: 1}, 600);
  await sleep(20);
  await withoutGrace(async (held) => {
    client.stop();
    assert.deepEqual(await settle(run, 'stop before the START was read'), ['stopped']);
    assert.equal(held.length, 0, 'no grace timer was set');
  });
  assert.equal(fakes[0].terminated, true, 'the worker that had not begun is replaced');
  await sleep(20);
  assert.equal(fakes.length, 2, 'its replacement is made in a later task');
});

// The page draws what the workers report in tasks of its own; a stop that
// waited for their answers (or its grace timer) waited for those too. The
// run ends in the stop's own task with the best so far; what a worker's
// last slice still reports is kept, a worker that answers within the grace
// keeps its engine, and one that does not is replaced before the next run.
test(
    'a stop ends the run in its own task; late plans are kept, a silent worker replaced',
    async () => {
      const {client, run} = await twoRunning();
      const plan = (cost) => ({
        record: {
          elapsedS: 0.5,
          found: true,
          incumbent: cost,
          bound: 1,
          gap: 0.5,
          finished: false,
          counters: {}
        },
        exact: {cost: String(cost), bound: '1'},
        plan: Int32Array.of(0, 1),
        improvedS: 0.5,
      });
      fakes[0].send(reply(MSG.INCUMBENT, fakes[0].running, plan(12)));
      for (const fake of fakes) fake.deaf = true;  // both inside a slice
      const runs = fakes.map((f) => f.running);
      await withoutGrace(async (held) => {
        client.stop();
        let done = null;
        run.then((reasons) => (done = reasons));
        for (let i = 0; i < 10 && done === null; ++i) await Promise.resolve();
        assert.deepEqual(done, ['stopped', 'stopped'], 'resolved within the stop\'s task');
        assert.equal(client.best.cost, '12');
        // Worker 0 ends its slice: a better plan, then its run's answer.
        fakes[0].deaf = false;
        fakes[0].send(reply(MSG.INCUMBENT, runs[0], plan(11)));
        fakes[0].send(reply(MSG.DONE, runs[0], {reason: 'stopped', elapsedS: 0.6}));
        await sleep(10);
        assert.equal(client.best.cost, '11', 'the last slice\'s plan is kept');
        assert.equal(held.length, 1, 'one grace timer');
        held[0]();  // the grace passes: worker 1 has not answered
      });
      assert.equal(fakes[0].terminated, undefined, 'the worker that answered keeps its engine');
      assert.equal(fakes[1].terminated, true, 'the silent one is ended');
      const again = client.start({seed: 1}, 600);
      await sleep(20);
      assert.equal(fakes.length, 3, 'one fresh worker');
      assert.ok(fakes[2].running !== null, 'the next run goes to it');
      await client.stop();
      assert.deepEqual(await settle(again, 'stop after the respawn'), ['stopped', 'stopped']);
    });
