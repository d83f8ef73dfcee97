// Node tests of the pipeline lab's wasm surface (wasm/pipeline_bindings.cpp)
// against the native command (`parity_native cli pipeline ...`): the same
// schedule JSON byte for byte for every schedule on several problems, the
// same comparison, normalized problem, exports, CSV import and error
// messages (the module names the problem "problem" where the CLI names the
// file).
import assert from 'node:assert/strict';
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {test} from 'node:test';

import {createModule, NATIVE, SOURCE} from './module.mjs';

const M = await createModule();
const EXAMPLES = path.join(SOURCE, 'examples/pipeline');
const CORPUS = path.join(SOURCE, 'tests/cli/pipeline_bad_inputs');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pipeline-wasm-'));

// Runs the native CLI; returns {code, stdout, stderr}.
function cli(...args) {
  const r = spawnSync(NATIVE, ['cli', 'pipeline', ...args], {encoding: 'utf8'});
  return {code: r.status, stdout: r.stdout, stderr: r.stderr};
}

// A problem file under tmp (for problems built here).
function problemFile(name, problem) {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, JSON.stringify(problem));
  return file;
}

const PROBLEMS = [
  ...fs.readdirSync(EXAMPLES).filter((f) => f.endsWith('.json')).map((f) => path.join(EXAMPLES, f)),
  problemFile('comm.json', {devices: 4, microbatches: 8, comm: 0.5, FB: 2.5, keep: 0.5, param: 1}),
  problemFile('uneven_times.json', {devices: 6, microbatches: 12, F: 1, B: 2, W: 1, chunks: 3}),
  problemFile('capped.json', {devices: 4, microbatches: 8, mem_cap: 5, F: 2, B: 3, W: 1}),
];

const text = (file) => fs.readFileSync(file, 'utf8');

for (const file of PROBLEMS) {
  test(`every schedule on ${path.basename(file)}: the module's schedule JSON is the CLI's`, () => {
    const problem = text(file);
    const list = JSON.parse(M.pipelineSchedules(problem));
    assert.equal(list.length, 14);  // the published schedules, PyTorch's four orders, list
    let compared = 0;
    for (const {name, applicable, reason} of list) {
      const got = M.pipelineSimulate(problem, name);
      const want = cli(file, '--schedule', name, '--json');
      if (!applicable) {
        assert.equal(want.code, 1, name);
        assert.equal(want.stderr.trim(), `shardlab: pipeline: ${reason}`);
        assert.deepEqual(JSON.parse(got), {error: reason});
        continue;
      }
      const schedule = JSON.parse(got);
      if (want.code === 3) {
        // Over the memory cap: the CLI writes nothing, the module says why.
        assert.equal(schedule.valid, false, name);
        assert.equal(want.stdout, '');
        assert.ok(want.stderr.includes(schedule.violations[0]), name);
        continue;
      }
      assert.equal(want.code, 0, `${name}: ${want.stderr}`);
      assert.equal(got, want.stdout.trimEnd(), name);
      assert.equal(schedule.valid, true);
      ++compared;
    }
    assert.ok(compared >= 1);
  });
}

test('compare, normalize and the schedule list agree with the CLI', () => {
  for (const file of PROBLEMS) {
    const problem = text(file);
    assert.equal(M.pipelineCompare(problem), cli(file, '--compare', '--json').stdout.trimEnd());
    assert.equal(M.pipelineNormalize(problem, file), cli(file, '--normalize').stdout.trimEnd());
  }
  const dual = JSON.parse(M.pipelineCompare(text(path.join(EXAMPLES, 'dualpipe_example.json'))));
  const row = dual.find((r) => r.name === 'DualPipe');
  assert.deepEqual(
      [row.makespan, row.global_idle_max, row.peak_activation_max, row.closed_form.holds],
      [66, 6, 9, true]);
});

