// The timeline's pure geometry, packed into typed arrays: a schedule JSON
// (the core's format, see core/pipeline/) turned into its ops, its cells
// (slots) by device and start, the idle gaps, the dependency arcs both ways
// and the memory steps. The pipeline worker (worker.js) builds it and
// transfers the buffers, so a p 64, m 512 schedule (10 MB of JSON, 100k
// ops) reaches the page without a JSON.parse or 100k small objects there
// (both were long main-thread tasks); small schedules (the plan lab's) are
// packed on the page. Ops sharing a device, a start and an end form one
// cell: a full backward (B and its W in one block) or an overlapped F&B
// pair. Also: the cell under a time (binary search), a cell's arrows with
// their delays, and the zoom/pan arithmetic. No DOM:
// tests/web/pipeline_layout.test.mjs checks it.

/** Op and cell kinds by code; a layout appends any other it meets (layout.kinds). */
export const KINDS = Object.freeze(['F', 'B', 'W', 'BW', 'FB']);
export const F = 0;
export const B = 1;
export const W = 2;
export const BW = 3;
export const FB = 4;
// The order of ops sharing a slot: forward first, then backward, then W.
const KIND_ORDER = {
  F: 0,
  FB: 0,
  B: 1,
  BW: 1,
  W: 2
};

function mixedKind(kinds) {
  const has = (k) => kinds.includes(k);
  if (has('FB') || (has('F') && has('B'))) return 'FB';
  if (kinds.length === 1) return kinds[0];
  if (has('B') && has('W') && kinds.length === 2) return 'BW';
  return kinds.join('+');
}

const NONE = -1;  // an absent stage, operator, micro-batch or op
const intOr = (v, none) => (v === undefined || v === null ? none : Number(v));

/**
 * Builds the packed layout of one schedule. Scalars: devices, makespan,
 * overlaps (cells that overlap the previous one on their device: an invalid
 * schedule), nOps, nSlots, memDevices; kinds and names (the kind and
 * operator names the codes stand for). Typed arrays:
 * - per op (nOps of them, then one more per FB op's backward half, which
 *   opBackward points to): opDevice, opStart, opEnd, opKind, opMicro,
 *   opStage, opChunk, opDirection, opOperator (-1 when absent), opSlot;
 * - the arcs: op i waits for depOp[a], a in [depStart[i], depStart[i+1]),
 *   after depDelay[a] (NaN: the core gave none); succStart/succOp/succArc
 *   list the same arcs by the op waited for;
 * - per slot, by device then start: slotDevice, slotStart, slotEnd,
 *   slotKind, its ops slotOps[slotOpsStart[s] .. slotOpsStart[s+1]), slotF
 *   and slotB (its forward and backward halves, or -1); device d's slots are
 *   [rowStart[d], rowStart[d+1]);
 * - device d's idle gaps [gapT0[g], gapT1[g]] within [0, makespan] for g in
 *   [gapStart[d], gapStart[d+1]), and its activation steps memT/memV over
 *   [memStart[d], memStart[d+1]).
 */
