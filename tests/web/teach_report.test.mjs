// Unit tests of web/teach/report.mjs on a real explanation (the native
// `shardlab teach --json` of the MLP, written below as the page receives it):
// what changed between two solves, the force sentence, each op's backward
// ops (the JAX script is the core's; tests/cli/teach_jax.sh and
// tests/wasm/teach.test.mjs check it).
import assert from 'node:assert/strict';
import path from 'node:path';
import {test} from 'node:test';
import {pathToFileURL} from 'node:url';

const SOURCE = process.env.SHARDLAB_SOURCE_DIR || '.';
const R = await import(pathToFileURL(path.resolve(SOURCE, 'web/teach/report.mjs')).href);

const megatron = {
  model: 'mlp',
  mesh: {shape: [8], axes: ['x']},
  cost: 366929,
  lower_bound: 366929,
  proven_optimal: true,
  textbook: 'Megatron tensor parallel on \'x\' (column- then row-parallel, all-reduce after)',
  ops: {
    h: {strategy: 'f:x', dims: {b: null, d: null, f: 'x'}},
    a: {strategy: 'f:x'},
    y: {strategy: 'f:x'}
  },
  parameters: {W1: {strategy: 'f:x'}, W2: {strategy: 'f:x'}},
  inputs: {x: {strategy: 'replicated'}},
  collectives: [{
    kind: 'all-reduce',
    axis: 'x',
    bytes: 8388608,
    ns: 151801,
    what: 'partial sums over f',
    on: 'op y',
    pass: 'forward'
  }],
  partition_specs: {
    x: 'P(None, None)',
    W1: 'P(None, \'x\')',
    W2: 'P(\'x\', None)',
    h: 'P(None, \'x\')',
    a: 'P(None, \'x\')',
    y: 'P(None, None)'
  },
};
const dataParallel = {
  ...megatron,
  cost: 14069307,
  lower_bound: 14069307,
  textbook: 'data parallel on \'x\' (b split, gradients all-reduced)',
  ops: {h: {strategy: 'b:x'}, a: {strategy: 'b:x'}, y: {strategy: 'b:x'}},
  parameters: {W1: {strategy: 'replicated'}, W2: {strategy: 'replicated'}},
  inputs: {x: {strategy: 'b:x'}},
};

test('the nodes whose layout changed, and the lines that say how', () => {
  assert.deepEqual(
      [...R.changedNodes(megatron, dataParallel)].sort(), ['W1', 'W2', 'a', 'h', 'x', 'y']);
  assert.deepEqual([...R.changedNodes(megatron, megatron)], []);
  assert.deepEqual(R.changeLines(null, megatron), []);
  const lines = R.changeLines(megatron, dataParallel);
  assert.ok(lines.includes('h: f:x → b:x'));
  assert.equal(
      lines.at(-1),
      'textbook: Megatron tensor parallel on \'x\' (column- then row-parallel, ' +
          'all-reduce after) → data parallel on \'x\' (b split, gradients all-reduced)');
});

test('units, dims, collectives and the force sentence', () => {
  assert.equal(R.formatNs(151801), '151.8 µs');
  assert.equal(R.formatNs(14069307), '14.069 ms');
  assert.equal(R.formatBytes(8388608), '8.39 MB');
  assert.equal(R.dimsText(megatron.ops.h.dims), 'b:– d:– f:x');
  assert.deepEqual(R.collectivesByTarget(megatron).get('y'), megatron.collectives);
  assert.equal(R.collectivesByTarget(megatron).get('h'), undefined);
  assert.equal(
      R.collectiveText(megatron.collectives[0]),
      'all-reduce on x of 8.39 MB (partial sums over f, op y, 151.8 µs)');
  const forced = {
    ...dataParallel,
    force: {forced: {h: 'b:x'}, free_cost: 366929, free_lower_bound: 366929, difference: 13702378}
  };
  assert.equal(
      R.forceText(forced),
      'Forcing h=b:x: 14.069 ms (bound 14.069 ms, proven) against the ' +
          'free optimum 366.9 µs (bound 366.9 µs): +13.702 ms.');
  assert.equal(R.forceText(megatron), '');
});

test('backwardOf gives each op the backward ops a scan of them all would, in order', () => {
  // Dotted op names, an op named "grad", a backward op of no op.
  const report = {
    ops: {h: {}, 'h.x': {}, grad: {}, r1: {}},
    backward: {
      'h.grad.W1': {},
      'h.x.grad.y': {},
      'grad.r1': {},
      'r1.shared': {},
      'grad.h': {},
      'ln.shared': {}
    }
  };
  const expected = {
    h: ['h.grad.W1', 'h.x.grad.y', 'grad.h'],
    'h.x': ['h.x.grad.y'],
    grad: ['grad.r1', 'grad.h'],
    r1: ['grad.r1', 'r1.shared']
  };
  assert.deepEqual(Object.fromEntries(R.backwardOf(report)), expected);
  const scan = (name) =>
      Object.keys(report.backward).filter((b) => b.startsWith(`${name}.`) || b === `grad.${name}`);
  for (const name of Object.keys(report.ops)) assert.deepEqual(scan(name), expected[name], name);
  assert.deepEqual(Object.fromEntries(R.backwardOf(megatron)), {h: [], a: [], y: []});
});
