// Painting the timeline's cells fast: rectangles are batched into one path
// per colour (one fill call each instead of one per cell), runs of cells
// narrower than a pixel merge, and labels are measured and drawn where they
// fit: in the plot's font, else a bold 9 px one, else that one condensed
// (fillText's maxWidth) down to MIN_CONDENSED of its width, so a two-digit
// micro-batch fits a one-unit cell of DualPipe's example. A zoomed-out
// schedule with ten thousand ops thus costs a few fills. Colours: F blue,
// B orange, W green; chunk 1 darker; the reverse direction (DualPipe's and
// Chimera's second pipeline) keeps its kind's colour under a dark diagonal
// hatch, so it never reads as "disabled". Used by timeline.mjs.

export const PALETTE = Object.freeze({
  F: ['#3b82f6', '#1e40af'],
  B: ['#f59e0b', '#b45309'],
  W: ['#22c55e', '#15803d'],
});
const LIGHT = new Set(['#f59e0b', '#22c55e']);
const PAIR_BORDER = '#0f172a';
/** The reverse direction's hatch: dark stripes over the kind's colour. */
export const REVERSE_HATCH = 'rgba(15, 23, 42, 0.45)';
const LABEL_FONTS = ['11px system-ui, sans-serif', '600 9px system-ui, sans-serif'];
const MIN_CONDENSED = 0.6;  // narrower than this, digits are no longer legible
const MIN_ROOM_PX = 5;      // a cell narrower than this carries no label

export function colorOf(op, kind = op.kind) {
  const list = PALETTE[{FB: 'F', BW: 'B'}[kind] || kind] || ['#9ca3af'];
  return list[(op.chunk || 0) % list.length];
}

export const isReverse = (op) => Boolean(op && op.direction);

let pattern = null;  // the hatch, made once (a pattern serves any canvas)
function stripes(ctx) {
  if (pattern) return pattern;
  const tile = document.createElement('canvas');
  tile.width = tile.height = 6;
  const t = tile.getContext('2d');
  t.strokeStyle = REVERSE_HATCH;
  t.lineWidth = 1.5;
  t.beginPath();
  t.moveTo(-1, 7);
  t.lineTo(7, -1);
  t.moveTo(5, 7);
  t.lineTo(7, 5);
  t.moveTo(-1, 1);
  t.lineTo(1, -1);
  t.stroke();
  pattern = ctx.createPattern(tile, 'repeat');
  return pattern;
}

export class CellBatch {
  constructor() {
    this.fills = new Map();  // color -> {path, last: [x0, x1, y, h] | null}
    this.reverse = new Path2D();
    this.outlines = new Path2D();
    this.labels = [];  // [text, x, y, color, x0, x1]
    this.cells = 0;    // cells (halves of a pair count apart) at least a label's width
    this.labelled = 0;
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
    if (x1 - x0 - 1 < MIN_ROOM_PX) return;  // never labelled: not kept (most cells zoomed out)
    this.labels.push(
        [text, (x0 + x1) / 2, cy + 0.5, LIGHT.has(color) ? '#111827' : '#ffffff', x0, x1]);
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
      if (isReverse(slot.fOp)) this.reverse.rect(x0, top, mid - x0, height);
      if (isReverse(slot.bOp)) this.reverse.rect(mid, top, x1 - mid, height);
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
    if (isReverse(main)) this.reverse.rect(x0, top, x1 - x0, height);
    if (full && height > 8) this.rect(colorOf(main, 'W'), x0, x1, top + height - 3, 3);  // its W
    this.label(String(main.microbatch), x0, x1, cy, color);
  }

  /**
   * Paints the batch. Labels: a cell at least MIN_ROOM_PX wide counts as a
   * cell that should carry one; each gets the first font its text fits in,
   * or the last one condensed. `this.cells` and `this.labelled` then say how
   * many there were and how many got their label.
   */
  flush(ctx) {
    for (const [color, entry] of this.fills) {
      const last = entry.last;
      if (last) entry.path.rect(last[0], last[2], last[1] - last[0], last[3]);
      ctx.fillStyle = color;
      ctx.fill(entry.path);
    }
    ctx.fillStyle = stripes(ctx);
    ctx.fill(this.reverse);
    ctx.strokeStyle = PAIR_BORDER;
    ctx.lineWidth = 1.5;
    ctx.stroke(this.outlines);
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    const widths = LABEL_FONTS.map(() => new Map());  // font -> text -> width
    const widthOf = (f, text) => {
      let w = widths[f].get(text);
      if (w === undefined) {
        ctx.font = LABEL_FONTS[f];
        w = ctx.measureText(text).width;
        widths[f].set(text, w);
      }
      return w;
    };
    const last = LABEL_FONTS.length - 1;
    const byFont = LABEL_FONTS.map(() => []);
    for (const label of this.labels) {
      const room = label[5] - label[4] - 1;
      if (room < MIN_ROOM_PX) continue;
      ++this.cells;
      const f = LABEL_FONTS.findIndex((_, i) => widthOf(i, label[0]) <= room);
      if (f >= 0) {
        byFont[f].push([...label.slice(0, 4), undefined]);
      } else if (widthOf(last, label[0]) * MIN_CONDENSED <= room) {
        byFont[last].push([...label.slice(0, 4), room]);
      }
    }
    byFont.forEach((list, f) => {
      ctx.font = LABEL_FONTS[f];
      for (const [text, x, y, color, maxWidth] of list) {
        ctx.fillStyle = color;
        if (maxWidth === undefined)
          ctx.fillText(text, x, y);
        else
          ctx.fillText(text, x, y, maxWidth);
      }
      this.labelled += list.length;
    });
  }
}