export function buildLayout(schedule) {
  const list = schedule.ops || [];
  const n = list.length;
  const kinds = [...KINDS];
  const kindCode = (k) => {
    let c = kinds.indexOf(k);
    if (c < 0) {
      c = kinds.length;
      kinds.push(String(k));
    }
    return c;
  };
  const names = [];
  const nameCodes = new Map();
  const nameCode = (v) => {
    if (v === undefined || v === null) return NONE;
    let c = nameCodes.get(v);
    if (c === undefined) {
      c = names.length;
      names.push(v);
      nameCodes.set(v, c);
    }
    return c;
  };
  let halves = 0;
  for (const op of list) {
    if (op.kind === 'FB' && op.backward) ++halves;
  }
  const total = n + halves;
  const opDevice = new Int32Array(total);
  const opStart = new Float64Array(total);
  const opEnd = new Float64Array(total);
  const opKind = new Uint8Array(total);
  const opMicro = new Int32Array(total);
  const opStage = new Int32Array(total);
  const opChunk = new Int32Array(total);
  const opDirection = new Uint8Array(total);
  const opOperator = new Int32Array(total);
  const opBackward = new Int32Array(total).fill(NONE);
  const fill = (i, op, device, start, end, kind) => {
    opDevice[i] = device;
    opStart[i] = start;
    opEnd[i] = end;
    opKind[i] = kind;
    opMicro[i] = intOr(op.microbatch, NONE);
    opStage[i] = intOr(op.stage, NONE);
    opChunk[i] = intOr(op.chunk, 0);
    opDirection[i] = op.direction ? 1 : 0;
    opOperator[i] = nameCode(op.operator);
  };
  let devices = (schedule.problem && schedule.problem.devices) || 0;
  let makespan = Number(schedule.makespan) || 0;
  let sequential = true;  // ids are indices (the core's form): no id map needed
  let half = n;
  for (let i = 0; i < n; ++i) {
    const op = list[i];
    if (op.id !== i) sequential = false;
    fill(i, op, op.device, op.start, op.end, kindCode(op.kind));
    if (op.device + 1 > devices) devices = op.device + 1;
    if (op.end > makespan) makespan = op.end;
    if (op.kind === 'FB' && op.backward) {
      opBackward[i] = half;
      fill(half++, op.backward, op.device, op.start, op.end, B);
    }
  }
  const arcs = packArcs(list, sequential);
  const slots =
      packSlots(n, devices, kinds, kindCode, {opDevice, opStart, opEnd, opKind, opBackward});
  const gaps = packGaps(devices, makespan, slots);
  const memory = packMemory(schedule.memory || []);
  return {
    devices,
    makespan,
    overlaps: gaps.overlaps,
    nOps: n,
    nSlots: slots.nSlots,
    memDevices: memory.memDevices,
    kinds,
    names,
    opDevice,
    opStart,
    opEnd,
    opKind,
    opMicro,
    opStage,
    opChunk,
    opDirection,
    opOperator,
    opBackward,
    ...arcs,
    ...slots.arrays,
    gapStart: gaps.gapStart,
    gapT0: gaps.gapT0,
    gapT1: gaps.gapT1,
    memStart: memory.memStart,
    memT: memory.memT,
    memV: memory.memV,
  };
}

// The arcs as two compressed lists: by the waiting op and by the op waited
// for (ids the schedule does not hold are left out).
function packArcs(list, sequential) {
  const n = list.length;
  const index = sequential ? null : new Map(list.map((op, i) => [op.id, i]));
  const depStart = new Int32Array(n + 1);
  const from = [];
  const delay = [];
  for (let i = 0; i < n; ++i) {
    const deps = list[i].deps || [];
    const delays = Array.isArray(list[i].delays) ? list[i].delays : null;
    for (let k = 0; k < deps.length; ++k) {
      const j = index                                              ? index.get(deps[k]) :
          Number.isInteger(deps[k]) && deps[k] >= 0 && deps[k] < n ? deps[k] :
                                                                     undefined;
      if (j === undefined) continue;
      from.push(j);
      delay.push(delays && delays[k] !== undefined ? Number(delays[k]) : NaN);
    }
    depStart[i + 1] = from.length;
  }
  const depOp = Int32Array.from(from);
  const depDelay = Float64Array.from(delay);
  const succStart = new Int32Array(n + 1);
  for (let a = 0; a < depOp.length; ++a) ++succStart[depOp[a] + 1];
  for (let i = 0; i < n; ++i) succStart[i + 1] += succStart[i];
  const cursor = succStart.slice(0, n);
  const succOp = new Int32Array(depOp.length);
  const succArc = new Int32Array(depOp.length);
  for (let i = 0; i < n; ++i) {
    for (let a = depStart[i]; a < depStart[i + 1]; ++a) {
      const at = cursor[depOp[a]]++;
      succOp[at] = i;
      succArc[at] = a;
    }
  }
  return {depStart, depOp, depDelay, succStart, succOp, succArc};
}

