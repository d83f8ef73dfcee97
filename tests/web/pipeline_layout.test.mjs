// Unit tests of web/pipeline/layout.mjs, the timeline's pure geometry packed
// in typed arrays: cells from the core's schedule JSON (BW and FB ops, or
// separate ops sharing a slot), idle gaps, hit tests, the cells in view,
// dependency arrows with their delays, the memory steps, what a worker
// transfers, and the zoom/pan arithmetic.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {test} from 'node:test';
import {pathToFileURL} from 'node:url';

const SOURCE = path.resolve(process.env.SHARDLAB_SOURCE_DIR || '.');
const L = await import(pathToFileURL(path.join(SOURCE, 'web/pipeline/layout.mjs')).href);
const small = JSON.parse(
    fs.readFileSync(path.join(SOURCE, 'tests/web/data/pipeline_1f1b_p2m2.schedule.json'), 'utf8'));
// Device d's slots as index lists, and a slot's fields (as the page reads them).
const row = (layout, d) => {
  const [a, b] = L.rowRange(layout, d);
  return Array.from({length: b - a}, (_, k) => a + k);
};
const slot = (layout, s) => ({
  kind: L.kindOf(layout, s),
  start: layout.slotStart[s],
  end: layout.slotEnd[s],
  ops: Array.from(L.opsOf(layout, s)),
  fOp: layout.slotF[s] < 0 ? null : L.opOf(layout, layout.slotF[s]),
  bOp: layout.slotB[s] < 0 ? null : L.opOf(layout, layout.slotB[s]),
});

test('one cell per op of the core, rows by device in time order, gaps in between', () => {
  const layout = L.buildLayout(small);
  assert.equal(layout.devices, 2);
  assert.equal(layout.makespan, 9);
  assert.equal(layout.nSlots, 8);
  assert.deepEqual(row(layout, 0).map((s) => L.kindOf(layout, s)), ['F', 'F', 'BW', 'BW']);
  assert.deepEqual(
      row(layout, 1).map((s) => [layout.slotStart[s], layout.slotEnd[s]]),
      [[1, 2], [2, 4], [4, 5], [5, 7]]);
  assert.deepEqual(L.gapsOf(layout, 0), [[2, 4], [6, 7]]);
  assert.deepEqual(L.gapsOf(layout, 1), [[0, 1], [7, 9]]);
  assert.equal(layout.overlaps, 0);
  const bw = slot(layout, row(layout, 0)[2]);
  assert.equal(bw.bOp.microbatch, 0, 'a full backward is its own backward half');
  assert.equal(bw.fOp, null);
});

test(
    'separate ops sharing a device, start and end form one cell; FB ops carry their backward',
    () => {
      const op = (id, kind, mb, start, end, extra = {}) => ({
        id,
        device: 0,
        stage: 0,
        chunk: 0,
        direction: 0,
        microbatch: mb,
        kind,
        start,
        end,
        deps: [],
        ...extra
      });
      const grouped = L.buildLayout({
        ops: [op(0, 'F', 3, 0, 3), op(1, 'B', 1, 0, 3), op(2, 'W', 1, 0, 3), op(3, 'F', 4, 3, 4)],
      });
      assert.equal(grouped.nSlots, 2);
      assert.equal(slot(grouped, 0).kind, 'FB');
      assert.equal(slot(grouped, 0).fOp.microbatch, 3);
      assert.equal(slot(grouped, 0).bOp.microbatch, 1);
      assert.deepEqual(slot(grouped, 0).ops, [0, 1, 2]);
      const fused = L.buildLayout({
        ops: [op(0, 'FB', 5, 0, 3, {backward: {stage: 0, direction: 1, chunk: 0, microbatch: 2}})],
      });
      assert.equal(slot(fused, 0).kind, 'FB');
      assert.equal(slot(fused, 0).fOp.microbatch, 5);
      assert.equal(slot(fused, 0).bOp.microbatch, 2);
      assert.equal(slot(fused, 0).bOp.direction, 1);
      assert.equal(fused.nOps, 1, 'the backward half is no op of its own');
      const zero = L.buildLayout({ops: [op(0, 'F', 0, 1, 1), op(1, 'F', 1, 1, 1)]});
      assert.equal(zero.nSlots, 2, 'zero-length ops never merge');
      const odd = L.buildLayout({ops: [op(0, 'F', 0, 0, 1), op(1, 'W', 0, 0, 1)]});
      assert.equal(slot(odd, 0).kind, 'F+W', 'another mix of kinds keeps its kinds\' names');
    });

