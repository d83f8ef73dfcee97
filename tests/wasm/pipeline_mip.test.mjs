// The planner's MIP mode end to end: the LP text emitted by the wasm module
// is solved by npm highs (HiGHS as wasm, as the page does) and by Debian's
// CBC, and both optimal makespans must equal the planner's proven optimum on
// small problems (stages and operator graphs, fixed, bidirectional and free
// placements, memory caps); the solvers' columns map back to valid
// schedules, and a schedule's MIP start has its makespan as Cmax.
import assert from 'node:assert/strict';
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';
import {test} from 'node:test';

import {createModule, scratchDir, SOURCE, unwrap} from './module.mjs';

const M = await createModule();
const require = createRequire(import.meta.url);
const highs = await require(path.join(SOURCE, 'node_modules/highs'))();
const CBC = '/usr/bin/cbc';

const PROBLEMS = {
  'linear 3x3, cap 3':
      {devices: 3, microbatches: 3, F: 1, B: 1, W: 1, mem_cap: 3, placement: 'linear'},
  'linear, uneven times, keep half, cap 2, comm': {
    devices: 2,
    microbatches: 4,
    F: 1,
    B: 2,
    W: 1,
    keep: 0.5,
    mem_cap: 2,
    comm: 0.5,
    placement: 'linear',
  },
  'bidirectional 2x2, cap 2':
      {devices: 2, microbatches: 2, F: 1, B: 2, W: 1, placement: 'bidirectional', mem_cap: 2},
  'operators, free placement': {
    devices: 2,
    microbatches: 1,
    comm: 1,
    operators: [
      {name: 'a', F: 1, B: 1, W: 1},
      {name: 'b', F: 2, B: 1, W: 1},
      {name: 'c', F: 1, B: 2, W: 0},
    ],
    edges: [['a', 'b'], ['a', 'c']],
  },
  'operators, free placement, memory cap and parameters': {
    devices: 2,
    microbatches: 2,
    comm: 0.5,
    mem_cap: 4,
    operators: [
      {name: 'a', F: 1, B: 1, W: 1, act: 1, param: 1},
      {name: 'b', F: 1, B: 2, W: 1, act: 2, param: 1, devices: [0, 1]},
    ],
    edges: [['a', 'b']],
  },
};

const session = (problem) => unwrap(M.PipelineSession.open(JSON.stringify(problem), 'problem'));

function planToEnd(problem, options = {}) {
  const s = session(problem);
  const p = unwrap(s.planner(JSON.stringify(options)));
  for (let i = 0; i < 5000 && !p.finished(); ++i) p.step(1000);
  const record = p.progress(0);
  const run = {
    finished: p.finished(),
    makespan: record.incumbent,
    bound: record.bound,
    best: unwrap(p.bestJson())
  };
  p.delete();
  s.delete();
  return run;
}

function cbcObjective(t, lp) {
  const dir = scratchDir('pipeline-mip-', t);
  const file = path.join(dir, 'model.lp');
  const out = path.join(dir, 'solution.txt');
  fs.writeFileSync(file, lp);
  execFileSync(CBC, [file, 'sec', '60', 'solve', 'solu', out], {encoding: 'utf8'});
  const first = fs.readFileSync(out, 'utf8').split('\n')[0];
  const match = /^Optimal - objective value\s+(\S+)/.exec(first);
  assert.ok(match, `CBC did not prove optimality: ${first}`);
  return Number(match[1]);
}

for (const [name, problem] of Object.entries(PROBLEMS)) {
  test(`pipeline mip: HiGHS and CBC agree with the planner (${name})`, (t) => {
    const run = planToEnd(problem);
    assert.ok(run.finished, 'the planner proves its optimum');
    assert.equal(run.bound, run.makespan);
    const s = session(problem);
    const lp = unwrap(s.emitLp('{}'));
    assert.match(lp, /^\\ ShardLab pipeline MIP/);

    const solved = highs.solve(lp, {time_limit: 60});
    assert.equal(solved.Status, 'Optimal');
    assert.ok(
        Math.abs(solved.ObjectiveValue - run.makespan) < 1e-6,
        `HiGHS ${solved.ObjectiveValue} vs planner ${run.makespan}`);
    const back = JSON.parse(unwrap(s.scheduleFromMip('{}', JSON.stringify(solved))));
    assert.equal(back.valid, true);
    assert.equal(back.name, 'mip');
    assert.ok(back.makespan <= solved.ObjectiveValue + 1e-9);

    assert.ok(Math.abs(cbcObjective(t, lp) - run.makespan) < 1e-6, 'CBC agrees');

    const start = unwrap(s.mipStart('{}', run.best));
    assert.equal(start.columns.Cmax, run.makespan);
    const again = JSON.parse(unwrap(s.scheduleFromMip('{}', JSON.stringify(start.columns))));
    assert.equal(again.valid, true);
    assert.ok(again.makespan <= run.makespan);
  });
}

test('pipeline mip: errors come back in the one result shape', () => {
  const s = session(PROBLEMS['linear 3x3, cap 3']);
  assert.deepEqual(
      s.scheduleFromMip('{}', '{"Cmax": 3}'),
      {ok: false, error: {code: 'InvalidInput', message: 'MIP solution: no value for column s_0'}});
  const options = s.emitLp('{"seed": -1}');
  assert.equal(options.error.code, 'InvalidArgument');
  assert.match(options.error.message, /^options:1:10 \(byte 9\): at seed: expected an integer/);
  const solution = s.scheduleFromMip('{}', '[1, 2]');
  assert.equal(solution.error.code, 'InvalidInput');
  assert.match(solution.error.message, /^MIP solution:1:1 \(byte 0\): expected an object/);
  s.delete();
});
