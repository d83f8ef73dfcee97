// Node tests of the pipeline lab's wasm surface (wasm/pipeline_bindings.cpp:
// a session per problem) against the native command (`parity_native cli
// pipeline ...`): the same schedule JSON byte for byte for every schedule on
// several problems, the same comparison, normalized problem, exports, CSV
// import and error messages with their codes (the module names the problem
// by the source it is given, "problem" where the page has no file name).
import assert from 'node:assert/strict';
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {test} from 'node:test';

import {createModule, NATIVE, scratchDir, SOURCE, unwrap} from './module.mjs';

const M = await createModule();
const session = (text, source = 'problem') => unwrap(M.PipelineSession.open(text, source));
const failed = (code, message) => ({ok: false, error: {code, message}});
const EXAMPLES = path.join(SOURCE, 'examples/pipeline');
const CORPUS = path.join(SOURCE, 'tests/cli/pipeline_bad_inputs');
const tmp = scratchDir('pipeline-wasm-');

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
    const s = session(text(file));
    const list = unwrap(s.schedules());
    assert.equal(list.length, 14);  // the published schedules, PyTorch's four orders, list
    let compared = 0;
    for (const {name, applicable, reason} of list) {
      const simulated = s.simulate(name);
      const want = cli(file, '--schedule', name, '--json');
      if (!applicable) {
        assert.equal(want.code, 1, name);
        // The CLI places a schedule that does not fit the file at the file's
        // key; the module, which has no file, names the schedule instead.
        const misfit = reason.startsWith(`${name}: `) ? reason.slice(name.length + 2) : reason;
        const said = want.stderr.trim();
        if (said !== `shardlab: pipeline: ${reason}`) {
          assert.ok(said.startsWith(`shardlab: pipeline: ${file}:`), `${name}: ${said}`);
          assert.ok(
              said.endsWith(`: ${misfit} (schedule ${name}, from --schedule)`), `${name}: ${said}`);
        }
        assert.deepEqual(simulated, failed('InvalidArgument', reason));
        continue;
      }
      const got = unwrap(simulated);
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
    s.delete();
  });
}

test('compare, normalize and the schedule list agree with the CLI', () => {
  for (const file of PROBLEMS) {
    const s = session(text(file), file);
    assert.equal(unwrap(s.compare()), cli(file, '--compare', '--json').stdout.trimEnd());
    assert.equal(s.normalized(), cli(file, '--normalize').stdout.trimEnd());
  }
  const dual =
      JSON.parse(unwrap(session(text(path.join(EXAMPLES, 'dualpipe_example.json'))).compare()));
  const row = dual.find((r) => r.name === 'DualPipe');
  assert.deepEqual(
      [row.makespan, row.global_idle_max, row.peak_activation_max, row.closed_form.holds],
      [66, 6, 9, true]);
});

test('exports and CSV import agree with the CLI', () => {
  const file = path.join(EXAMPLES, 'uniform_4x8.json');
  const s = session(text(file));
  for (const name
           of ['1F1B', 'ZB-H1', 'Interleaved1F1B', 'ZBV', 'DualPipeV', 'torch:Interleaved1F1B',
               'torch:InterleavedZeroBubble', 'torch:ZBVZeroBubble', 'torch:DualPipeV']) {
    const schedule = unwrap(s.simulate(name));
    const csvFile = path.join(tmp, `${name}.csv`);
    const traceFile = path.join(tmp, `${name}.trace.json`);
    assert.equal(cli(file, '--schedule', name, '--csv', csvFile, '--trace', traceFile).code, 0);
    assert.equal(unwrap(s.exportAs(schedule, 'pytorch-csv')), text(csvFile));
    assert.equal(unwrap(s.exportAs(schedule, 'chrome-trace')), text(traceFile).trimEnd());
    const imported = unwrap(s.importCsv(text(csvFile), csvFile));
    assert.equal(imported, cli(file, '--import-csv', csvFile, '--json').stdout.trimEnd());
    assert.equal(JSON.parse(imported).makespan, JSON.parse(schedule).makespan);
  }
  const dual = session(text(path.join(EXAMPLES, 'dualpipe_example.json')));
  assert.deepEqual(
      dual.exportAs(unwrap(dual.simulate('DualPipe')), 'pytorch-csv'),
      failed(
          'InvalidArgument',
          'the PyTorch schedule CSV cannot hold DualPipe: it runs two parameter copies in ' +
              'opposite directions (micro-batches 0..9 through copy 0, 10..19 through copy 1, so ' +
              'each stage sits on two devices), while PyTorch runs every micro-batch through ' +
              'every stage and each stage on one rank; torch:DualPipeV, DualPipe cut in half onto ' +
              'a V, is the form PyTorch runs'));
  assert.deepEqual(
      s.exportAs(unwrap(s.simulate('1F1B')), 'svg'),
      failed('InvalidArgument', 'unknown export format \'svg\' (chrome-trace, pytorch-csv)'));
});

