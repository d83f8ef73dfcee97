// Unit tests of the pipeline lab's worker clients against fake workers that
// speak the protocol: the planner client keeps the best schedule and bound
// across runs and offers it to the next run, ignores worse schedules, and a
// stop is never lost however early it comes; the MIP client's stop ends a
// blocked HiGHS run by terminating its worker and keeps the last incumbent.
import assert from 'node:assert/strict';
import path from 'node:path';
import {test} from 'node:test';
import {pathToFileURL} from 'node:url';

const WEB = path.resolve(process.env.SHARDLAB_SOURCE_DIR || '.', 'web');
const {MSG, OP, reply} = await import(pathToFileURL(path.join(WEB, 'protocol.mjs')).href);

const fakes = [];
const script = {
  readyMs: 0,
  plan: null,
  solve: null
};

// READY after readyMs; PLAN and SOLVE_LP call the scripted handlers with
// (fake, request); OFFER and STOP answer at once (STOP ends a running PLAN).
class FakeWorker {
  constructor(url) {
    this.url = url;
    this.requests = [];
    this.running = null;
    this.terminated = false;
    fakes.push(this);
    setTimeout(() => this.send(reply(MSG.READY, 0)), script.readyMs);
  }
  send(msg) {
    if (!this.terminated && this.onmessage) this.onmessage({data: msg});
  }
  postMessage(req) {
    this.requests.push(req);
    if (req.op === OP.OFFER) this.send(reply(MSG.DONE, req.id, {accepted: true}));
    if (req.op === OP.PLAN) {
      this.running = req.id;
      script.plan(this, req);
    }
    if (req.op === OP.SOLVE_LP) script.solve(this, req);
    if (req.op === OP.STOP) {
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
const {PlannerClient} =
    await import(pathToFileURL(path.join(WEB, 'pipeline/planner_client.mjs')).href);
const {MipClient} = await import(pathToFileURL(path.join(WEB, 'pipeline/mip_client.mjs')).href);

const schedule = (makespan) => JSON.stringify({name: 'planned', makespan, valid: true, ops: []});
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

test(
    'the planner client keeps the best schedule and bound, and offers them to the next run',
    async () => {
      fakes.length = 0;
      const seen = [];
      script.plan = (fake, req) => {
        fake.send(reply(MSG.INCUMBENT, req.id, {schedule: schedule(30), bound: 20, elapsedS: 0.1}));
        fake.send(reply(MSG.INCUMBENT, req.id, {schedule: schedule(32), bound: 22, elapsedS: 0.2}));
        fake.send(reply(MSG.PROGRESS, req.id, {bound: 21, elapsedS: 0.3, stats: {nodes: 5}}));
        fake.send(reply(MSG.DONE, req.id, {reason: 'time', elapsedS: 0.5}));
      };
      const client = new PlannerClient('worker.js', {onIncumbent: (b) => seen.push(b.makespan)});
      const first = await client.plan('{}', {}, 1, [schedule(40)]);
      assert.deepEqual(first, {reason: 'time', elapsedS: 0.5});
      assert.deepEqual(seen, [30], 'a worse schedule is not taken');
      assert.equal(client.best.makespan, 30);
      assert.equal(client.bound, 22, 'the best bound is kept, never lowered');
      assert.equal(client.gap, 8 / 30);
      assert.deepEqual(client.stats, {nodes: 5});
      assert.deepEqual(fakes[0].requests.map((r) => r.op), [OP.OFFER, OP.PLAN]);
      await client.plan('{}', {}, 1);
      const offers = fakes[0].requests.filter((r) => r.op === OP.OFFER);
      assert.equal(
          JSON.parse(offers[1].schedule).makespan, 30, 'the next run starts from the best');
      assert.equal(client.elapsedS, 1, 'solving time adds up over runs');
      client.reset('other');
      assert.equal(client.best, null);
      assert.equal(client.bound, null);
    });

test('a proof: the bound meets the best makespan and is clamped to it', async () => {
  fakes.length = 0;
  script.plan = (fake, req) => {
    fake.send(reply(MSG.INCUMBENT, req.id, {schedule: schedule(63), bound: 64, elapsedS: 0.1}));
    fake.send(reply(MSG.DONE, req.id, {reason: 'finished', elapsedS: 0.1}));
  };
  const client = new PlannerClient('worker.js');
  assert.equal((await client.plan('{}', {}, 1)).reason, 'finished');
  assert.equal(client.bound, 63);
  assert.equal(client.proven, true);
  assert.equal(client.gap, 0);
});

test('a stop while the planner worker is still starting is not lost', async () => {
  fakes.length = 0;
  script.readyMs = 30;
  script.plan = () => {};  // runs until stopped
  const client = new PlannerClient('worker.js');
  const run = client.plan('{}', {}, 60);
  await sleep(5);
  await client.stop();
  const done = await Promise.race([run, sleep(500).then(() => 'still running')]);
  script.readyMs = 0;
  assert.deepEqual(done, {reason: 'stopped', elapsedS: 0});
  assert.equal(fakes[0].requests.some((r) => r.op === OP.PLAN), false, 'no run was started');
});

test('a stop during a run ends it with reason stopped and keeps the best', async () => {
  fakes.length = 0;
  script.plan = (fake, req) =>
      fake.send(reply(MSG.INCUMBENT, req.id, {schedule: schedule(12), bound: 9, elapsedS: 0}));
  const client = new PlannerClient('worker.js');
  const run = client.plan('{}', {}, 60);
  await sleep(10);
  await client.stop();
  assert.equal((await run).reason, 'stopped');
  assert.equal(client.best.makespan, 12);
});

test('the MIP client maps columns by name, and a stop keeps the last incumbent', async () => {
  fakes.length = 0;
  const got = [];
  script.solve = (fake, req) => {
    assert.deepEqual(req.start, {names: ['x', 'c'], values: [1, 5]});
    fake.send(reply(
        MSG.PROGRESS, req.id, {phase: 'model', names: ['c', 'x'], start: {given: 2, missing: 0}}));
    fake.send(reply(
        MSG.INCUMBENT, req.id, {objective: 7, values: Float64Array.from([7, 3]), seconds: 0.2}));
    fake.send(reply(
        MSG.PROGRESS, req.id,
        {phase: 'solve', primal: 7, dual: 5, gap: 2 / 7, nodes: 10, seconds: 0.3}));
  };
  const client = new MipClient('highs_worker.js', {onIncumbent: (i) => got.push(i)});
  const run = client.solve('lp', {x: 1, c: 5}, 60);
  await sleep(10);
  client.stop();
  const done = await run;
  assert.deepEqual(got.map((i) => i.columns), [{c: 7, x: 3}]);
  assert.equal(done.status, 'stopped');
  assert.equal(done.objective, 7);
  assert.deepEqual(done.columns, {c: 7, x: 3});
  assert.equal(done.dual, 5);
  assert.deepEqual(done.start, {given: 2, missing: 0});
  assert.equal(fakes[0].terminated, true, 'HiGHS blocks its worker: a stop terminates it');

  script.solve = (fake, req) => {
    fake.send(
        reply(MSG.PROGRESS, req.id, {phase: 'model', names: ['c'], start: {given: 0, missing: 0}}));
    fake.send(reply(MSG.DONE, req.id, {
      status: 'optimal',
      objective: 4,
      dual: 4,
      gap: 0,
      values: Float64Array.from([4]),
      seconds: 1
    }));
  };
  const second = await client.solve('lp', null, 60);
  assert.equal(fakes.length, 2, 'a fresh worker serves the next solve');
  assert.equal(second.status, 'optimal');
  assert.deepEqual(second.columns, {c: 4});
});

test('a MIP stop before its worker is ready still ends the solve', async () => {
  fakes.length = 0;
  script.readyMs = 50;
  const client = new MipClient('highs_worker.js');
  const run = client.solve('lp', null, 60);
  client.stop();
  const done = await Promise.race([run, sleep(500).then(() => 'still running')]);
  script.readyMs = 0;
  assert.equal(done.status, 'stopped');
  assert.equal(done.columns, null);
});
