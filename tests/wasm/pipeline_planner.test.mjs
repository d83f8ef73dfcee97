// The planner in wasm against the native command line: with the same seed
// and the same work (fixed steps of 1000 nodes, as `--plan --work N` runs
// them) both give the same schedule JSON, bound and optimality flag, on
// problems the planner proves and on one it does not finish; the page's
// PipelinePlanner (made by a session) reports the progress record, takes
// offers and reports bad input in the one result shape.
import assert from 'node:assert/strict';
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {test} from 'node:test';

import {createModule, NATIVE, scratchDir, SOURCE, unwrap} from './module.mjs';

const M = await createModule();
const EXAMPLES = path.join(SOURCE, 'examples/pipeline');
const tmp = scratchDir('pipeline-planner-');

function problemFile(name, problem) {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, JSON.stringify(problem));
  return file;
}

// plan() with a work limit, step by step, as the CLI does it.
function planInWasm(text, options, work) {
  const session = unwrap(M.PipelineSession.open(text, 'problem'));
  const p = unwrap(session.planner(JSON.stringify(options)));
  for (let spent = 0; !p.finished() && spent < work; spent += 1000) p.step(1000);
  const record = p.progress(0);
  const out = {
    schedule: JSON.parse(unwrap(p.bestJson())),
    counters: record.counters,
    finished: p.finished(),
    bound: record.bound
  };
  p.delete();
  session.delete();
  return out;
}

function planNatively(file, seed, work) {
  const r = spawnSync(
      NATIVE,
      [
        'cli', 'pipeline', file, '--plan', '--seed', String(seed), '--work', String(work),
        '--time-limit', '600', '--json'
      ],
      {encoding: 'utf8'});
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const CASES = [
  {file: path.join(EXAMPLES, 'uneven_stages.json'), work: 30000},
  {file: path.join(EXAMPLES, 'two_towers.json'), work: 30000},
  {file: path.join(EXAMPLES, 'moe_layer.json'), work: 20000},
  // Not finished within the work: the anytime state itself must agree.
  {
    file: problemFile('tight.json', {
      devices: 4,
      microbatches: 8,
      F: 1,
      B: 2,
      W: 1,
      keep: 0.5,
      mem_cap: 2,
      comm: 0.5,
      placement: 'linear'
    }),
    work: 12000
  },
];

for (const {file, work} of CASES) {
  test(
      `pipeline planner: wasm and native agree for a seed and work (${path.basename(file)})`,
      () => {
        const text = fs.readFileSync(file, 'utf8');
        const wasm = planInWasm(text, {seed: 3}, work);
        const native = planNatively(file, 3, work);
        assert.equal(wasm.schedule.valid, true);
        assert.equal(native.valid, true);
        assert.equal(wasm.schedule.makespan, native.makespan);
        assert.equal(wasm.schedule.lower_bound, native.lower_bound);
        assert.equal(wasm.schedule.optimal, native.optimal);
        assert.deepEqual(wasm.schedule.ops, native.ops);
        assert.equal(wasm.bound, native.lower_bound);
        // The same counters as the CLI's "planner" record, but for the wall time.
        assert.deepEqual(wasm.counters, native.planner);
      });
}

test('pipeline planner: progress, offers and errors through the module', () => {
  const problem = JSON.stringify(
      {devices: 4, microbatches: 6, F: 1, B: 1, W: 1, mem_cap: 4, placement: 'linear'});
  const session = unwrap(M.PipelineSession.open(problem, 'problem'));
  const p = unwrap(session.planner('{"seed": 1, "warm_start": 0, "heft": 0}'));
  const first = p.progress(0.25);
  assert.equal(first.elapsedS, 0.25);
  assert.equal(first.counters.placement, 'linear');
  assert.equal(typeof first.counters.nodes, 'number');
  // A generated schedule offered from outside: 1F1B is worse than the
  // planner's first dives, ZB-H1 is optimal (3m + p - 1 = 21).
  const zb = unwrap(session.simulate('ZB-H1'));
  assert.equal(JSON.parse(zb).makespan, 21);
  assert.equal(p.offer(zb).ok, true);
  assert.ok(p.progress(0).incumbent <= 21);
  for (let i = 0; i < 100 && !p.finished(); ++i) p.step(1000);
  const last = p.progress(1);
  assert.deepEqual(
      [last.found, last.incumbent, last.bound, last.gap, last.finished, last.counters.proven],
      [true, 21, 21, 0, true, true]);
  assert.equal(JSON.parse(unwrap(p.bestJson())).optimal, true);
  const unreadable = p.offer('{"ops": 3}');
  assert.equal(unreadable.ok, false);
  assert.equal(unreadable.error.code, 'InvalidInput');
  assert.match(unreadable.error.message, /^offered:1:9 \(byte 8\): at ops: expected an array/);
  p.delete();

  const badOptions = session.planner('{"symmetry": 3}');
  assert.deepEqual(badOptions, {
    ok: false,
    error: {
      code: 'InvalidArgument',
      message: 'options:1:14 (byte 13): at symmetry: expected an integer from 0 to 1, found the ' +
          'number 3'
    }
  });
  const fresh =
      unwrap(session.planner('{"warm_start": 0, "heft": 0, "symmetry": 0, "dominance": 0}'));
  assert.equal(fresh.progress(0).found === false || fresh.progress(0).found === true, true);
  if (!fresh.progress(0).found) {
    assert.deepEqual(
        fresh.bestJson(),
        {ok: false, error: {code: 'InvalidArgument', message: 'the planner has no schedule yet'}});
  }
  fresh.delete();
  session.delete();
  const schema = unwrap(M.pipelinePlanOptionsSchema());
  assert.ok(schema.some((row) => row.name === 'work' && row.flag === '--work'));
});
