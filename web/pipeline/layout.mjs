// The timeline's pure geometry: a schedule JSON (the core's format, see
// core/pipeline/) turned into per-device rows of cells. Ops that share a
// device, a start and an end form one cell (a slot): a full backward (B and
// its W in one block) or an overlapped F&B pair. It also finds idle gaps,
// answers "which cell is under this time" by binary search, lists a cell's
// dependency arrows with their communication delays, and holds the pure
// zoom/pan arithmetic. No DOM: tests/web/pipeline_layout.test.mjs checks it.

// Cell kinds: one op (F, B, W), a full backward (BW), an overlapped pair (FB).
// The core writes BW and FB as one op each (FB with its "backward" part);
// separate ops sharing a device, start and end are grouped the same way.
const KIND_ORDER = {
  F: 0,
  FB: 0,
  B: 1,
  BW: 1,
  W: 2
};

function slotKind(kinds) {
  const has = (k) => kinds.includes(k);
  if (has('FB') || (has('F') && has('B'))) return 'FB';
  if (kinds.length === 1) return kinds[0];
  if (has('B') && has('W') && kinds.length === 2) return 'BW';
  return kinds.join('+');
}

/**
 * Builds the layout of one schedule: {devices, makespan, ops, slots, rows,
 * gaps, opSlot, preds, dependents, overlaps} (preds and dependents made on
 * first use). A slot is {device, start, end, kind,
 * ops: [op indices], fOp, bOp} (its forward and backward op objects, or
 * null; kind F, B, W, BW (full backward) or FB (overlapped pair));
 * rows[d] lists device d's slots by start; gaps[d] its idle intervals
 * [t0, t1] within [0, makespan]; overlaps counts cells that overlap the
 * previous one on their device (an invalid schedule).
 */
export function buildLayout(schedule) {
  const ops = schedule.ops || [];
  let devices = (schedule.problem && schedule.problem.devices) || 0;
  let makespan = Number(schedule.makespan) || 0;
  const index = new Map();
  ops.forEach((op, i) => {
    index.set(op.id, i);
    devices = Math.max(devices, op.device + 1);
    makespan = Math.max(makespan, op.end);
  });
  const order = ops.map((_, i) => i);
  order.sort(
      (a, b) => ops[a].device - ops[b].device || ops[a].start - ops[b].start ||
          ops[a].end - ops[b].end || KIND_ORDER[ops[a].kind] - KIND_ORDER[ops[b].kind]);
  const slots = [];
  const opSlot = new Int32Array(ops.length).fill(-1);
  for (const i of order) {
    const op = ops[i];
    const last = slots[slots.length - 1];
    // A zero-length op never merges: it would swallow its neighbours.
    if (last && last.device === op.device && last.start === op.start && last.end === op.end &&
        op.end > op.start) {
      last.ops.push(i);
    } else {
      slots.push({device: op.device, start: op.start, end: op.end, ops: [i]});
    }
    opSlot[i] = slots.length - 1;
  }
  const rows = Array.from({length: devices}, () => []);
  for (let s = 0; s < slots.length; ++s) {
    const slot = slots[s];
    slot.kind =
        slot.ops.length === 1 ? ops[slot.ops[0]].kind : slotKind(slot.ops.map((i) => ops[i].kind));
    // The forward and backward halves: separate ops sharing the slot, or one
    // FB op carrying its backward (the core's form), or one BW op.
    slot.fOp = null;
    slot.bOp = null;
    for (const i of slot.ops) {
      const kind = ops[i].kind;
      if (!slot.fOp && (kind === 'F' || kind === 'FB')) slot.fOp = ops[i];
      if (!slot.bOp && (kind === 'B' || kind === 'BW')) slot.bOp = ops[i];
    }
    if (!slot.bOp && slot.fOp && slot.fOp.kind === 'FB' && slot.fOp.backward) {
      slot.bOp = {...slot.fOp.backward, kind: 'B', device: slot.device};
    }
    rows[slot.device].push(s);
  }
  const gaps = [];
  let overlaps = 0;
  for (let d = 0; d < devices; ++d) {
    const row = rows[d];
    const list = [];
    let t = 0;
    for (const s of row) {
      if (slots[s].start > t) list.push([t, slots[s].start]);
      if (slots[s].start < t) ++overlaps;
      t = Math.max(t, slots[s].end);
    }
    if (t < makespan) list.push([t, makespan]);
    gaps.push(list);
  }
  const layout = {devices, makespan, ops, slots, rows, gaps, opSlot, overlaps};
  // The dependency lists serve hovering only: made on first use (a p 64,
  // m 512 schedule's take half a second).
  let arcs = null;
  const made = () => {
    if (arcs) return arcs;
    const preds = ops.map((op) => (op.deps || []).map((id) => index.get(id)).filter((j) => j >= 0));
    const dependents = ops.map(() => []);
    preds.forEach((list, i) => list.forEach((j, k) => dependents[j].push([i, k])));
    arcs = {preds, dependents};
    return arcs;
  };
  Object.defineProperty(layout, 'preds', {get: () => made().preds, enumerable: true});
  Object.defineProperty(layout, 'dependents', {get: () => made().dependents, enumerable: true});
  return layout;
}

