// Helpers for the node tests of the wasm module (not a test file itself):
// loads build/wasm/site/shardlab.js under node, streams files through the
// page's own web/files.mjs, and runs the native parity driver.
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';
import {Readable} from 'node:stream';
import {pathToFileURL} from 'node:url';

export {scratchDir} from './scratch.mjs';

export const SITE = path.resolve(process.env.SHARDLAB_SITE || 'build/wasm/site');
export const SOURCE = process.env.SHARDLAB_SOURCE_DIR || path.resolve('.');
export const SHARED = process.env.SHARDLAB_SHARED_DIR || path.resolve(SOURCE, '../shared');
export const NATIVE =
    process.env.SHARDLAB_PARITY_NATIVE || path.resolve('build/native/tests/parity_native');

const files = await import(pathToFileURL(path.join(SITE, 'files.mjs')).href);
export const {loadInstance, exportModel, importModel, describeModel, LoadError} = files;
export const {unwrap, ShardLabError} =
    await import(pathToFileURL(path.join(SITE, 'result.mjs')).href);

export async function createModule() {
  const require = createRequire(import.meta.url);
  const create = require(path.join(SITE, 'shardlab.js'));
  // node 20's fetch() cannot read file paths: hand the module its bytes.
  return create({wasmBinary: fs.readFileSync(path.join(SITE, 'shardlab.wasm'))});
}

// A web ReadableStream over a file, in chunks of `chunkBytes`.
export function fileStream(file, chunkBytes = 1 << 16) {
  return Readable.toWeb(fs.createReadStream(file, {highWaterMark: chunkBytes}));
}

// A web ReadableStream over bytes in memory, in chunks of `chunkBytes`.
export function bytesStream(bytes, chunkBytes) {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + chunkBytes));
      at += chunkBytes;
    },
  });
}

export function native(...args) {
  return JSON.parse(execFileSync(NATIVE, args, {encoding: 'utf8'}));
}

// Runs an engine as the native driver does: STEPS steps of WORK, or until done.
export function runEngine(M, model, seed, index, steps, work) {
  const engine = unwrap(M.Engine.create(model, JSON.stringify({seed}), index));
  const started = performance.now();
  let done = 0;
  while (done < steps && !engine.finished()) {
    engine.step(work);
    ++done;
  }
  const result = {
    seconds: (performance.now() - started) / 1000,
    steps: done,
    cost: engine.exact().cost ?? '',
    bound: engine.exact().bound,
    plan: Array.from(engine.progress(0).found ? unwrap(engine.bestPlan()) : []),
  };
  engine.delete();
  return result;
}