test('overlapping cells on a device are counted', () => {
  const layout = L.buildLayout({
    ops: [
      {id: 0, device: 0, kind: 'F', microbatch: 0, start: 0, end: 2, deps: []},
      {id: 1, device: 0, kind: 'F', microbatch: 1, start: 1, end: 3, deps: []}
    ],
  });
  assert.equal(layout.overlaps, 1);
});

test('slotAt finds the cell under a time, ends inclusive, and -1 in gaps', () => {
  const layout = L.buildLayout(small);
  const at = (d, t) => {
    const s = L.slotAt(layout, d, t);
    return s < 0 ? null : small.ops[L.opsOf(layout, s)[0]].id;
  };
  assert.equal(at(0, 0), 0);
  assert.equal(at(0, 1.5), 1);
  assert.equal(at(0, 3), null);
  assert.equal(at(0, 5), 2);
  assert.equal(at(1, 0.5), null);
  assert.equal(at(1, 9), null);
  assert.equal(at(1, 7), 7);
  assert.equal(at(5, 1), null, 'no such device');
});

test('visibleRange keeps exactly the cells meeting the window', () => {
  const layout = L.buildLayout(small);
  const ids = (d, t0, t1) => {
    const [a, b] = L.visibleRange(layout, d, t0, t1);
    return Array.from({length: b - a}, (_, k) => L.opsOf(layout, a + k)[0]);
  };
  assert.deepEqual(ids(0, 0, 9), [0, 1, 2, 3]);
  assert.deepEqual(ids(0, 2.5, 3.5), []);
  assert.deepEqual(ids(0, 1.5, 4.5), [1, 2]);
  assert.deepEqual(ids(1, 8, 9), []);
});

test('arrows list a cell\'s dependencies and dependents with their delays', () => {
  const layout = L.buildLayout(small);
  const cell = layout.opSlot[2];  // BW0 on device 0: after F0 (same device) and BW0 on device 1
  const {preds, succs} = L.arrowsOf(layout, cell, 0.5);
  assert.deepEqual(
      preds.map((a) => [a.from, a.delay]), [[0, 0], [5, 0.5]],
      'the uniform comm applies across devices only');
  assert.deepEqual(succs, []);
  const f0 = L.arrowsOf(layout, layout.opSlot[0], 0.5);
  assert.deepEqual(f0.succs.map((a) => [a.to, a.delay]), [[2, 0], [4, 0.5]]);
  const withDelays = L.buildLayout({
    ops: [
      {id: 0, device: 0, kind: 'F', microbatch: 0, start: 0, end: 1, deps: []},
      {id: 1, device: 1, kind: 'F', microbatch: 0, start: 1.25, end: 2, deps: [0], delays: [0.25]}
    ],
  });
  assert.deepEqual(
      L.arrowsOf(withDelays, 1, 9).preds.map((a) => a.delay), [0.25],
      'the core\'s own delays win over the uniform comm');
  assert.equal(L.slackOf(withDelays, 1, 9), 0);
  assert.equal(L.slackOf(layout, layout.opSlot[2], 0), 0, 'BW0 starts when BW0 of stage 1 ends');
  assert.equal(L.slackOf(layout, layout.opSlot[3], 0), 0);
  assert.equal(L.slackOf(layout, layout.opSlot[0], 0), null);
});

test('zoom keeps the time under the cursor, pan and zoom stay inside the schedule', () => {
  assert.deepEqual(L.zoomDomain([0, 10], 5, 0.5, 10), [2.5, 7.5]);
  assert.deepEqual(L.zoomDomain([0, 10], 0, 0.5, 10), [0, 5]);
  assert.deepEqual(L.zoomDomain([2, 6], 6, 0.5, 10), [4, 6]);
  assert.deepEqual(L.zoomDomain([2, 6], 4, 10, 10), [0, 10], 'zooming out stops at the whole');
  assert.deepEqual(
      L.zoomDomain([0, 10], 5, 1e-9, 10, 0.01).map((v) => Number(v.toFixed(6))), [4.995, 5.005],
      'and zooming in at the minimum span');
  assert.deepEqual(L.panDomain([2, 6], 3, 10), [5, 9]);
  assert.deepEqual(L.panDomain([2, 6], 7, 10), [6, 10]);
  assert.deepEqual(L.panDomain([2, 6], -7, 10), [0, 4]);
});