test('exports and CSV import agree with the CLI', () => {
  const file = path.join(EXAMPLES, 'uniform_4x8.json');
  const problem = text(file);
  for (const name
           of ['1F1B', 'ZB-H1', 'Interleaved1F1B', 'ZBV', 'DualPipeV', 'torch:Interleaved1F1B',
               'torch:InterleavedZeroBubble', 'torch:ZBVZeroBubble', 'torch:DualPipeV']) {
    const schedule = M.pipelineSimulate(problem, name);
    const csvFile = path.join(tmp, `${name}.csv`);
    const traceFile = path.join(tmp, `${name}.trace.json`);
    assert.equal(cli(file, '--schedule', name, '--csv', csvFile, '--trace', traceFile).code, 0);
    assert.equal(M.pipelineExport(problem, schedule, 'pytorch-csv'), text(csvFile));
    assert.equal(M.pipelineExport(problem, schedule, 'chrome-trace'), text(traceFile).trimEnd());
    const imported = M.pipelineImportCsv(problem, text(csvFile), csvFile);
    assert.equal(imported, cli(file, '--import-csv', csvFile, '--json').stdout.trimEnd());
    assert.equal(JSON.parse(imported).makespan, JSON.parse(schedule).makespan);
  }
  const dual = path.join(EXAMPLES, 'dualpipe_example.json');
  assert.deepEqual(
      JSON.parse(
          M.pipelineExport(text(dual), M.pipelineSimulate(text(dual), 'DualPipe'), 'pytorch-csv')),
      {
        error: 'the PyTorch schedule CSV cannot hold DualPipe: it runs two parameter copies in ' +
            'opposite directions (micro-batches 0..9 through copy 0, 10..19 through copy 1, so ' +
            'each stage sits on two devices), while PyTorch runs every micro-batch through ' +
            'every stage and each stage on one rank; torch:DualPipeV, DualPipe cut in half onto ' +
            'a V, is the form PyTorch runs'
      });
  assert.match(
      M.pipelineExport(problem, M.pipelineSimulate(problem, '1F1B'), 'svg'),
      /unknown export format 'svg'/);
});

test('a compute_comms CSV imports as in the CLI', () => {
  const file = path.join(EXAMPLES, 'uniform_4x8.json');
  for (const name of ['torch:InterleavedZeroBubble', 'torch:DualPipeV', 'ZB-H1']) {
    const csvFile = path.join(tmp, `${name.replace(':', '_')}.comms.csv`);
    assert.equal(
        cli(file, '--schedule', name, '--csv', csvFile, '--csv-format', 'compute_comms').code, 0);
    assert.match(text(csvFile), /SEND_F/);
    assert.equal(
        M.pipelineImportCsv(text(file), text(csvFile), csvFile),
        cli(file, '--import-csv', csvFile, '--json').stdout.trimEnd());
  }
});

test('a bad CSV gets the same cell-precise message', () => {
  const file = path.join(tmp, 'two.json');
  fs.writeFileSync(file, JSON.stringify({devices: 2, microbatches: 2}));
  const cases = {
    'bad_action.csv': '0F0,0F1,0B0,0B1\n1F0,1X0,1F1,1B1\n',
    'deadlock.csv': '0F0,0B0,0F1,0B1\n1B0,1F0,1F1,1B1\n',
    'short.csv': '0F0,0F1,0B0,0B1\n1F0,1B0,1F1\n',
    'header.csv': 'rank 0,rank 1\n0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n',
    'stage9.csv': '0F0,9F1,0B0,0B1\n1F0,1B0,1F1,1B1\n',
    'non_ascii.csv': '0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1\u00e9\n',
  };
  for (const [name, csv] of Object.entries(cases)) {
    const csvFile = path.join(tmp, name);
    fs.writeFileSync(csvFile, csv);
    const want = cli(file, '--import-csv', csvFile);
    assert.equal(want.code, 2);
    assert.deepEqual(
        JSON.parse(M.pipelineImportCsv(text(file), csv, csvFile)),
        {error: want.stderr.trim().replace(/^shardlab: /, '')});
  }
});

