// The memory view: the live usage of the current best plan over time against
// the usage limit, the minimum-possible profile as a shaded floor, and the
// peak marked. Hovering lists the live nodes at t, largest first; clicking
// selects them (arrow keys and Enter do the same). Profiles are columnar typed arrays, drawn per
// pixel column (min/max buckets) so 60k time points cost O(width).
import {bytes, grouped} from '../../format.mjs';
import {COLORS, drawAxes, drawEmpty, drawLegend, Plot} from '../../plots/canvas.mjs';
import {bucketMinMax, compactNumber, linearScale} from '../../plots/scales.mjs';

const BOX = {
  left: 64,
  top: 18,
  rightPad: 10,
  bottomPad: 20
};

export class MemoryChart {
  /** hooks: liveNodes(t) -> Int32Array, describe(node) -> text, onSelect(t, nodes) */
  constructor(canvas, tooltip, hooks) {
    this.canvas = canvas;
    this.tooltip = tooltip;
    this.hooks = hooks;
    this.plot = new Plot(canvas, (ctx, w, h) => this.draw(ctx, w, h));
    this.data = null;
    this.hoverT = null;
    canvas.addEventListener('mousemove', (e) => this.hover(e));
    canvas.addEventListener('mouseleave', () => this.hideTooltip());
    canvas.addEventListener('click', (e) => this.select(e));
    canvas.addEventListener('keydown', (e) => this.key(e));
    canvas.addEventListener('blur', () => this.hideTooltip());
  }

  /** profile {times, usage}; floor {times, usage}; limit number|null; horizon [b, e]. */
  setData(data) {
    this.data = data;
    this.plot.request();
  }

  clear() {
    this.data = null;
    this.hideTooltip();
    this.plot.request();
  }

  scales(width, height) {
    const {profile, floor, limit, horizon} = this.data;
    const box =
        {left: BOX.left, top: BOX.top, right: width - BOX.rightPad, bottom: height - BOX.bottomPad};
    const x = linearScale(horizon[0], Math.max(horizon[1], horizon[0] + 1), box.left, box.right);
    let max = limit || 0;
    for (const u of profile.usage) max = Math.max(max, u);
    for (const u of floor.usage) max = Math.max(max, u);
    const y = linearScale(0, max * 1.08 || 1, box.bottom, box.top);
    return {box, x, y};
  }

  draw(ctx, width, height) {
    if (!this.data) return drawEmpty(ctx, width, height, 'no plan yet');
    const {profile, floor, limit, peak} = this.data;
    const {box, x, y} = this.scales(width, height);
    drawAxes(ctx, box, x, y, {xFormat: compactNumber, yFormat: bytes});
    const w = box.right - box.left;
    // The floor: shaded area under the minimum-possible profile.
    const f = bucketMinMax(floor.times, floor.usage, x, box.left, w);
    ctx.fillStyle = COLORS.floor;
    ctx.beginPath();
    ctx.moveTo(box.left, box.bottom);
    let last = 0;
    for (let c = 0; c < f.hi.length; ++c) {
      if (f.hi[c] > -Infinity) last = f.hi[c];
      ctx.lineTo(box.left + c, y(last));
      ctx.lineTo(box.left + c + 1, y(last));
    }
    ctx.lineTo(box.right, box.bottom);
    ctx.fill();
    // The plan's usage: a vertical stroke per column spans its min..max.
    const u = bucketMinMax(profile.times, profile.usage, x, box.left, w);
    ctx.strokeStyle = COLORS.usage;
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    let prev = null;
    for (let c = 0; c < u.hi.length; ++c) {
      if (u.hi[c] === -Infinity) {
        if (prev !== null) ctx.lineTo(box.left + c + 1, y(prev));
        continue;
      }
      const px = box.left + c + 0.5;
      if (prev === null)
        ctx.moveTo(px, y(u.lo[c]));
      else
        ctx.lineTo(px, y(prev));
      ctx.lineTo(px, y(u.lo[c]));
      ctx.lineTo(px, y(u.hi[c]));
      prev = u.hi[c];
    }
    ctx.stroke();
    if (limit) {
      ctx.strokeStyle = COLORS.limit;
      ctx.setLineDash([6, 4]);
      ctx.beginPath();
      ctx.moveTo(box.left, y(limit));
      ctx.lineTo(box.right, y(limit));
      ctx.stroke();
      ctx.setLineDash([]);
    }
    if (peak) {
      const px = x(peak.time);
      const py = y(peak.usage);
      ctx.fillStyle = COLORS.peak;
      ctx.beginPath();
      ctx.arc(px, py, 4, 0, 2 * Math.PI);
      ctx.fill();
      ctx.textAlign = px > box.right - 120 ? 'right' : 'left';
      ctx.fillText(
          `peak ${bytes(peak.usage)} at t = ${grouped(peak.time)}`,
          px + (ctx.textAlign === 'left' ? 6 : -6), py - 8);
    }
    if (this.hoverT !== null) {
      ctx.strokeStyle = COLORS.muted;
      ctx.beginPath();
      ctx.moveTo(x(this.hoverT) + 0.5, box.top);
      ctx.lineTo(x(this.hoverT) + 0.5, box.bottom);
      ctx.stroke();
    }
    drawLegend(ctx, box.left, 9, [
      [COLORS.usage, 'usage of the best plan'], [COLORS.limit, 'limit'],
      ['#c7cbd1', 'minimum possible']
    ]);
    return true;
  }