/** The slot of device d under time t (ends inclusive), or -1. */
export function slotAt(layout, d, t) {
  const row = layout.rows[d];
  if (!row) return -1;
  let lo = 0;
  let hi = row.length - 1;
  let found = -1;
  while (lo <= hi) {  // the last slot starting at or before t
    const mid = (lo + hi) >> 1;
    if (layout.slots[row[mid]].start <= t) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  if (found < 0) return -1;
  const slot = layout.slots[row[found]];
  return t <= slot.end ? row[found] : -1;
}

/** The index range [first, last) of row d's slots that may intersect [t0, t1]. */
export function visibleRange(layout, d, t0, t1) {
  const row = layout.rows[d];
  let lo = 0;
  let hi = row.length;
  while (lo < hi) {  // first slot ending at or after t0 (ends rise with starts on a valid row)
    const mid = (lo + hi) >> 1;
    if (layout.slots[row[mid]].end < t0)
      lo = mid + 1;
    else
      hi = mid;
  }
  let end = lo;
  while (end < row.length && layout.slots[row[end]].start <= t1) ++end;
  return [lo, end];
}

// The delay an arc waits: the op's own "delays" when the core gives them,
// else the problem's uniform comm when the two ops sit on different devices.
function arcDelay(layout, from, to, k, comm) {
  const op = layout.ops[to];
  if (Array.isArray(op.delays) && op.delays[k] !== undefined) return Number(op.delays[k]);
  return layout.ops[from].device !== op.device ? comm : 0;
}

/**
 * The arrows of a slot: preds [{from, to, delay}] (ops it waits for) and
 * succs (ops waiting for it), as op indices; arcs inside the slot are left
 * out. comm: the problem's default delay (used when ops carry no delays).
 */
export function arrowsOf(layout, s, comm = 0) {
  const slot = layout.slots[s];
  const inside = new Set(slot.ops);
  const preds = [];
  const succs = [];
  for (const to of slot.ops) {
    layout.preds[to].forEach((from, k) => {
      if (!inside.has(from)) preds.push({from, to, delay: arcDelay(layout, from, to, k, comm)});
    });
    for (const [dep, k] of layout.dependents[to]) {
      if (!inside.has(dep))
        succs.push({from: to, to: dep, delay: arcDelay(layout, to, dep, k, comm)});
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
  const ready = Math.max(...preds.map((a) => layout.ops[a.from].end + a.delay));
  return layout.slots[s].start - ready;
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

/** The activation step function of a device as {t, v} (the core's memory[d]). */
export function memorySteps(schedule, d) {
  const m = (schedule.memory || [])[d];
  if (!m || !m.t) return {t: [], v: []};
  return {t: m.t, v: m.activation};
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