// Slots: ops sorted by device, start, end and kind; those sharing a device,
// start and end (and lasting) form one slot.
function packSlots(n, devices, kinds, kindCode, ops) {
  const {opDevice, opStart, opEnd, opKind, opBackward} = ops;
  const rank = (i) => KIND_ORDER[kinds[opKind[i]]];
  const order = new Int32Array(n);
  for (let i = 0; i < n; ++i) order[i] = i;
  order.sort(
      (a, b) => opDevice[a] - opDevice[b] || opStart[a] - opStart[b] || opEnd[a] - opEnd[b] ||
          rank(a) - rank(b));
  const slotDevice = new Int32Array(n);
  const slotStart = new Float64Array(n);
  const slotEnd = new Float64Array(n);
  const slotOpsStart = new Int32Array(n + 1);
  const opSlot = new Int32Array(n).fill(NONE);
  let s = -1;
  for (let r = 0; r < n; ++r) {
    const i = order[r];
    // A zero-length op never merges: it would swallow its neighbours.
    const merge = s >= 0 && slotDevice[s] === opDevice[i] && slotStart[s] === opStart[i] &&
        slotEnd[s] === opEnd[i] && opEnd[i] > opStart[i];
    if (!merge) {
      ++s;
      slotDevice[s] = opDevice[i];
      slotStart[s] = opStart[i];
      slotEnd[s] = opEnd[i];
      slotOpsStart[s] = r;
    }
    opSlot[i] = s;
  }
  const nSlots = s + 1;
  slotOpsStart[nSlots] = n;
  const slotKind = new Uint8Array(nSlots);
  const slotF = new Int32Array(nSlots).fill(NONE);
  const slotB = new Int32Array(nSlots).fill(NONE);
  for (s = 0; s < nSlots; ++s) {
    const first = slotOpsStart[s];
    const end = slotOpsStart[s + 1];
    slotKind[s] = end - first === 1 ?
        opKind[order[first]] :
        kindCode(mixedKind(Array.from(order.subarray(first, end), (i) => kinds[opKind[i]])));
    // The forward and backward halves: separate ops sharing the slot, or one
    // FB op carrying its backward (the core's form), or one BW op.
    for (let r = first; r < end; ++r) {
      const i = order[r];
      const k = opKind[i];
      if (slotF[s] < 0 && (k === F || k === FB)) slotF[s] = i;
      if (slotB[s] < 0 && (k === B || k === BW)) slotB[s] = i;
    }
    if (slotB[s] < 0 && slotF[s] >= 0 && opKind[slotF[s]] === FB) slotB[s] = opBackward[slotF[s]];
  }
  const rowStart = new Int32Array(devices + 1);
  for (s = 0; s < nSlots; ++s) {
    if (slotDevice[s] >= 0 && slotDevice[s] < devices) ++rowStart[slotDevice[s] + 1];
  }
  for (let d = 0; d < devices; ++d) rowStart[d + 1] += rowStart[d];
  return {
    nSlots,
    arrays: {
      slotDevice: slotDevice.slice(0, nSlots),
      slotStart: slotStart.slice(0, nSlots),
      slotEnd: slotEnd.slice(0, nSlots),
      slotKind,
      slotOpsStart: slotOpsStart.slice(0, nSlots + 1),
      slotOps: order,
      slotF,
      slotB,
      opSlot,
      rowStart,
    },
  };
}

function packGaps(devices, makespan, {arrays}) {
  const {slotStart, slotEnd, rowStart} = arrays;
  const gapStart = new Int32Array(devices + 1);
  const t0s = [];
  const t1s = [];
  let overlaps = 0;
  for (let d = 0; d < devices; ++d) {
    let t = 0;
    for (let s = rowStart[d]; s < rowStart[d + 1]; ++s) {
      if (slotStart[s] > t) {
        t0s.push(t);
        t1s.push(slotStart[s]);
      }
      if (slotStart[s] < t) ++overlaps;
      t = Math.max(t, slotEnd[s]);
    }
    if (t < makespan) {
      t0s.push(t);
      t1s.push(makespan);
    }
    gapStart[d + 1] = t0s.length;
  }
  return {gapStart, gapT0: Float64Array.from(t0s), gapT1: Float64Array.from(t1s), overlaps};
}

// The core's memory[d] ({t, activation}) concatenated.
function packMemory(memory) {
  const memStart = new Int32Array(memory.length + 1);
  for (let d = 0; d < memory.length; ++d) {
    const m = memory[d];
    memStart[d + 1] = memStart[d] + (m && m.t ? m.t.length : 0);
  }
  const memT = new Float64Array(memStart[memory.length]);
  const memV = new Float64Array(memStart[memory.length]);
  for (let d = 0; d < memory.length; ++d) {
    const m = memory[d];
    if (!m || !m.t) continue;
    memT.set(m.t, memStart[d]);
    memV.set(m.activation.slice(0, m.t.length), memStart[d]);
  }
  return {memDevices: memory.length, memStart, memT, memV};
}

