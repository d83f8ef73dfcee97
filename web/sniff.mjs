// What a dropped file is, from its content (never its name alone): a contest
// instance (JSON or gzip), a pipeline problem or schedule, a PyTorch schedule
// CSV, a teaching model, a plan model or Hugging Face config.json, or a
// cluster file. Pure module over Blob/File and DecompressionStream: drop.mjs
// routes the answer to a tab; tests/web/sniff.test.mjs checks every kind.

// Only the head of a big file is read: a contest instance can be 150 MB.
export const HEAD_BYTES = 64 * 1024;
// Files up to this size are parsed whole, so their keys are read exactly.
export const PARSE_MAX_BYTES = 4 * 1024 * 1024;
// A gzip for a lab other than sharding is inflated in the page up to this.
export const INFLATE_MAX_BYTES = 64 * 1024 * 1024;

// kind -> where it opens and how the page names it.
export const KINDS = Object.freeze({
  instance: {lab: 'sharding', input: 'file-input', label: 'a contest instance'},
  problem: {lab: 'pipeline', input: 'pl-problem-file', label: 'a pipeline problem'},
  schedule: {lab: 'pipeline', input: 'pl-import', label: 'a pipeline schedule'},
  csv: {lab: 'pipeline', input: 'pl-import', label: 'a PyTorch schedule CSV'},
  teach: {lab: 'teach', input: null, label: 'a teaching model'},
  model: {lab: 'plan', input: 'plan-model-file', label: 'a plan model'},
  config: {lab: 'plan', input: 'plan-model-file', label: 'a Hugging Face config.json'},
  cluster: {lab: 'plan', input: 'plan-cluster-file', label: 'a cluster file'},
});

export const KNOWN_TEXT = 'a contest instance (.json or .json.gz), a pipeline problem or ' +
    'schedule, a PyTorch schedule CSV, a teaching or plan model, a Hugging Face ' +
    'config.json or a cluster file';

const HF_KEYS = ['model_type', 'architectures', 'num_hidden_layers', 'n_layer', 'hidden_size'];

/** The kind of a parsed JSON value, or null. */
export function kindOfJson(value) {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const has = (key) => Object.prototype.hasOwnProperty.call(value, key);
  if (value.format === 'shardlab-pipeline-problem') return 'problem';
  if (value.format === 'shardlab-pipeline-schedule') return 'schedule';
  if (has('problem') && value.problem && typeof value.problem === 'object') return 'instance';
  if (has('ops') && has('tensors')) return has('repeat') ? 'model' : 'teach';
  if (has('gpus_per_node') || has('intra_node') || has('inter_node')) return 'cluster';
  if (HF_KEYS.some(has)) return 'config';
  if (has('devices') && has('microbatches')) return 'problem';
  return null;
}

/** The kind from the first bytes of a JSON text too big (or too broken) to parse. */
export function kindOfJsonHead(head) {
  const key = (name) => new RegExp(`"${name}"\\s*:`).test(head);
  const format = /"format"\s*:\s*"shardlab-pipeline-(problem|schedule)"/.exec(head);
  if (format) return format[1];
  if (/^\s*\{\s*"problem"\s*:/.test(head) || (key('intervals') && key('usages'))) {
    return 'instance';
  }
  if (key('ops') && key('tensors')) return key('repeat') ? 'model' : 'teach';
  if (key('gpus_per_node') || key('intra_node')) return 'cluster';
  if (HF_KEYS.some(key)) return 'config';
  if (key('devices') && key('microbatches')) return 'problem';
  return null;
}

// PyTorch's _dump_csv: one row per rank, cells such as 0F0, 1B3, 2W1 or
// 0UNSHARD, commas, maybe empty cells (see the README's pipeline section).
export function looksLikeScheduleCsv(text) {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '').slice(0, 8);
  if (!lines.length || !lines.every((l) => /^[A-Za-z0-9_;(),\s]*$/.test(l))) return false;
  const cells = lines.flatMap((l) => l.split(',')).map((c) => c.trim()).filter(Boolean);
  return cells.length > 0 && cells.some((c) => /^\d+[A-Z]+\d*/.test(c)) &&
      (lines.some((l) => l.includes(',')) || cells.length === lines.length);
}

function firstBinaryByte(bytes) {
  for (let i = 0; i < bytes.length; ++i) {
    const b = bytes[i];
    if (b === 0 || (b < 9) || (b > 13 && b < 32 && b !== 27)) return i;
  }
  try {
    new TextDecoder('utf-8', {fatal: true}).decode(bytes, {stream: true});
  } catch (error) {
    return 0;
  }
  return -1;
}

