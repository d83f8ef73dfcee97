// The pipeline lab's keys in the permalink (#v=3&lab=pipeline&...), read and
// written here; ../state.mjs does the common part and the packing. Keys:
//   p m F B W FB comm cap ch  the uniform parameters (ch: chunks v; cap, FB empty = none)
//   ln=1                      serial links (absent: parallel)
//   ex=NAME                   a bundled example problem (examples/pipeline/NAME)
//   pj=DEFLATED               a problem JSON typed or opened in the page
//   s=NAME  vs=NAME           the schedule shown, and the one stacked under it
//   plan=DEFLATED             the planned schedule, when it packs small enough
//   t=S  mip=1  pp=PLACEMENT  planner time limit; MIP mode chosen; planner placement
//   z=T0,T1  mem=0            the zoomed time range; memory tracks hidden
// Every key or value that cannot be applied is named in `problems`; ex= takes
// only the bundled examples (examples.mjs). Pure module:
// tests/web/pipeline_permalink.test.mjs checks round trips.
import {deflate, fromBase64Url, inflate, toBase64Url} from '../state.mjs';

import {FILES, PRESETS} from './examples.mjs';

// Form field -> fragment key ('v' is the fragment's version, so chunks are 'ch').
export const PARAM_KEYS = Object.freeze({
  p: 'p',
  m: 'm',
  F: 'F',
  B: 'B',
  W: 'W',
  FB: 'FB',
  comm: 'comm',
  links: 'ln',
  cap: 'cap',
  v: 'ch'
});
export const PLAN_MAX_CHARS = 24000;     // a longer packed plan stays out of links
export const PROBLEM_MAX_CHARS = 48000;  // likewise a typed problem

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export async function packText(text) {
  return toBase64Url(await deflate(encoder.encode(text)));
}

export async function unpackText(packed) {
  return decoder.decode(await inflate(fromBase64Url(packed)));
}

// The op fields a schedule needs to be re-checked by the core (an FB op's
// "backward" part too): everything else (deps, memory, metrics) the core
// recomputes.
const OP_COLUMNS =
    ['id', 'device', 'stage', 'chunk', 'direction', 'microbatch', 'kind', 'start', 'end'];

const PLACEMENT_KEYS = ['placement', 'chunks'];

/** A schedule JSON reduced to its placement and its ops' identity and timing, as columns. */
export function compactSchedule(schedule) {
  const columns = OP_COLUMNS.filter((c) => schedule.ops.some((op) => op[c] !== undefined));
  for (const extra of ['operator', 'backward']) {
    if (schedule.ops.some((op) => op[extra] !== undefined)) columns.push(extra);
  }
  const compact = {
    name: schedule.name,
    columns,
    rows: schedule.ops.map((op) => columns.map((c) => op[c] ?? null)),
  };
  // The placement the schedule runs on (the core reads it from the summary).
  const summary = schedule.problem || {};
  const placement = Object.fromEntries(
      PLACEMENT_KEYS.filter((k) => summary[k] !== undefined).map((k) => [k, summary[k]]));
  if (Object.keys(placement).length) compact.problem = placement;
  return compact;
}

/** The inverse of compactSchedule: {format, version, name, ops, problem: {placement, chunks}}. */
export function expandSchedule(compact) {
  if (!compact || !Array.isArray(compact.columns) || !Array.isArray(compact.rows)) {
    throw new Error('the packed schedule has no columns and rows');
  }
  const ops = compact.rows.map((row) => {
    const op = {};
    compact.columns.forEach((c, i) => {
      if (row[i] !== null) op[c] = row[i];
    });
    return op;
  });
  const out = {format: 'shardlab-pipeline-schedule', version: 1, name: compact.name, ops};
  if (compact.problem) out.problem = compact.problem;
  return out;
}

function numberOrNull(text) {
  if (text === null || text === '') return null;
  const v = Number(text);
  return Number.isFinite(v) ? v : null;
}

export const PIPELINE_KEYS = Object.freeze(
    [...Object.values(PARAM_KEYS), 'ex', 'pj', 's', 'vs', 'plan', 't', 'mip', 'pp', 'z', 'mem']);
