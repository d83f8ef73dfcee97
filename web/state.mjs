// Permalink state in the URL fragment, versioned with migrations. A fragment
// names its lab (#v=3&lab=pipeline&...) and carries that lab's own keys;
// readFragment/writeFragment do the common part for every lab, and the
// packing helpers (base64url, varints, deflate) serve them all. The sharding
// lab's keys are read and written here too (decodeFragment/encodeFragment):
// the instance reference (bundled example, inline gzip bytes, local file name
// + SHA-256, or a URL), the solver settings, the seed, the plan and what the
// run had reached (bound, status, solving time, curve, date), and every key
// that could not be applied is named in `problems`. Pure module: app.mjs and
// the labs use it; tests/web/state.test.mjs checks round trips and every
// migration.
import {EXAMPLES} from './sharding/data/examples.mjs';

export const STATE_VERSION = 3;
export const LABS = Object.freeze(['sharding', 'pipeline', 'teach', 'plan']);
export const INLINE_MAX_BYTES = 32 * 1024;  // compressed instances up to this travel inline

// ---- base64url and varints ----

export function toBase64Url(bytes) {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function fromBase64Url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error('not base64url text');
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; ++i) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export function encodeVarints(values) {
  const out = [];
  for (const value of values) {
    if (!Number.isInteger(value) || value < 0) throw new Error(`cannot encode ${value}`);
    let v = value;
    while (v >= 0x80) {
      out.push((v & 0x7f) | 0x80);
      v = Math.floor(v / 128);
    }
    out.push(v);
  }
  return Uint8Array.from(out);
}

export function decodeVarints(bytes) {
  const out = [];
  let value = 0;
  let scale = 1;
  for (const byte of bytes) {
    value += (byte & 0x7f) * scale;
    if (byte & 0x80) {
      scale *= 128;
    } else {
      out.push(value);
      value = 0;
      scale = 1;
    }
  }
  if (scale !== 1) throw new Error('the plan data ends inside a number');
  return Int32Array.from(out);
}

// ---- compression (CompressionStream: browsers and node >= 18) ----

