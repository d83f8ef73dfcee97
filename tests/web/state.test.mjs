// Unit tests of web/state.mjs: permalink round trips, plan packing, the
// inline/name+hash/URL choice, and the migration from every older version.
import assert from 'node:assert/strict';
import path from 'node:path';
import {test} from 'node:test';
import {pathToFileURL} from 'node:url';

const WEB = path.resolve(process.env.SHARDLAB_SOURCE_DIR || '.', 'web');
const S = await import(pathToFileURL(path.join(WEB, 'state.mjs')).href);

test('base64url and varints round-trip', () => {
  const bytes = Uint8Array.from({length: 300}, (_, i) => (i * 37) & 255);
  assert.deepEqual(S.fromBase64Url(S.toBase64Url(bytes)), bytes);
  assert.doesNotMatch(S.toBase64Url(bytes), /[+/=]/);
  const values = [0, 1, 127, 128, 300, 16383, 16384, 2 ** 31 - 1];
  assert.deepEqual(Array.from(S.decodeVarints(S.encodeVarints(values))), values);
  assert.throws(() => S.encodeVarints([-1]));
  assert.throws(() => S.decodeVarints(Uint8Array.of(0x80)), /ends inside/);
  assert.throws(() => S.fromBase64Url('a+b'), /base64url/);
});

test('plans pack small and unpack exactly', async () => {
  const plan = Int32Array.from({length: 65536}, (_, i) => (i * 7919) % 40);
  const packed = await S.packPlan(plan);
  assert.deepEqual(await S.unpackPlan(packed), plan);
  const flat = new Int32Array(65536);
  assert.ok((await S.packPlan(flat)).length < 600, 'a repetitive plan compresses well');
});

test('a fragment round-trips every kind of instance reference', async () => {
  const plan = Int32Array.of(0, 0, 2, 1, 0);
  const settings = {timeS: 30, workers: 3, seed: 42};
  const instances = [
    {kind: 'example', name: 'example.json'},
    {kind: 'inline', name: 'mine.json', bytes: Uint8Array.of(31, 139, 8, 0, 1, 2, 3)},
    {kind: 'file', name: 'big.json.gz', sha256: 'ab'.repeat(32)},
    {kind: 'url', url: 'https://example.org/x.json.gz?a=1&b=2'},
  ];
  for (const instance of instances) {
    const fragment = await S.encodeFragment({instance, settings, plan, cost: '445'});
    assert.match(fragment, /^#v=3&lab=sharding&/);
    const back = await S.decodeFragment(fragment);
    assert.deepEqual(back.instance, instance);
    assert.deepEqual(back.settings, settings);
    assert.deepEqual(back.plan, plan);
    assert.equal(back.cost, '445');
  }
  assert.equal(await S.decodeFragment(''), null);
  assert.equal(await S.decodeFragment('#'), null);
});

test('version 1 and 2 links and bare #src= links migrate to version 3', async () => {
  const v1 =
      await S.decodeFragment('#v=1&example=example.json&time=5&workers=2&seed=9&plan=0,0,2,1,0');
  assert.deepEqual(v1.instance, {kind: 'example', name: 'example.json'});
  assert.deepEqual(v1.settings, {timeS: 5, workers: 2, seed: 9});
  assert.deepEqual(Array.from(v1.plan), [0, 0, 2, 1, 0]);
  const bare = await S.decodeFragment('#src=https%3A%2F%2Fexample.org%2Fi.json');
  assert.deepEqual(bare.instance, {kind: 'url', url: 'https://example.org/i.json'});
  const hashed = await S.decodeFragment('#v=1&file=a.json&sha=ABCD');
  assert.deepEqual(hashed.instance, {kind: 'file', name: 'a.json', sha256: 'abcd'});
  const migrated = await S.migrate(new URLSearchParams('v=1&example=e.json&time=3'));
  assert.equal(migrated.toString(), 'v=3&lab=sharding&ex=e.json&t=3');
  const v2 = await S.decodeFragment('#v=2&ex=example.json&t=2&cost=445');
  assert.deepEqual(v2.instance, {kind: 'example', name: 'example.json'});
  assert.equal(v2.cost, '445');
  await assert.rejects(S.decodeFragment('#v=99&ex=a'), /version 99/);
});

test('every lab reads and writes its own keys; other labs and versions are refused', async () => {
  assert.deepEqual(await S.readFragment(''), {lab: null, params: new URLSearchParams()});
  const fragment = S.writeFragment('pipeline', new URLSearchParams('p=8&m=20&s=DualPipe'));
  assert.equal(fragment, '#v=3&lab=pipeline&p=8&m=20&s=DualPipe');
  const {lab, params} = await S.readFragment(fragment);
  assert.equal(lab, 'pipeline');
  assert.equal(params.toString(), 'p=8&m=20&s=DualPipe');
  assert.equal(await S.decodeFragment(fragment), null, 'not a sharding link');
  assert.equal(S.writeFragment('teach', [['model', 'a b']]), '#v=3&lab=teach&model=a+b');
  await assert.rejects(
      S.readFragment('#v=3&lab=nope'),
      /names the lab 'nope'; this page has sharding, pipeline, teach/);
  await assert.rejects(
      S.readFragment('#v=4&lab=teach'), /version 4; this page reads versions 1 to 3/);
});

test('small files travel inline, large ones as name and hash', async () => {
  const small = new TextEncoder().encode('{"problem": {}}'.repeat(100));
  const inline = await S.instanceReference(
      {source: {kind: 'file'}, name: 's.json', sha256: 'x', storedBytes: small});
  assert.equal(inline.kind, 'inline');
  assert.ok(inline.bytes[0] === 0x1f && inline.bytes[1] === 0x8b, 'gzipped for the link');
  const noise = Uint8Array.from({length: 64 * 1024}, () => Math.floor(Math.random() * 256));
  const big = await S.instanceReference(
      {source: {kind: 'file'}, name: 'b.json', sha256: 'y', storedBytes: noise});
  assert.deepEqual(big, {kind: 'file', name: 'b.json', sha256: 'y'});
  const unknown = await S.instanceReference(
      {source: {kind: 'file'}, name: 'c.json', sha256: 'z', storedBytes: null});
  assert.equal(unknown.kind, 'file');
  assert.deepEqual(
      await S.instanceReference({source: {kind: 'example', name: 'e.json'}}),
      {kind: 'example', name: 'e.json'});
  assert.deepEqual(
      await S.instanceReference({source: {kind: 'url', url: 'https://a/b'}}),
      {kind: 'url', url: 'https://a/b'});
});

test('?time=&workers=&seed= preset the controls', () => {
  assert.deepEqual(S.queryControls('?time=60&workers=4'), {timeS: 60, workers: 4, seed: null});
  assert.deepEqual(S.queryControls('?time=abc&seed=0'), {timeS: null, workers: null, seed: 0});
});