test('a compute_comms CSV imports as in the CLI', () => {
  const file = path.join(EXAMPLES, 'uniform_4x8.json');
  for (const name of ['torch:InterleavedZeroBubble', 'torch:DualPipeV', 'ZB-H1']) {
    const csvFile = path.join(tmp, `${name.replace(':', '_')}.comms.csv`);
    assert.equal(
        cli(file, '--schedule', name, '--csv', csvFile, '--csv-format', 'compute_comms').code, 0);
    assert.match(text(csvFile), /SEND_F/);
    assert.equal(
        unwrap(session(text(file)).importCsv(text(csvFile), csvFile)),
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
        session(text(file)).importCsv(csv, csvFile),
        failed('InvalidInput', want.stderr.trim().replace(/^shardlab: /, '')));
  }
});

test('every bad problem file gets the CLI\'s message', () => {
  for (const name of fs.readdirSync(CORPUS).filter((f) => f.endsWith('.json'))) {
    const file = path.join(CORPUS, name);
    const want = fs.readFileSync(file.replace(/\.json$/, '.expected'), 'utf8').trim();
    const got = M.PipelineSession.open(text(file), name);
    assert.equal(got.ok, false, name);
    assert.equal(got.error.code, 'InvalidInput', name);
    assert.equal(`shardlab: ${got.error.message}`, want, name);
    // Text typed in the page is named "problem".
    const typed = M.PipelineSession.open(text(file), 'problem');
    assert.equal(`shardlab: ${typed.error.message}`, want.replace(name, 'problem'), name);
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
    const s = unwrap(M.PipelineSession.fromFlags(JSON.stringify(flags)));
    assert.equal(s.normalized(), cli(...args, '--normalize').stdout.trimEnd());
    const name = flags.placement === 'v-shape' ? 'ZBV' : '1F1B';
    assert.equal(
        unwrap(s.simulate(name)), cli(...args, '--schedule', name, '--json').stdout.trimEnd());
  }
  assert.deepEqual(
      M.PipelineSession.fromFlags('{"stages": 2, "microbatches": 2, "keep": 2}'),
      failed('InvalidInput', 'flags: stage 0: keep exceeds act'));
  assert.deepEqual(
      M.PipelineSession.fromFlags('{"stages": 2}'),
      failed('InvalidInput', 'flags:1:13 (byte 12): expected the key "microbatches", found \'}\''));
});

test('pipelineCheck re-times an edited schedule and names what breaks', () => {
  const s = session(JSON.stringify({devices: 2, microbatches: 2, comm: 0.5}));
  const schedule = JSON.parse(unwrap(s.simulate('1F1B')));
  assert.equal(unwrap(s.check(JSON.stringify(schedule))), JSON.stringify(schedule));
  const op = schedule.ops.find((o) => o.device === 1 && o.kind === 'F' && o.microbatch === 0);
  op.start -= 1;
  op.end -= 1;
  const checked = JSON.parse(unwrap(s.check(JSON.stringify(schedule))));
  assert.equal(checked.valid, false);
  assert.deepEqual(
      checked.violations,
      ['schedule:1:1533 (byte 1532): at ops[4]: F0 stage 1 starts at 0.5 but its input F0 ' +
       'stage 0 ends at 1 and needs 0.5 to arrive']);
  const bad = s.check('{"ops": 3}');
  assert.equal(bad.error.code, 'InvalidInput');
  assert.match(bad.error.message, /^schedule:1:9 \(byte 8\): at ops: expected an array/);
});
