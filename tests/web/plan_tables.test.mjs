// Unit tests of web/plan/tables.mjs's sizing line: the smallest GPU count
// that fits with its nodes, none found, and sizing cut by the run's time
// limit (the core's sizing.reason), which must not read as "nothing fits".
import assert from 'node:assert/strict';
import {test} from 'node:test';

import {sizingText} from '../../web/plan/tables.mjs';

const cluster = {
  gpus_per_node: 8
};

test('sizing: the smallest count with its nodes, or none', () => {
  assert.equal(
      sizingText({cluster, sizing: {smallest_gpus: 16, sweep: []}}),
      'The smallest GPU count that fits: 16 (2 nodes).');
  assert.equal(
      sizingText({cluster, sizing: {smallest_gpus: 0, sweep: []}}),
      'No GPU count that sizing tried fits this model.');
});

test('sizing cut by the time limit says so', () => {
  const sizing = {smallest_gpus: 0, sweep: [], reason: 'not evaluated within the time limit'};
  assert.equal(sizingText({cluster, sizing}), 'Sizing: not evaluated within the time limit.');
});
