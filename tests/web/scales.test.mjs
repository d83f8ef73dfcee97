// Unit tests of web/plots/scales.mjs: linear and log scales, ticks, number
// formats, the relative gap and the per-pixel min/max buckets.
import assert from 'node:assert/strict';
import path from 'node:path';
import {test} from 'node:test';
import {pathToFileURL} from 'node:url';

const WEB = path.resolve(process.env.SHARDLAB_SOURCE_DIR || '.', 'web');
const S = await import(pathToFileURL(path.join(WEB, 'plots/scales.mjs')).href);

test('linear scales map and invert', () => {
  const x = S.linearScale(10, 20, 0, 100);
  assert.equal(x(10), 0);
  assert.equal(x(15), 50);
  assert.equal(x.invert(100), 20);
  const flipped = S.linearScale(0, 1, 200, 0);
  assert.equal(flipped(1), 0);
  assert.equal(S.linearScale(5, 5, 0, 10)(5), 0, 'an empty domain does not divide by zero');
});

test('log scales map decades evenly and clamp non-positive values', () => {
  const y = S.logScale(1e-6, 1, 100, 0);
  assert.equal(y(1), 0);
  assert.equal(y(1e-6), 100);
  assert.ok(Math.abs(y(1e-3) - 50) < 1e-9);
  assert.equal(y(0), 100);
  assert.deepEqual(y.ticks(), [1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1]);
  assert.ok(Math.abs(y.invert(50) - 1e-3) < 1e-12);
});

test('nice ticks are round and cover the domain', () => {
  assert.deepEqual(S.niceTicks(0, 10, 5), [0, 2, 4, 6, 8, 10]);
  assert.deepEqual(S.niceTicks(0.1, 0.95, 4), [0.2, 0.4, 0.6, 0.8]);
  assert.deepEqual(S.niceTicks(3, 3), [3]);
  const big = S.niceTicks(13084116, 14392528, 4);
  assert.ok(big.every((t) => t >= 13084116 && t <= 14392528));
  assert.ok(big.length >= 3 && big.length <= 6);
});

test('extent skips non-finite values and pads', () => {
  assert.deepEqual(S.extent([Float64Array.of(3, NaN, 1, Infinity)]), [1, 3]);
  assert.deepEqual(S.extent([[0, 10]], 0.1), [-1, 11]);
  assert.deepEqual(S.extent([[]]), [0, 1]);
});

test('formats', () => {
  assert.equal(S.compactNumber(532843), '533k');
  assert.equal(S.compactNumber(49928157537), '49.9G');
  assert.equal(S.compactNumber(12), '12');
  assert.equal(S.groupDigits('49928157537'), '49\u2009928\u2009157\u2009537');
  assert.equal(S.formatSeconds(0.25), '250 ms');
  assert.equal(S.formatSeconds(12.34), '12.3 s');
  assert.equal(S.formatSeconds(125), '2 min 5 s');
  assert.equal(S.formatBytes(9.6e6), '9.6 MB');
  assert.equal(S.relativeGap(100, 90), 0.1);
  assert.equal(S.relativeGap(100, 120), 0);
  assert.equal(S.relativeGap(0, 0), 0);
});

test('min/max buckets keep every extreme of a 60k-point profile', () => {
  const n = 60000;
  const times = Float64Array.from({length: n}, (_, i) => i);
  const values = Float64Array.from({length: n}, (_, i) => (i === 31337 ? 1e9 : i % 100));
  const x = S.linearScale(0, n, 0, 600);
  const {lo, hi} = S.bucketMinMax(times, values, x, 0, 600);
  assert.equal(hi.length, 600);
  assert.equal(Math.max(...hi), 1e9);
  assert.equal(hi[Math.floor(x(31337))], 1e9);
  assert.equal(Math.min(...lo), 0);
});

test('the cost axis zooms on the current best and its gap, not the first plan', () => {
  // A greedy first plan 100x the final one; final gap 20%.
  const costs = Float64Array.from([200e6, 5e6, 1.7e6, 1.6e6]);
  const [lo, hi] = S.costDomain(costs, 1.28e6, [1.6e6, 12e6]);
  // Top: max(1.25 * 1.6M, 1.6M + 2 * 0.32M) = 2.24M, padded by 6% of the span.
  assert.ok(Math.abs(hi - (2.24e6 + 0.06 * (2.24e6 - 1.28e6))) < 1e-3);
  assert.ok(Math.abs(lo - (1.28e6 - 0.06 * (2.24e6 - 1.28e6))) < 1e-3);
  // The first (greedy) plan is left off the axis, which is scaled from the
  // second point: a proven optimum fills it, the first plan 100x above it.
  const [bottom, top] = S.costDomain(Float64Array.from([50e6, 532843]), 532843, [532843]);
  assert.ok(top > 532843 && top < 532843 * 1.1, `top ${top}`);
  assert.ok(bottom < 532843 && bottom > 532843 * 0.9, `bottom ${bottom}`);
  // Until a bound is known (0), the axis still ends near the second point.
  const [, early] = S.costDomain(Float64Array.from([17e6, 600000, 550000]), 0);
  assert.ok(early < 600000 * 1.1, `top ${early}`);
  // A curve that never rose above the focus keeps its own top.
  const [, flat] = S.costDomain(Float64Array.from([100, 100]), 90);
  assert.ok(Math.abs(flat - (100 + 0.06 * 10)) < 1e-9);
  assert.deepEqual(S.costDomain(new Float64Array(0), 0), [0, 1]);
});
