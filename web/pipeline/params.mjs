// The parameter form of the pipeline lab: p, m, F, B, W, F&B, comm, links
// (0 parallel, 1 serial), cap and v, read from and written to the inputs,
// and turned into the core's uniform problem JSON (core/pipeline/
// problem_json.h: one device's share of the model per micro-batch, the same
// problem as the CLI's --stages/--F/... flags). A loaded problem file fills
// the form where its values are uniform. Pure parts (defaults,
// problemFromParams, paramsFromProblem) are node-tested.

export const DEFAULTS =
    Object.freeze({p: 4, m: 8, F: 1, B: 1, W: 1, FB: null, comm: 0, links: 0, cap: null, v: 2});
const INTEGER = new Set(['p', 'm', 'v', 'links']);
const OPTIONAL = new Set(['FB', 'cap']);
export const FIELDS = Object.freeze(Object.keys(DEFAULTS));

/** Every field, defaults filled in; integers rounded; bad numbers fall back. */
export function normalizeParams(raw = {}) {
  const out = {};
  for (const key of FIELDS) {
    let v = raw[key];
    if (v === '' || v === undefined || v === null) v = OPTIONAL.has(key) ? null : DEFAULTS[key];
    if (v !== null) {
      v = Number(v);
      if (!Number.isFinite(v))
        v = DEFAULTS[key];
      else if (INTEGER.has(key))
        v = Math.round(v);
    }
    out[key] = v;
  }
  return out;
}

/** The uniform problem JSON object of the parameters. */
export function problemFromParams(params) {
  const q = normalizeParams(params);
  const problem = {
    format: 'shardlab-pipeline-problem',
    version: 1,
    devices: q.p,
    microbatches: q.m,
    F: q.F,
    B: q.B,
    W: q.W,
  };
  if (q.FB !== null) problem.FB = q.FB;
  problem.comm = q.comm;
  if (q.links) problem.links = 'serial';
  problem.mem_cap = q.cap;
  problem.chunks = q.v;
  return problem;
}

/**
 * The form's values of a problem (object): null when the problem is not
 * uniform (explicit stages, operators, a per-device cap), since the form
 * cannot say it.
 */
export function paramsFromProblem(problem) {
  if (!problem || typeof problem !== 'object' || problem.stages || problem.operators) return null;
  if (Array.isArray(problem.mem_cap) || Array.isArray(problem.placement)) return null;
  const pick = (key, fallback) => (problem[key] === undefined ? fallback : problem[key]);
  return normalizeParams({
    p: problem.devices,
    m: problem.microbatches,
    F: pick('F', 1),
    B: pick('B', 1),
    W: pick('W', 1),
    FB: pick('FB', null),
    comm: pick('comm', 0),
    links: problem.links === 'serial' ? 1 : 0,
    cap: pick('mem_cap', null),
    v: pick('chunks', DEFAULTS.v),
  });
}

/** The inputs #pl-p, #pl-m, ... of a section. */
export class ParamsForm {
  constructor(root, onChange) {
    this.inputs = Object.fromEntries(FIELDS.map((k) => [k, root.querySelector(`#pl-${k}`)]));
    let timer = null;
    for (const input of Object.values(this.inputs)) {
      // Typing settles for a moment before the schedules are recomputed.
      input.addEventListener('input', () => {
        clearTimeout(timer);
        timer = setTimeout(() => onChange(this.read()), 350);
      });
      input.addEventListener('change', () => {
        clearTimeout(timer);
        onChange(this.read());
      });
    }
  }

  read() {
    const raw = {};
    for (const [key, input] of Object.entries(this.inputs)) raw[key] = input.value.trim();
    return normalizeParams(raw);
  }

  write(params) {
    const q = normalizeParams(params);
    for (const [key, input] of Object.entries(this.inputs)) {
      input.value = q[key] === null ? '' : String(q[key]);
    }
  }

  /** Only the devices and micro-batches of a problem the form cannot say (the rest blank). */
  showCounts(problem) {
    for (const [key, input] of Object.entries(this.inputs)) input.value = '';
    this.inputs.p.value = String(problem.devices ?? '');
    this.inputs.m.value = String(problem.microbatches ?? '');
  }

  setEnabled(enabled) {
    for (const input of Object.values(this.inputs)) input.disabled = !enabled;
  }
}
