// What the labs' engine workers share: running an anytime engine in time
// slices between event-loop turns (so a STOP gets through) and reporting
// its progress through a throttle. The sharding solver's workers and the
// pipeline planner's worker import it; the engines differ only in what
// their report posts.
import {Throttle} from './protocol.mjs';

// A turn of the event loop without setTimeout's 4 ms clamp. Under node (the
// unit tests) the port holds the process open only while a turn is awaited.
const channel = new MessageChannel();
const waiting = [];
const holdOpen = (hold) => {
  const port = channel.port1;
  if (port.ref) hold ? port.ref() : port.unref();
};
channel.port1.onmessage = () => {
  waiting.shift()();
  if (!waiting.length) holdOpen(false);
};
holdOpen(false);
export const yieldToEvents = () => new Promise((resolve) => {
  waiting.push(resolve);
  holdOpen(true);
  channel.port2.postMessage(0);
});

/**
 * Runs `engine.step(stepWork)` (true when it found something better) in
 * slices of `sliceMs` until `engine.finished()`, `run.stop` is set or
 * `elapsed()` reaches `timeLimitS`. `report(withBest, counters)` is called
 * at most as often as the throttle lets through, except that the first
 * improvement is reported at once (users wait for it); `dirty` says whether
 * the engine already holds an unreported best. Resolves to {reason: 'time' |
 * 'stopped' | 'finished', dirty, improvedS, steps}; the caller posts the last
 * report and DONE.
 */
export async function runSlices({
  engine,
  run,
  timeLimitS,
  elapsed,
  stepWork,
  sliceMs,
  dirty,
  improvedS = 0,
  report,
  throttle = new Throttle()
}) {
  const counters = {improvedS, steps: 0};
  let shown = false;
  let reason = 'time';
  for (;;) {
    if (throttle.pass(performance.now(), dirty && !shown)) {
      shown = shown || dirty;
      report(dirty, counters);
      dirty = false;
    }
    if (run.stop) {
      reason = 'stopped';
      break;
    }
    if (engine.finished()) {
      reason = 'finished';
      break;
    }
    if (elapsed() >= timeLimitS) break;
    const sliceEnd = performance.now() + sliceMs;
    do {
      if (engine.step(stepWork)) {
        dirty = true;
        counters.improvedS = elapsed();
      }
      ++counters.steps;
    } while (performance.now() < sliceEnd && !engine.finished());
    await yieldToEvents();
  }
  return {reason, dirty, ...counters};
}
