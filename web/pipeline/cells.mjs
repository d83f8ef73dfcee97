// Painting the timeline's cells fast: a block's cells, idle gaps and
// hatches are written as pixels into one ImageData (a Uint32Array, one span
// per cell and pixel row) and composited with one drawImage, so the canvas
// never rasterises a path of 100k rectangles (a p 64, m 512 schedule took a
// second of raster that way). Labels are measured and drawn where they fit,
// in slices the timeline spreads over tasks: in the plot's font, else a bold
// 9 px one, else that one condensed (fillText's maxWidth) down to
// MIN_CONDENSED of its width, so a two-digit micro-batch fits a one-unit
// cell of DualPipe's example. Colours: F blue, B orange, W green; chunk 1
// darker; the reverse direction (DualPipe's and Chimera's second pipeline)
// keeps its kind's colour under a dark diagonal hatch, so it never reads as
// "disabled". Used by timeline.mjs on layouts of layout.mjs.
import {BW, FB, visibleRange} from './layout.mjs';

export const PALETTE = Object.freeze({
  F: ['#3b82f6', '#1e40af'],
  B: ['#f59e0b', '#b45309'],
  W: ['#22c55e', '#15803d'],
});
const GREY = '#9ca3af';
const LIGHT = new Set(['#f59e0b', '#22c55e']);
const PAIR_BORDER = '#0f172a';
const GAP_HATCH = '#e2e8f0';
/** The reverse direction's hatch: dark stripes over the kind's colour. */
export const REVERSE_HATCH = 'rgba(15, 23, 42, 0.45)';
const HATCH_RGBA = [15, 23, 42, 0.45];
const LABEL_FONTS = ['11px system-ui, sans-serif', '600 9px system-ui, sans-serif'];
const MIN_CONDENSED = 0.6;  // narrower than this, digits are no longer legible
const MIN_ROOM_PX = 5;      // a cell narrower than this carries no label
const PERIOD_PX = 6;        // the hatches' period (CSS px), as a 6 px pattern tile
// The palette entry of a kind (a full backward is a B, a pair's halves are drawn apart).
const PALETTE_OF = {
  F: 'F',
  B: 'B',
  W: 'W',
  BW: 'B',
  FB: 'F'
};

export function colorOf(op, kind = op.kind) {
  const list = PALETTE[PALETTE_OF[kind] || kind] || [GREY];
  return list[(op.chunk || 0) % list.length];
}

export const isReverse = (op) => Boolean(op && op.direction);

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
const pack = (r, g, b, a = 255) => (LITTLE_ENDIAN ? ((a << 24) | (b << 16) | (g << 8) | r) :
                                                    ((r << 24) | (g << 16) | (b << 8) | a)) >>>
    0;
const rgbOf = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

// A colour as pixels: plain and under the reverse hatch (blended once here).
const pixels = new Map();
function pixelsOf(hex) {
  let p = pixels.get(hex);
  if (!p) {
    const rgb = rgbOf(hex);
    const a = HATCH_RGBA[3];
    const hatched = rgb.map((c, k) => Math.round(c * (1 - a) + HATCH_RGBA[k] * a));
    p = {hex, plain: pack(...rgb), hatched: pack(...hatched)};
    pixels.set(hex, p);
  }
  return p;
}

// One scratch image for every block (reused: no 3 MB garbage per draw).
let scratch = null;
function scratchOf(width, height) {
  if (!scratch || scratch.image.width !== width || scratch.image.height !== height) {
    scratch = {image: new ImageData(width, height)};
    scratch.pixels = new Uint32Array(scratch.image.data.buffer);
  } else {
    scratch.pixels.fill(0);
  }
  return scratch;
}

// A canvas as wide as the image and at least `rows` tall, for one band of
// rows on its way to the layer. Each band goes through this small canvas:
// drawing from a canvas the size of the whole image copies all of it on
// every draw (55-85 ms a band at p 64 on a loaded machine, 6 ms this way).
let bandCanvas = null;
function bandOf(width, rows) {
  if (!bandCanvas || bandCanvas.width !== width || bandCanvas.height < rows) {
    bandCanvas = typeof OffscreenCanvas === 'function' ? new OffscreenCanvas(width, rows) :
                                                         document.createElement('canvas');
    bandCanvas.width = width;
    bandCanvas.height = rows;
  }
  return bandCanvas;
}