export const EXAMPLE_NAMES =
    Object.freeze([...PRESETS.map((preset) => preset.id), ...FILES.map(([name]) => name)]);

const shown = (key, value) => `${key}=${value.length > 60 ? `${value.slice(0, 57)}...` : value}`;

/**
 * Reads the lab's keys (URLSearchParams without v and lab) into
 * {params, example, problemText, schedule, compare, plan, timeS, mip, zoom,
 * memory, problems}; params holds only the parameter keys present (numbers
 * or null). plan is the expanded schedule JSON object, or null. problems
 * names, one sentence each, every key or value left out: keys the lab does
 * not have, numbers that are not numbers, examples that are not bundled,
 * packed data that cannot be read.
 */
export async function decodePipeline(p) {
  const problems = [];
  const bad = (key, why) => problems.push(`${shown(key, p.get(key))}: ${why}; not applied`);
  for (const key of new Set(p.keys())) {
    if (!PIPELINE_KEYS.includes(key)) {
      problems.push(`${shown(key, p.get(key))}: the pipeline lab has no key '${key}'; ignored`);
    }
  }
  const params = {};
  for (const [field, key] of Object.entries(PARAM_KEYS)) {
    if (!p.has(key)) continue;
    params[field] = numberOrNull(p.get(key));
    if (params[field] === null && p.get(key) !== '') bad(key, 'not a number');
  }
  let zoom = null;
  if (p.has('z')) {
    const [a, b] = p.get('z').split(',').map(Number);
    if (Number.isFinite(a) && Number.isFinite(b) && b > a) {
      zoom = [a, b];
    } else {
      bad('z', 'not a time range T0,T1 with T0 < T1');
    }
  }
  let example = p.get('ex');
  if (example !== null && !EXAMPLE_NAMES.includes(example)) {
    bad('ex', `not one of the bundled examples (${EXAMPLE_NAMES.join(', ')})`);
    example = null;
  }
  let problemText = null;
  if (p.has('pj')) {
    try {
      problemText = await unpackText(p.get('pj'));
    } catch (error) {
      bad('pj', 'the packed problem cannot be read');
    }
  }
  let plan = null;
  if (p.has('plan')) {
    try {
      plan = expandSchedule(JSON.parse(await unpackText(p.get('plan'))));
    } catch (error) {
      bad('plan', `the packed schedule cannot be read (${error.message})`);
    }
  }
  const timeS = numberOrNull(p.get('t'));
  if (p.has('t') && timeS === null) bad('t', 'not a number');
  return {
    params,
    example,
    problemText,
    schedule: p.get('s'),
    compare: p.get('vs'),
    plan,
    timeS,
    mip: p.get('mip') === '1',
    placement: p.get('pp') || null,
    zoom,
    memory: p.get('mem') !== '0',
    problems,
  };
}

/**
 * The inverse of decodePipeline. A plan (schedule JSON) or a problem text
 * too long for a link is left out; `omitted` then names what was.
 */
export async function encodePipeline(state) {
  const p = new URLSearchParams();
  const omitted = [];
  if (state.example) {
    p.set('ex', state.example);
  } else if (state.problemText) {
    const packed = await packText(state.problemText);
    if (packed.length <= PROBLEM_MAX_CHARS)
      p.set('pj', packed);
    else
      omitted.push('problem');
  }
  for (const [field, key] of Object.entries(PARAM_KEYS)) {
    const v = state.params && state.params[field];
    if (field === 'links' && !v) continue;  // parallel links, the default, stay out
    if (v !== undefined) p.set(key, v === null ? '' : String(v));
  }
  if (state.schedule) p.set('s', state.schedule);
  if (state.compare) p.set('vs', state.compare);
  if (state.plan) {
    const packed = await packText(JSON.stringify(compactSchedule(state.plan)));
    if (packed.length <= PLAN_MAX_CHARS)
      p.set('plan', packed);
    else
      omitted.push('plan');
  }
  if (state.timeS) p.set('t', String(state.timeS));
  if (state.mip) p.set('mip', '1');
  if (state.placement) p.set('pp', state.placement);
  if (state.zoom) p.set('z', state.zoom.map((t) => Number(t.toPrecision(6))).join(','));
  if (state.memory === false) p.set('mem', '0');
  return {params: p, omitted};
}
