// Unit tests of web/plan/plan_client.mjs against a fake plan worker that
// speaks the protocol: a Stop ends the run in the click's own task, with
// the evaluated plan when the worker sent one (a worker stuck in the
// why-not rows or the timeline is not waited for), else with the worker's
// stopped answer to follow; a worker that has not ended its run within
// STOP_GRACE_MS is replaced by one holding the same inputs.
import assert from 'node:assert/strict';
import path from 'node:path';
import {test} from 'node:test';
import {pathToFileURL} from 'node:url';

import {holdTimers} from './hold_timers.mjs';

const WEB = path.resolve(process.env.SHARDLAB_SOURCE_DIR || '.', 'web');
const {MSG, OP, reply, makeRecord} =
    await import(pathToFileURL(path.join(WEB, 'protocol.mjs')).href);
const {STOP_GRACE_MS} = await import(pathToFileURL(path.join(WEB, 'worker_client.mjs')).href);

const fakes = [];
const script = {
  plan: null
};

// A plan answer as the worker sends it: the core's plan JSON and exports.
const answer = (stepS, reason = 'stopped') => ({
  reason,
  json: JSON.stringify({found: true, proven: false, gap: 0.1, plan: {step_s: stepS}}),
  megatron: '--tensor-model-parallel-size 2',
  timeline: null,
});
const record = (incumbent) => makeRecord({elapsedS: 0.2, incumbent, bound: 1, counters: {}});

// READY at once; OPEN echoes what it set; PLAN calls script.plan(fake, req);
// STOP ends a running PLAN with its best plan after `stopMs` (the end of a
// slice), unless the fake is deaf (inside a long step: nothing is answered).
class FakeWorker {
  constructor(url) {
    this.url = url;
    this.requests = [];
    this.running = null;
    this.stopMs = 5;
    this.terminated = false;
    fakes.push(this);
    setTimeout(() => this.send(reply(MSG.READY, 0, {version: 'fake', models: [], clusters: []})));
  }
  send(msg) {
    if (!this.terminated && this.onmessage) this.onmessage({data: msg});
  }
  postMessage(req) {
    this.requests.push(req);
    if (this.deaf) return;
    if (req.op === OP.OPEN) this.send(reply(MSG.DONE, req.id, {...req, id: undefined}));
    if (req.op === OP.PLAN) {
      this.running = req.id;
      script.plan(this, req);
    }
    if (req.op === OP.STOP) {
      const run = this.running;
      this.running = null;
      if (run !== null) {
        setTimeout(() => this.send(reply(MSG.DONE, run, answer(12))), this.stopMs);
      }
      this.send(reply(MSG.DONE, req.id, {wasRunning: run !== null}));
    }
  }
  terminate() {
    this.terminated = true;
  }
}
globalThis.Worker = FakeWorker;
const {PlanClient} = await import(pathToFileURL(path.join(WEB, 'plan/plan_client.mjs')).href);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// What `promise` resolved to within a few microtasks (the stop's own task), else null.
async function soon(promise) {
  let value = null;
  promise.then((v) => (value = v));
  for (let i = 0; i < 10 && value === null; ++i) await Promise.resolve();
  return value;
}

/**
 * Stops `c`'s `run` with the grace timer held back. Returns what the run
 * resolved to within the stop's own task (done, else null) and the held
 * timers (calling one lets the grace pass).
 */
async function stopHeld(c, run) {
  const timers = holdTimers(STOP_GRACE_MS);
  try {
    c.stop();
    return {done: await soon(run), held: timers.held};
  } finally {
    timers.restore();
  }
}

// A client whose worker's session holds a model, a cluster and a training.
async function client() {
  fakes.length = 0;
  const c = new PlanClient('worker.js');
  await c.ready();
  await c.setModel({preset: 'gpt-1.7b'});
  await c.setCluster({preset: 'dgx-a100-80gb'});
  await c.setTraining({gpus: 32, global_batch: 512, seq: 2048, fix: ''});
  return c;
}

