// The timeline plot: one or two schedules stacked on one time axis, one row
// per device, cells coloured by kind (F blue, B orange, W green; a full
// backward B+W orange with a green foot; an overlapped F&B pair split in two
// halves inside a black border), numbered by micro-batch, chunk 1 darker,
// the reverse direction hatched (cells.mjs), idle gaps lightly hatched,
// memory tracks under the rows. Hovering a cell draws its dependency arrows
// (communication delays solid, waiting dotted) and a tooltip; zoom and pan
// come from timeline_input.mjs. One canvas, redrawn at most once per frame
// (Plot), drawing only the cells in view into a cached layer that hovering
// reuses: a p 64, m 512 schedule stays fluid under the mouse. Schedules come
// as packed layouts (layout.mjs; the pipeline worker makes them) with their
// numbers, or as schedule objects packed here (the plan lab's); the cells
// are painted as pixels (cells.mjs) and their labels drawn in slices of at
// most SLICE_MS, one task each (with the rest of the layer), so no draw
// holds the page long.
import {DataTable} from '../data_table.mjs';
import {COLORS, FONT, Plot} from '../plots/canvas.mjs';
import {linearScale} from '../plots/scales.mjs';

import {cellPainter, drawLabels, LABEL_STRIDE, PALETTE, REVERSE_HATCH} from './cells.mjs';
import {arrowsOf, buildLayout, clampDomain, gapsOf, panDomain, rowRange, slotAt, visibleRange, zoomDomain} from './layout.mjs';
import {drawMemoryTracks, MEMORY_LEGEND} from './memory_track.mjs';
import {attachInput, tooltipText} from './timeline_input.mjs';

const LEFT = 58;
const RIGHT = 12;
const TITLE_H = 20;
const AXIS_H = 22;
const LABEL_PX = 12;  // the least distance between two row or strip labels (11 px font)
const ARROW_IN = '#111827';
const ARROW_OUT = '#7c3aed';
const DELAY = '#db2777';
// The layer is drawn in steps, SLICE_MS of them per task, none of them in
// the frame that starts it (that frame already holds the page's layout): a
// p 64, m 512 schedule's (100k cells, 64 strips, thousands of labels zoomed
// in) never holds the page for long, wherever it runs. One step of 1500
// cells took 20-90 ms on a loaded machine: steps are a few milliseconds.
const SLICE_MS = 8;
const CELLS_PER_STEP = 400;  // cells and gaps painted by one step
const LABEL_BATCH = 128;     // labels drawn by one step
const TRACKS_PER_STEP = 1;   // memory strips drawn by one step

// Splits [0, n) into consecutive ranges of about `limit` weight each.
function spans(n, weight, limit) {
  const out = [];
  let first = 0;
  let sum = 0;
  for (let d = 0; d < n; ++d) {
    sum += weight(d);
    if (sum >= limit) {
      out.push([first, d + 1]);
      first = d + 1;
      sum = 0;
    }
  }
  if (first < n) out.push([first, n]);
  return out;
}

const fmt = (v) => String(Number(Number(v).toPrecision(6)));

// Each schedule object given unpacked is laid out once: the lab shows the
// same schedules again on every change of the other one.
const layouts = new WeakMap();
function layoutOf(schedule) {
  let layout = layouts.get(schedule);
  if (!layout) {
    layout = buildLayout(schedule);
    layouts.set(schedule, layout);
  }
  return layout;
}

export class Timeline {
  /**
   * canvas: the plot; tooltip: an absolutely placed element beside it;
   * units: {formatTime, timeLabel, formatMemory} for timelines whose times
   * and memory have units (the plan lab's microseconds and bytes); plain
   * numbers by default, as the pipeline lab's problems have none.
   */
  constructor(canvas, tooltip, units = {}) {
    this.canvas = canvas;
    this.tooltip = tooltip;
    this.formatTime = units.formatTime || fmt;
    this.timeLabel = units.timeLabel || 'time';
    this.formatMemory = units.formatMemory || undefined;
    this.blocks = [];  // [{info (the schedule or its summary), layout, title}]
    this.domain = [0, 1];
    this.max = 1;
    this.hasData = false;
    this.hover = null;  // {block, slot}
    this.showMemory = true;
    this.comm = 0;
    this.version = 0;
    this.layer = null;     // the cells, strips and axis, drawn once per view (see draw)
    this.layerJob = null;  // the layer's steps still to run (runLayer)
    this.plot = new Plot(canvas, (ctx, w, h) => this.draw(ctx, w, h));
    this.table = new DataTable(canvas, 'each device\'s busy and idle time', () => this.summary());
    attachInput(this);
  }