  timeAt(event) {
    if (!this.data) return null;
    const rect = this.canvas.getBoundingClientRect();
    const {box, x} = this.scales(rect.width, rect.height);
    const px = event.clientX - rect.left;
    if (px < box.left || px > box.right) return null;
    return Math.floor(x.invert(px));
  }

  hover(event) {
    const t = this.timeAt(event);
    if (t === null) return this.hideTooltip();
    const rect = this.canvas.getBoundingClientRect();
    this.showAt(t, event.clientX - rect.left, event.clientY - rect.top);
  }

  // Keyboard: arrows move the time cursor (Shift: 10x), Enter selects, Escape hides.
  key(event) {
    if (!this.data) return;
    const [begin, end] = this.data.horizon;
    const step = Math.max(1, Math.round((end - begin) / 100)) * (event.shiftKey ? 10 : 1);
    const moves = {ArrowLeft: -step, ArrowRight: step};
    if (event.key in moves) {
      event.preventDefault();
      const t = Math.min(end - 1, Math.max(begin, (this.hoverT ?? begin) + moves[event.key]));
      const rect = this.canvas.getBoundingClientRect();
      const {x} = this.scales(rect.width, rect.height);
      this.showAt(t, x(t), rect.height / 3);
    } else if (event.key === 'Enter' && this.hoverT !== null) {
      this.hooks.onSelect(this.hoverT, this.hooks.liveNodes(this.hoverT));
    } else if (event.key === 'Escape') {
      this.hideTooltip();
    }
  }

  // The cursor line at time t and the live-node tooltip near (px, py).
  showAt(t, px, py) {
    this.hoverT = t;
    this.plot.request();
    const nodes = this.hooks.liveNodes(t);
    const total = nodes.length;
    const lines = [`t = ${grouped(t)}: ${grouped(total)} live node${total === 1 ? '' : 's'}`];
    for (let i = 0; i < Math.min(8, total); ++i) lines.push(this.hooks.describe(nodes[i]));
    if (total > 8) lines.push(`… ${grouped(total - 8)} more (click to list)`);
    this.tooltip.textContent = lines.join('\n');
    this.tooltip.style.whiteSpace = 'pre';
    const rect = this.canvas.getBoundingClientRect();
    this.tooltip.style.left = `${Math.min(px + 14, rect.width - 300)}px`;
    this.tooltip.style.top = `${py + 30}px`;
    this.tooltip.hidden = false;
  }

  hideTooltip() {
    this.tooltip.hidden = true;
    if (this.hoverT !== null) {
      this.hoverT = null;
      this.plot.request();
    }
  }

  select(event) {
    const t = this.timeAt(event);
    if (t !== null) this.hooks.onSelect(t, this.hooks.liveNodes(t));
  }
}