const opens = (fake) => fake.requests.filter((r) => r.op === OP.OPEN).map((r) => {
  const {model, cluster, training} = r;
  return JSON.parse(JSON.stringify({model, cluster, training}));
});

test('a stop once the plan is evaluated ends the run at once with that plan', async () => {
  const c = await client();
  script.plan = (fake, req) => {  // evaluated, then stuck in the why-not rows
    fake.send(reply(MSG.INCUMBENT, req.id, {record: record(12), plan: answer(12, 'finished')}));
    fake.deaf = true;
  };
  const run = c.plan({}, 600);
  await sleep(10);
  const {done, held} = await stopHeld(c, run);
  assert.ok(done, 'resolved within the stop\'s task');
  assert.equal(held.length, 1, 'the worker has the grace to end its run');
  held[0]();  // the grace passes without an answer
  assert.equal(done.reason, 'stopped');
  assert.equal(done.result.plan.step_s, 12, 'the evaluated plan is kept');
  assert.equal(done.megatron, '--tensor-model-parallel-size 2');
  assert.equal(done.timeline, null);
  assert.equal(fakes[0].terminated, true, 'the stuck worker is ended');
  assert.equal(fakes.length, 1, 'its replacement is made in a later task');
  await sleep(10);
  assert.equal(fakes.length, 2);
  assert.deepEqual(
      opens(fakes[1]), [{
        model: {preset: 'gpt-1.7b'},
        cluster: {preset: 'dgx-a100-80gb'},
        training: {gpus: 32, global_batch: 512, seq: 2048, fix: ''}
      }],
      'the fresh worker holds the same inputs');
  script.plan = (fake, req) => fake.send(reply(MSG.DONE, req.id, answer(11, 'finished')));
  const next = await c.plan({}, 600);
  assert.equal(next.reason, 'finished');
  assert.equal(next.result.plan.step_s, 11);
  assert.equal(fakes.length, 2, 'the next run goes to the fresh worker');
});

test(
    'a stop before the plan is evaluated resolves at once; the worker\'s plan follows',
    async () => {
      const c = await client();
      script.plan = (fake, req) => fake.send(reply(MSG.PROGRESS, req.id, {record: record(12)}));
      const run = c.plan({}, 600);
      await sleep(10);
      const {done, held} = await stopHeld(c, run);
      assert.ok(done, 'resolved within the stop\'s task');
      assert.equal(done.reason, 'stopped');
      assert.equal(done.result, null, 'no evaluated plan yet');
      const later = await done.later;  // the worker ends its slice 5 ms later
      assert.equal(later.reason, 'stopped');
      assert.equal(later.result.plan.step_s, 12, 'its best plan comes with its answer');
      held.forEach((fn) => fn());  // the grace passes: the worker had answered
      await sleep(10);
      assert.equal(fakes.length, 1, 'a worker that answered is kept');
      assert.equal(fakes[0].terminated, false);
    });

test(
    'a worker that does not answer a stop is replaced, and the next run waits for that',
    async () => {
      const c = await client();
      script.plan = (fake, req) => {  // inside the plan's evaluation
        fake.send(reply(MSG.PROGRESS, req.id, {record: record(12)}));
        fake.deaf = true;
      };
      const run = c.plan({}, 600);
      await sleep(10);
      c.stop();
      const done = await soon(run);
      assert.ok(done, 'resolved within the stop\'s task');
      assert.equal(done.result, null);
      script.plan = (fake, req) => fake.send(reply(MSG.DONE, req.id, answer(10, 'finished')));
      const next = c.plan({}, 600);  // pressed before the grace has passed
      assert.equal(await done.later, null, 'no answer from the replaced worker');
      assert.equal(fakes[0].terminated, true);
      assert.equal((await next).result.plan.step_s, 10);
      assert.equal(fakes.length, 2);
      assert.deepEqual(
          fakes[1].requests.map((r) => r.op), [OP.OPEN, OP.PLAN],
          'the fresh worker gets the inputs, then the run');
      assert.equal(fakes[0].requests.filter((r) => r.op === OP.PLAN).length, 1);
    });
