// Unit tests of web/result.mjs: the one result shape of the wasm module's
// calls, unwrap() throwing a ShardLabError with the core's code, and the
// {code, message} that crosses a worker and becomes the same error again.
import assert from 'node:assert/strict';
import path from 'node:path';
import {test} from 'node:test';
import {pathToFileURL} from 'node:url';

const WEB = path.resolve(process.env.SHARDLAB_SOURCE_DIR || '.', 'web');
const R = await import(pathToFileURL(path.join(WEB, 'result.mjs')).href);

test('unwrap returns the value of {ok: true}, even a falsy one', () => {
  assert.equal(R.unwrap({ok: true, value: 'text'}), 'text');
  assert.equal(R.unwrap({ok: true, value: null}), null);
  assert.equal(R.unwrap({ok: true, value: 0}), 0);
});

test('unwrap throws the core\'s code and message', () => {
  const message = 'problem:1:14 (byte 13): expected the key "microbatches", found \'}\'';
  assert.throws(
      () => R.unwrap({ok: false, error: {code: 'InvalidInput', message}}),
      (e) => e instanceof R.ShardLabError && e.code === 'InvalidInput' && e.message === message);
  assert.throws(
      () => R.unwrap({ok: false, error: {code: 'Bogus', message: 'm'}}),
      (e) => e.code === 'Internal', 'an unknown code is reported as Internal');
});

test('anything that is not a result is an Internal error, not a value', () => {
  for (const value of ['', '{"error": "x"}', undefined, null, 5, {value: 1}]) {
    assert.throws(
        () => R.unwrap(value), (e) => e.code === 'Internal' && /not a result/.test(e.message));
  }
});

test('an error crosses a worker as {code, message} and comes back the same', () => {
  const original = new R.ShardLabError('IoError', 'x.json: cannot open the file');
  const wire = structuredClone(R.errorOf(original));
  assert.deepEqual(wire, {code: 'IoError', message: 'x.json: cannot open the file'});
  const back = R.fromError(wire);
  assert.ok(back instanceof R.ShardLabError);
  assert.equal(back.code, 'IoError');
  assert.equal(back.message, original.message);
  assert.deepEqual(R.errorOf(new Error('plain')), {code: 'Internal', message: 'plain'});
  assert.deepEqual(R.errorOf('text'), {code: 'Internal', message: 'text'});
});