test('memory: steps, the shared axis and caps', () => {
  const layout = L.buildLayout(small);
  const steps = (d) => {
    const {t, v} = L.memorySteps(layout, d);
    return {t: Array.from(t), v: Array.from(v)};
  };
  assert.equal(layout.memDevices, 2);
  assert.deepEqual(steps(0), {t: [0, 1, 6, 9], v: [1, 2, 1, 0]});
  assert.deepEqual(steps(1), {t: [0, 1, 4, 7], v: [0, 1, 1, 0]});
  assert.deepEqual(steps(7), {t: [], v: []});
  assert.equal(L.memoryMax(small), 4, 'the cap is above every device\'s parameters + peak');
  assert.equal(L.memoryMax({...small, mem_cap: null}), 3);
  assert.deepEqual(L.capOf(small), [4]);
  assert.deepEqual(L.capOf({mem_cap: [3, 5]}), [3, 5]);
  assert.equal(L.capOf({mem_cap: null}), null);
});

test('the memory envelope keeps every peak per pixel column', () => {
  const x = (t) => t * 2;  // 2 px per time unit
  // 0 on [0, 1), 5 on [1, 1.2), 1 on [1.2, 3), 2 on [3, 4]
  const hi = L.stepEnvelope([0, 1, 1.2, 3], [0, 5, 1, 2], x, 0, 8, 4);
  assert.deepEqual(Array.from(hi), [0, 0, 5, 1, 1, 1, 2, 2]);
  const zoomed = L.stepEnvelope([0, 1, 1.2, 3], [0, 5, 1, 2], (t) => (t - 1) * 4, 0, 4, 2);
  assert.deepEqual(
      Array.from(zoomed), [5, 1, 1, 1], 'a step before the window counts from its left edge');
  const sparse = L.stepEnvelope([2], [3], x, 0, 8, 4);
  assert.deepEqual(Array.from(sparse), [-Infinity, -Infinity, -Infinity, -Infinity, 3, 3, 3, 3]);
});

test('the tooltip names the ops of a cell, its times, its wait and its arrows', async () => {
  const I = await import(pathToFileURL(path.join(SOURCE, 'web/pipeline/timeline_input.mjs')).href);
  const layout = L.buildLayout(small);
  assert.equal(
      I.tooltipText(layout, layout.opSlot[6], 0),
      'F 1 \u00b7 stage 1 \u00b7 dev 1\n4 \u2192 5 (1)\ninputs ready at 2; waited 2 (device busy)\n' +
          '1 dependencies, 1 dependents');
  assert.equal(
      I.describeOp({
        kind: 'FB',
        microbatch: 7,
        stage: 2,
        chunk: 0,
        direction: 0,
        device: 2,
        backward: {stage: 5, chunk: 0, direction: 1, microbatch: 13}
      }),
      'F 7 \u00b7 stage 2 \u00b7 dev 2\n  overlapped with B+W 13 \u00b7 stage 5 \u00b7 reverse direction \u00b7 dev 2');
  assert.equal(
      I.describeOp({kind: 'BW', microbatch: 0, operator: 'attn', chunk: 1, device: 0}),
      'B+W 0 \u00b7 operator attn \u00b7 chunk 1 \u00b7 dev 0');
});

test('a layout is typed arrays, small name lists and numbers: a worker moves it whole', () => {
  const layout = L.buildLayout(small);
  for (const [key, value] of Object.entries(layout)) {
    const ok = ArrayBuffer.isView(value) || typeof value === 'number' ||
        (Array.isArray(value) && value.length <= 16);
    assert.ok(ok, `${key} is neither a typed array nor a number: ${typeof value}`);
  }
  const buffers = L.layoutBuffers(layout);
  assert.equal(new Set(buffers).size, buffers.length, 'each buffer is listed once');
  const moved = structuredClone(layout, {transfer: buffers});
  assert.equal(layout.opStart.length, 0, 'the buffers moved rather than copied');
  assert.equal(L.slotAt(moved, 0, 1.5), L.opsOf(moved, L.slotAt(moved, 0, 1.5))[0]);
  assert.equal(L.arrowsOf(moved, moved.opSlot[2], 0.5).preds.length, 2);
});

test('the backward half of an FB op describes itself in the tooltip', async () => {
  const I = await import(pathToFileURL(path.join(SOURCE, 'web/pipeline/timeline_input.mjs')).href);
  const layout = L.buildLayout({
    ops: [{
      id: 0,
      device: 2,
      stage: 2,
      chunk: 0,
      direction: 0,
      microbatch: 7,
      kind: 'FB',
      start: 0,
      end: 3,
      deps: [],
      backward: {stage: 5, chunk: 0, direction: 1, microbatch: 13}
    }],
  });
  assert.equal(
      I.tooltipText(layout, 0, 0),
      'F 7 \u00b7 stage 2 \u00b7 dev 2\n  overlapped with B+W 13 \u00b7 stage 5 \u00b7 ' +
          'reverse direction \u00b7 dev 2\n0 \u2192 3 (3)\n0 dependencies, 0 dependents');
});
