// Node tests of the plan lab's wasm surface (wasm/plan_bindings.cpp) against
// the native CLI (`parity_native cli plan ... --json`): the page's path
// (a PlanSession's inputs, a PlanRun stepped as the worker steps it, then
// finish()) gives the same JSON document as `shardlab plan --json` for
// presets on preset clusters, with a work limit too; the exports equal
// `--export`; bad inputs come back in the one result shape with the core's
// positioned line; a stopped run still completes with its best plan.
import assert from 'node:assert/strict';
import {execFileSync, spawnSync} from 'node:child_process';
import {test} from 'node:test';

import {createModule, NATIVE, native, ShardLabError, unwrap} from './module.mjs';

const M = await createModule();
const STEP_WORK = 0;  // web/plan/worker.js's (PlanRun bounds its own steps)

// A session with a preset model and cluster and the CLI's training flags.
function session({model, cluster = 'dgx-a100-80gb', gpus = 0, batch, seq = 2048, fix = ''}) {
  const s = new M.PlanSession();
  unwrap(s.setModelPreset(model));
  unwrap(s.setClusterPreset(cluster));
  unwrap(s.setTraining(JSON.stringify({gpus, global_batch: batch, seq, fix})));
  return s;
}

// Steps a run to its end as the worker does (no time limit reached), or
// `maxSteps` steps (a Stop: finish without the timeline, as the worker
// then asks), and returns finish()'s answer.
function runToEnd(s, options = {}, maxSteps = Infinity) {
  const run = unwrap(s.run(JSON.stringify(options)));
  let steps = 0;
  while (!run.finished() && steps < maxSteps) {
    run.step(STEP_WORK);
    ++steps;
  }
  const progress = run.progress(1.5);
  const done = unwrap(run.finish(run.finished()));
  run.delete();
  return {done, progress, steps, json: JSON.parse(done.json)};
}

// The page's runs here have no time limit; the CLI's must not stop first
// on a loaded machine (its default is 10 s).
function cli(args) {
  return native('cli', 'plan', ...args, '--time-limit', '600', '--json');
}

const CASES = [
  {model: 'gpt-1.7b', gpus: 32, batch: 512},
  {model: 'gpt-1.7b', gpus: 8, batch: 512},
  {model: 'llama3-8b', gpus: 16, batch: 256, seq: 4096},
  {model: 'mixtral-8x7b', gpus: 64, batch: 512, seq: 4096},
];

for (const c of CASES) {
  const args = [c.model, '--gpus', String(c.gpus), '--global-batch', String(c.batch)];
  if (c.seq) args.push('--seq', String(c.seq));
  test(`${c.model} on ${c.gpus} GPUs: the page's result equals 'shardlab plan --json'`, () => {
    const s = session(c);
    const {json, progress} = runToEnd(s);
    s.delete();
    assert.deepEqual(json, cli(args));
    assert.equal(json.found, true);
    assert.equal(progress.found, true);
    assert.equal(progress.incumbent, json.step_time_s);
  });
}

test('a work limit stops the page where it stops the CLI', () => {
  const c = {model: 'gpt-1.7b', gpus: 32, batch: 512};
  const s = session(c);
  const {json} = runToEnd(s, {work_limit: 3000});
  s.delete();
  // The CLI exits with its no-plan code when the limit comes first: read its output anyway.
  const out = spawnSync(
      NATIVE,
      ['cli', 'plan', c.model, '--gpus', '32', '--global-batch', '512', '--work', '3000', '--json'],
      {encoding: 'utf8'});
  const want = JSON.parse(out.stdout);
  assert.equal(want.search.work, 3000);
  assert.deepEqual(json, want);
});

test('a pinned plan (--fix) and another cluster', () => {
  const c = {model: 'gpt-1.7b', cluster: 'dgx-h100-80gb', gpus: 16, batch: 256, fix: 'tp=2,pp=2'};
  const s = session(c);
  const {json} = runToEnd(s);
  s.delete();
  const want = cli(
      [c.model, '--cluster', c.cluster, '--gpus', '16', '--global-batch', '256', '--fix', c.fix]);
  assert.deepEqual(json, want);
  assert.equal(json.plan.tp, 2);
  assert.equal(json.plan.pp, 2);
});

test('the exports equal --export megatron and --export torchtitan', () => {
  const s = session({model: 'gpt-1.7b', gpus: 32, batch: 512});
  const {done} = runToEnd(s);
  s.delete();
  const args = ['plan', 'gpt-1.7b', '--gpus', '32', '--global-batch', '512', '--time-limit', '600'];
  const text = (name) =>
      execFileSync(NATIVE, ['cli', ...args, '--export', name], {encoding: 'utf8'});
  assert.match(done.megatron, /--tensor-model-parallel-size 1/);
  assert.ok(text('megatron').includes(done.megatron), text('megatron'));
  assert.ok(text('torchtitan').includes(done.torchtitan.trim()), text('torchtitan'));
});

test('the timeline is the pipeline lab\'s schedule of the winning plan', () => {
  const s = session({model: 'gpt-1.7b', gpus: 8, batch: 512, fix: 'pp=2'});
  const {done, json} = runToEnd(s);
  s.delete();
  assert.equal(json.plan.pp, 2);
  const schedule = JSON.parse(done.timeline);
  assert.equal(done.timelineError, null);
  assert.equal(schedule.valid, true);
  assert.equal(schedule.memory.length, 2);
  assert.equal(schedule.problem.microbatches, json.plan.microbatches);
});

test('a stopped run still completes with its best plan and an honest gap', () => {
  const s = session({model: 'gpt-1.7b', gpus: 32, batch: 512});
  const {json, steps} = runToEnd(s, {}, 1);
  s.delete();
  assert.equal(steps, 1);
  if (json.found) assert.ok(json.gap >= 0 && json.lower_bound_s <= json.step_time_s);
  // Stopped in the main search: no side search has run yet.
  assert.deepEqual(json.alternatives, []);
});

test('bad inputs: the one result shape with the core\'s line', () => {
  const s = new M.PlanSession();
  const bad = s.setModelPreset('gpt-2t');
  assert.equal(bad.ok, false);
  assert.equal(bad.error.code, 'InvalidArgument');
  assert.match(bad.error.message, /gpt-2t/);
  const config = s.setModelText('{"model_type": "llama", "hidden_size": "big"}', 'config.json');
  assert.equal(config.ok, false);
  assert.match(config.error.message, /^config\.json/);
  const training = s.setTraining('{"global_batch": 0}');
  assert.equal(training.ok, false);
  assert.match(training.error.message, /global_batch/);
  const fix = s.setTraining('{"global_batch": 8, "fix": "tp=banana"}');
  assert.equal(fix.ok, false);
  assert.throws(
      () => unwrap(s.run('{}')), (e) => e instanceof ShardLabError && /no model/.test(e.message));
  s.delete();
});

test('the presets are the CLI\'s', () => {
  assert.ok(unwrap(M.PlanSession.modelPresets()).includes('gpt3-175b'));
  assert.deepEqual(
      unwrap(M.PlanSession.clusterPresets()), ['dgx-a100-80gb', 'dgx-h100-80gb', 'h800']);
});
