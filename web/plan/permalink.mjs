// The Plan tab's keys in the permalink (#v=3&lab=plan&...), read and written
// here; ../state.mjs does the common part and the packing. Keys:
//   m=PRESET | mt=DEFLATED&mn=NAME   the model: a preset, or a config.json /
//                                    einsum model's text (deflated) and file name
//   c=PRESET | ct=DEFLATED&cn=NAME   the cluster: a preset, or a cluster file's text
//   g=GPUS  b=BATCH  s=SEQ           GPU count, global batch (sequences), sequence length
//   fix=k=v,...                      pinned decisions (the CLI's --fix)
//   t=S  sw=1                        search time limit; the GPU-count sweep on
//   lp=layer|embedding|head          the part whose layout is shown
// Pure module: lab.mjs reads and writes it; tests/browser/plan.test.mjs
// opens a link it wrote.
import {deflate, fromBase64Url, inflate, toBase64Url} from '../state.mjs';

export const TEXT_MAX_CHARS = 48000;  // a longer packed file stays out of links
export const PARTS = Object.freeze(['layer', 'embedding', 'head']);

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export async function packText(text) {
  return toBase64Url(await deflate(encoder.encode(text)));
}

export async function unpackText(packed) {
  return decoder.decode(await inflate(fromBase64Url(packed)));
}

function positiveInteger(text) {
  if (text === null || !/^\d+$/.test(text)) return null;
  const v = Number(text);
  return v > 0 && Number.isSafeInteger(v) ? v : null;
}

function positiveNumber(text) {
  if (text === null || text === '') return null;
  const v = Number(text);
  return Number.isFinite(v) && v > 0 ? v : null;
}

async function readInput(p, presetKey, textKey, nameKey, fallbackName) {
  if (p.has(presetKey)) return {preset: p.get(presetKey)};
  if (p.has(textKey)) {
    return {text: await unpackText(p.get(textKey)), name: p.get(nameKey) || fallbackName};
  }
  return null;
}

/**
 * Reads the lab's keys (URLSearchParams without v and lab) into {model,
 * cluster, gpus, batch, seq, fix, timeS, sweep, part}; model and cluster are
 * {preset} or {text, name} or null, numbers null when absent or malformed.
 */
export async function decodePlan(p) {
  return {
    model: await readInput(p, 'm', 'mt', 'mn', 'config.json'),
    cluster: await readInput(p, 'c', 'ct', 'cn', 'cluster.json'),
    gpus: positiveInteger(p.get('g')),
    batch: positiveInteger(p.get('b')),
    seq: positiveInteger(p.get('s')),
    fix: p.get('fix') || '',
    timeS: positiveNumber(p.get('t')),
    sweep: p.get('sw') === '1',
    part: PARTS.includes(p.get('lp')) ? p.get('lp') : null,
  };
}

async function writeInput(p, input, presetKey, textKey, nameKey, label, omitted) {
  if (!input) return;
  if (input.preset) {
    p.set(presetKey, input.preset);
    return;
  }
  const packed = await packText(input.text);
  if (packed.length > TEXT_MAX_CHARS) {
    omitted.push(label);
    return;
  }
  p.set(textKey, packed);
  p.set(nameKey, input.name);
}

/**
 * The inverse of decodePlan. A file too long for a link is left out;
 * `omitted` then names it ("model file", "cluster file").
 */
export async function encodePlan(state) {
  const p = new URLSearchParams();
  const omitted = [];
  await writeInput(p, state.model, 'm', 'mt', 'mn', 'model file', omitted);
  await writeInput(p, state.cluster, 'c', 'ct', 'cn', 'cluster file', omitted);
  for (const [key, value] of [['g', state.gpus], ['b', state.batch], ['s', state.seq]]) {
    if (value) p.set(key, String(value));
  }
  if (state.fix) p.set('fix', state.fix);
  if (state.timeS) p.set('t', String(state.timeS));
  if (state.sweep) p.set('sw', '1');
  if (state.part && state.part !== 'layer') p.set('lp', state.part);
  return {params: p, omitted};
}
