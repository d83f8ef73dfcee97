// Node tests of the wasm module against the native build (parity_native):
// streaming load gives the same model, a seeded engine gives the same plan,
// bad files give the same message, and the views' helpers agree with the core.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {test} from 'node:test';
import zlib from 'node:zlib';

import {bytesStream, createModule, describeModel, exportModel, fileStream, importModel, LoadError, loadInstance, native, runEngine, scratchDir, SOURCE, unwrap} from './module.mjs';

const M = await createModule();
const EXAMPLE = path.join(SOURCE, 'examples/example.json');
const B = path.join(SOURCE, 'examples/asplos-2025-iopddl-B.json.gz');
const G = path.join(SOURCE, 'examples/asplos-2025-iopddl-G.json.gz');

async function load(file, chunkBytes) {
  return loadInstance(M, fileStream(file, chunkBytes), file);
}

for (const file of [EXAMPLE, B, G]) {
  test(`streaming load of ${path.basename(file)} equals the native model`, async () => {
    const want = native('digest', file);
    const got = await load(file);
    const info = describeModel(got.model);
    assert.equal(got.sha256, want.sha256);
    assert.equal(got.model.digest(), want.digest);
    assert.deepEqual(
        [
          info.name, info.nodes, info.edges, info.matrices, info.strategies, info.checkpoints,
          info.memoryBytes, info.limit, info.minPeak
        ],
        [
          want.name, want.nodes, want.edges, want.matrices, want.strategies, want.checkpoints,
          want.memory_bytes, want.usage_limit, want.min_peak
        ]);
    got.model.delete();
  });
}

test('the model does not depend on how the bytes are chunked', async () => {
  const want = native('digest', EXAMPLE).digest;
  const bytes = fs.readFileSync(EXAMPLE);
  for (const chunk of [1, 7, 64, 4096]) {
    const got = await loadInstance(M, bytesStream(bytes, chunk), EXAMPLE);
    assert.equal(got.model.digest(), want, `chunks of ${chunk} bytes`);
    got.model.delete();
  }
  const gz = zlib.gzipSync(bytes);
  const got = await loadInstance(M, bytesStream(gz, 5), EXAMPLE);
  assert.equal(got.model.digest(), want, 'gzip in chunks of 5 bytes');
  assert.ok(got.gzip);
  got.model.delete();
});

test('a model exported as typed arrays imports to the same model', async () => {
  const {model} = await load(B);
  const exported = exportModel(model);
  const copy = importModel(M, exported);
  assert.equal(copy.digest(), model.digest());
  assert.equal(copy.numCheckpoints(), model.numCheckpoints());
  model.delete();
  copy.delete();
});

const RUNS = [
  [EXAMPLE, 1, 0, 10, 20000],
  [EXAMPLE, 7, 1, 10, 1000],
  [B, 1, 0, 40, 20000],
  [B, 3, 1, 40, 5000],
  [G, 2, 0, 40, 20000],
];
for (const [file, seed, index, steps, work] of RUNS) {
  test(
      `${path.basename(file)} seed ${seed} engine ${index}, ${steps} steps of ${work}: ` +
          'the same plan as native',
      async () => {
        const want = native('run', file, String(seed), String(index), String(steps), String(work));
        const {model} = await load(file);
        const got = runEngine(M, model, seed, index, steps, work);
        assert.equal(got.steps, want.steps);
        assert.equal(got.cost, want.cost);
        assert.equal(got.bound, want.bound);
        assert.deepEqual(got.plan, want.plan);
        if (file === EXAMPLE) assert.equal(got.cost, '445');
        model.delete();
      });
}

