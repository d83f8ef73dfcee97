// Readings of an explanation (teachExplain's JSON, the same document as
// `shardlab teach --json`): what changed between two solves, and short
// texts for the summary and the force panel (the JAX script is the core's:
// the report's "jax").
// Pure module: lab.mjs renders these; tests/web/teach_report.test.mjs checks them.

/** Units as the page shows them. */
export function formatNs(ns) {
  const t = Number(ns);
  if (t >= 1e6) return `${(t / 1e6).toFixed(3)} ms`;
  if (t >= 1e3) return `${(t / 1e3).toFixed(1)} µs`;
  return `${t} ns`;
}

export function formatBytes(bytes) {
  const b = Number(bytes);
  if (b >= 1e9) return `${(b / 1e9).toFixed(2)} GB`;
  if (b >= 1e6) return `${(b / 1e6).toFixed(2)} MB`;
  if (b >= 1e3) return `${(b / 1e3).toFixed(1)} kB`;
  return `${b} B`;
}

/** "b:x, f:-" style text of a dims map (null: not split). */
export function dimsText(dims) {
  return Object.entries(dims)
      .map(([letter, axis]) => `${letter}:${axis === null ? '–' : [].concat(axis).join('+')}`)
      .join(' ');
}

/**
 * The ops, parameters and inputs whose strategy differs between two reports
 * (a Set of names); every name when there is no earlier report.
 */
export function changedNodes(before, after) {
  const changed = new Set();
  for (const group of ['ops', 'parameters', 'inputs']) {
    for (const [name, entry] of Object.entries(after[group] || {})) {
      const old = before && before[group] && before[group][name];
      if (!old || old.strategy !== entry.strategy) changed.add(name);
    }
  }
  return changed;
}

/** One line per change: "h: f:x → b:x". */
export function changeLines(before, after) {
  if (!before) return [];
  const lines = [];
  for (const name of changedNodes(before, after)) {
    for (const group of ['ops', 'parameters', 'inputs']) {
      const old = before[group] && before[group][name];
      const now = after[group] && after[group][name];
      if (old && now) lines.push(`${name}: ${old.strategy} → ${now.strategy}`);
    }
  }
  if (before.textbook !== after.textbook) {
    lines.push(`textbook: ${before.textbook || 'mixed'} → ${after.textbook || 'mixed'}`);
  }
  return lines;
}

/** The force panel's sentence: cost difference and both bounds. */
export function forceText(report) {
  const f = report.force;
  if (!f) return '';
  const forced = Object.entries(f.forced).map(([n, s]) => `${n}=${s}`).join(', ');
  const sign = f.difference >= 0 ? '+' : '−';
  return `Forcing ${forced}: ${formatNs(report.cost)} (bound ${formatNs(report.lower_bound)}` +
      `${report.proven_optimal ? ', proven' : ''}) against the free optimum ` +
      `${formatNs(f.free_cost)} (bound ${formatNs(f.free_lower_bound)}): ` +
      `${sign}${formatNs(Math.abs(f.difference))}.`;
}

/**
 * Collectives grouped by the node that pays them ("op y" / "edge a -> b":
 * y / b), in the report's order: one pass, for views with a row per node.
 */
export function collectivesByTarget(report) {
  const by = new Map();
  for (const c of report.collectives || []) {
    const arrow = c.on.indexOf(' -> ');
    const target = arrow < 0 ? c.on.slice(3) : c.on.slice(arrow + 4);
    if (!by.has(target)) by.set(target, []);
    by.get(target).push(c);
  }
  return by;
}

/**
 * Per op of the report: the backward ops that belong to it (an op's own,
 * "op.grad..." and the like, and the gradient sum "grad.op" of its output),
 * in the report's order. One pass over the backward ops, each looked up by
 * its dotted prefixes: a scan of them all per op took 145 ms of a 12-block
 * model's render.
 */
export function backwardOf(report) {
  const of = new Map(Object.keys(report.ops).map((name) => [name, []]));
  const add = (name, b) => {
    const list = of.get(name);
    if (list && list[list.length - 1] !== b) list.push(b);
  };
  for (const b of Object.keys(report.backward || {})) {
    for (let dot = b.indexOf('.'); dot > 0; dot = b.indexOf('.', dot + 1)) add(b.slice(0, dot), b);
    if (b.startsWith('grad.')) add(b.slice(5), b);
  }
  return of;
}

export function collectiveText(c) {
  return `${c.kind} on ${[].concat(c.axis).join('+')} of ${formatBytes(c.bytes)} ` +
      `(${c.what}, ${c.on}, ${formatNs(c.ns)})`;
}