  // The timeline summed up per schedule and device, for the data table.
  summary() {
    if (!this.hasData) return null;
    const rows = [];
    for (const {title, layout, info} of this.blocks) {
      const act = info.peak_activation || [];
      for (let d = 0; d < layout.devices; ++d) {
        const [first, last] = rowRange(layout, d);
        let busy = 0;
        for (let s = first; s < last; ++s) busy += layout.slotEnd[s] - layout.slotStart[s];
        const idle = gapsOf(layout, d).reduce((sum, [t0, t1]) => sum + (t1 - t0), 0);
        rows.push([
          title, d, this.formatTime(layout.makespan), this.formatTime(busy), this.formatTime(idle),
          act[d] === undefined ? '–' : (this.formatMemory || fmt)(act[d])
        ]);
      }
    }
    return {
      columns: ['schedule', 'device', 'makespan', 'busy', 'idle (bubble)', 'peak activation'],
      rows
    };
  }

  /**
   * Shows schedules (1 or 2) on one time axis; keeps the zoom when asked.
   * An entry is {schedule} (the core's schedule object) or {summary,
   * layout} (its numbers and its packed layout, layout.mjs), with an
   * optional title.
   */
  setSchedules(entries, {comm = 0, keepZoom = false} = {}) {
    const block = (e) => {
      const info = e.layout ? e.summary : e.schedule;
      return {info, title: e.title || info.name, layout: e.layout || layoutOf(e.schedule)};
    };
    this.blocks = entries.filter((e) => e && (e.layout ? e.summary : e.schedule)).map(block);
    this.layerJob = null;
    ++this.version;  // the cached layer is stale
    this.comm = comm;
    const data = this.canvas.dataset;
    data.schedules = this.blocks.map((b) => b.info.name).join(',');
    delete data.cells;  // until the new layer's labels are drawn
    delete data.labelled;
    const max = Math.max(1e-9, ...this.blocks.map((b) => b.layout.makespan));
    // A zoomed view stays (clamped) when asked; a whole view follows the new makespan.
    const zoomed = this.hasData && this.zoomed;
    this.max = max;
    this.hasData = this.blocks.length > 0;
    this.domain = keepZoom && zoomed ? clampDomain(this.domain, max) : [0, max];
    this.hover = null;
    this.tooltip.hidden = true;
    // The new height is laid out with the page's other changes in this
    // frame; the canvas (reallocated at that size) is drawn in the next, so
    // no frame holds both (each is tens of milliseconds at p 64).
    this.canvas.style.height = `${this.heightPx()}px`;
    requestAnimationFrame(() => this.plot.request());
    this.table.refresh();
  }

  setMemory(show) {
    this.showMemory = show;
    this.resize();
  }

  /** Sets the visible time range ([t0, t1], clamped), e.g. from a permalink. */
  setDomain(domain) {
    this.domain = clampDomain(domain, this.max);
    this.plot.request();
  }

  get zoomed() {
    return this.domain[0] > 0 || this.domain[1] < this.max;
  }

  rowHeight(devices) {
    return devices <= 12 ? 22 : Math.max(9, Math.floor(264 / devices));
  }

  trackHeight(devices) {
    if (devices <= 8) return 20;
    return devices <= 12 ? 16 : Math.max(6, Math.floor(180 / devices));
  }

  // Block geometry: where each block's title, rows and memory tracks sit.
  geometry() {
    let y = 4;
    return this.blocks.map((block) => {
      const n = block.layout.devices;
      const row = this.rowHeight(n);
      const track = this.trackHeight(n);
      const g = {titleY: y, rowsTop: y + TITLE_H, row, track, devices: n};
      g.rowsBottom = g.rowsTop + n * row;
      g.memTop = g.rowsBottom + 18;
      g.memBottom =
          this.showMemory && block.layout.memDevices > 0 ? g.memTop + n * track : g.rowsBottom;
      y = g.memBottom + 10;
      return g;
    });
  }