test('evaluatePlan, profiles and result JSON agree with the contest semantics', async () => {
  const {model, sha256} = await load(EXAMPLE);
  const plan = Int32Array.of(0, 0, 2, 1, 0);
  const best = unwrap(M.evaluatePlan(model, plan));
  assert.equal(best.cost, '445');
  assert.equal(best.feasible, true);
  const over = unwrap(M.evaluatePlan(model, Int32Array.of(0, 0, 1, 1, 0)));
  assert.equal(over.verdict, 'over_limit');
  assert.equal(over.peak, '55');
  const short = unwrap(M.evaluatePlan(model, Int32Array.of(0, 0)));
  assert.equal(short.verdict, 'wrong_length', 'a plan of the wrong shape is a verdict');
  const profile = unwrap(M.usageProfile(model, plan));
  const half = profile.length / 2;
  assert.equal(Math.max(...profile.subarray(half)), Number(best.peak));
  assert.equal(unwrap(M.solutionLine(plan)), '[0, 0, 2, 1, 0]');
  const shares = unwrap(M.costShares(model, plan));
  assert.deepEqual(Array.from(shares), [50, 75, 70, 110, 140]);
  assert.deepEqual(Array.from(unwrap(M.liveNodesAt(model, plan, 50))), [1, 2, 0]);
  assert.deepEqual(
      unwrap(M.neighboursOf(model, plan, 3)), [{node: 1, cost: 10}, {node: 4, cost: 60}]);
  const run = {
    file: 'example.json',
    sha256,
    options: {seed: 3, workers: 2, time_limit_s: 5},
    wall_time_s: 1.5,
    stats: {rounds: 1, presolve: {core_nodes: 2}},
    lower_bound: '445',
    seconds: 1.2,
    trace: [[0.1, 0, true, '495', '395'], [0.5, 1, true, '445', '445']],
  };
  const result = JSON.parse(unwrap(M.resultJson(model, plan, JSON.stringify(run))));
  assert.equal(result.format, 'shardlab-result');
  assert.equal(result.cost, '445');
  assert.equal(result.proven_optimal, true);
  assert.equal(result.instance.sha256, sha256);
  assert.deepEqual(result.trace, [[0.1, '495', '395'], [0.5, '445', '445']]);
  assert.deepEqual(result.stats, run.stats);
  assert.equal(result.settings.seed, 3);
  assert.equal(unwrap(M.checkOptions('{"seed": 2}')).seed, 2);
  assert.ok(unwrap(M.optionsSchema()).some((o) => o.name === 'seed'));
  model.delete();
});

test('quickPlan gives a feasible plan, or none when no plan fits the limit', async () => {
  // One-node greedy moves cannot leave B's forbidden identity pairs, so it
  // returns none there; the page then waits for the Engine's first plan.
  for (const [file, expected] of [[EXAMPLE, '475'], [G, '898315396'], [B, null]]) {
    const {model} = await load(file);
    const plan = unwrap(M.quickPlan(model, 1, 2e6));
    if (expected === null) {
      assert.equal(plan, null, path.basename(file));
    } else {
      assert.equal(plan.length, model.numNodes(), path.basename(file));
      const check = unwrap(M.evaluatePlan(model, plan));
      assert.equal(check.verdict, 'feasible', path.basename(file));
      assert.equal(check.cost, expected, path.basename(file));
    }
    model.delete();
  }
  const tight = fs.readFileSync(EXAMPLE, 'utf8').replace('"usage_limit": 50', '"usage_limit": 1');
  const {model} = await loadInstance(M, bytesStream(Buffer.from(tight), 4096), 'tight.json');
  assert.equal(unwrap(M.quickPlan(model, 1, 2e6)), null);
  model.delete();
});

// Bad inputs: the corpus in tests/bad_inputs (when present) plus a few made
// here (in a folder removed after test t); every message must equal the
// native reader's, byte for byte.
function badFiles(t) {
  const dir = scratchDir('shardlab-bad-', t);
  const good = fs.readFileSync(EXAMPLE, 'utf8');
  const made = {
    'truncated.json': good.slice(0, 200),
    'trailing.json': good + ' x',
    'not_json.json': 'hello',
    'empty.json': '',
    'wrong_type.json': good.replace('"usage_limit": 50', '"usage_limit": "50"'),
    'lengths.json': good.replace('[95]', '[95, 96]'),
  };
  const files = Object.entries(made).map(([name, text]) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  });
  const truncatedGz = path.join(dir, 'truncated.json.gz');
  fs.writeFileSync(truncatedGz, zlib.gzipSync(good).subarray(0, 100));
  files.push(truncatedGz);
  const corpus = path.join(SOURCE, 'tests/bad_inputs');
  if (fs.existsSync(corpus)) {
    for (const name of fs.readdirSync(corpus).sort()) {
      if (name.endsWith('.json')) files.push(path.join(corpus, name));
    }
  }
  return files;
}

test('a bad file gives the same message as natively', async (t) => {
  const files = badFiles(t);
  assert.ok(files.length >= 7);
  for (const file of files) {
    const want = native('error', file).message;
    assert.notEqual(want, '', `${file} should be rejected natively`);
    await assert.rejects(load(file, 1 << 12), (error) => {
      assert.ok(error instanceof LoadError, String(error));
      assert.equal(error.code, 'InvalidInput');
      assert.equal(error.message, want);
      return true;
    });
  }
});
