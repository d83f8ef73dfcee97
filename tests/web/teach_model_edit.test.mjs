// Unit tests of web/teach/model_edit.mjs: the page's batch, mesh and memory
// controls change exactly one field of the model, and the text written back
// keeps the examples' layout (the course examples round-trip byte for byte).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {test} from 'node:test';
import {pathToFileURL} from 'node:url';

const SOURCE = process.env.SHARDLAB_SOURCE_DIR || '.';
const E = await import(pathToFileURL(path.resolve(SOURCE, 'web/teach/model_edit.mjs')).href);
const example = (name) => fs.readFileSync(path.resolve(SOURCE, 'examples/teach', name), 'utf8');

test('the course examples are written back exactly as they are stored', () => {
  for (const name
           of ['mlp.json', 'data_parallel.json', 'transformer.json', 'zero.json', 'moe.json']) {
    assert.equal(E.formatModel(E.parseModel(example(name))), example(name), name);
  }
});

test('the batch control changes every declared tensor that carries the batch letter', () => {
  const model = E.parseModel(example('moe.json'));
  const info = {batch: 'g', batch_tensors: [['x', 0], ['dispatch', 0], ['combine', 0]]};
  E.setBatch(model, info, 16);
  assert.deepEqual(model.tensors.x.shape, [16, 1024, 1024]);
  assert.deepEqual(model.tensors.dispatch.shape, [16, 1024, 8, 256]);
  assert.deepEqual(model.tensors.wi.shape, [8, 1024, 4096]);
  assert.throws(() => E.setBatch(model, info, 0), /not a positive integer/);
  const mlp = E.setBatch(E.parseModel(example('mlp.json')), {batch_tensors: [['x', 0]]}, 262144);
  assert.match(E.formatModel(mlp), /"x": +\{"shape": \[262144, 1024\]\}/);
});

test('the mesh control keeps per-axis values and names new axes', () => {
  const model = E.parseModel(example('mlp.json'));
  E.setMesh(model, E.parseMeshShape('2x4'));
  assert.deepEqual(model.mesh.shape, [2, 4]);
  assert.deepEqual(model.mesh.axes, ['x', 'y']);
  assert.deepEqual(model.mesh.bandwidth_GBps, [100, 100]);
  assert.deepEqual(model.mesh.latency_us, [5, 5]);
  E.setMesh(model, [16]);
  assert.deepEqual(model.mesh.axes, ['x']);
  assert.deepEqual(model.mesh.bandwidth_GBps, [100]);
  assert.deepEqual(E.parseMeshShape('[2, 4]'), [2, 4]);
  assert.throws(
      () => E.parseMeshShape('2xq'), /^Error: axis 2 of "2xq" is "q", not a whole number/);
  assert.throws(() => E.setMesh(model, [2, 0]), /1 to 4 positive integers/);
  assert.throws(() => E.setMesh(model, [1, 2, 3, 4, 5]), /1 to 4 positive integers/);
});

test('the memory control sets the device memory; bad text is reported', () => {
  const model = E.setMemory(E.parseModel(example('zero.json')), 16);
  assert.equal(model.mesh.device_memory_GB, 16);
  assert.throws(() => E.setMemory(model, -1), /not positive/);
  assert.throws(() => E.parseModel('[1, 2]'), /not a JSON object/);
  assert.throws(() => E.parseModel('{"a": '), SyntaxError);
});

test('a mesh shape is refused with its reason, never changed into another', () => {
  assert.deepEqual(E.parseMeshShape('4x2'), [4, 2]);
  assert.deepEqual(E.parseMeshShape(' 8 '), [8]);
  assert.deepEqual(E.parseMeshShape('2×2x2x2'), [2, 2, 2, 2]);
  const refused = (text) => {
    try {
      E.parseMeshShape(text);
    } catch (error) {
      return error.message;
    }
    return 'accepted';
  };
  assert.equal(
      refused('3x'), 'axis 2 of "3x" has no size: write the devices per axis, such as 8 or 4x2');
  assert.equal(
      refused('x3'), 'axis 1 of "x3" has no size: write the devices per axis, such as 8 or 4x2');
  assert.equal(refused(''), 'the mesh is empty: write the devices per axis, such as 8 or 4x2');
  assert.equal(refused('2x0'), 'axis 2 of "2x0" is 0: every axis has at least 1 device');
  assert.equal(
      refused('1.5'),
      '"1.5" is "1.5", not a whole number: write the devices per axis, such as 8 or 4x2');
  assert.equal(
      refused('-4'),
      '"-4" is "-4", not a whole number: write the devices per axis, such as 8 or 4x2');
  assert.equal(refused('2x2x2x2x2'), '"2x2x2x2x2" has 5 axes; a mesh has 1 to 4');
  assert.equal(refused('512x256'), '"512x256" is 131,072 devices; a mesh has at most 65,536');
});
