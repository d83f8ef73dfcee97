// The planner in wasm against the native command line: with the same seed
// and the same work (fixed steps of 1000 nodes, as `--plan --work N` runs
// them) both give the same schedule JSON, bound and optimality flag, on
// problems the planner proves and on one it does not finish; the page's
// PipelinePlanner reports progress, takes offers and reports bad input.
import assert from 'node:assert/strict';
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {test} from 'node:test';

import {createModule, NATIVE, SOURCE} from './module.mjs';

const M = await createModule();
const EXAMPLES = path.join(SOURCE, 'examples/pipeline');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pipeline-planner-'));

function problemFile(name, problem) {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, JSON.stringify(problem));
  return file;
}

// plan() with a work limit, step by step, as the CLI does it.
function planInWasm(text, options, work) {
  const p = new M.PipelinePlanner(text, JSON.stringify(options));
  assert.equal(p.error(), '');
  for (let spent = 0; !p.finished() && spent < work; spent += 1000) p.step(1000);
  const out = {
    schedule: JSON.parse(p.bestJson()),
    stats: JSON.parse(p.statsJson()),
    finished: p.finished(),
    bound: p.lowerBound()
  };
  p.delete();
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
      });
}

test('pipeline planner: progress, offers and errors through the module', () => {
  const problem = JSON.stringify(
      {devices: 4, microbatches: 6, F: 1, B: 1, W: 1, mem_cap: 4, placement: 'linear'});
  const p = new M.PipelinePlanner(problem, '{"seed": 1, "warm_start": 0, "heft": 0}');
  assert.equal(p.error(), '');
  const stats = JSON.parse(p.statsJson());
  assert.equal(typeof stats.seconds, 'number');
  assert.equal(stats.placement, 'linear');
  // A generated schedule offered from outside: 1F1B is worse than the
  // planner's first dives, ZB-H1 is optimal (3m + p - 1 = 21).
  const zb = JSON.parse(M.pipelineSimulate(problem, 'ZB-H1'));
  assert.equal(zb.makespan, 21);
  p.offer(JSON.stringify(zb));
  assert.ok(p.bestMakespan() <= 21);
  for (let i = 0; i < 100 && !p.finished(); ++i) p.step(1000);
  assert.equal(p.finished(), true);
  assert.equal(p.bestMakespan(), 21);
  assert.equal(p.lowerBound(), 21);
  assert.equal(JSON.parse(p.statsJson()).proven, true);
  p.delete();

  const bad = new M.PipelinePlanner('{"devices": 2}', '{}');
  assert.match(bad.error(), /microbatches/);
  assert.match(JSON.parse(bad.bestJson()).error, /microbatches/);
  assert.equal(bad.step(10), false);
  bad.delete();
  const badOptions = new M.PipelinePlanner(problem, '{"symmetry": 3}');
  assert.equal(
      badOptions.error(), 'option --symmetry: 3 is out of range (expected an integer from 0 to 1)');
  badOptions.delete();
  const schema = JSON.parse(M.pipelinePlanOptionsSchema());
  assert.ok(schema.some((row) => row.name === 'work' && row.flag === '--work'));
});
