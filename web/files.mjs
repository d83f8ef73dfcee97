// Streaming an instance into the wasm reader: a ReadableStream of the bytes as
// stored (File.stream(), a fetch body, or node's file stream in tests) is
// hashed, gunzipped by DecompressionStream when it starts with the gzip magic,
// and fed chunk by chunk to Loader. No JS string of the file is ever built and
// the file is never held whole. Used by worker.js and tests/wasm.
import {ShardLabError, unwrap} from './result.mjs';

// Pieces this small keep the wasm-side copy buffer a rounding error of the heap.
export const FEED_CHUNK_BYTES = 1 << 16;

// A file that cannot be read: the core's code and one-line message.
export class LoadError extends ShardLabError {}

export function isGzip(bytes) {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

// Copies bytes into a wasm-side buffer in pieces and hands each to sink(n).
function push(target, bytes, sink) {
  for (let at = 0; at < bytes.length; at += FEED_CHUNK_BYTES) {
    const n = Math.min(FEED_CHUNK_BYTES, bytes.length - at);
    target.buffer(n).set(bytes.subarray(at, at + n));
    sink(n);
  }
}

function gzipMessage(name, rawBytes, error) {
  const text = String((error && error.message) || error);
  const where = `${name}: byte ${rawBytes} of the compressed file: the gzip stream`;
  return /truncat|unexpected end|premature/i.test(text) ?
      `${where} ends early (the file is truncated)` :
      `${where} is corrupt (${text})`;
}

/**
 * Streams `stream` into a new M.Loader named `name` (the name appears in every
 * error message). Returns {model, sha256, fileBytes, jsonBytes, gzip, seconds}.
 * Throws LoadError with the core's one-line message on malformed input.
 * onProgress(rawBytesRead) is called after each raw chunk.
 */
export async function loadInstance(M, stream, name, {onProgress} = {}) {
  const started = performance.now();
  const loader = new M.Loader(name);
  const hasher = new M.Hasher();
  const raw = stream.getReader();
  let rawBytes = 0;
  let jsonBytes = 0;
  let failure = null;  // the core's {code, message}
  const feed = (bytes) => {
    if (failure) return;
    jsonBytes += bytes.length;
    push(loader, bytes, (n) => {
      const fed = failure ? {ok: true} : loader.feed(n);
      if (!fed.ok) failure = fed.error;
    });
  };
  let gzip = false;
  let inflater = null;
  let drained = null;
  try {
    for (;;) {
      const {done, value} = await raw.read();
      if (done) break;
      if (rawBytes === 0 && isGzip(value)) {
        gzip = true;
        const ds = new DecompressionStream('gzip');
        inflater = ds.writable.getWriter();
        drained = (async () => {
          const out = ds.readable.getReader();
          for (;;) {
            const chunk = await out.read();
            if (chunk.done) return;
            feed(chunk.value);
            if (failure) {
              out.cancel().catch(() => {});
              return;
            }
          }
        })();
        drained.catch(() => {});
      }
      rawBytes += value.length;
      push(hasher, value, (n) => hasher.update(n));
      if (gzip) {
        await inflater.ready;
        inflater.write(value).catch(() => {});
      } else {
        feed(value);
      }
      if (onProgress) onProgress(rawBytes);
      if (failure) break;
    }
    if (gzip && !failure) {
      try {
        await inflater.close();
        await drained;
      } catch (error) {
        if (!failure) failure = {code: 'InvalidInput', message: gzipMessage(name, rawBytes, error)};
      }
    }
    if (failure) {
      raw.cancel().catch(() => {});
      throw new LoadError(failure.code, failure.message);
    }
    const finished = loader.finish();
    if (!finished.ok) throw new LoadError(finished.error.code, finished.error.message);
    return {
      model: finished.value,
      sha256: hasher.hexDigest(),
      fileBytes: rawBytes,
      jsonBytes,
      gzip,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    loader.delete();
    hasher.delete();
  }
}

// Exported input fields of a model, as ArrayBuffers ready to transfer.
export function exportModel(model) {
  const fields = [];
  for (let i = 0; i < model.fieldCount(); ++i) fields.push(unwrap(model.exportField(i)).buffer);
  return {
    fields,
    name: model.name(),
    hasLimit: model.hasUsageLimit(),
    limit: model.usageLimit(),
  };
}

// Rebuilds a model in this module instance from exportModel()'s output.
export function importModel(M, {fields, name, hasLimit, limit}) {
  const importer = new M.ModelImport();
  try {
    fields.forEach((buffer, i) => {
      unwrap(importer.field(i, buffer.byteLength)).set(new Uint8Array(buffer));
    });
    const finished = importer.finish(name, hasLimit, limit);
    if (!finished.ok) throw new LoadError(finished.error.code, finished.error.message);
    return finished.value;
  } finally {
    importer.delete();
  }
}

// Summary numbers of a model for the page (all plain JSON).
export function describeModel(model) {
  return {
    name: model.name(),
    nodes: model.numNodes(),
    edges: model.numEdges(),
    matrices: model.numMatrices(),
    checkpoints: model.numCheckpoints(),
    strategies: model.totalStrategies(),
    maxStrategies: model.maxStrategies(),
    hasLimit: model.hasUsageLimit(),
    limit: model.usageLimit(),
    memoryBytes: model.memoryBytes(),
    horizon: [model.horizonBegin(), model.horizonEnd()],
    minPeak: model.minPossiblePeak(),
  };
}
