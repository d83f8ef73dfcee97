// Unit tests of web/options_form.mjs against the option schema as the module
// gives it (core/sharding/options.def through optionsSchema()): a control
// takes the table's range, step, help and default, and a value outside the
// table's range is never read (the page once allowed at most 16 workers
// where the table allows 64, and no time limit under 1 s where it allows 0).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';
import {test} from 'node:test';
import {pathToFileURL} from 'node:url';

const SOURCE = path.resolve(process.env.SHARDLAB_SOURCE_DIR || '.');
const SITE = path.resolve(process.env.SHARDLAB_SITE || 'build/wasm/site');
const O = await import(pathToFileURL(path.join(SOURCE, 'web/options_form.mjs')).href);
const {unwrap} = await import(pathToFileURL(path.join(SOURCE, 'web/result.mjs')).href);

const require = createRequire(import.meta.url);
const M = await require(path.join(SITE, 'shardlab.js'))(
    {wasmBinary: fs.readFileSync(path.join(SITE, 'shardlab.wasm'))});
const schema = unwrap(M.optionsSchema());
const planSchema = unwrap(M.pipelinePlanOptionsSchema());

const input = (name, value = '') => ({dataset: {option: name}, value});

test('a control takes its range, step, help and default from the table', () => {
  const workers = input('workers');
  O.applyRow(workers, O.rowOf(schema, 'workers'));
  assert.deepEqual(
      [workers.type, workers.min, workers.max, workers.step, workers.value],
      ['number', '1', '64', '1', '1']);
  assert.match(workers.title, /--workers, 1 to 64\)$/);
  const time = input('time_limit_s', '3');
  O.applyRow(time, O.rowOf(schema, 'time_limit_s'));
  assert.deepEqual(
      [time.min, time.step, time.value], ['0', 'any', '3'], 'a value already set stays');
  const root = {querySelectorAll: () => [input('seed'), input('time_limit_s')]};
  O.applySchema(root, planSchema);
  assert.throws(() => O.rowOf(schema, 'nonsense'), /has no 'nonsense'/);
});

test('values are read within the table, as the CLI reads them', () => {
  const workers = O.rowOf(schema, 'workers');
  const time = O.rowOf(schema, 'time_limit_s');
  assert.equal(O.parseOption('64', workers), 64);
  assert.equal(O.parseOption('65', workers), null);
  assert.equal(O.parseOption('1.5', workers), null);
  assert.equal(O.parseOption('0', time), 0);
  assert.equal(O.parseOption('0.25', time), 0.25);
  assert.equal(O.parseOption('-1', time), null);
  assert.equal(O.parseOption(' ', time), null);
  assert.equal(O.readOption(input('workers', '99'), workers), 1, 'out of range: the default');
  assert.equal(O.clampOption(99, workers), 64);
  assert.equal(O.clampOption(2.6, workers), 3);
  // Whatever the page reads, the engines accept.
  for (const value of ['0', '0.5', '10', '1e7']) {
    const options = {
      time_limit_s: O.parseOption(value, time),
      workers: O.parseOption('64', workers)
    };
    assert.equal(M.checkOptions(JSON.stringify(options)).ok, true, value);
  }
  const planTime = O.rowOf(planSchema, 'time_limit_s');
  assert.equal(O.parseOption('0', planTime), 0);
});
