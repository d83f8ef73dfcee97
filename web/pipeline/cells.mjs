// Painting the timeline's cells fast: rectangles are batched into one path
// per colour (one fill call each instead of one per cell), runs of cells
// narrower than a pixel merge, and labels are drawn only where they fit. A
// zoomed-out schedule with ten thousand ops thus costs a few fills. Colours:
// F blue, B orange, W green; chunk 1 / reverse direction darker or lighter.
// Used by timeline.mjs.

export const PALETTE = Object.freeze({
  F: ['#3b82f6', '#1e40af', '#93c5fd', '#172554'],
  B: ['#f59e0b', '#b45309', '#fcd34d', '#78350f'],
  W: ['#22c55e', '#15803d', '#86efac', '#14532d'],
});
const LIGHT = new Set(['#93c5fd', '#fcd34d', '#86efac', '#f59e0b', '#22c55e']);
const PAIR_BORDER = '#0f172a';

const shadeOf = (op) => ((op.chunk || 0) + 2 * (op.direction || 0)) % 4;

export function colorOf(op, kind = op.kind) {
  const list = PALETTE[{FB: 'F', BW: 'B'}[kind] || kind] || ['#9ca3af'];
  return list[shadeOf(op) % list.length];
}

export class CellBatch {
  constructor() {
    this.fills = new Map();  // color -> {path, last: [x0, x1, y, h] | null}
    this.outlines = new Path2D();
    this.labels = [];  // [text, x, y, color]
  }

  rect(color, x0, x1, y, h) {
    let entry = this.fills.get(color);
    if (!entry) {
      entry = {path: new Path2D(), last: null};
      this.fills.set(color, entry);
    }
    const last = entry.last;
    if (last && last[2] === y && last[3] === h && x0 <= last[1] + 0.25) {
      last[1] = Math.max(last[1], x1);  // a run of tiny cells: one rectangle
      return;
    }
    if (last) entry.path.rect(last[0], last[2], last[1] - last[0], last[3]);
    entry.last = [x0, x1, y, h];
  }

  label(text, x0, x1, cy, color) {
    if (x1 - x0 >= 7 * text.length + 3) {
      this.labels.push([text, (x0 + x1) / 2, cy + 0.5, LIGHT.has(color) ? '#111827' : '#ffffff']);
    }
  }

  /** One cell (a slot of layout.mjs) between x0 and x1 on the row at y, height h. */
  cell(layout, slot, x0, x1, y, h) {
    if (x1 - x0 > 4) {
      x0 += 0.5;
      x1 -= 0.5;
    }
    const top = y + 2;
    const height = h - 4;
    const cy = y + h / 2;
    if (slot.kind === 'FB' && slot.fOp && slot.bOp) {
      const mid = (x0 + x1) / 2;
      const f = colorOf(slot.fOp, 'F');
      const b = colorOf(slot.bOp, 'B');
      this.rect(f, x0, mid, top, height);
      this.rect(b, mid, x1, top, height);
      if (x1 - x0 > 10) this.outlines.rect(x0 + 0.75, top + 0.75, x1 - x0 - 1.5, height - 1.5);
      this.label(String(slot.fOp.microbatch), x0, mid, cy, f);
      this.label(String(slot.bOp.microbatch), mid, x1, cy, b);
      return;
    }
    const full = slot.kind === 'BW';
    const kind = full ? 'B' : slot.kind;
    const main = (full && slot.bOp) || layout.ops[slot.ops[0]];
    const color = colorOf(main, kind);
    this.rect(color, x0, x1, top, height);
    if (full && height > 8) this.rect(colorOf(main, 'W'), x0, x1, top + height - 3, 3);  // its W
    this.label(String(main.microbatch), x0, x1, cy, color);
  }

  flush(ctx) {
    for (const [color, entry] of this.fills) {
      const last = entry.last;
      if (last) entry.path.rect(last[0], last[2], last[1] - last[0], last[3]);
      ctx.fillStyle = color;
      ctx.fill(entry.path);
    }
    ctx.strokeStyle = PAIR_BORDER;
    ctx.lineWidth = 1.5;
    ctx.stroke(this.outlines);
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    for (const [text, x, y, color] of this.labels) {
      ctx.fillStyle = color;
      ctx.fillText(text, x, y);
    }
  }
}
