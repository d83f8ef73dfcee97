// The one result shape across the module (wasm/result.h): a bad input in
// each lab comes back as {ok: false, error: {code, message}} with the core's
// exact message (the native command's, where it has one) and its StatusCode
// name, never as an empty string, a sentinel, a JSON {"error"} or an abort;
// and every free function answers in the shape.
import assert from 'node:assert/strict';
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {test} from 'node:test';

import {bytesStream, createModule, loadInstance, NATIVE, native, scratchDir, SOURCE, unwrap} from './module.mjs';

const M = await createModule();
const EXAMPLE = path.join(SOURCE, 'examples/example.json');
const tmp = scratchDir('shardlab-errors-');
const failed = (code, message) => ({ok: false, error: {code, message}});

function stderrOf(args) {
  const r = spawnSync(NATIVE, ['cli', ...args], {encoding: 'utf8'});
  return {code: r.status, message: r.stderr.trim().replace(/^shardlab: /, '')};
}

async function exampleModel() {
  return (await loadInstance(M, bytesStream(fs.readFileSync(EXAMPLE), 4096), 'example.json')).model;
}

test('sharding: a bad instance, options, run record, plan or column', async () => {
  const bad = path.join(tmp, 'bad.json');
  fs.writeFileSync(
      bad, fs.readFileSync(EXAMPLE, 'utf8').replace('"usage_limit": 50', '"usage_limit": "50"'));
  const loader = new M.Loader(bad);
  const bytes = fs.readFileSync(bad);
  unwrap(loader.feed(0));
  loader.buffer(bytes.length).set(bytes);
  assert.deepEqual(loader.feed(bytes.length), {ok: true, value: null});
  assert.deepEqual(loader.finish(), failed('InvalidInput', native('error', bad).message));
  loader.delete();

  const model = await exampleModel();
  assert.deepEqual(
      M.Engine.create(model, '{"workers": 0}', 0),
      failed(
          'InvalidArgument',
          'options:1:13 (byte 12): at workers: expected an integer from 1 to 64, found the number 0'));
  assert.deepEqual(
      M.resultJson(model, Int32Array.of(0, 0, 2, 1, 0), '{"trace": [[0.5, 0, true, "44x", "0"]]}'),
      failed(
          'InvalidInput',
          'run:1:27 (byte 26): at trace[0][3]: expected a decimal integer such as "445", found ' +
              'the string "44x"'));
  assert.deepEqual(
      M.liveNodesAt(model, Int32Array.of(0, 0), 50),
      failed('InvalidArgument', 'the plan has 2 entries, the instance 5 nodes'));
  assert.deepEqual(
      M.usageProfile(model, Int32Array.of(0, 0, 9, 1, 0)),
      failed('InvalidArgument', 'node 2 has no strategy 9 (it has 3)'));
  assert.equal(model.column('nope').error.code, 'InvalidArgument');
  assert.equal(model.exportField(99).error.message, 'no model field 99 (there are 10)');
  const engine = unwrap(M.Engine.create(model, '{}', 0));
  assert.equal(unwrap(engine.bestPlan()).length, 5);
  engine.delete();
  const importer = new M.ModelImport();
  assert.deepEqual(
      importer.finish('x', true, '12x'),
      failed(
          'InvalidInput',
          'limit:1:1 (byte 0): expected a decimal integer such as "445", found the string "12x"'));
  importer.delete();
  model.delete();
});

test('pipeline: a bad problem, schedule name, schedule file and planner options', () => {
  const file = path.join(SOURCE, 'tests/cli/pipeline_bad_inputs');
  const name = fs.readdirSync(file).filter((f) => f.endsWith('.json')).sort()[0];
  const want = stderrOf(['pipeline', path.join(file, name)]);
  assert.equal(want.code, 2);
  const opened = M.PipelineSession.open(fs.readFileSync(path.join(file, name), 'utf8'), name);
  assert.deepEqual(
      opened, failed('InvalidInput', want.message.replace(path.join(file, name), name)));
  const session = unwrap(M.PipelineSession.open('{"devices": 2, "microbatches": 2}', 'p.json'));
  assert.equal(session.simulate('ZB-H9').error.code, 'InvalidArgument');
  assert.match(session.simulate('ZB-H9').error.message, /^unknown schedule 'ZB-H9'/);
  assert.deepEqual(
      session.check('{"ops": [}'),
      failed('InvalidInput', 'schedule:1:10 (byte 9): at ops[0]: expected a value, found \'}\''));
  assert.equal(session.planner('{"sed": 1}').error.code, 'InvalidArgument');
  assert.match(session.planner('{"sed": 1}').error.message, /\(did you mean "seed"\?\)$/);
  session.delete();
});

test('teach: a bad model, force and explain request', () => {
  const model = fs.readFileSync(path.join(SOURCE, 'examples/teach/mlp.json'), 'utf8');
  const broken = path.join(tmp, 'broken.json');
  fs.writeFileSync(broken, model.replace('"mesh"', '"mash"'));
  const want = stderrOf(['teach', broken]);
  assert.equal(want.code, 2);
  assert.deepEqual(
      M.teachGenerate(fs.readFileSync(broken, 'utf8'), broken, '{}'),
      failed('InvalidInput', want.message));
  assert.equal(
      M.teachGenerate(model, 'mlp.json', '{"force": {"h": "q:x"}}').error.code, 'InvalidArgument');
  assert.deepEqual(
      M.teachExplain(model, '{"plan": "all of them"}'),
      failed(
          'InvalidInput',
          'request:1:10 (byte 9): at plan: expected an array, found the string "all of them"'));
  assert.deepEqual(
      M.teachSolve(model, '{"time_limit_s": -1}'),
      failed(
          'InvalidInput',
          'options:1:18 (byte 17): at time_limit_s: expected a number from 0 to 10000000, found the number -1'));
});

test('every free function of the module answers in the one result shape', async () => {
  const model = await exampleModel();
  const plan = Int32Array.of(0, 0, 2, 1, 0);
  const teach = fs.readFileSync(path.join(SOURCE, 'examples/teach/mlp.json'), 'utf8');
  const calls = {
    evaluatePlan: [model, plan],
    quickPlan: [model, 1, 1000],
    usageProfile: [model, plan],
    minUsageProfile: [model],
    liveNodesAt: [model, plan, 50],
    costShares: [model, plan],
    neighboursOf: [model, plan, 0],
    optionsSchema: [],
    checkOptions: ['{}'],
    resultJson: [model, plan, '{}'],
    solutionLine: [plan],
    heapPeakBytes: [],
    heapUsedBytes: [],
    version: [],
    pipelinePlanOptionsSchema: [],
    teachGenerate: [teach, 'mlp.json', '{}'],
    teachExplain: [teach, '{"plan": []}'],
  };
  for (const [name, args] of Object.entries(calls)) {
    const result = M[name](...args);
    assert.equal(typeof result.ok, 'boolean', name);
    if (!result.ok) {
      assert.equal(typeof result.error.code, 'string', name);
      assert.equal(typeof result.error.message, 'string', name);
    }
  }
  model.delete();
});
