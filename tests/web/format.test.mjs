// Unit tests of web/format.mjs, the page's shared number formatting (issue
// 26's numbers): exact grouping of decimal-string costs, gaps as readable
// percentages, bounds ceil'd onto the objective's grid, and the "7.2 / 10 s"
// clock; and the pipeline planner's grid (plan_panel.mjs problemDecimals).
import assert from 'node:assert/strict';
import {test} from 'node:test';

import * as F from '../../web/format.mjs';

test('costs past 2^53 are grouped exactly, from their decimal strings', () => {
  assert.equal(F.groupedExact('88657005779'), '88,657,005,779');
  assert.equal(F.groupedExact('9007199254740993'), '9,007,199,254,740,993');
  assert.equal(F.groupedExact('445'), '445');
  assert.equal(F.groupedExact('0'), '0');
  assert.equal(F.groupedExact('-1234'), '\u22121,234');
  assert.equal(F.groupedExact('n/a'), 'n/a');
});

test('gaps read as percentages with two significant digits, never in e-notation', () => {
  assert.equal(F.gapPercent(0), '0%');
  assert.equal(F.gapPercent(9.99999999252e-7), '< 0.0001%');
  assert.equal(F.gapPercent(1e-6), '0.0001%');
  assert.equal(F.gapPercent(0.004619), '0.46%');
  assert.equal(F.gapPercent(0.0123), '1.2%');
  assert.equal(F.gapPercent(0.5), '50.0%');
  assert.equal(F.gapPercent(1), '100.0%');
  assert.equal(F.gapPercent(NaN), '\u2013');
});

test('a lower bound is ceil\'d onto the objective\'s grid, float noise aside', () => {
  assert.equal(F.boundOnGrid(12.999999, 0), 13);
  assert.equal(F.boundOnGrid(13.0000001, 0), 13);
  assert.equal(F.boundOnGrid(12.2, 0), 13);
  assert.equal(F.boundOnGrid(12, 0), 12);
  assert.equal(F.boundOnGrid(12.31, 1), 12.4);
  assert.equal(F.boundOnGrid(0.1 + 0.2, 1), 0.3);
  assert.equal(F.decimalsOf(3), 0);
  assert.equal(F.decimalsOf(1.25), 2);
  assert.equal(F.decimalsOf(0.1 + 0.2), 1);
  assert.equal(F.fixed(1234.5, 1), '1,234.5');
  assert.equal(F.fixed(13, 0), '13');
});

test('the running clock reads elapsed against the limit', () => {
  assert.equal(F.elapsedOfLimit(7.23, 10), '7.2 / 10 s');
  assert.equal(F.elapsedOfLimit(0, 2.5), '0.0 / 2.5 s');
  assert.equal(F.elapsedOfLimit(-1, 10), '0.0 / 10 s');
});

test('the pipeline planner\'s grid counts a device\'s share split over its chunks', async () => {
  const {problemDecimals} = await import('../../web/pipeline/plan_panel.mjs');
  const problem = (fields) => JSON.stringify({devices: 4, microbatches: 6, ...fields});
  assert.equal(problemDecimals(problem({F: 1, B: 2, W: 1, chunks: 1})), 0);
  // A V-shape (two chunks) halves the stages: F 1 runs as two stages of 0.5,
  // and the planner's makespan on p 4, m 6, F 1, B 2, W 1 is 25.5.
  assert.equal(problemDecimals(problem({F: 1, B: 2, W: 1, chunks: 2})), 1);
  assert.equal(problemDecimals(problem({F: 1.25, chunks: 2})), 3);
  assert.equal(problemDecimals('not json'), 6);
});