  heightPx() {
    const geo = this.geometry();
    return geo.length ? geo[geo.length - 1].memBottom + AXIS_H + 6 : 120;
  }

  resize() {
    this.canvas.style.height = `${this.heightPx()}px`;
    this.plot.request();
  }

  scale(width) {
    return linearScale(this.domain[0], this.domain[1], LEFT, width - RIGHT);
  }

  draw(ctx, width, height) {
    if (!this.blocks.length) {
      ctx.fillStyle = COLORS.muted;
      ctx.textAlign = 'center';
      ctx.fillText('no schedule', width / 2, height / 2);
      return false;
    }
    const x = this.scale(width);
    const geo = this.geometry();
    // Everything but the hover lives in a cached layer: moving the mouse
    // redraws only the highlight and the arrows, whatever the op count.
    const ratio = ctx.getTransform().a || 1;
    const key = [width, height, ratio, ...this.domain, this.showMemory, this.version].join();
    if (!this.layer || this.layerKey !== key) {
      this.layerKey = key;
      this.layer = this.layer || document.createElement('canvas');
      const lc = this.layer.getContext('2d');
      // The new layer's first step clears it; this frame shows the last one.
      const clear = () => {
        // Resized only when the size changed: setting a canvas's size
        // reallocates its pixels even when it stays the same.
        if (this.layer.width !== ctx.canvas.width) this.layer.width = ctx.canvas.width;
        if (this.layer.height !== ctx.canvas.height) this.layer.height = ctx.canvas.height;
        lc.setTransform(ratio, 0, 0, ratio, 0, 0);
        lc.fillStyle = '#fff';
        lc.fillRect(0, 0, width, height);
        lc.font = FONT;
      };
      this.drawLayer(lc, x, width, geo, clear);
    }
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.drawImage(this.layer, 0, 0);
    ctx.restore();
    if (this.hover) {
      this.drawHighlight(ctx, this.hover, geo[this.hover.block], x, width);
      this.drawArrows(ctx, this.hover, geo[this.hover.block], x);
    }
    return true;
  }

  // The cells, labels, strips and axis, as steps run in slices (runLayer);
  // what was drawn goes to data-* attributes for the tests: layer-draws
  // (how often a layer was started), then once it is whole, painted (cells
  // painted), step-cells (the most painted by one step: what one task may
  // hold), cells (those wide enough for a digit) and labelled (those that
  // got their micro-batch), row-labels and strip-labels (the labels' y
  // positions).
  drawLayer(ctx, x, width, geo, clear) {
    const data = this.canvas.dataset;
    data.layerDraws = String(Number(data.layerDraws || 0) + 1);
    for (const key of ['painted', 'stepCells', 'cells', 'labelled']) delete data[key];
    const drawn = {painted: 0, stepCells: 0, cells: 0, labelled: 0, rowLabels: [], stripLabels: []};
    const steps = [() => {
      clear();
      this.drawGrid(ctx, x, width, geo);
    }];
    this.blocks.forEach(
        (block, i) => steps.push(...this.blockSteps(ctx, block, geo[i], x, width, drawn)));
    steps.push(() => {
      this.drawAxis(ctx, x, width, geo[geo.length - 1].memBottom + 4);
      data.painted = String(drawn.painted);
      data.stepCells = String(drawn.stepCells);
      data.cells = String(drawn.cells);
      data.labelled = String(drawn.labelled);
      data.rowLabels = drawn.rowLabels.map((y) => y.toFixed(1)).join(',');
      data.stripLabels = drawn.stripLabels.map((y) => y.toFixed(1)).join(',');
    });
    const job = {steps, next: 0};
    this.layerJob = job;
    setTimeout(() => this.runLayer(job), 0);
  }

  // Runs the layer's steps (a step returning false is called again) for at
  // most SLICE_MS, then shows them on the next frame; the rest follow in
  // later tasks, unless another layer replaced this one.
  runLayer(job) {
    if (this.layerJob !== job) return;
    const started = performance.now();
    while (job.next < job.steps.length) {
      if (job.steps[job.next]() !== false) ++job.next;
      if (job.next < job.steps.length && performance.now() - started >= SLICE_MS) {
        setTimeout(() => this.runLayer(job), 0);
        break;
      }
    }
    if (job.next >= job.steps.length) this.layerJob = null;
    this.plot.request();
  }

