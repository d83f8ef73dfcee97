// The one result shape of the wasm module's calls (wasm/result.h):
//   {ok: true, value} | {ok: false, error: {code, message}}
// unwrap() returns the value or throws a ShardLabError carrying the core's
// StatusCode name ("InvalidInput", "InvalidArgument", "IoError",
// "Internal") and its one-line message. Workers send the same {code,
// message} in their ERROR replies (errorOf), and the page's worker client
// throws it again as a ShardLabError (fromError), so a code survives the
// trip from the core to the page. Pure module: node-tested
// (tests/web/result.test.mjs).

export const CODES = Object.freeze(['InvalidInput', 'IoError', 'InvalidArgument', 'Internal']);

export class ShardLabError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'ShardLabError';
    this.code = CODES.includes(code) ? code : 'Internal';
  }
}

/** The value of a result, or a thrown ShardLabError with its code and message. */
export function unwrap(result) {
  if (!result || typeof result !== 'object' || typeof result.ok !== 'boolean') {
    throw new ShardLabError('Internal', `a module call returned ${describe(result)}, not a result`);
  }
  if (result.ok) return result.value;
  const error = result.error || {};
  throw new ShardLabError(error.code, String(error.message ?? 'failed without a message'));
}

/** {code, message} of any thrown value (a ShardLabError keeps its code). */
export function errorOf(error) {
  if (error instanceof ShardLabError) return {code: error.code, message: error.message};
  if (error && typeof error === 'object' && CODES.includes(error.code)) {
    return {code: error.code, message: String(error.message)};
  }
  return {code: 'Internal', message: String((error && error.message) || error)};
}

/** A ShardLabError from {code, message} (a worker's ERROR reply). */
export function fromError(error) {
  return new ShardLabError(error && error.code, String((error && error.message) ?? error));
}

function describe(value) {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 40))}`;
  return typeof value;
}