/**
 * A painter of `layout`'s rows into ctx: box {left, right, top, row} in CSS
 * px (rows of `row` px from `top`), x the time scale, [t0, t1] the time in
 * view. Its paint(d0, d1) paints devices [d0, d1) (the caller spreads the
 * rows over tasks; one painter at a time, as they share one image); its
 * labels (LABEL_STRIDE values each, for drawLabels) and painted (cells
 * painted) grow as it goes.
 */
export function cellPainter(ctx, layout, box, x, [t0, t1]) {
  const ratio = ctx.getTransform().a || 1;
  const X0 = Math.round(box.left * ratio);
  const Y0 = Math.round(box.top * ratio);
  const width = Math.max(1, Math.round(box.right * ratio) - X0);
  const height = Math.max(1, Math.round((box.top + layout.devices * box.row) * ratio) - Y0);
  const {image, pixels: px} = scratchOf(width, height);
  const period = Math.max(2, Math.round(PERIOD_PX * ratio));
  const stripe = Math.max(1, Math.round(1.5 * ratio));
  const dx = (v) => Math.round(v * ratio) - X0;
  const dy = (v) => Math.round(v * ratio) - Y0;
  // Fills device pixels [xa, xb) x [ya, yb): `plain`, or `hatched` on the
  // stripes when `hatch` (a pattern of diagonal lines).
  const span = (xa, xb, ya, yb, plain, hatched, hatch) => {
    if (xb <= xa) xb = xa + 1;  // a cell narrower than a pixel still shows
    xa = Math.max(0, xa);
    xb = Math.min(width, xb);
    ya = Math.max(0, ya);
    yb = Math.min(height, yb);
    if (xb <= xa) return;
    for (let y = ya; y < yb; ++y) {
      const row = y * width;
      if (!hatch) {
        px.fill(plain, row + xa, row + xb);
        continue;
      }
      for (let xx = xa; xx < xb; ++xx) {
        px[row + xx] = (xx + X0 + y + Y0) % period < stripe ? hatched : plain;
      }
    }
  };
  const gap = pixelsOf(GAP_HATCH).plain;
  const border = pixelsOf(PAIR_BORDER).plain;
  const labels = [];
  const painter = {labels, painted: 0, paint};
  const {slotStart, slotEnd, slotKind, slotF, slotB, slotOps, slotOpsStart} = layout;
  const {opChunk, opDirection, opMicro} = layout;
  const colorAt = (op, kind) => {
    const list = PALETTE[PALETTE_OF[kind] || kind] || [GREY];
    return pixelsOf(list[opChunk[op] % list.length]);
  };
  const label = (op, x0, x1, cy, color) => {
    if (x1 - x0 - 1 < MIN_ROOM_PX) return;  // never labelled (most cells zoomed out)
    labels.push(
        String(opMicro[op]), x0, x1, cy + 0.5, LIGHT.has(color.hex) ? '#111827' : '#ffffff');
  };
  function paint(d0, d1) {
    for (let d = d0; d < d1; ++d) paintRow(d);
    // Only these rows' band goes to the canvas (its pixels viewed, not copied).
    const a = Math.max(0, dy(box.top + d0 * box.row));
    const b = Math.min(height, dy(box.top + d1 * box.row));
    if (b <= a) return;
    const band = bandOf(width, b - a);
    const pixels = new Uint8ClampedArray(image.data.buffer, a * width * 4, (b - a) * width * 4);
    band.getContext('2d').putImageData(new ImageData(pixels, width, b - a), 0, 0);
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.drawImage(band, 0, 0, width, b - a, X0, Y0 + a, width, b - a);
    ctx.restore();
  }
  function paintRow(d) {
    const y = box.top + d * box.row;
    // Idle gaps: a light hatch with nothing under it (the grid shows through).
    for (let g = layout.gapStart[d]; g < layout.gapStart[d + 1]; ++g) {
      const a = layout.gapT0[g];
      const b = layout.gapT1[g];
      if (b < t0 || a > t1) continue;
      span(dx(x(a)), dx(x(b)), dy(y + 1), dy(y + box.row - 1), 0, gap, true);
    }
    const [first, last] = visibleRange(layout, d, t0, t1);
    const top = y + 2;
    const cellHeight = box.row - 4;
    const ya = dy(top);
    const yb = dy(top + cellHeight);
    const cy = y + box.row / 2;
    for (let s = first; s < last; ++s) {
      let x0 = x(slotStart[s]);
      let x1 = x(slotEnd[s]);
      if (x1 - x0 > 4) {
        x0 += 0.5;
        x1 -= 0.5;
      }
      ++painter.painted;
      const kind = slotKind[s];
      if (kind === FB && slotF[s] >= 0 && slotB[s] >= 0) {
        const mid = (x0 + x1) / 2;
        const f = colorAt(slotF[s], 'F');
        const b = colorAt(slotB[s], 'B');
        span(dx(x0), dx(mid), ya, yb, f.plain, f.hatched, opDirection[slotF[s]]);
        span(dx(mid), dx(x1), ya, yb, b.plain, b.hatched, opDirection[slotB[s]]);
        if (x1 - x0 > 10) {  // the pair's border
          const t = stripe;
          span(dx(x0), dx(x1), ya, ya + t, border);
          span(dx(x0), dx(x1), yb - t, yb, border);
          span(dx(x0), dx(x0) + t, ya, yb, border);
          span(dx(x1) - t, dx(x1), ya, yb, border);
        }
        label(slotF[s], x0, mid, cy, f);
        label(slotB[s], mid, x1, cy, b);
        continue;
      }
      const full = kind === BW;
      const main = full && slotB[s] >= 0 ? slotB[s] : slotOps[slotOpsStart[s]];
      const c = colorAt(main, full ? 'B' : layout.kinds[kind]);
      const reverse = opDirection[main];
      span(dx(x0), dx(x1), ya, yb, c.plain, c.hatched, reverse);
      if (full && cellHeight > 8) {  // its W, as a foot
        const w = colorAt(main, 'W');
        span(dx(x0), dx(x1), dy(top + cellHeight - 3), yb, w.plain, w.hatched, reverse);
      }
      label(main, x0, x1, cy, c);
    }
  }
  return painter;
}