  drawHighlight(ctx, hover, g, x, width) {
    const {layout, slot} = hover;
    const [t0, t1] = this.domain;
    if (layout.slotEnd[slot] < t0 || layout.slotStart[slot] > t1) return;
    const x0 = x(layout.slotStart[slot]);
    const x1 = x(layout.slotEnd[slot]);
    const y = g.rowsTop + layout.slotDevice[slot] * g.row;
    ctx.save();
    ctx.beginPath();
    ctx.rect(LEFT, g.rowsTop, width - RIGHT - LEFT, g.rowsBottom - g.rowsTop);
    ctx.clip();
    ctx.strokeStyle = '#111827';
    ctx.lineWidth = 2;
    ctx.strokeRect(x0 - 0.5, y + 1, Math.max(1, x1 - x0 + 1), g.row - 2);
    ctx.restore();
  }

  drawGrid(ctx, x, width, geo) {
    ctx.save();
    ctx.strokeStyle = COLORS.grid;
    ctx.lineWidth = 1;
    for (const t of x.ticks(8)) {
      const px = Math.round(x(t)) + 0.5;
      ctx.beginPath();
      ctx.moveTo(px, geo[0].rowsTop);
      ctx.lineTo(px, geo[geo.length - 1].memBottom);
      ctx.stroke();
    }
    ctx.restore();
  }

  drawAxis(ctx, x, width, y) {
    ctx.save();
    ctx.fillStyle = COLORS.muted;
    ctx.strokeStyle = COLORS.muted;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    ctx.beginPath();
    ctx.moveTo(LEFT, y + 0.5);
    ctx.lineTo(width - RIGHT, y + 0.5);
    ctx.stroke();
    for (const t of x.ticks(8)) {
      const px = Math.round(x(t)) + 0.5;
      ctx.beginPath();
      ctx.moveTo(px, y);
      ctx.lineTo(px, y + 4);
      ctx.stroke();
      ctx.fillText(this.formatTime(t), px, y + 5);
    }
    ctx.textAlign = 'left';
    ctx.fillText(this.timeLabel, 6, y + 5);
    ctx.restore();
  }

  // A block's steps: its title, its rows' cells (about CELLS_PER_STEP
  // each), their labels (LABEL_BATCH per call), the row labels and frame,
  // and its memory strips (TRACKS_PER_STEP each).
  blockSteps(ctx, block, g, x, width, drawn) {
    const {layout, info} = block;
    const [t0, t1] = this.domain;
    const left = LEFT;
    const right = width - RIGHT;
    const steps = [() => this.drawTitle(ctx, block, g, left)];
    let painter = null;  // made by the first row step: blocks share one image
    const box = {left, right, top: g.rowsTop, row: g.row};
    const cellsOf = (d) => {
      const [first, last] = visibleRange(layout, d, t0, t1);
      return last - first + layout.gapStart[d + 1] - layout.gapStart[d] + 1;
    };
    for (const [d0, d1] of spans(layout.devices, cellsOf, CELLS_PER_STEP)) {
      steps.push(() => {
        if (!painter) painter = cellPainter(ctx, layout, box, x, [t0, t1]);
        const before = painter.painted;
        painter.paint(d0, d1);
        drawn.stepCells = Math.max(drawn.stepCells, painter.painted - before);
      });
    }
    let next = 0;  // the next label
    steps.push(() => {
      if (!painter) return true;
      if (next === 0) drawn.painted += painter.painted;
      const count = painter.labels.length / LABEL_STRIDE;
      const to = Math.min(count, next + LABEL_BATCH);
      ctx.save();
      ctx.beginPath();
      ctx.rect(left, g.rowsTop, right - left, g.rowsBottom - g.rowsTop);
      ctx.clip();
      drawLabels(ctx, painter.labels, next, to, drawn);
      ctx.restore();
      next = to;
      return next >= count;
    });
    steps.push(() => this.drawRowLabels(ctx, layout, g, left, right, drawn));
    if (g.memBottom > g.rowsBottom) {
      const memBox = {left, right, top: g.memTop};
      for (const range of spans(layout.memDevices, () => 1, TRACKS_PER_STEP)) {
        steps.push(() => {
          drawn.stripLabels.push(...drawMemoryTracks(
              ctx, info, layout, memBox, g.track, x, this.domain, this.formatMemory, range));
        });
      }
      steps.push(() => {
        ctx.save();
        ctx.fillStyle = COLORS.muted;
        ctx.textAlign = 'left';
        ctx.textBaseline = 'bottom';
        ctx.fillText('memory per device (peak at left; dashed: the cap)', left, g.memTop - 3);
        ctx.restore();
      });
    }
    return steps;
  }