test('every bad problem file gets the CLI\'s message', () => {
  for (const name of fs.readdirSync(CORPUS).filter((f) => f.endsWith('.json'))) {
    const file = path.join(CORPUS, name);
    const want = fs.readFileSync(file.replace(/\.json$/, '.expected'), 'utf8').trim();
    const got = JSON.parse(M.pipelineNormalize(text(file), name));
    assert.equal(`shardlab: ${got.error}`, want, name);
    // The other functions name the problem "problem".
    const simulated = JSON.parse(M.pipelineSimulate(text(file), '1F1B'));
    assert.equal(`shardlab: ${simulated.error}`, want.replace(name, 'problem'), name);
  }
});

test('pipelineProblemFromFlags builds the problem the CLI builds from the same flags', () => {
  const cases = [
    [{stages: 4, microbatches: 8}, ['--stages', '4', '--microbatches', '8']],
    [
      {stages: 8, microbatches: 20, F: 1, B: 1, W: 1, FB: 3, mem_cap: 9},
      [
        '--stages', '8', '--microbatches', '20', '--F', '1', '--B', '1', '--W', '1', '--FB', '3',
        '--mem-cap', '9'
      ]
    ],
    [
      {
        devices: 4,
        microbatches: 8,
        comm: 0.5,
        keep: 0.5,
        param: 1,
        chunks: 4,
        placement: 'v-shape'
      },
      [
        '--stages', '4', '--microbatches', '8', '--comm', '0.5', '--keep', '0.5', '--param', '1',
        '--chunks', '4', '--placement', 'v-shape'
      ]
    ],
    [
      {
        stages: 8,
        microbatches: 20,
        FB: 3,
        mem_cap: 64e9,
        transformer: {h: 4096, s: 2048, a: 32, t: 2, layers: 4}
      },
      [
        '--stages', '8', '--microbatches', '20', '--FB', '3', '--mem-cap', '64e9', '--transformer',
        'h=4096,s=2048,a=32,t=2,layers=4'
      ]
    ],
  ];
  for (const [flags, args] of cases) {
    const problem = M.pipelineProblemFromFlags(JSON.stringify(flags));
    assert.equal(problem, cli(...args, '--normalize').stdout.trimEnd());
    const name = flags.placement === 'v-shape' ? 'ZBV' : '1F1B';
    assert.equal(
        M.pipelineSimulate(problem, name),
        cli(...args, '--schedule', name, '--json').stdout.trimEnd());
  }
  assert.deepEqual(
      JSON.parse(M.pipelineProblemFromFlags('{"stages": 2, "microbatches": 2, "keep": 2}')),
      {error: 'flags: stage 0: keep exceeds act'});
  assert.deepEqual(
      JSON.parse(M.pipelineProblemFromFlags('{"stages": 2}')),
      {error: 'flags:1:13 (byte 12): expected the key "microbatches", found \'}\''});
});

test('pipelineCheck re-times an edited schedule and names what breaks', () => {
  const problem = JSON.stringify({devices: 2, microbatches: 2, comm: 0.5});
  const schedule = JSON.parse(M.pipelineSimulate(problem, '1F1B'));
  assert.equal(M.pipelineCheck(problem, JSON.stringify(schedule)), JSON.stringify(schedule));
  const op = schedule.ops.find((o) => o.device === 1 && o.kind === 'F' && o.microbatch === 0);
  op.start -= 1;
  op.end -= 1;
  const checked = JSON.parse(M.pipelineCheck(problem, JSON.stringify(schedule)));
  assert.equal(checked.valid, false);
  assert.deepEqual(
      checked.violations,
      ['F0 stage 1 starts at 0.5 but its input F0 stage 0 ends at 1 and needs 0.5 to arrive']);
  assert.match(M.pipelineCheck(problem, '{"ops": 3}'), /at ops: expected an array/);
});
