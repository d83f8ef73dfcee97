// Unit tests of the pipeline lab's worker clients against fake workers that
// speak the protocol: the session client opens a problem once and names its
// session in every later call, and errors keep the core's code; the planner
// client keeps the best schedule and bound across runs and offers it to the
// next run, ignores worse schedules, and a stop is never lost however early
// it comes, nor waits for a worker stuck in a step (a fresh one reopens the
// problem); the generated schedules' JSON stays in the worker, named by the
// calls that read it, their layouts and JSON fetched when drawn or
// downloaded; the MIP client's stop ends a blocked HiGHS run by terminating
// its worker and keeps the last incumbent.
import assert from 'node:assert/strict';
import path from 'node:path';
import {test} from 'node:test';
import {pathToFileURL} from 'node:url';

import {holdTimers} from './hold_timers.mjs';

const WEB = path.resolve(process.env.SHARDLAB_SOURCE_DIR || '.', 'web');
const {MSG, OP, reply, errorReply, makeRecord, checkReply} =
    await import(pathToFileURL(path.join(WEB, 'protocol.mjs')).href);
const {ShardLabError} = await import(pathToFileURL(path.join(WEB, 'result.mjs')).href);

const fakes = [];
const script = {
  readyMs: 0,
  plan: null,
  solve: null
};

