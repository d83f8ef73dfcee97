// Pure scale and number-format helpers for the canvas plots: linear and log
// scales, "nice" ticks, compact numbers and durations. No DOM; tested by
// tests/web/scales.test.mjs and used by every module in web/plots/.

export function linearScale(domainMin, domainMax, rangeMin, rangeMax) {
  const span = domainMax - domainMin || 1;
  const k = (rangeMax - rangeMin) / span;
  const map = (x) => rangeMin + (x - domainMin) * k;
  map.invert = (y) => domainMin + (y - rangeMin) / k;
  map.domain = [domainMin, domainMax];
  map.ticks = (count = 5) => niceTicks(domainMin, domainMax, count);
  return map;
}

// Log10 scale; values <= 0 are clamped to the domain's lower end.
export function logScale(domainMin, domainMax, rangeMin, rangeMax) {
  const lo = Math.log10(Math.max(domainMin, Number.MIN_VALUE));
  const hi = Math.log10(Math.max(domainMax, domainMin * 10, Number.MIN_VALUE));
  const inner = linearScale(lo, hi, rangeMin, rangeMax);
  const map = (x) => inner(x > 0 ? Math.max(Math.log10(x), lo) : lo);
  map.invert = (y) => 10 ** inner.invert(y);
  map.domain = [10 ** lo, 10 ** hi];
  map.ticks = () => {
    const out = [];
    for (let e = Math.ceil(lo - 1e-9); e <= Math.floor(hi + 1e-9); ++e) out.push(Number(`1e${e}`));
    return out;
  };
  return map;
}

// Round tick values covering [min, max], about `count` of them.
export function niceTicks(min, max, count = 5) {
  if (!(max > min)) return [min];
  const raw = (max - min) / Math.max(1, count);
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  // The round step whose tick count comes closest to `count`.
  const candidates = [1, 2, 2.5, 5, 10].map((m) => m * magnitude);
  const miss = (s) => Math.abs((max - min) / s - count);
  const step = candidates.reduce((a, b) => (miss(b) < miss(a) ? b : a));
  const ticks = [];
  for (let t = Math.ceil(min / step) * step; t <= max + step * 1e-9; t += step) {
    ticks.push(Math.abs(t) < step * 1e-9 ? 0 : Number(t.toPrecision(12)));
  }
  return ticks;
}

// Domain [min, max] of the finite values of typed arrays, with padding.
export function extent(arrays, pad = 0) {
  let min = Infinity;
  let max = -Infinity;
  for (const values of arrays) {
    for (let i = 0; i < values.length; ++i) {
      const v = values[i];
      if (Number.isFinite(v)) {
        if (v < min) min = v;
        if (v > max) max = v;
      }
    }
  }
  if (min > max) return [0, 1];
  const span = max - min || Math.abs(max) || 1;
  return [min - span * pad, max + span * pad];
}

// 1234567 -> "1.23M"; keeps three significant digits.
export function compactNumber(value) {
  const abs = Math.abs(value);
  const units = [[1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']];
  for (const [scale, suffix] of units) {
    if (abs >= scale) return `${Number((value / scale).toPrecision(3))}${suffix}`;
  }
  return String(Number(value.toPrecision(3)));
}

// Digits grouped by thin spaces for display ("532 843"); exact for strings.
export function groupDigits(text) {
  return String(text).replace(/\B(?=(\d{3})+(?!\d))/g, '\u2009');
}

export function formatSeconds(seconds) {
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 60) return `${Number(seconds.toFixed(1))} s`;
  const m = Math.floor(seconds / 60);
  return `${m} min ${Math.round(seconds - 60 * m)} s`;
}

export function formatBytes(bytes) {
  if (bytes < 1e3) return `${bytes} B`;
  if (bytes < 1e6) return `${(bytes / 1e3).toFixed(1)} kB`;
  if (bytes < 1e9) return `${(bytes / 1e6).toFixed(1)} MB`;
  return `${(bytes / 1e9).toFixed(2)} GB`;
}

// The cost axis of the anytime curve. The first plan is a quick greedy one
// that often costs 30-100x the final one, and a linear axis sized to it
// flattens everything users are watching; so the axis is scaled from the
// second point on (the chart says the first one is off-scale), and its top
// is clipped at the larger of 1.25x the current best and the best plus
// twice the current gap (earlier costs enter from the top edge). Reference
// costs are kept when they fall inside that view.
export function costDomain(costs, lastBound, references = []) {
  if (!costs.length) return [0, 1];
  const last = costs[costs.length - 1];
  let highest = -Infinity;
  for (let i = costs.length > 1 ? 1 : 0; i < costs.length; ++i)
    highest = Math.max(highest, costs[i]);
  const focus = Math.max(last * 1.25, last + 2 * Math.max(0, last - lastBound));
  const top = Math.min(highest, focus);
  const refs = references.filter((v) => v <= top * 1.05);
  return extent([[last, top, lastBound, ...refs]], 0.06);
}

// Relative gap (cost - bound) / cost, as used on the curve's log axis.
export function relativeGap(cost, bound) {
  return cost > 0 ? Math.max(0, (cost - bound) / cost) : 0;
}

// Min/max per pixel column of a step function sampled at `times`: keeps a
// 60k-point profile drawable in O(width) path segments.
export function bucketMinMax(times, values, x, x0, width) {
  const columns = Math.max(1, Math.ceil(width));
  const lo = new Float64Array(columns).fill(Infinity);
  const hi = new Float64Array(columns).fill(-Infinity);
  for (let i = 0; i < times.length; ++i) {
    const c = Math.min(columns - 1, Math.max(0, Math.floor(x(times[i]) - x0)));
    const v = values[i];
    if (v < lo[c]) lo[c] = v;
    if (v > hi[c]) hi[c] = v;
  }
  return {lo, hi};
}
