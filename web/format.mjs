// How the page writes numbers, on every tab: grouped digits and units, so
// that a cost, a step time, a throughput or a memory size reads at a glance
// ("1.234 s", "1,234,567 tokens/s", "82.6 GB", "52.3%"). Memory uses 1e9
// bytes per GB as the core's reports do (core/plan/report.cpp gigabytes()).
// Pure module: every lab's views use it, and the browser tests format the
// CLI's numbers with it to compare them with the page's.

// Building an Intl.NumberFormat costs far more than formatting with one (a
// compare table of 64 ranks formats thousands of numbers), so each distinct
// pair of fraction limits is built once and kept.
const FORMATS = new Map();
function withDecimals(minimum, maximum) {
  const key = `${minimum},${maximum}`;
  let format = FORMATS.get(key);
  if (!format) {
    format = new Intl.NumberFormat(
        'en-US', {minimumFractionDigits: minimum, maximumFractionDigits: maximum});
    FORMATS.set(key, format);
  }
  return format;
}

/**
 * Builds the page's first Intl.NumberFormat: the first one in a page loads
 * the locale's data (30-150 ms on a loaded machine), which a Stop's status
 * line (the teaching lab's cost) once waited for. The shell calls it as
 * the page loads, so that no later call pays for it.
 */
export function warmUp() {
  withDecimals(0, 0).format(0);
}

/** 1234567 -> "1,234,567" (rounded to an integer). */
export function grouped(value) {
  return withDecimals(0, 0).format(Math.round(Number(value)));
}

/** A number with `digits` significant digits, grouped: 1234.5678 -> "1,235". */
export function significant(value, digits = 4) {
  const v = Number(value);
  if (!Number.isFinite(v)) return String(v);
  if (v === 0) return '0';
  const magnitude = Math.floor(Math.log10(Math.abs(v)));
  const decimals = Math.max(0, digits - 1 - magnitude);
  return withDecimals(decimals, decimals).format(v);
}

/** Seconds in the unit that suits them: "1.234 s", "12.3 ms", "456 µs". */
export function seconds(value) {
  const s = Number(value);
  if (!Number.isFinite(s)) return '–';
  const abs = Math.abs(s);
  // Below a nanosecond is rounding noise of sums in seconds (a bubble of 4e-16 s).
  if (abs < 1e-9) return '0 s';
  if (abs >= 1) return `${significant(s)} s`;
  if (abs >= 1e-3) return `${significant(s * 1e3)} ms`;
  return `${significant(s * 1e6)} µs`;
}

/** Bytes in decimal units: "82.6 GB", "512.0 MB", "12.0 kB", "7 B". */
export function bytes(value) {
  const b = Number(value);
  if (!Number.isFinite(b)) return '–';
  const abs = Math.abs(b);
  if (abs >= 1e12) return `${(b / 1e12).toFixed(2)} TB`;
  if (abs >= 1e9) return `${(b / 1e9).toFixed(1)} GB`;
  if (abs >= 1e6) return `${(b / 1e6).toFixed(1)} MB`;
  if (abs >= 1e3) return `${(b / 1e3).toFixed(1)} kB`;
  return `${grouped(b)} B`;
}

/** A fraction as a percentage: 0.5234 -> "52.3%". */
export function percent(value, decimals = 1) {
  const v = Number(value);
  return Number.isFinite(v) ? `${(100 * v).toFixed(decimals)}%` : '–';
}

export const tokensPerS = (value) => `${grouped(value)} tokens/s`;
export const tflops = (value) => `${significant(value)} TFLOP/s`;

/** A parameter count: 174,596,505,600 -> "174.6 B". */
export function count(value) {
  const v = Number(value);
  if (v >= 1e12) return `${(v / 1e12).toFixed(2)} T`;
  if (v >= 1e9) return `${(v / 1e9).toFixed(1)} B`;
  if (v >= 1e6) return `${(v / 1e6).toFixed(1)} M`;
  return grouped(v);
}

/** A signed relative difference: 0.123 -> "+12.3%", -0.05 -> "−5.0%". */
export function difference(value) {
  const v = Number(value);
  if (!Number.isFinite(v)) return '–';
  const sign = v > 0 ? '+' : v < 0 ? '\u2212' : '\u00b1';
  return `${sign}${(100 * Math.abs(v)).toFixed(1)}%`;
}

/**
 * An exact integer given as a decimal string (costs pass 2^53): "88657005779" -> "88,657,005,779".
 */
export function groupedExact(text) {
  const s = String(text).trim();
  if (!/^-?\d+$/.test(s)) return s;
  const sign = s.startsWith('-') ? '\u2212' : '';
  return sign + s.replace(/^-/, '').replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * A relative gap (a fraction) as a percentage with two significant digits:
 * 0 -> "0%", 0.004619 -> "0.46%", 1e-6 -> "0.0001%", and anything below
 * 1e-6 (a solver's tolerance, not a gap) -> "< 0.0001%".
 */
export function gapPercent(value) {
  const v = Number(value);
  if (!Number.isFinite(v)) return '\u2013';
  if (v <= 0) return '0%';
  if (v < 1e-6) return '< 0.0001%';
  const p = 100 * v;
  if (p >= 10) return `${p.toFixed(1)}%`;
  const decimals = Math.min(4, Math.max(0, 1 - Math.floor(Math.log10(p))));
  return `${p.toFixed(decimals)}%`;
}

/** The number of decimals a value needs, up to `most` (1.25 -> 2, 3 -> 0, 0.1 + 0.2 -> 1). */
export function decimalsOf(value, most = 6) {
  const v = Math.abs(Number(value));
  if (!Number.isFinite(v)) return 0;
  for (let d = 0; d < most; ++d) {
    const scaled = v * 10 ** d;
    if (Math.abs(scaled - Math.round(scaled)) <= 1e-9 * Math.max(1, scaled)) return d;
  }
  return most;
}

/**
 * A lower bound on an objective that only takes values on a grid of
 * `decimals` decimals (integer costs: 0; a makespan of durations with one
 * decimal: 1), rounded up onto that grid: a MIP's 12.999999 on an integer
 * objective is the bound 13. A solver's float noise below the grid (up to
 * 1e-6 of a grid step) is not rounded up: 13.0000001 stays 13. Returns a number.
 */
export function boundOnGrid(value, decimals = 0) {
  const v = Number(value);
  if (!Number.isFinite(v)) return v;
  const scale = 10 ** decimals;
  const scaled = v * scale;
  const near = Math.round(scaled);
  const steps =
      Math.abs(scaled - near) <= 1e-6 * Math.max(1, Math.abs(near)) ? near : Math.ceil(scaled);
  return steps / scale;
}

/** A value on a grid of `decimals` decimals, grouped: (1234.5, 1) -> "1,234.5". */
export function fixed(value, decimals = 0) {
  const v = Number(value);
  if (!Number.isFinite(v)) return '\u2013';
  return withDecimals(0, decimals).format(v);
}

/** Elapsed against a limit, as the page shows a running solve: (7.23, 10) -> "7.2 / 10 s". */
export function elapsedOfLimit(elapsedS, limitS) {
  const e = Math.max(0, Number(elapsedS) || 0);
  return `${e.toFixed(1)} / ${fixed(limitS, 1)} s`;
}