/** The distinct buffers of a layout's typed arrays: what a worker transfers. */
export function layoutBuffers(layout) {
  return [...new Set(Object.values(layout).filter(ArrayBuffer.isView).map((a) => a.buffer))];
}

/** Device d's slots: the index range [first, last). */
export function rowRange(layout, d) {
  return d >= 0 && d < layout.devices ? [layout.rowStart[d], layout.rowStart[d + 1]] : [0, 0];
}

/** A slot's kind name: F, B, W, BW (a full backward), FB (an overlapped pair) or a join. */
export const kindOf = (layout, s) => layout.kinds[layout.slotKind[s]];

/** A slot's op indices. */
export const opsOf = (layout, s) =>
    layout.slotOps.subarray(layout.slotOpsStart[s], layout.slotOpsStart[s + 1]);

/** Device d's idle gaps as [[t0, t1]]. */
export function gapsOf(layout, d) {
  const out = [];
  if (d < 0 || d >= layout.devices) return out;
  for (let g = layout.gapStart[d]; g < layout.gapStart[d + 1]; ++g) {
    out.push([layout.gapT0[g], layout.gapT1[g]]);
  }
  return out;
}

/**
 * Op i as the schedule JSON gave it (the fields the tooltip reads): {kind,
 * microbatch, stage, chunk, direction, device, operator, backward} (absent
 * fields left out). Made on demand: a few per hover.
 */
export function opOf(layout, i) {
  const op = {
    kind: layout.kinds[layout.opKind[i]],
    device: layout.opDevice[i],
    start: layout.opStart[i],
    end: layout.opEnd[i],
    chunk: layout.opChunk[i],
    direction: layout.opDirection[i],
  };
  if (layout.opMicro[i] !== NONE) op.microbatch = layout.opMicro[i];
  if (layout.opStage[i] !== NONE) op.stage = layout.opStage[i];
  if (layout.opOperator[i] !== NONE) op.operator = layout.names[layout.opOperator[i]];
  const back = layout.opBackward[i];
  if (back !== NONE) {
    const half = opOf(layout, back);
    for (const key of ['kind', 'device', 'start', 'end']) delete half[key];
    op.backward = half;
  }
  return op;
}

