// A helper for the client tests (not a test file): holds back the timers the
// code under test sets, so that a test decides whether and when a stop's
// grace (STOP_GRACE_MS, web/worker_client.mjs) passes.

/**
 * Holds back the timers set from now on (only those of `ms` milliseconds
 * when given): they never run unless the test calls them from `held`.
 * `real` is the real setTimeout; restore() puts it back.
 */
export function holdTimers(ms = null) {
  const real = globalThis.setTimeout;
  const held = [];
  globalThis.setTimeout = (fn, delay, ...rest) =>
      (ms === null || delay === ms ? held.push(fn) : real(fn, delay, ...rest));
  return {held, real, restore: () => (globalThis.setTimeout = real)};
}