  drawTitle(ctx, block, g, left) {
    ctx.save();
    ctx.fillStyle = COLORS.ink;
    ctx.font = `600 ${FONT}`;
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'left';
    ctx.fillText(block.title, left, g.titleY + TITLE_H / 2 - 1);
    const titleWidth = ctx.measureText(block.title).width;
    ctx.fillStyle = COLORS.muted;
    ctx.font = FONT;
    const above = block === this.blocks[0] ? null : this.blocks[0].info;
    ctx.fillText(
        blockSummary(block.info, above, this.formatTime, this.formatMemory), left + titleWidth + 16,
        g.titleY + TITLE_H / 2 - 1);
    ctx.restore();
  }

  drawRowLabels(ctx, layout, g, left, right, drawn) {
    ctx.save();
    ctx.fillStyle = COLORS.muted;
    ctx.font = FONT;
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    // One label per LABEL_PX at most, so dense rows (p >= 16) never overlap.
    const every = Math.ceil(LABEL_PX / g.row);
    for (let d = 0; d < layout.devices; d += every) {
      const y = g.rowsTop + d * g.row + g.row / 2;
      ctx.fillText(`dev ${d}`, left - 6, y);
      drawn.rowLabels.push(y);
    }
    ctx.strokeStyle = COLORS.line || '#cbd5e1';
    ctx.strokeRect(left + 0.5, g.rowsTop + 0.5, right - left - 1, g.rowsBottom - g.rowsTop);
    ctx.restore();
  }

  rowCenter(g, device) {
    return g.rowsTop + device * g.row + g.row / 2;
  }

  drawArrows(ctx, hover, g, x) {
    const {layout} = hover;
    const {preds, succs} = arrowsOf(layout, hover.slot, this.comm);
    const {opDevice, opStart, opEnd} = layout;
    const one = (arc, color) => {
      const ya = this.rowCenter(g, opDevice[arc.from]);
      const yb = this.rowCenter(g, opDevice[arc.to]);
      const xa = x(opEnd[arc.from]);
      const xd = x(opEnd[arc.from] + arc.delay);
      const xb = x(opStart[arc.to]);
      ctx.strokeStyle = color;
      ctx.fillStyle = color;
      ctx.lineWidth = 1.5;
      ctx.beginPath();  // the hop between rows, at the moment the data leaves
      ctx.moveTo(xa, ya);
      ctx.lineTo(xa, yb);
      ctx.stroke();
      if (arc.delay > 0) {  // the communication delay, solid and pink
        ctx.strokeStyle = DELAY;
        ctx.lineWidth = 3;
        ctx.beginPath();
        ctx.moveTo(xa, yb);
        ctx.lineTo(xd, yb);
        ctx.stroke();
      }
      if (xb > xd + 1) {  // waiting for the device: dotted
        ctx.strokeStyle = color;
        ctx.lineWidth = 1;
        ctx.setLineDash([2, 2]);
        ctx.beginPath();
        ctx.moveTo(xd, yb);
        ctx.lineTo(xb, yb);
        ctx.stroke();
        ctx.setLineDash([]);
      }
      ctx.beginPath();  // the head, at the dependent's start
      ctx.moveTo(xb, yb);
      ctx.lineTo(xb - 6, yb - 4);
      ctx.lineTo(xb - 6, yb + 4);
      ctx.closePath();
      ctx.fill();
      ctx.beginPath();
      ctx.arc(xa, ya, 2.5, 0, 2 * Math.PI);
      ctx.fill();
    };
    ctx.save();
    for (const arc of preds) one(arc, ARROW_IN);
    for (const arc of succs) one(arc, ARROW_OUT);
    ctx.restore();
  }

  // ---- interaction ----