// READY after readyMs; OPEN, PLAN and SOLVE_LP call the scripted handlers
// with (fake, request); OFFER and STOP answer at once (STOP ends a running
// PLAN). Every reply is checked against the protocol's typed payloads.
class FakeWorker {
  constructor(url) {
    this.url = url;
    this.requests = [];
    this.running = null;
    this.terminated = false;
    fakes.push(this);
    setTimeout(() => this.send(reply(MSG.READY, 0, {version: 'fake'})), script.readyMs);
  }
  send(msg) {
    assert.equal(checkReply(msg), '', JSON.stringify(msg));
    if (!this.terminated && this.onmessage) this.onmessage({data: msg});
  }
  postMessage(req) {
    this.requests.push(req);
    if (this.deaf) return;  // inside a long step: nothing is answered
    if (req.op === OP.OPEN) script.open(this, req);
    if (req.op === OP.CHECK) script.check(this, req);
    if ([OP.SIMULATE, OP.LAYOUT, OP.EXPORT].includes(req.op)) script[req.op](this, req);
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
const {ScheduleEntry, SessionClient} =
    await import(pathToFileURL(path.join(WEB, 'pipeline/session_client.mjs')).href);
const {MipClient} = await import(pathToFileURL(path.join(WEB, 'pipeline/mip_client.mjs')).href);

const schedule = (makespan) => JSON.stringify({name: 'planned', makespan, valid: true, ops: []});
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const record = (bound, elapsedS, incumbent = null, counters = {}) =>
    makeRecord({elapsedS, incumbent, bound, counters});

const {STOP_GRACE_MS} = await import(pathToFileURL(path.join(WEB, 'worker_client.mjs')).href);

// A planner client on a session client, as lab.mjs wires them.
function plannerClient(handlers = {}) {
  let client = null;
  const sessions = new SessionClient('worker.js', (msg) => client.onEvent(msg));
  client = new PlannerClient(sessions, handlers);
  return client;
}

// A planner client planning `problem`, whose worker has reported a schedule
// of 12 and is now inside a slice that never ends: it answers nothing more
// (a STOP included). Each OPEN gets the next session id.
async function plannerStuck(problem) {
  fakes.length = 0;
  let sessionIds = 0;
  script.open = (fake, req) => fake.send(reply(
      MSG.DONE, req.id, {session: ++sessionIds, normalized: req.text, list: [], schedules: {}}));
  script.plan = (fake, req) => {
    fake.send(reply(MSG.INCUMBENT, req.id, {schedule: schedule(12), record: record(9, 0, 12)}));
    fake.deaf = true;
  };
  const client = plannerClient();
  await client.sessions.open(problem, 'problem.json');
  const run = client.plan({}, 60);
  await sleep(10);
  return {client, run};
}

test(
    'the session client opens once, names the session in later calls, keeps error codes',
    async () => {
      fakes.length = 0;
      script.open = (fake, req) => fake.send(reply(MSG.DONE, req.id, {
        session: 7,
        normalized: '{"devices": 2}',
        list: [{name: '1F1B', applicable: true}, {name: 'GPipe', applicable: true}],
        schedules: {'1F1B': {text: schedule(9)}, GPipe: {error: 'over the cap'}},
      }));
      script.check = (fake, req) => fake.send(errorReply(
          req.id,
          new ShardLabError('InvalidInput', 'schedule:1:8 (byte 7): at ops: expected an array')));
      const sessions = new SessionClient('worker.js');
      const opened = await sessions.open('{"devices": 2}', 'p.json');
      assert.deepEqual(
          fakes[0].requests[0], {text: '{"devices": 2}', source: 'p.json', id: 1, op: OP.OPEN});
      assert.equal(opened.schedules.get('1F1B').schedule.makespan, 9);
      assert.equal(opened.schedules.get('1F1B').text, schedule(9));
      assert.deepEqual(opened.schedules.get('GPipe'), {error: 'over the cap'});
      await assert.rejects(sessions.check('{"ops": 3}'), (error) => {
        assert.ok(error instanceof ShardLabError);
        assert.equal(error.code, 'InvalidInput');
        assert.equal(error.message, 'schedule:1:8 (byte 7): at ops: expected an array');
        return true;
      });
      assert.equal(fakes[0].requests[1].session, 7, 'a call names the session it was made for');
      assert.equal(fakes.length, 1, 'one worker serves the session');
    });

test(
    'generated schedules stay in the worker: named in calls, layouts and JSON fetched on demand',
    async () => {
      fakes.length = 0;
      const json = schedule(9);
      script.open = (fake, req) => fake.send(reply(MSG.DONE, req.id, {
        session: 3,
        normalized: '{}',
        list: [{name: '1F1B', applicable: true}],
      }));
      script[OP.SIMULATE] = (fake, req) => fake.send(reply(MSG.DONE, req.id, {
        name: req.name,
        summary: {name: req.name, makespan: 9},
        ...(req.layout ? {layout: {nOps: 1}} : {}),
      }));
      script[OP.LAYOUT] = (fake, req) => fake.send(
          reply(MSG.DONE, req.id, {summary: {name: req.name}, layout: {nOps: 2, of: req.name}}));
      script[OP.EXPORT] = (fake, req) => fake.send(reply(
          MSG.DONE, req.id,
          req.format === 'schedule-json' ? {bytes: new TextEncoder().encode(json)} :
                                           {text: `${req.format} of ${req.name}`}));
      const sessions = new SessionClient('worker.js');
      await sessions.open('{}');
      const entry = await sessions.simulate('1F1B');
      assert.deepEqual(
          [entry.raw, entry.layout, entry.held, entry.summary.makespan], [null, null, '1F1B', 9]);
      assert.deepEqual(entry.ref(), {name: '1F1B'});
      assert.throws(() => entry.text, /the worker keeps 1F1B's JSON/);
      assert.deepEqual(await sessions.layoutOf(entry), {nOps: 2, of: '1F1B'});
      assert.deepEqual(await sessions.layoutOf(entry), {nOps: 2, of: '1F1B'}, 'asked once');
      assert.deepEqual((await sessions.simulate('1F1B', true)).layout, {nOps: 1});
      assert.equal(new TextDecoder().decode(await sessions.jsonOf(entry)), json);
      assert.equal(await sessions.exportAs(entry, 'pytorch-csv'), 'pytorch-csv of 1F1B');
      await sessions.offer(entry);
      const planned = new ScheduleEntry(new TextEncoder().encode(json), {makespan: 9});
      assert.equal(
          await sessions.jsonOf(planned), planned.raw, 'an entry with its JSON is not asked');
      await sessions.offer(planned);
      const {session, id, ...openReq} = fakes[0].requests[0];
      assert.deepEqual(openReq, {text: '{}', source: 'problem', op: OP.OPEN});
      const asked = fakes[0].requests.slice(1).map(({id, session, ...r}) => r);
      assert.deepEqual(asked.slice(0, 6), [
        {op: OP.SIMULATE, name: '1F1B', layout: false},
        {op: OP.LAYOUT, name: '1F1B'},
        {op: OP.SIMULATE, name: '1F1B', layout: true},
        {op: OP.EXPORT, name: '1F1B', format: 'schedule-json'},
        {op: OP.EXPORT, name: '1F1B', format: 'pytorch-csv'},
        {op: OP.OFFER, name: '1F1B'},
      ]);
      assert.equal(asked[6].op, OP.OFFER);
      assert.ok(asked[6].schedule instanceof Uint8Array, 'a planned schedule goes as bytes');
      assert.equal(asked.length, 7);
    });

test(
    'the planner client keeps the best schedule and bound, and offers them to the next run',
    async () => {
      fakes.length = 0;
      const seen = [];
      script.plan = (fake, req) => {
        fake.send(
            reply(MSG.INCUMBENT, req.id, {schedule: schedule(30), record: record(20, 0.1, 30)}));
        fake.send(
            reply(MSG.INCUMBENT, req.id, {schedule: schedule(32), record: record(22, 0.2, 32)}));
        fake.send(reply(MSG.PROGRESS, req.id, {record: record(21, 0.3, 30, {nodes: 5})}));
        fake.send(reply(MSG.DONE, req.id, {reason: 'time', elapsedS: 0.5}));
      };
      const client = plannerClient({onIncumbent: (b) => seen.push(b.makespan)});
      const first = await client.plan({}, 1, [schedule(40)]);
      assert.deepEqual(first, {reason: 'time', elapsedS: 0.5});
      assert.deepEqual(seen, [30], 'a worse schedule is not taken');
      assert.equal(client.best.makespan, 30);
      assert.equal(client.bound, 22, 'the best bound is kept, never lowered');
      assert.equal(client.gap, 8 / 30);
      assert.deepEqual(client.record.counters, {nodes: 5});
      assert.deepEqual(fakes[0].requests.map((r) => r.op), [OP.OFFER, OP.PLAN]);
      await client.plan({}, 1);
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
    fake.send(reply(MSG.INCUMBENT, req.id, {schedule: schedule(63), record: record(64, 0.1, 63)}));
    fake.send(reply(MSG.DONE, req.id, {reason: 'finished', elapsedS: 0.1}));
  };
  const client = plannerClient();
  assert.equal((await client.plan({}, 1)).reason, 'finished');
  assert.equal(client.bound, 63);
  assert.equal(client.proven, true);
  assert.equal(client.gap, 0);
});

test('a stop while the planner worker is still starting is not lost', async () => {
  fakes.length = 0;
  script.readyMs = 30;
  script.plan = () => {};  // runs until stopped
  const client = plannerClient();
  const run = client.plan({}, 60);
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
      fake.send(reply(MSG.INCUMBENT, req.id, {schedule: schedule(12), record: record(9, 0, 12)}));
  const client = plannerClient();
  const run = client.plan({}, 60);
  await sleep(10);
  await client.stop();
  assert.equal((await run).reason, 'stopped');
  assert.equal(client.best.makespan, 12);
});

test(
    'a stop while the worker is stuck in a step keeps the best, and a fresh worker ' +
        'reopens the problem for the next call',
    async () => {
      script.check = (fake, req) => fake.send(reply(MSG.DONE, req.id, {text: schedule(12)}));
      const {client, run} = await plannerStuck('{"devices": 64}');
      const stopped = client.stop();
      assert.equal((await run).reason, 'stopped');
      await stopped;
      assert.equal(client.best.makespan, 12, 'the incumbent reported before the stop stays');
      assert.equal(fakes[0].terminated, true, 'the stuck worker is ended');
      // Its replacement is made in a later task, after the page shows the stop.
      assert.equal(fakes.length, 1, 'no worker is made before the stop resolves');
      await sleep(10);
      assert.equal(fakes.length, 2, 'the stuck worker is replaced');
      assert.deepEqual(
          fakes[1].requests.map((r) => [r.op, r.text]), [[OP.OPEN, '{"devices": 64}']],
          'the fresh worker opens the same problem');
      await client.sessions.check(schedule(12));
      const check = fakes[1].requests[1];
      assert.equal(check.op, OP.CHECK);
      assert.equal(check.session, 2, 'later calls name the reopened session');
    });

// The page draws each better schedule in tasks of tens of milliseconds; a
// stop that waited for the worker's answer (or its grace timer) waited for
// them too. The run ends in the stop's own task; the worker's last slice
// still reports, and a worker that ends its run within the grace keeps its
// planner.
test(
    'a stop ends the run at once; the last slice\'s schedule is kept and so is the worker',
    async () => {
      // Between slices: the STOP is read after this one.
      const {client, run} = await plannerStuck('{"devices": 2}');
      assert.equal(client.sessions.busy, null);
      const timers = holdTimers();  // no timer runs
      let stopped;
      try {
        client.stop();
        stopped = await Promise.race([run, Promise.resolve().then(() => null)]);
        for (let i = 0; i < 10 && stopped === null; ++i) {
          stopped = await Promise.race([run, Promise.resolve().then(() => null)]);
        }
      } finally {
        timers.restore();
      }
      assert.deepEqual(stopped && stopped.reason, 'stopped', 'resolved within the stop\'s task');
      // The worker ends its slice: a better schedule, then its run's DONE.
      const fake = fakes[0];
      const planId = fake.requests.find((r) => r.op === OP.PLAN).id;
      fake.deaf = false;
      fake.send(reply(MSG.INCUMBENT, planId, {schedule: schedule(11), record: record(9, 0.5, 11)}));
      fake.send(reply(MSG.DONE, planId, {reason: 'stopped', elapsedS: 0.5}));
      await sleep(10);
      assert.equal(client.best.makespan, 11, 'the last slice\'s schedule is kept');
      for (const fn of timers.held) fn();  // the grace passes: the worker had answered
      await sleep(10);
      assert.equal(fake.terminated, false, 'a worker that answered keeps its planner');
      assert.equal(fakes.length, 1);
      script.plan = (f, req) => f.send(reply(MSG.DONE, req.id, {reason: 'finished', elapsedS: 0}));
      assert.equal((await client.plan({}, 1)).reason, 'finished');
      assert.equal(fakes.length, 1, 'the next run goes to the same worker');
    });

test('a stop while the planner announced its start does not wait the grace', async () => {
  fakes.length = 0;
  script.open = (fake, req) => fake.send(
      reply(MSG.DONE, req.id, {session: 1, normalized: req.text, list: [], schedules: {}}));
  script.plan = (fake, req) => {  // the planner's first dives: nothing more is answered
    fake.send(reply(MSG.PROGRESS, req.id, {busy: {phase: 'start'}}));
    fake.deaf = true;
  };
  const client = plannerClient();
  await client.sessions.open('{"devices": 2}', 'dualpipe.json');
  client.consider(schedule(20), 0);
  const run = client.plan({}, 60);
  await sleep(10);
  assert.equal(client.sessions.busy, 'start');
  // The stop's grace timers (STOP_GRACE_MS) are held back: a stop that
  // waited for its grace would never resolve.
  const timers = holdTimers(STOP_GRACE_MS);
  try {
    client.stop();
    const late =
        new Promise((resolve) => timers.real(() => resolve({reason: 'still running'}), 2000));
    assert.equal((await Promise.race([run, late])).reason, 'stopped');
    assert.equal(timers.held.length, 0, 'no grace timer was set');
  } finally {
    timers.restore();
  }
  assert.equal(client.best.makespan, 20, 'the best so far stays');
  assert.equal(fakes[0].terminated, true, 'the busy worker is ended');
  await sleep(10);
  assert.deepEqual(
      fakes[1].requests.map((r) => r.op), [OP.OPEN], 'a fresh one reopens the problem');
});

// The next run waits for the stopped one's worker to be replaced; a Stop
// in that wait ends the next run too, before it reaches the new worker.
test('a stop while the last stopped run\'s worker is being replaced is not lost', async () => {
  const {client, run: first} = await plannerStuck('{"devices": 2}');
  const timers = holdTimers(STOP_GRACE_MS);
  let second;
  try {
    client.stop();
    assert.equal((await first).reason, 'stopped');
    second = client.plan({}, 60);
    client.stop();
    assert.equal(fakes[0].terminated, false, 'the grace has not passed');
    for (const fn of timers.held) fn();
  } finally {
    timers.restore();
  }
  const late = sleep(500).then(() => ({reason: 'still running'}));
  assert.equal((await Promise.race([second, late])).reason, 'stopped');
  await sleep(10);
  assert.equal(fakes[0].terminated, true, 'the stuck worker is ended');
  assert.equal(fakes.length, 2, 'replaced once');
  assert.deepEqual(
      fakes[1].requests.map((r) => r.op), [OP.OPEN], 'the stopped run never reached it');
});

test('the MIP client maps columns by name, and a stop keeps the last incumbent', async () => {
  fakes.length = 0;
  const got = [];
  script.solve = (fake, req) => {
    assert.deepEqual(req.start, {names: ['x', 'c'], values: [1, 5]});
    fake.send(
        reply(MSG.PROGRESS, req.id, {model: {names: ['c', 'x'], start: {given: 2, missing: 0}}}));
    fake.send(reply(
        MSG.INCUMBENT, req.id, {record: record(0, 0.2, 7), values: Float64Array.from([7, 3])}));
    fake.send(reply(MSG.PROGRESS, req.id, {record: record(5, 0.3, 7, {nodes: 10})}));
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
  assert.equal(done.gap, 2 / 7);
  assert.deepEqual(done.start, {given: 2, missing: 0});
  assert.equal(fakes[0].terminated, true, 'HiGHS blocks its worker: a stop terminates it');

  script.solve = (fake, req) => {
    fake.send(reply(MSG.PROGRESS, req.id, {model: {names: ['c'], start: {given: 0, missing: 0}}}));
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
