// The strategy view: nodes ranked by their share of the plan's cost, each row
// a bar of that share and a strip of its K strategies with the chosen one
// marked. Wheel or arrow keys scroll; a click (or Enter) opens the node panel.
// Only the visible rows are drawn, so 65k nodes cost one sort per plan.
import {COLORS, drawEmpty, Plot} from '../../plots/canvas.mjs';
import {compactNumber} from '../../plots/scales.mjs';

const ROW = 15;
const HEAD = 18;

export class StrategyView {
  /** onSelect(node) opens the node panel. */
  constructor(canvas, onSelect) {
    this.canvas = canvas;
    this.onSelect = onSelect;
    this.plot = new Plot(canvas, (ctx, w, h) => this.draw(ctx, w, h));
    this.order = null;
    this.offset = 0;
    this.cursor = 0;
    canvas.addEventListener('wheel', (e) => {
      e.preventDefault();
      this.scroll(Math.sign(e.deltaY) * 3);
    }, {passive: false});
    canvas.addEventListener('click', (e) => {
      const rect = canvas.getBoundingClientRect();
      const row = Math.floor((e.clientY - rect.top - HEAD) / ROW);
      if (row >= 0 && this.order && this.offset + row < this.order.length) {
        this.cursor = this.offset + row;
        this.onSelect(this.order[this.cursor]);
        this.plot.request();
      }
    });
    canvas.addEventListener('keydown', (e) => {
      const moves = {ArrowDown: 1, ArrowUp: -1, PageDown: 10, PageUp: -10};
      if (e.key in moves) {
        e.preventDefault();
        this.moveCursor(moves[e.key]);
      } else if (e.key === 'Enter' && this.order) {
        this.onSelect(this.order[this.cursor]);
      }
    });
  }

  /** view: ModelView; plan: Int32Array; shares: Float64Array per node. */
  setData(view, plan, shares) {
    this.view = view;
    this.plan = plan;
    this.shares = shares;
    let total = 0;
    for (const s of shares) total += s;
    this.total = total;
    const order = new Int32Array(shares.length);
    for (let i = 0; i < order.length; ++i) order[i] = i;
    this.order = order.sort((a, b) => shares[b] - shares[a] || a - b);
    this.plot.request();
  }

  clear() {
    this.order = null;
    this.offset = 0;
    this.cursor = 0;
    this.plot.request();
  }

  visibleRows() {
    return Math.max(1, Math.floor((this.canvas.clientHeight - HEAD) / ROW));
  }

  scroll(rows) {
    if (!this.order) return;
    const max = Math.max(0, this.order.length - this.visibleRows());
    this.offset = Math.min(max, Math.max(0, this.offset + rows));
    this.plot.request();
  }

  moveCursor(delta) {
    if (!this.order) return;
    this.cursor = Math.min(this.order.length - 1, Math.max(0, this.cursor + delta));
    const rows = this.visibleRows();
    if (this.cursor < this.offset) this.offset = this.cursor;
    if (this.cursor >= this.offset + rows) this.offset = this.cursor - rows + 1;
    this.plot.request();
  }

  draw(ctx, width, height) {
    if (!this.order) return drawEmpty(ctx, width, height, 'no plan yet');
    const {view, plan, shares, order, total} = this;
    const maxShare = shares[order[0]] || 1;
    const stripLeft = Math.round(width * 0.55);
    const barLeft = 118;
    const barWidth = stripLeft - barLeft - 96;  // room for the label after the bar
    ctx.fillStyle = COLORS.muted;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'middle';
    ctx.fillText('rank  node', 4, HEAD / 2);
    ctx.fillText('share of the cost', barLeft, HEAD / 2);
    ctx.fillText('strategy chosen among K', stripLeft, HEAD / 2);
    const rows = Math.min(this.visibleRows(), order.length - this.offset);
    for (let r = 0; r < rows; ++r) {
      const rank = this.offset + r;
      const v = order[rank];
      const top = HEAD + r * ROW;
      const mid = top + ROW / 2;
      if (rank === this.cursor) {
        ctx.fillStyle = '#eef2ff';
        ctx.fillRect(0, top, width, ROW);
      }
      ctx.fillStyle = COLORS.ink;
      ctx.textAlign = 'right';
      ctx.fillText(String(rank + 1), 30, mid);
      ctx.fillText(String(v), 100, mid);
      const share = shares[v];
      ctx.fillStyle = COLORS.cost;
      ctx.fillRect(barLeft, top + 3, Math.max(1, (share / maxShare) * barWidth), ROW - 6);
      ctx.fillStyle = COLORS.muted;
      ctx.textAlign = 'left';
      const pct = total > 0 ? ` ${(100 * share / total).toFixed(2)}%` : '';
      ctx.fillText(
          `${compactNumber(share)}${pct}`, barLeft + 4 + Math.max(1, (share / maxShare) * barWidth),
          mid);
      const k = view.numStrategies(v);
      const label = `${plan[v]}/${k}`;
      // Cells shrink below a pixel's gap on wide domains (K up to a few
      // hundred) so that the strip and its label always fit the row.
      const room = width - stripLeft - ctx.measureText(`${k}/${k}`).width - 10;
      const cell = Math.max(0.5, Math.min(12, room / Math.max(k, 1)));
      const gap = cell >= 3 ? 1 : 0;
      ctx.fillStyle = '#e5e7eb';
      if (gap) {
        for (let s = 0; s < k; ++s)
          ctx.fillRect(stripLeft + s * cell, top + 3, cell - gap, ROW - 6);
      } else {
        ctx.fillRect(stripLeft, top + 3, k * cell, ROW - 6);
      }
      ctx.fillStyle = COLORS.chosen;
      ctx.fillRect(stripLeft + plan[v] * cell, top + 3, Math.max(2, cell - gap), ROW - 6);
      ctx.fillStyle = COLORS.muted;
      ctx.fillText(label, stripLeft + k * cell + 4, mid);
    }
    ctx.textAlign = 'right';
    ctx.fillStyle = COLORS.muted;
    ctx.fillText(
        `${this.offset + 1}-${this.offset + rows} of ${order.length}`, width - 4, HEAD / 2);
    return true;
  }
}