  hitTest(px, py) {
    const width = this.canvas.clientWidth;
    if (px < LEFT || px > width - RIGHT) return null;
    const x = this.scale(width);
    const geo = this.geometry();
    for (let i = 0; i < geo.length; ++i) {
      const g = geo[i];
      if (py < g.rowsTop || py >= g.rowsBottom) continue;
      const d = Math.floor((py - g.rowsTop) / g.row);
      const layout = this.blocks[i].layout;
      const t = x.invert(px);
      const tolerance = (this.domain[1] - this.domain[0]) / width;  // one pixel
      let s = slotAt(layout, d, t);
      if (s < 0) s = slotAt(layout, d, t + tolerance);
      if (s < 0) s = slotAt(layout, d, t - tolerance);
      return s < 0 ? null : {block: i, slot: s, layout, device: d};
    }
    return null;
  }

  showTooltip(hit, px, py) {
    if (!hit) {
      this.tooltip.hidden = true;
      return;
    }
    this.tooltip.textContent = tooltipText(hit.layout, hit.slot, this.comm, this.formatTime);
    this.tooltip.hidden = false;
    const box = this.canvas.getBoundingClientRect();
    const parent = this.tooltip.offsetParent || this.canvas.parentElement;
    const base = parent.getBoundingClientRect();
    const left = box.left - base.left + px + 14;
    const flip = px > box.width - 260;
    this.tooltip.style.left = `${flip ? left - 280 : left}px`;
    this.tooltip.style.top = `${box.top - base.top + py + 12}px`;
  }

  setHover(hit, px, py) {
    const same =
        hit && this.hover && this.hover.slot === hit.slot && this.hover.block === hit.block;
    if (!same && (hit || this.hover)) {
      this.hover = hit;
      this.plot.request();
    }
    this.showTooltip(hit, px, py);
  }

  zoom(factor, at = null) {
    const center = at === null ? (this.domain[0] + this.domain[1]) / 2 : at;
    this.domain = zoomDomain(this.domain, center, factor, this.max, this.max * 1e-4);
    this.plot.request();
    if (this.onZoom) this.onZoom(this.domain);
  }

  pan(dt) {
    this.domain = panDomain(this.domain, dt, this.max);
    this.plot.request();
    if (this.onZoom) this.onZoom(this.domain);
  }

  fit() {
    this.domain = [0, this.max];
    this.plot.request();
    if (this.onZoom) this.onZoom(this.domain);
  }
}

// One line on a block: its numbers and, for a stacked block, the makespan
// difference to the schedule shown above it (times and memory written by
// `format` and `formatMemory`).
function blockSummary(schedule, above = null, format = fmt, formatMemory = fmt) {
  let makespan = `makespan ${format(schedule.makespan)}`;
  if (above && above.makespan > 0) {
    const delta = schedule.makespan - above.makespan;
    const sign = delta > 0 ? '+' : delta < 0 ? '\u2212' : '\u00b1';
    makespan += ` (${sign}${format(Math.abs(delta))}, ${sign}${
                    (100 * Math.abs(delta) / above.makespan).toFixed(1)}% ` +
        `vs ${above.name})`;
  }
  const parts = [makespan];
  const b = schedule.bubble;
  if (b) {
    parts.push(
        `bubble ${(100 * b.global_rate).toFixed(1)}% global, ` +
        `${(100 * b.span_rate).toFixed(1)}% span`);
  }
  if (schedule.peak_activation && schedule.peak_activation.length) {
    parts.push(`peak act ${formatMemory(Math.max(...schedule.peak_activation))}`);
  }
  if (schedule.valid === false) parts.push('INVALID');
  return parts.join('   \u00b7   ');
}

/**
 * The legend entries of the timeline and its tracks ([css background,
 * label]); the number in a cell is its micro-batch.
 */
export const TIMELINE_LEGEND = [
  [PALETTE.F[0], 'F'], [PALETTE.B[0], 'B'], [PALETTE.W[0], 'W'], [PALETTE.F[1], 'chunk 1 (darker)'],
  [
    `repeating-linear-gradient(135deg, ${REVERSE_HATCH} 0 1.5px, transparent 1.5px 4px), ` +
        PALETTE.F[0],
    'reverse direction (hatched)'
  ],
  [DELAY, 'comm delay'], ...MEMORY_LEGEND
];
