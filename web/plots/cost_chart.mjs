// The anytime curve: best cost and lower bound over time, per engine and
// overall, with the contest's reference costs as lines (best known, winner,
// XLA) when the instance is a known one; below it, the relative gap on a log
// axis. Columnar Float64Array series; redrawn at most once per frame.
import {grouped} from '../format.mjs';

import {COLORS, drawAxes, drawEmpty, drawLegend, Plot} from './canvas.mjs';
import {compactNumber, costDomain, formatSeconds, linearScale, logScale, relativeGap} from './scales.mjs';

// Tick labels of the cost axis: compact ("6.55G") unless the ticks are too
// close for three digits to tell apart; then grouped in full.
function costTickFormat(lo, hi) {
  const span = Math.abs(hi - lo);
  const scale = Math.max(Math.abs(lo), Math.abs(hi));
  return span > 0 && span < scale * 0.02 ? (v) => grouped(v) : compactNumber;
}

// A growable pair of columns (time, value).
class Series {
  constructor() {
    this.t = new Float64Array(64);
    this.v = new Float64Array(64);
    this.length = 0;
  }
  push(t, v) {
    if (this.length === this.t.length) {
      const grow = (a) => {
        const b = new Float64Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.t = grow(this.t);
      this.v = grow(this.v);
    }
    this.t[this.length] = t;
    this.v[this.length] = v;
    ++this.length;
  }
  get times() {
    return this.t.subarray(0, this.length);
  }
  get values() {
    return this.v.subarray(0, this.length);
  }
}

function stepPath(ctx, series, x, y, endT) {
  const {times, values} = series;
  if (!times.length) return;
  ctx.beginPath();
  ctx.moveTo(x(times[0]), y(values[0]));
  for (let i = 1; i < times.length; ++i) {
    ctx.lineTo(x(times[i]), y(values[i - 1]));
    ctx.lineTo(x(times[i]), y(values[i]));
  }
  ctx.lineTo(x(Math.max(endT, times[times.length - 1])), y(values[values.length - 1]));
  ctx.stroke();
}

export class CostChart {
  constructor(canvas) {
    this.plot = new Plot(canvas, (ctx, w, h) => this.draw(ctx, w, h));
    this.reset(null);
  }

  reset(reference) {
    this.reference = reference;
    this.cost = new Series();
    this.bound = new Series();
    this.gap = new Series();
    this.engines = [];
    this.endT = 0;
    this.plot.request();
  }

  addEngineCost(index, t, cost) {
    while (this.engines.length <= index) this.engines.push(new Series());
    this.engines[index].push(t, Number(cost));
    this.plot.request();
  }

  addOverall(t, cost, bound) {
    if (cost !== null) this.cost.push(t, Number(cost));
    this.bound.push(t, Number(bound));
    if (cost !== null) this.gap.push(t, Math.max(relativeGap(Number(cost), Number(bound)), 1e-7));
    this.setTime(t);
  }

  setTime(t) {
    this.endT = Math.max(this.endT, t);
    this.plot.request();
  }

  references() {
    const r = this.reference;
    if (!r) return [];
    return [
      ['best known', r.bestKnown, '#0f766e'], ['winner', r.winner, '#a16207'],
      ['XLA', r.xla, '#9f1239']
    ].filter(([, v]) => v !== null)
        .map(([l, v, c]) => [l, Number(v), c]);
  }

  draw(ctx, width, height) {
    if (!this.cost.length) return drawEmpty(ctx, width, height, 'no plan yet');
    const split = Math.round(height * 0.64);
    const top = {left: 64, right: width - 10, top: 18, bottom: split - 16};
    const bottom = {left: 64, right: width - 10, top: split + 6, bottom: height - 18};
    const x = linearScale(0, Math.max(this.endT, 0.05) * 1.03, top.left, top.right);
    const refs = this.references();
    const bounds = this.bound.values;
    const [lo, hi] =
        costDomain(this.cost.values, bounds[bounds.length - 1], refs.map(([, v]) => v));
    const y = linearScale(lo, hi, top.bottom, top.top);
    drawAxes(ctx, top, x, y, {xFormat: () => '', yFormat: costTickFormat(lo, hi)});
    // Tests and screen readers read the axis and the off-scale first plan here.
    const canvas = ctx.canvas;
    canvas.dataset.yDomain = `${lo},${hi}`;
    const first = this.cost.values[0];
    const offScale = this.cost.length > 1 && first > hi;
    if (offScale) {
      canvas.dataset.offScale = String(first);
    } else {
      delete canvas.dataset.offScale;
    }
    ctx.save();
    ctx.beginPath();
    ctx.rect(top.left, top.top, top.right - top.left, top.bottom - top.top);
    ctx.clip();
    ctx.lineWidth = 1;
    this.engines.forEach((series, i) => {
      ctx.strokeStyle = COLORS.engines[i % COLORS.engines.length];
      stepPath(ctx, series, x, y, this.endT);
    });
    refs.forEach(([label, value, color], i) => {
      if (value < lo || value > hi) return;
      ctx.strokeStyle = color;
      ctx.setLineDash([5, 4]);
      ctx.beginPath();
      ctx.moveTo(top.left, y(value));
      ctx.lineTo(top.right, y(value));
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.fillStyle = color;
      ctx.textAlign = 'right';
      ctx.fillText(label, top.right - 4 - 70 * i, y(value) - 4);  // staggered: lines may touch
    });
    ctx.lineWidth = 2;
    ctx.strokeStyle = COLORS.bound;
    stepPath(ctx, this.bound, x, y, this.endT);
    ctx.strokeStyle = COLORS.cost;
    stepPath(ctx, this.cost, x, y, this.endT);
    ctx.restore();
    const legend = [[COLORS.cost, 'best cost'], [COLORS.bound, 'lower bound']];
    if (this.engines.length > 1) legend.push([COLORS.engines[0], 'per engine']);
    drawLegend(ctx, top.left, 9, legend);
    if (offScale) {
      ctx.fillStyle = COLORS.cost;
      ctx.textAlign = 'right';
      ctx.fillText(`\u2191 first plan off-scale: ${grouped(first)}`, top.right - 4, top.top + 10);
    }

    const gy = logScale(1e-6, 1, bottom.bottom, bottom.top);
    drawAxes(ctx, bottom, x, gy, {
      xFormat: formatSeconds,
      yFormat: (v) => `${Number((v * 100).toPrecision(2))}%`,
      yTicks: [1e-6, 1e-4, 1e-2, 1]
    });
    ctx.save();
    ctx.beginPath();
    ctx.rect(bottom.left, bottom.top, bottom.right - bottom.left, bottom.bottom - bottom.top);
    ctx.clip();
    ctx.lineWidth = 2;
    ctx.strokeStyle = COLORS.gap;
    stepPath(ctx, this.gap, x, gy, this.endT);
    ctx.restore();
    ctx.fillStyle = COLORS.gap;
    ctx.textAlign = 'left';
    ctx.fillText('gap (cost - bound) / cost', bottom.left + 6, bottom.top + 10);
    return true;
  }
}