/** Values per label in a painter's list: text, x0, x1, y, colour. */
export const LABEL_STRIDE = 5;

/**
 * Draws labels [from, to) of a painter's list (indices in labels, not
 * values); `counts` {cells, labelled, widths} accumulates the cells that
 * should carry a label and those that got one (each in the first font its
 * text fits in, or the last one condensed). Font widths are cached in
 * counts.widths.
 */
export function drawLabels(ctx, labels, from, to, counts) {
  if (!counts.widths) counts.widths = LABEL_FONTS.map(() => new Map());
  const widthOf = (f, text) => {
    let w = counts.widths[f].get(text);
    if (w === undefined) {
      ctx.font = LABEL_FONTS[f];
      w = ctx.measureText(text).width;
      counts.widths[f].set(text, w);
    }
    return w;
  };
  const last = LABEL_FONTS.length - 1;
  const byFont = LABEL_FONTS.map(() => []);  // label indices, with maxWidth for the condensed
  for (let k = from; k < to; ++k) {
    const at = k * LABEL_STRIDE;
    const text = labels[at];
    const room = labels[at + 2] - labels[at + 1] - 1;
    ++counts.cells;
    let f = 0;
    while (f <= last && widthOf(f, text) > room) ++f;
    if (f <= last) {
      byFont[f].push(k, -1);
    } else if (widthOf(last, text) * MIN_CONDENSED <= room) {
      byFont[last].push(k, room);
    }
  }
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  byFont.forEach((list, f) => {
    ctx.font = LABEL_FONTS[f];
    for (let j = 0; j < list.length; j += 2) {
      const at = list[j] * LABEL_STRIDE;
      const cx = (labels[at + 1] + labels[at + 2]) / 2;
      ctx.fillStyle = labels[at + 4];
      if (list[j + 1] < 0)
        ctx.fillText(labels[at], cx, labels[at + 3]);
      else
        ctx.fillText(labels[at], cx, labels[at + 3], list[j + 1]);
    }
    counts.labelled += list.length / 2;
  });
}
