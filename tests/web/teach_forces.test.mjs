// Unit tests of web/teach/forces.mjs: the fragment's f=NODE=STRATEGY;...
// form both ways, and forces that accumulate one per node.
import assert from 'node:assert/strict';
import path from 'node:path';
import {test} from 'node:test';
import {pathToFileURL} from 'node:url';

const SOURCE = process.env.SHARDLAB_SOURCE_DIR || '.';
const F = await import(pathToFileURL(path.resolve(SOURCE, 'web/teach/forces.mjs')).href);

test('the fragment form reads and writes the forces in their order', () => {
  const forces = F.parseForces('h=b:x;W1=zero3;y=replicated');
  assert.deepEqual([...forces], [['h', 'b:x'], ['W1', 'zero3'], ['y', 'replicated']]);
  assert.equal(F.encodeForces(forces), 'h=b:x;W1=zero3;y=replicated');
  assert.deepEqual([...F.parseForces('')], []);
  assert.deepEqual([...F.parseForces(null)], []);
  // Pairs without a node or a strategy are not forces.
  assert.deepEqual([...F.parseForces('=b:x;h=;y=b:x,f:y;;')], [['y', 'b:x,f:y']]);
});

test('forces accumulate, one strategy per node', () => {
  const forces = new Map();
  assert.deepEqual(F.addForce(forces, 'h', 'b:x'), {change: 'added'});
  assert.deepEqual(F.addForce(forces, 'y', 'b:x'), {change: 'added'});
  assert.deepEqual(F.addForce(forces, 'h', 'b:x'), {change: 'same'});
  assert.deepEqual(F.addForce(forces, 'h', 'replicated'), {change: 'replaced', old: 'b:x'});
  assert.equal(F.encodeForces(forces), 'h=replicated;y=b:x');
});
