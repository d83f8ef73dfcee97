// Unit tests of web/protocol.mjs: request/reply shapes, validation, and the
// worker-side throttle that keeps progress at or below 10 Hz.
import assert from 'node:assert/strict';
import path from 'node:path';
import {test} from 'node:test';
import {pathToFileURL} from 'node:url';

const WEB = path.resolve(process.env.SHARDLAB_SOURCE_DIR || '.', 'web');
const P = await import(pathToFileURL(path.join(WEB, 'protocol.mjs')).href);

test('the five message types are fixed', () => {
  assert.deepEqual(
      Object.values(P.MSG).sort(), ['done', 'error', 'incumbent', 'progress', 'ready']);
});

test('requests carry an id and an op; replies echo the id', () => {
  const req = P.request(7, P.OP.START, {index: 2, id: 99});
  assert.equal(req.id, 7, 'the payload cannot override the id');
  assert.equal(req.op, 'start');
  assert.equal(P.checkRequest(req), '');
  const rep = P.reply(P.MSG.DONE, req.id, {reason: 'time'});
  assert.equal(rep.id, 7);
  assert.equal(P.checkReply(rep), '');
  const err = P.errorReply(7, new Error('example.json: line 1, column 2: boom'));
  assert.equal(err.type, 'error');
  assert.equal(err.message, 'Error: example.json: line 1, column 2: boom');
  assert.equal(P.checkReply(err), '');
});

test('malformed messages are named', () => {
  assert.throws(() => P.request(1, 'explode'), /unknown op/);
  assert.throws(() => P.request(0, P.OP.STOP), /positive id/);
  assert.throws(() => P.reply('shout', 1), /unknown message type/);
  assert.match(P.checkRequest({op: 'load'}), /positive id/);
  assert.match(P.checkRequest(null), /object/);
  assert.match(P.checkReply({type: 'error', id: 3}), /message/);
  assert.match(P.checkReply({type: 'done'}), /id/);
});

test('the throttle passes at most one event per 100 ms, and forced ones always', () => {
  const t = new P.Throttle();
  let passed = 0;
  for (let ms = 0; ms < 1000; ms += 5) passed += t.pass(ms) ? 1 : 0;
  assert.equal(passed, 10);
  assert.equal(P.PROGRESS_INTERVAL_MS, 100);
  assert.equal(t.pass(999), false);
  assert.equal(t.pass(999, true), true);
});

test('transfer lists take the buffers of views and buffers alike', () => {
  const a = new ArrayBuffer(8);
  const b = new Int32Array(4);
  assert.deepEqual(P.transferList([a, b]), [a, b.buffer]);
});
