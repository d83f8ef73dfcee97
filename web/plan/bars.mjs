// The plan's two bar views, as plain DOM (crisp, readable by a screen reader,
// each segment titled with its value): the memory per device as a stacked
// breakdown (parameters, gradients, optimizer state, ZeRO-3's gathered
// weights, activations) against
// the GPU's limit, and the critical device's step time split into compute,
// tensor-parallel communication, data-parallel communication, the pipeline
// bubble and stage-to-stage transfers. memoryRows() and timeSegments() read
// the core's plan JSON: pure.
import * as f from '../format.mjs';

export const MEMORY_PARTS = Object.freeze([
  ['parameters', 'parameters', '#64748b'],
  ['gradients', 'gradients', '#94a3b8'],
  ['optimizer', 'optimizer state', '#cbd5e1'],
  ['gathered_parameters', 'gathered weights (ZeRO-3)', '#a78bfa'],
  ['state', 'weights, gradients and optimizer', '#94a3b8'],
  ['activations', 'activations', '#f59e0b'],
]);

export const TIME_PARTS = Object.freeze([
  ['compute', 'compute', '#2563eb'],
  ['tp_comm', 'TP comm', '#7c3aed'],
  ['dp_comm', 'DP comm', '#059669'],
  ['pp_bubble', 'pipeline bubble', '#e2e8f0'],
  ['p2p', 'p2p', '#db2777'],
]);

const colorOf = (parts, key) => parts.find(([k]) => k === key)[2];
const labelOf = (parts, key) => parts.find(([k]) => k === key)[1];

/**
 * One row per pipeline device: {device, stages, layers, total, segments:
 * [{key, label, bytes}]}. A device with its own breakdown in the JSON shows
 * it; otherwise the worst device (memory.device) shows the memory block's,
 * and the others weights + gradients + optimizer as one "state" segment.
 */
export function memoryRows(result) {
  const worst = result.memory || {};
  return (result.devices || []).map((d, device) => {
    let parts;
    if (d.memory) {
      parts = [
        ['parameters', d.memory.parameters], ['gradients', d.memory.gradients],
        ['optimizer', d.memory.optimizer], ['gathered_parameters', d.memory.gathered_parameters],
        ['activations', d.memory.activations]
      ];
    } else if (device === worst.device) {
      parts = [
        ['parameters', worst.parameters], ['gradients', worst.gradients],
        ['optimizer', worst.optimizer], ['gathered_parameters', worst.gathered_parameters],
        ['activations', worst.activations]
      ];
    } else {
      parts = [['state', d.memory_bytes - d.activation_bytes], ['activations', d.activation_bytes]];
    }
    const segments = parts.map(
        ([key, bytes]) => ({key, label: labelOf(MEMORY_PARTS, key), bytes: Number(bytes) || 0}));
    return {
      device,
      stages: d.stages || [],
      layers: d.layers || [],
      total: d.memory ? d.memory.peak : d.memory_bytes ?? segments.reduce((s, x) => s + x.bytes, 0),
      segments,
    };
  });
}

/** The step time's parts: [{key, label, seconds, share}], share of their sum. */
export function timeSegments(breakdown) {
  const parts = TIME_PARTS.map(
      ([key, label]) => ({key, label, seconds: Number((breakdown || {})[key]) || 0}));
  const total = parts.reduce((s, p) => s + p.seconds, 0);
  return parts.map((p) => ({...p, share: total > 0 ? p.seconds / total : 0}));
}

function bar(segments, scale, parts, valueText) {
  const track = document.createElement('div');
  track.className = 'plan-bar';
  for (const s of segments) {
    if (!(s.value > 0)) continue;
    const piece = document.createElement('span');
    piece.style.width = `${(100 * s.value) / scale}%`;
    piece.style.background = colorOf(parts, s.key);
    piece.title = `${s.label}: ${valueText(s.value)}`;
    piece.dataset.part = s.key;
    track.append(piece);
  }
  return track;
}

function legend(parts, keys) {
  const box = document.createElement('div');
  box.className = 'plan-legend';
  for (const [key, label, color] of parts) {
    if (!keys.has(key)) continue;
    const item = document.createElement('span');
    const swatch = document.createElement('i');
    swatch.style.background = color;
    item.append(swatch, label);
    box.append(item);
  }
  return box;
}

/** Draws the memory rows into root, the limit as a red line on every bar. */
export function renderMemory(root, result) {
  const rows = memoryRows(result);
  const limit = Number((result.memory || {}).limit) || 0;
  const scale = Math.max(limit, ...rows.map((r) => r.total), 1);
  const keys = new Set();
  const lines = rows.map((r) => {
    const line = document.createElement('div');
    line.className = 'plan-bar-row';
    line.dataset.device = String(r.device);
    const name = document.createElement('span');
    name.className = 'plan-bar-name';
    name.textContent = `dev ${r.device}`;
    name.title = `stages ${r.stages.join(', ')}: layers ${r.layers.join(' + ')}`;
    const segments = r.segments.map((s) => ({...s, value: s.bytes}));
    segments.forEach((s) => s.value > 0 && keys.add(s.key));
    const track = bar(segments, scale, MEMORY_PARTS, f.bytes);
    if (limit > 0) {
      const mark = document.createElement('b');
      mark.className = 'plan-limit';
      mark.style.left = `${(100 * limit) / scale}%`;
      mark.title = `limit ${f.bytes(limit)}`;
      track.append(mark);
    }
    const value = document.createElement('span');
    value.className = 'plan-bar-value';
    value.dataset.testid = 'plan-memory-value';
    value.textContent = `${f.bytes(r.total)} of ${f.bytes(limit)}`;
    if (r.total > limit) value.classList.add('over');
    line.append(name, track, value);
    return line;
  });
  root.replaceChildren(...lines, legend(MEMORY_PARTS, keys));
}

/** Draws the step time's split into root: one bar and its parts with values. */
export function renderTime(root, result) {
  const segments = timeSegments(result.breakdown_s);
  const total = segments.reduce((s, x) => s + x.seconds, 0);
  const track =
      bar(segments.map((s) => ({...s, value: s.seconds})), Math.max(total, 1e-12), TIME_PARTS,
          f.seconds);
  const list = document.createElement('dl');
  list.className = 'plan-time-parts';
  for (const s of segments) {
    const dt = document.createElement('dt');
    const swatch = document.createElement('i');
    swatch.style.background = colorOf(TIME_PARTS, s.key);
    dt.append(swatch, s.label);
    const dd = document.createElement('dd');
    dd.dataset.testid = `plan-time-${s.key}`;
    dd.textContent = `${f.seconds(s.seconds)} (${f.percent(s.share)})`;
    list.append(dt, dd);
  }
  root.replaceChildren(track, list);
}
