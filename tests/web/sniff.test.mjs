// Unit tests of web/sniff.mjs: each kind of file the page opens is told
// apart by its content (whatever its name), gzip is looked into, big files
// are judged by their head, and anything else gets one line naming it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {test} from 'node:test';
import {pathToFileURL} from 'node:url';
import zlib from 'node:zlib';

const SOURCE = path.resolve(process.env.SHARDLAB_SOURCE_DIR || '.');
const S = await import(pathToFileURL(path.join(SOURCE, 'web/sniff.mjs')).href);
const read = (rel) => fs.readFileSync(path.join(SOURCE, rel));
const file = (bytes, name = 'x.json') => new File([bytes], name);

test('every bundled kind goes to its tab, whatever the file is called', async () => {
  const cases = [
    ['examples/example.json', 'instance'],
    ['examples/asplos-2025-iopddl-B.json.gz', 'instance'],
    ['examples/pipeline/dualpipe_example.json', 'problem'],
    ['examples/pipeline/moe_layer.json', 'problem'],
    ['web/teach/examples/mlp.json', 'teach'],
    ['examples/teach/heldout/moe16_mesh16.json', 'teach'],
    ['examples/plan/models/parallel_block.json', 'model'],
    ['examples/plan/models/gpt2.json', 'config'],
    ['examples/plan/models/mixtral-8x7b.json', 'config'],
    ['examples/plan/clusters/dgx-h100-80gb.json', 'cluster'],
    ['tests/data/pytorch/dualpipev_4rank_10mb.csv', 'csv'],
    ['tests/data/pytorch/interleaved1f1b_2rank_3mb_comms.csv', 'csv'],
  ];
  for (const [rel, kind] of cases) {
    const sniffed = await S.sniffFile(file(read(rel), 'renamed.txt'));
    assert.equal(sniffed.kind, kind, rel);
    assert.ok(S.KINDS[kind].lab);
  }
  const schedule = JSON.stringify({format: 'shardlab-pipeline-schedule', version: 1, ops: []});
  assert.equal((await S.sniffFile(file(schedule))).kind, 'schedule');
});

test('a gzip for a text tab comes back inflated; a contest gzip stays as stored', async () => {
  const raw = read('examples/pipeline/uneven_stages.json');
  const sniffed = await S.sniffFile(file(zlib.gzipSync(raw), 'uneven.json.gz'));
  assert.equal(sniffed.kind, 'problem');
  assert.equal(sniffed.file.name, 'uneven.json');
  assert.equal(await sniffed.file.text(), raw.toString());
  const b = read('examples/asplos-2025-iopddl-B.json.gz');
  const instance = await S.sniffFile(file(b, 'B.json.gz'));
  assert.equal(instance.file.size, b.length);
  // A truncated gzip still goes to the sharding reader, which names the byte.
  assert.equal((await S.sniffFile(file(b.subarray(0, 100), 'cut.gz'))).kind, 'instance');
});

test('a big instance is judged by its head, and broken JSON still reaches its tab', async () => {
  const head = '{"problem": {"name": "big", "nodes": {"intervals": [' +
      '[0, 1],'.repeat(20000);
  assert.ok(head.length > S.HEAD_BYTES);
  assert.equal((await S.sniffFile(file(head))).kind, 'instance');
  const broken = '{"format": "shardlab-pipeline-problem", "devices": 4,, }';
  assert.equal((await S.sniffFile(file(broken))).kind, 'problem');
});

test('anything else gets one line naming the file and what it holds', async () => {
  const cases = [
    [
      Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0, 0), 'a.png',
      /^a\.png: not a file ShardLab opens \(found binary content at byte 4\); drop a contest instance/
    ],
    ['{"hello": 1}', 'h.json', /found a JSON object with keys "hello"\)/],
    ['[1, 2]', 'l.json', /found a JSON array of 2 entries\)/],
    ['', 'e.json', /found an empty file\)/],
    ['hello world\nsecond', 'n.txt', /found text starting "hello world"\)/],
    [
      zlib.gzipSync(Buffer.from('{"hello": 1}')), 'h.json.gz',
      /found gzip holding a JSON object with keys "hello"\)/
    ],
  ];
  for (const [bytes, name, want] of cases) {
    const sniffed = await S.sniffFile(file(bytes, name));
    assert.equal(sniffed.kind, undefined, name);
    assert.match(sniffed.error, want);
    assert.doesNotMatch(sniffed.error, /\n/);
  }
});
