// Shared canvas plumbing for the plots: a HiDPI-aware canvas that redraws at
// most once per animation frame, axes with ticks, and PNG export. Each view in
// web/plots/ owns one Plot and supplies its draw(ctx, width, height).

export const COLORS = Object.freeze({
  ink: '#1d2430',
  muted: '#6b7280',
  grid: '#e5e7eb',
  cost: '#2563eb',
  bound: '#059669',
  gap: '#7c3aed',
  limit: '#dc2626',
  floor: 'rgba(107, 114, 128, 0.18)',
  usage: '#2563eb',
  peak: '#dc2626',
  chosen: '#f59e0b',
  pareto: '#059669',
  engines: ['#93c5fd', '#fca5a5', '#86efac', '#fcd34d', '#c4b5fd', '#f9a8d4', '#67e8f9'],
});

export const FONT = '11px system-ui, sans-serif';

export class Plot {
  constructor(canvas, draw) {
    this.canvas = canvas;
    this.drawFn = draw;
    this.pending = false;
    this.drawn = false;
    new ResizeObserver(() => this.request()).observe(canvas);
  }

  // Schedules one redraw on the next animation frame (coalescing requests).
  request() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      this.drawNow();
    });
  }

  drawNow() {
    const {canvas} = this;
    const ratio = window.devicePixelRatio || 1;
    const width = canvas.clientWidth;
    const height = canvas.clientHeight;
    if (width === 0 || height === 0) return;
    if (canvas.width !== Math.round(width * ratio) ||
        canvas.height !== Math.round(height * ratio)) {
      canvas.width = Math.round(width * ratio);
      canvas.height = Math.round(height * ratio);
    }
    const ctx = canvas.getContext('2d');
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, width, height);
    ctx.font = FONT;
    this.drawn = this.drawFn(ctx, width, height) !== false;
    canvas.dataset.drawn = this.drawn ? 'true' : 'false';
  }
}

// Axes: left ticks from y.ticks(), bottom ticks from x.ticks(); labels by fmt.
export function drawAxes(ctx, box, x, y, {xFormat = String, yFormat = String, yTicks} = {}) {
  ctx.save();
  ctx.strokeStyle = COLORS.grid;
  ctx.fillStyle = COLORS.muted;
  ctx.lineWidth = 1;
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  for (const t of yTicks || y.ticks(4)) {
    const py = Math.round(y(t)) + 0.5;
    if (py < box.top - 1 || py > box.bottom + 1) continue;
    ctx.beginPath();
    ctx.moveTo(box.left, py);
    ctx.lineTo(box.right, py);
    ctx.stroke();
    ctx.fillText(yFormat(t), box.left - 4, py);
  }
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  for (const t of x.ticks(6)) {
    const px = Math.round(x(t)) + 0.5;
    if (px < box.left - 1 || px > box.right + 1) continue;
    ctx.beginPath();
    ctx.moveTo(px, box.top);
    ctx.lineTo(px, box.bottom);
    ctx.stroke();
    ctx.fillText(xFormat(t), px, box.bottom + 3);
  }
  ctx.strokeStyle = COLORS.muted;
  ctx.strokeRect(box.left + 0.5, box.top + 0.5, box.right - box.left, box.bottom - box.top);
  ctx.restore();
}

export function drawEmpty(ctx, width, height, text) {
  ctx.fillStyle = COLORS.muted;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.fillText(text, width / 2, height / 2);
  return false;
}

// A legend row of [color, label] pairs at (x, y).
export function drawLegend(ctx, x, y, items) {
  ctx.save();
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';
  for (const [color, label] of items) {
    ctx.fillStyle = color;
    ctx.fillRect(x, y - 4, 10, 8);
    ctx.fillStyle = COLORS.ink;
    ctx.fillText(label, x + 14, y);
    x += 22 + ctx.measureText(label).width;
  }
  ctx.restore();
}

export function canvasToPngBlob(canvas) {
  return new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
}