function describeJson(value) {
  if (Array.isArray(value)) return `a JSON array of ${value.length} entries`;
  if (!value || typeof value !== 'object')
    return `a JSON ${value === null ? 'null' : typeof value}`;
  const keys = Object.keys(value).slice(0, 5).map((k) => `"${k}"`);
  return keys.length ? `a JSON object with keys ${keys.join(', ')}` : 'an empty JSON object';
}

/**
 * The kind of a text from its head (complete: the whole text): {kind} or
 * {found} (what it looks like, for the one-line message).
 */
export function classifyText(head, complete) {
  const text = head.replace(/^\uFEFF/, '');
  const start = text.trimStart();
  if (start.startsWith('{') || start.startsWith('[')) {
    if (complete) {
      try {
        const value = JSON.parse(text);
        const kind = kindOfJson(value);
        return kind ? {kind} : {found: describeJson(value)};
      } catch (error) {
        // Broken JSON still goes to its tab, whose reader names the position.
      }
    }
    const kind = kindOfJsonHead(text);
    return kind ? {kind} : {found: 'JSON that is none of these'};
  }
  if (looksLikeScheduleCsv(text)) return {kind: 'csv'};
  if (!start) return {found: 'an empty file'};
  const line = start.split(/\r?\n/)[0].slice(0, 40);
  return {found: `text starting "${line}"`};
}

async function readHead(stream, limit) {
  const reader = stream.getReader();
  const parts = [];
  let size = 0;
  try {
    while (size < limit) {
      const {done, value} = await reader.read();
      if (done) break;
      parts.push(value);
      size += value.length;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  const out = new Uint8Array(Math.min(size, limit));
  let at = 0;
  for (const part of parts) {
    const n = Math.min(part.length, out.length - at);
    out.set(part.subarray(0, n), at);
    at += n;
    if (at === out.length) break;
  }
  return {bytes: out, complete: size < limit};
}

const isGzip = (bytes) => bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;

async function inflated(file) {
  const name = file.name.replace(/\.gz$/i, '') || 'inflated.json';
  const {bytes, complete} = await readHead(
      file.stream().pipeThrough(new DecompressionStream('gzip')), INFLATE_MAX_BYTES + 1);
  if (!complete) return null;
  return new File([bytes], name, {type: 'application/json'});
}

/**
 * What `file` holds: {kind, file} (file: what to hand to the tab, the
 * inflated text when a gzip is for a tab that reads text) or {error} (one
 * line naming the file and what it holds).
 */
export async function sniffFile(file) {
  const name = file.name || 'the dropped file';
  const unknown = (found) =>
      ({error: `${name}: not a file ShardLab opens (found ${found}); drop ${KNOWN_TEXT}`});
  const raw = new Uint8Array(await file.slice(0, HEAD_BYTES).arrayBuffer());
  let bytes = raw;
  let complete = file.size <= HEAD_BYTES;
  let gzip = false;
  if (isGzip(raw)) {
    gzip = true;
    try {
      ({bytes, complete} = await readHead(
           file.slice(0, 4 * HEAD_BYTES).stream().pipeThrough(new DecompressionStream('gzip')),
           HEAD_BYTES));
    } catch (error) {
      // A truncated or corrupt gzip: the sharding reader names the byte.
      return {kind: 'instance', file};
    }
    complete = complete && file.size <= 4 * HEAD_BYTES;
  }
  const binary = firstBinaryByte(bytes);
  if (binary >= 0) {
    return unknown(`binary content${gzip ? ' inside the gzip' : ''} at byte ${binary}`);
  }
  let text = new TextDecoder().decode(bytes);
  if (!gzip && !complete && file.size <= PARSE_MAX_BYTES) {
    text = await file.text();
    complete = true;
  }
  const sniffed = classifyText(text, complete);
  if (!sniffed.kind) return unknown(gzip ? `gzip holding ${sniffed.found}` : sniffed.found);
  if (!gzip || sniffed.kind === 'instance') return {kind: sniffed.kind, file};
  const plain = await inflated(file).catch(() => null);
  if (!plain) {
    return {
      error: `${name}: ${KINDS[sniffed.kind].label} compressed beyond what the page inflates ` +
          `(${INFLATE_MAX_BYTES / 1024 / 1024} MB) or corrupt; gunzip it and drop the .json`
    };
  }
  return {kind: sniffed.kind, file: plain};
}
