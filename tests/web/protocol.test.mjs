// Unit tests of web/protocol.mjs: request/reply shapes, the typed payloads
// of each reply type (a malformed one is named), the progress record and its
// gap (the core's formula), and the worker-side throttle that keeps progress
// at or below 10 Hz.
import assert from 'node:assert/strict';
import path from 'node:path';
import {test} from 'node:test';
import {pathToFileURL} from 'node:url';

const WEB = path.resolve(process.env.SHARDLAB_SOURCE_DIR || '.', 'web');
const P = await import(pathToFileURL(path.join(WEB, 'protocol.mjs')).href);
const R = await import(pathToFileURL(path.join(WEB, 'result.mjs')).href);

const record = (fields = {}) => ({
  elapsedS: 1,
  found: true,
  incumbent: 10,
  bound: 8,
  gap: 0.2,
  finished: false,
  counters: {},
  ...fields
});

test('each reply type is checked against its payload', () => {
  const ok = [
    P.reply(P.MSG.READY, 0, {version: '0.1.0'}),
    P.reply(P.MSG.PROGRESS, 3, {record: record()}),
    P.reply(P.MSG.PROGRESS, 3, {load: {bytes: 10, total: 0}}),
    P.reply(P.MSG.PROGRESS, 3, {model: {names: ['x'], start: {given: 0, missing: 0}}}),
    P.reply(P.MSG.PROGRESS, 3, {busy: {phase: 'presolve'}}),
    P.reply(P.MSG.PROGRESS, 3, {busy: {phase: null}}),
    P.reply(P.MSG.INCUMBENT, 3, {record: record(), plan: Int32Array.of(1)}),
    P.reply(P.MSG.DONE, 3, {reason: 'time'}),
    P.errorReply(3, new R.ShardLabError('InvalidInput', 'x.json:1:1 (byte 0): boom')),
  ];
  for (const msg of ok) assert.equal(P.checkReply(msg), '', JSON.stringify(msg));
  const bad = [
    [P.reply(P.MSG.READY, 0), /version/],
    [P.reply(P.MSG.PROGRESS, 3, {}), /one of record, load, model or busy/],
    [P.reply(P.MSG.PROGRESS, 3, {busy: {}}), /busy progress needs a phase \(or null\)/],
    [P.reply(P.MSG.PROGRESS, 3, {busy: {phase: 'start'}, record: record()}), /one of/],
    [P.reply(P.MSG.PROGRESS, 3, {record: record(), load: {bytes: 1, total: 1}}), /one of/],
    [P.reply(P.MSG.PROGRESS, 3, {load: {bytes: 1}}), /bytes and total/],
    [P.reply(P.MSG.INCUMBENT, 3, {plan: []}), /record/],
    [P.reply(P.MSG.INCUMBENT, 3, {record: record({counters: null})}), /counters/],
    [P.reply(P.MSG.INCUMBENT, 3, {record: record({found: false})}), /incumbent/],
    [P.reply(P.MSG.INCUMBENT, 3, {record: record({bound: NaN})}), /bound/],
    [P.reply(P.MSG.PROGRESS, 3, {record: record({elapsedS: -1})}), /elapsedS/],
    [{type: 'error', id: 3, error: {code: 'Oops', message: 'x'}}, /code must be one of/],
    [{type: 'error', id: 3, message: 'the old shape'}, /needs a message/],
  ];
  for (const [msg, want] of bad) assert.match(P.checkReply(msg), want, JSON.stringify(msg));
});

test('requests carry an id and an op; replies echo the id; errors keep the core code', () => {
  const req = P.request(7, P.OP.START, {index: 2, id: 99});
  assert.equal(req.id, 7, 'the payload cannot override the id');
  assert.equal(req.op, 'start');
  assert.equal(P.checkRequest(req), '');
  const rep = P.reply(P.MSG.DONE, req.id, {reason: 'time', type: 'ready'});
  assert.equal(rep.type, P.MSG.DONE, 'the payload cannot override the type');
  const core = P.errorReply(7, new R.ShardLabError('InvalidArgument', 'option --seed: -1'));
  assert.deepEqual(core.error, {code: 'InvalidArgument', message: 'option --seed: -1'});
  const other = P.errorReply(7, new TypeError('x is undefined'));
  assert.deepEqual(other.error, {code: 'Internal', message: 'x is undefined'});
});

test('malformed messages are named', () => {
  assert.throws(() => P.request(1, 'explode'), /unknown op/);
  assert.throws(() => P.request(0, P.OP.STOP), /positive id/);
  assert.throws(() => P.reply('shout', 1), /unknown message type/);
  assert.match(P.checkRequest({op: 'load'}), /positive id/);
  assert.match(P.checkRequest(null), /object/);
  assert.match(P.checkReply({type: 'done'}), /id/);
});

test('a record made outside the core has the core\'s gap', () => {
  assert.deepEqual(P.makeRecord({elapsedS: 2, incumbent: 80, bound: 60, counters: {nodes: 5}}), {
    elapsedS: 2,
    found: true,
    incumbent: 80,
    bound: 60,
    gap: 0.25,
    finished: false,
    counters: {nodes: 5},
  });
  const none = P.makeRecord({elapsedS: 0, bound: 3});
  assert.equal(none.found, false);
  assert.equal(none.incumbent, null);
  assert.equal(none.gap, 1);
  assert.equal(P.relativeGap(true, 100, 120), 0, 'a bound above the incumbent is a proof');
  assert.equal(P.checkRecord(none), '');
});

test('the throttle passes at most one event per interval, and forced ones always', () => {
  const t = new P.Throttle();
  let passed = 0;
  for (let ms = 0; ms < 1000; ms += 5) passed += t.pass(ms) ? 1 : 0;
  assert.equal(passed, 10, 'at most 10 Hz');
  assert.equal(t.pass(999), false);
  assert.equal(t.pass(999, true), true);
  const fast = new P.Throttle(20);
  let fastPassed = 0;
  for (let ms = 0; ms < 100; ms += 5) fastPassed += fast.pass(ms) ? 1 : 0;
  assert.equal(fastPassed, 5);
});

test('transfer lists take the buffers of views and buffers alike', () => {
  const a = new ArrayBuffer(8);
  const b = new Int32Array(4);
  assert.deepEqual(P.transferList([a, b]), [a, b.buffer]);
});