/** The slot of device d under time t (ends inclusive), or -1. */
export function slotAt(layout, d, t) {
  const [first, last] = rowRange(layout, d);
  let lo = first;
  let hi = last - 1;
  let found = -1;
  while (lo <= hi) {  // the last slot starting at or before t
    const mid = (lo + hi) >> 1;
    if (layout.slotStart[mid] <= t) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  if (found < 0) return -1;
  return t <= layout.slotEnd[found] ? found : -1;
}

/** The slots [first, last) of device d that may intersect [t0, t1]. */
export function visibleRange(layout, d, t0, t1) {
  const [first, last] = rowRange(layout, d);
  let lo = first;
  let hi = last;
  while (lo < hi) {  // first slot ending at or after t0 (ends rise with starts on a valid row)
    const mid = (lo + hi) >> 1;
    if (layout.slotEnd[mid] < t0)
      lo = mid + 1;
    else
      hi = mid;
  }
  let end = lo;
  while (end < last && layout.slotStart[end] <= t1) ++end;
  return [lo, end];
}

// The delay arc a waits: the core's own when it gives one, else the
// problem's uniform comm when the two ops sit on different devices.
function arcDelay(layout, from, to, a, comm) {
  const delay = layout.depDelay[a];
  if (!Number.isNaN(delay)) return delay;
  return layout.opDevice[from] !== layout.opDevice[to] ? comm : 0;
}

/**
 * The arrows of a slot: preds [{from, to, delay}] (ops it waits for) and
 * succs (ops waiting for it), as op indices; arcs inside the slot are left
 * out. comm: the problem's default delay (used when ops carry no delays).
 */
export function arrowsOf(layout, s, comm = 0) {
  const inside = (i) => layout.opSlot[i] === s;
  const preds = [];
  const succs = [];
  for (const to of opsOf(layout, s)) {
    for (let a = layout.depStart[to]; a < layout.depStart[to + 1]; ++a) {
      const from = layout.depOp[a];
      if (!inside(from)) preds.push({from, to, delay: arcDelay(layout, from, to, a, comm)});
    }
    for (let b = layout.succStart[to]; b < layout.succStart[to + 1]; ++b) {
      const dep = layout.succOp[b];
      if (!inside(dep)) {
        succs.push({from: to, to: dep, delay: arcDelay(layout, to, dep, layout.succArc[b], comm)});
      }
    }
  }
  return {preds, succs};
}

/**
 * How long a slot waited after its last dependency arrived (including
 * delays): start - max(pred end + delay), or null without dependencies.
 */
export function slackOf(layout, s, comm = 0) {
  const {preds} = arrowsOf(layout, s, comm);
  if (!preds.length) return null;
  const ready = Math.max(...preds.map((a) => layout.opEnd[a.from] + a.delay));
  return layout.slotStart[s] - ready;
}

// ---- zoom and pan of the time axis (pure) ----

/** Zooms [t0, t1] by factor (< 1 zooms in) about time `at`, within [0, max]. */
export function zoomDomain([t0, t1], at, factor, max, minSpan = 1e-3) {
  const span = Math.min(max, Math.max(minSpan, (t1 - t0) * factor));
  const ratio = t1 > t0 ? (at - t0) / (t1 - t0) : 0.5;
  return clampDomain([at - ratio * span, at - ratio * span + span], max);
}

/** Shifts [t0, t1] by dt, kept inside [0, max]. */
export function panDomain([t0, t1], dt, max) {
  return clampDomain([t0 + dt, t1 + dt], max);
}

export function clampDomain([t0, t1], max) {
  const span = Math.min(t1 - t0, max);
  const lo = Math.max(0, Math.min(t0, max - span));
  return [lo, lo + span];
}

/** The activation step function of device d as {t, v} (the core's memory[d]). */
export function memorySteps(layout, d) {
  if (d < 0 || d >= layout.memDevices) return {t: new Float64Array(0), v: new Float64Array(0)};
  const a = layout.memStart[d];
  const b = layout.memStart[d + 1];
  return {t: layout.memT.subarray(a, b), v: layout.memV.subarray(a, b)};
}

/**
 * The memory axis shared by all devices of a schedule: the largest of every
 * device's parameters + peak activation, and the cap.
 */
export function memoryMax(schedule) {
  const act = schedule.peak_activation || [];
  const par = schedule.peak_parameter || [];
  let top = 0;
  for (let d = 0; d < Math.max(act.length, par.length); ++d) {
    top = Math.max(top, (act[d] || 0) + (par[d] || 0));
  }
  const cap = capOf(schedule);
  if (cap !== null) top = Math.max(top, ...[].concat(cap));
  return top || 1;
}

/** The memory cap per device (an array), or null when there is none. */
export function capOf(schedule) {
  const cap = schedule.mem_cap;
  if (cap === null || cap === undefined) return null;
  if (Array.isArray(cap)) return cap.length ? cap : null;
  return [cap];
}

/**
 * The upper envelope of a step function (v[i] holds on [t[i], t[i+1]), the
 * last until tEnd) per pixel column of [left, right): Float64Array of the
 * largest value in each column (-Infinity where the function is not
 * defined). x maps time to pixels. Lets a profile with many more steps than
 * pixels draw in O(width) and never hide a peak.
 */
export function stepEnvelope(t, v, x, left, right, tEnd) {
  const width = Math.max(1, Math.ceil(right - left));
  const hi = new Float64Array(width).fill(-Infinity);
  const column = (px) => Math.floor(px - left);
  for (let i = 0; i < t.length; ++i) {
    const a = column(x(t[i]));
    const end = i + 1 < t.length ? t[i + 1] : tEnd;
    // A step ending exactly on a column boundary does not reach into it.
    const b = Math.ceil(x(end) - left) - 1;
    if (b < 0 || a >= width) continue;
    for (let c = Math.max(0, a); c <= Math.min(width - 1, Math.max(a, b)); ++c) {
      if (v[i] > hi[c]) hi[c] = v[i];
    }
  }
  return hi;
}
