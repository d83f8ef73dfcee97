// Unit tests of web/worker_loop.mjs: the sliced run loop the engine workers
// share, against fake engines (why it ends, what it reports, when).
import assert from 'node:assert/strict';
import path from 'node:path';
import {test} from 'node:test';
import {pathToFileURL} from 'node:url';

const WEB = path.resolve(process.env.SHARDLAB_SOURCE_DIR || '.', 'web');
const L = await import(pathToFileURL(path.join(WEB, 'worker_loop.mjs')).href);

// An engine that improves at the given step numbers and finishes after `total` steps.
function fakeEngine(total, improvingSteps = []) {
  return {
    works: [],
    done: 0,
    step(work) {
      this.works.push(work);
      ++this.done;
      return improvingSteps.includes(this.done);
    },
    finished() {
      return this.done >= total;
    },
  };
}

// A throttle that lets through only forced reports, so the test sees exactly those.
const onlyForced = {
  pass: (now, force) => force
};

test('runs until the engine finishes, with the given work per step', async () => {
  const engine = fakeEngine(5);
  const reports = [];
  const out = await L.runSlices({
    engine,
    run: {stop: false},
    timeLimitS: 60,
    elapsed: () => 1,
    stepWork: 7,
    sliceMs: 5,
    dirty: false,
    report: (withBest, c) => reports.push([withBest, c.steps]),
    throttle: onlyForced,
  });
  assert.equal(out.reason, 'finished');
  assert.equal(out.steps, 5);
  assert.deepEqual(engine.works, [7, 7, 7, 7, 7]);
  assert.deepEqual(reports, []);
  assert.equal(out.dirty, false);
});

test('the first improvement is reported at once, later ones wait for the throttle', async () => {
  const engine = fakeEngine(6, [2, 4]);
  const reports = [];
  const out = await L.runSlices({
    engine,
    run: {stop: false},
    timeLimitS: 60,
    elapsed: () => engine.done,
    stepWork: 1,
    sliceMs: 0,
    dirty: false,
    report: (withBest, c) => reports.push([withBest, c.improvedS]),
    throttle: onlyForced,
  });
  // sliceMs 0: one step per slice; step 2 improves, reported before step 3;
  // step 4's improvement is left to the caller (dirty) as the throttle holds it.
  assert.deepEqual(reports, [[true, 2]]);
  assert.equal(out.dirty, true);
  assert.equal(out.improvedS, 4);
  assert.equal(out.reason, 'finished');
});

test('a stop set while a slice runs ends the run at the next check', async () => {
  const run = {stop: false};
  const engine = fakeEngine(1e9);
  const step = engine.step.bind(engine);
  engine.step = (work) => {
    if (engine.done === 2) run.stop = true;  // as a STOP handled between slices would
    return step(work);
  };
  const out = await L.runSlices({
    engine,
    run,
    timeLimitS: 60,
    elapsed: () => 0,
    stepWork: 1,
    sliceMs: 0,
    dirty: false,
    report: () => {},
    throttle: onlyForced,
  });
  assert.equal(out.reason, 'stopped');
  assert.equal(out.steps, 3);
});

test('the time limit ends the run; an engine holding a best is reported first', async () => {
  const engine = fakeEngine(1e9);
  let t = 0;
  const reports = [];
  const out = await L.runSlices({
    engine,
    run: {stop: false},
    timeLimitS: 3,
    elapsed: () => t++,
    stepWork: 1,
    sliceMs: 0,
    dirty: true,
    report: (withBest) => reports.push(withBest),
    throttle: onlyForced,
  });
  assert.equal(out.reason, 'time');
  assert.deepEqual(reports, [true]);
  assert.equal(out.dirty, false);
});