async function transform(bytes, stream) {
  const out = new Response(new Blob([bytes]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}
export const deflate = (bytes) => transform(bytes, new CompressionStream('deflate'));
export const inflate = (bytes) => transform(bytes, new DecompressionStream('deflate'));
export const gzip = (bytes) => transform(bytes, new CompressionStream('gzip'));

// Plans already packed, by identity: the sharding tab rewrites its link after
// each better plan and again when the run ends, with the same plan array
// (never changed once reported); packing M's plan again took tens of
// milliseconds of the Stop's response.
const packedPlans = new WeakMap();

export async function packPlan(plan) {
  const known = packedPlans.get(plan);
  if (known !== undefined) return known;
  const packed = toBase64Url(await deflate(encodeVarints(plan)));
  packedPlans.set(plan, packed);
  return packed;
}

export async function unpackPlan(text) {
  return decodeVarints(await inflate(fromBase64Url(text)));
}

// ---- versions ----
// v1 (first release): #v=1&example=NAME|file=NAME&sha=HEX|src=URL
//                     &time=S&workers=N&seed=S&plan=0,2,1
// v2:                 #v=2&ex=NAME|inst=B64&name=NAME|file=NAME&sha=HEX|src=URL
//                     &t=S&w=N&seed=S&sol=PACKED&cost=C
// v3 (current):       #v=3&lab=sharding|pipeline|teach&<that lab's keys>
//                     (the sharding lab's keys are v2's, and what the run
//                     reached: b=BOUND st=STATUS el=S tr=CURVE at=DATE)
// A fragment without v is v1 (so a bare #src=https://... works).

const MIGRATIONS = {
  1: async (p) => {
    const out = new URLSearchParams(p);  // keys both versions share pass through
    for (const [from, to] of Object.entries({example: 'ex', time: 't', workers: 'w'})) {
      if (p.has(from)) out.set(to, p.get(from));
      out.delete(from);
    }
    if (p.get('plan')) {
      const plan = p.get('plan').split(',').map((x) => Number(x.trim()));
      out.set('sol', await packPlan(plan));
    }
    out.delete('plan');
    out.set('v', '2');
    return out;
  },
  2: async (p) => {
    const out = new URLSearchParams([['v', '3'], ['lab', 'sharding']]);
    for (const [key, value] of p)
      if (key !== 'v') out.append(key, value);
    return out;
  },
};

export async function migrate(params) {
  let p = new URLSearchParams(params);
  let version = p.has('v') ? Number(p.get('v')) : 1;
  if (!Number.isInteger(version) || version < 1 || version > STATE_VERSION) {
    throw new Error(
        `this link has version ${p.get('v')}; this page reads versions 1 to ` +
        `${STATE_VERSION}`);
  }
  while (version < STATE_VERSION) {
    p = await MIGRATIONS[version](p);
    version = Number(p.get('v'));
  }
  return p;
}

function positiveNumber(text) {
  const value = Number(text);
  return text !== null && text !== '' && Number.isFinite(value) && value >= 0 ? value : null;
}

/**
 * Reads any lab's fragment ("#v=3&lab=...&..." or an older version) into
 * {lab, params}: params holds the lab's own keys (v and lab removed). An
 * empty fragment gives {lab: null, params: empty}. Throws on an unknown
 * version or lab, with a message for the page.
 */
export async function readFragment(fragment) {
  const text = fragment.replace(/^#/, '');
  if (!text) return {lab: null, params: new URLSearchParams()};
  const p = await migrate(new URLSearchParams(text));
  const lab = p.get('lab');
  if (!LABS.includes(lab)) {
    throw new Error(`this link names the lab '${lab}'; this page has ${LABS.join(', ')}`);
  }
  p.delete('v');
  p.delete('lab');
  return {lab, params: p};
}

/** The fragment "#v=3&lab=LAB&..." of a lab's own keys (URLSearchParams or entries). */
export function writeFragment(lab, params) {
  const p = new URLSearchParams([['v', String(STATE_VERSION)], ['lab', lab]]);
  for (const [key, value] of new URLSearchParams(params)) p.append(key, value);
  return '#' + p.toString();
}

/**
 * Like readFragment, but never throws: {lab, params, problems}. A link that
 * cannot be read gives no lab, no params and one problem saying why, so the
 * page says so at the top of the tab it opens instead (the sharding lab)
 * rather than opening that tab silently.
 */
export async function readLink(fragment) {
  try {
    return {...await readFragment(fragment), problems: []};
  } catch (error) {
    return {
      lab: null,
      params: new URLSearchParams(),
      problems: [`This link cannot be read: ${error.message}; nothing of it was applied`],
    };
  }
}

export const SHARDING_KEYS = Object.freeze([
  'ex', 'inst', 'name', 'file', 'sha', 'src', 't', 'w', 'seed', 'sol', 'cost', 'b', 'st', 'el',
  'tr', 'at'
]);
export const RUN_STATUSES = Object.freeze(['done', 'stopped']);
export const TRACE_MAX_POINTS = 400;  // a longer curve is thinned (first and last kept)

const shown = (key, value) => {
  const text = value.length > 60 ? `${value.slice(0, 57)}...` : value;
  return `${key}=${text}`;
};

/** The curve as it travels: [[seconds, cost, bound], ...] (exact decimal strings), packed. */
export async function packTrace(points) {
  let list = points;
  if (list.length > TRACE_MAX_POINTS) {
    const step = (list.length - 1) / (TRACE_MAX_POINTS - 1);
    list = Array.from({length: TRACE_MAX_POINTS}, (_, i) => points[Math.round(i * step)]);
  }
  const rows = list.map(([t, cost, bound]) => [Math.round(t * 1000), String(cost), String(bound)]);
  return toBase64Url(await deflate(new TextEncoder().encode(JSON.stringify(rows))));
}

/** The inverse of packTrace; throws on anything that is not such a curve. */
export async function unpackTrace(text) {
  const rows = JSON.parse(new TextDecoder().decode(await inflate(fromBase64Url(text))));
  const integer = /^\d+$/;
  if (!Array.isArray(rows) ||
      !rows.every(
          (r) => Array.isArray(r) && r.length === 3 && Number.isFinite(r[0]) && r[0] >= 0 &&
              integer.test(r[1]) && integer.test(r[2]))) {
    throw new Error('not a curve of [milliseconds, cost, bound] rows');
  }
  return rows.map(([ms, cost, bound]) => [ms / 1000, cost, bound]);
}

/**
 * Reads the sharding lab's keys (URLSearchParams, v and lab removed) into
 * {instance, settings: {timeS, workers, seed}, plan, cost, run, problems}.
 * instance is one of {kind: 'example', name}, {kind: 'inline', name, bytes},
 * {kind: 'file', name, sha256}, {kind: 'url', url}, or null; run is what the
 * run had reached, {bound, status, elapsedS, trace, savedAt} (each maybe
 * null). Only the bundled examples (EXAMPLES, or `examples`) are accepted as
 * ex=; every key or value that cannot be applied is left out and named in
 * problems, one sentence each.
 */
export async function decodeSharding(p, {examples = EXAMPLES.map((e) => e.file)} = {}) {
  const problems = [];
  const bad = (key, why) => problems.push(`${shown(key, p.get(key))}: ${why}; not applied`);
  for (const key of new Set(p.keys())) {
    if (!SHARDING_KEYS.includes(key)) {
      problems.push(`${shown(key, p.get(key))}: the sharding lab has no key '${key}'; ignored`);
    }
  }
  let instance = null;
  if (p.has('ex')) {
    const name = p.get('ex');
    if (examples.includes(name)) {
      instance = {kind: 'example', name};
    } else {
      bad('ex', `not one of the bundled examples (${examples.join(', ')})`);
    }
  } else if (p.has('inst')) {
    try {
      instance = {
        kind: 'inline',
        name: p.get('name') || 'instance.json.gz',
        bytes: fromBase64Url(p.get('inst'))
      };
    } catch (error) {
      bad('inst', 'not base64url data');
    }
  } else if (p.has('file')) {
    const sha256 = (p.get('sha') || '').toLowerCase();
    if (/^[0-9a-f]+$/.test(sha256)) {
      instance = {kind: 'file', name: p.get('file'), sha256};
    } else {
      problems.push(
          `${shown('file', p.get('file'))}: the link has no SHA-256 (sha=, hex ` +
          'digits) for it; not applied');
    }
  } else if (p.has('src')) {
    let url = null;
    try {
      url = new URL(p.get('src'));
    } catch (error) {
      url = null;
    }
    if (url && (url.protocol === 'https:' || url.protocol === 'http:')) {
      instance = {kind: 'url', url: p.get('src')};
    } else {
      bad('src', 'not an http(s) URL');
    }
  }
  const number = (key) => {
    if (!p.has(key)) return null;
    const value = positiveNumber(p.get(key));
    if (value === null) bad(key, 'not a number >= 0');
    return value;
  };
  const settings = {timeS: number('t'), workers: number('w'), seed: number('seed')};
  let plan = null;
  if (p.has('sol')) {
    try {
      plan = await unpackPlan(p.get('sol'));
    } catch (error) {
      bad('sol', `the packed plan cannot be read (${error.message})`);
    }
  }
  const decimal = (key) => {
    if (!p.has(key)) return null;
    if (/^\d+$/.test(p.get(key))) return p.get(key);
    bad(key, 'not a whole number');
    return null;
  };
  const cost = decimal('cost');
  const run =
      {bound: decimal('b'), status: null, elapsedS: number('el'), trace: null, savedAt: null};
  if (p.has('st')) {
    if (RUN_STATUSES.includes(p.get('st'))) {
      run.status = p.get('st');
    } else {
      bad('st', `not a run status (${RUN_STATUSES.join(', ')})`);
    }
  }
  if (p.has('tr')) {
    try {
      run.trace = await unpackTrace(p.get('tr'));
    } catch (error) {
      bad('tr', `the packed curve cannot be read (${error.message})`);
    }
  }
  if (p.has('at')) {
    if (Number.isFinite(Date.parse(p.get('at')))) {
      run.savedAt = p.get('at');
    } else {
      bad('at', 'not a date');
    }
  }
  return {instance, settings, plan, cost, run, problems};
}

/** The inverse of decodeSharding: the sharding lab's keys as URLSearchParams. */
export async function encodeSharding(
    {instance, settings = {}, plan = null, cost = null, run = null}) {
  const p = new URLSearchParams();
  if (instance) {
    if (instance.kind === 'example') {
      p.set('ex', instance.name);
    } else if (instance.kind === 'inline') {
      p.set('inst', toBase64Url(instance.bytes));
      p.set('name', instance.name);
    } else if (instance.kind === 'file') {
      p.set('file', instance.name);
      p.set('sha', instance.sha256);
    } else if (instance.kind === 'url') {
      p.set('src', instance.url);
    }
  }
  if (settings.timeS != null) p.set('t', String(settings.timeS));
  if (settings.workers != null) p.set('w', String(settings.workers));
  if (settings.seed != null) p.set('seed', String(settings.seed));
  if (plan && plan.length) p.set('sol', await packPlan(plan));
  if (cost != null) p.set('cost', String(cost));
  if (run) {
    if (run.bound != null) p.set('b', String(run.bound));
    if (run.status) p.set('st', run.status);
    if (run.elapsedS != null) p.set('el', String(Number(run.elapsedS.toFixed(3))));
    if (run.trace && run.trace.length) p.set('tr', await packTrace(run.trace));
    if (run.savedAt) p.set('at', run.savedAt);
  }
  return p;
}

/**
 * A whole sharding fragment read as decodeSharding does; null when the
 * fragment is empty or belongs to another lab.
 */
export async function decodeFragment(fragment) {
  const {lab, params} = await readFragment(fragment);
  return lab === 'sharding' ? decodeSharding(params) : null;
}

/** The inverse of decodeFragment; returns "#v=3&lab=sharding&...". */
export async function encodeFragment(link) {
  return writeFragment('sharding', await encodeSharding(link));
}

/**
 * How a loaded instance travels in a link: bundled examples by name, small
 * files inline (gzip bytes <= INLINE_MAX_BYTES), URLs as they are, and
 * anything else as name + SHA-256. storedBytes: the file as stored (or null).
 */
export async function instanceReference({source, name, sha256, storedBytes}) {
  if (source.kind === 'example') return {kind: 'example', name: source.name};
  if (source.kind === 'url') return {kind: 'url', url: source.url};
  if (storedBytes && storedBytes.length <= 16 * INLINE_MAX_BYTES) {
    const isGz = storedBytes.length >= 2 && storedBytes[0] === 0x1f && storedBytes[1] === 0x8b;
    const packed = isGz ? storedBytes : await gzip(storedBytes);
    if (packed.length <= INLINE_MAX_BYTES) {
      return {kind: 'inline', name, bytes: packed};  // the reader sniffs gzip itself
    }
  }
  return {kind: 'file', name, sha256};
}

/** ?time=S&workers=N&seed=S in the query string: control presets. */
export function queryControls(search) {
  const p = new URLSearchParams(search);
  return {
    timeS: positiveNumber(p.get('time')),
    workers: positiveNumber(p.get('workers')),
    seed: positiveNumber(p.get('seed')),
  };
}
