// The timeline's input: hover (cell, arrows, tooltip), drag and shift+wheel
// to pan, ctrl+wheel, +/- and 0 to zoom and fit, double-click to fit, arrow
// keys to pan; and the tooltip's text for a cell. timeline.mjs attaches it.
import {arrowsOf, opOf, opsOf, panDomain, slackOf} from './layout.mjs';

const fmt = (v) => String(Number(Number(v).toPrecision(6)));

/** Wires the mouse and keyboard of a Timeline's canvas. */
export function attachInput(t) {
  const c = t.canvas;
  const local = (e) => {
    const r = c.getBoundingClientRect();
    return [e.clientX - r.left, e.clientY - r.top];
  };
  let drag = null;
  c.addEventListener('mousemove', (e) => {
    const [px, py] = local(e);
    if (drag) {
      const x = t.scale(c.clientWidth);
      t.domain = panDomain(drag.domain, x.invert(drag.px) - x.invert(px), t.max);
      t.plot.request();
      return;
    }
    t.setHover(t.hitTest(px, py), px, py);
  });
  c.addEventListener('mouseleave', () => t.setHover(null));
  c.addEventListener('mousedown', (e) => {
    const [px] = local(e);
    drag = {px, domain: t.domain.slice()};
  });
  window.addEventListener('mouseup', () => {
    if (drag && t.onZoom) t.onZoom(t.domain);
    drag = null;
  });
  c.addEventListener('dblclick', () => t.fit());
  c.addEventListener('wheel', (e) => {
    const [px] = local(e);
    if (e.ctrlKey || e.metaKey) {
      e.preventDefault();
      t.zoom(Math.exp(e.deltaY * 0.002), t.scale(c.clientWidth).invert(px));
    } else if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
      e.preventDefault();
      const span = t.domain[1] - t.domain[0];
      t.pan(((e.shiftKey ? e.deltaY : e.deltaX) / c.clientWidth) * span);
    }
  }, {passive: false});
  c.addEventListener('keydown', (e) => {
    const span = t.domain[1] - t.domain[0];
    const act = {
      '+': () => t.zoom(0.7),
      '=': () => t.zoom(0.7),
      '-': () => t.zoom(1 / 0.7),
      '0': () => t.fit(),
      ArrowLeft: () => t.pan(-span * 0.15),
      ArrowRight: () => t.pan(span * 0.15),
    }[e.key];
    if (act) {
      e.preventDefault();
      act();
    }
  });
}

/** One line on an op for the tooltip: "F 3 · stage 2 · chunk 1 · reverse". */
export function describeOp(op) {
  if (op.kind === 'FB' && op.backward) {
    return `${describeOp({...op, kind: 'F'})}\n  overlapped with ${
        describeOp({...op.backward, kind: 'B+W', device: op.device})}`;
  }
  const parts = [`${op.kind === 'BW' ? 'B+W' : op.kind} ${op.microbatch}`];
  if (op.operator !== undefined) parts.push(`operator ${op.operator}`);
  if (op.stage !== undefined) parts.push(`stage ${op.stage}`);
  if (op.chunk) parts.push(`chunk ${op.chunk}`);
  if (op.direction) parts.push('reverse direction');
  parts.push(`dev ${op.device}`);
  return parts.join(' \u00b7 ');
}

/**
 * The tooltip of a cell (slot s of a packed layout): its ops, times, when its inputs were ready,
 * its arrows; times written by `format` (a plain number by default).
 */
export function tooltipText(layout, s, comm, format = fmt) {
  const lines = Array.from(opsOf(layout, s), (i) => describeOp(opOf(layout, i)));
  const start = layout.slotStart[s];
  const end = layout.slotEnd[s];
  lines.push(`${format(start)} \u2192 ${format(end)} (${format(end - start)})`);
  const slack = slackOf(layout, s, comm);
  if (slack !== null && slack > 1e-9) {
    lines.push(`inputs ready at ${format(start - slack)}; waited ${format(slack)} (device busy)`);
  }
  const {preds, succs} = arrowsOf(layout, s, comm);
  lines.push(`${preds.length} dependencies, ${succs.length} dependents`);
  return lines.join('\n');
}
