// The last plan per request, kept in IndexedDB (store 'plan' of ../store.mjs)
// so that a reload, a link opened again or a crashed tab shows it at once
// without planning again. The key is the SHA-256 of the request as the core
// reads it: the model (a preset's name, or the SHA-256 of the file's text),
// the cluster likewise, the GPU count, batch, sequence length, the fix as
// the core normalised it, and whether the sizing sweep was asked for.
import {sha256Hex} from '../pipeline/saved.mjs';
import {getRecord, putRecord} from '../store.mjs';

async function inputKey(input) {
  if (!input) return null;
  return input.preset ? {preset: input.preset.toLowerCase()} :
                        {sha256: await sha256Hex(input.text)};
}

/** The record key of a request {model, cluster, gpus, batch, seq, fix, sweep}. */
export async function requestKey(request) {
  const canonical = JSON.stringify({
    model: await inputKey(request.model),
    cluster: await inputKey(request.cluster),
    gpus: request.gpus || 0,
    batch: request.batch,
    seq: request.seq,
    fix: request.fix || '',
    sweep: Boolean(request.sweep),
  });
  return sha256Hex(canonical);
}

/**
 * {key, text, megatron, megatronNotes, torchtitan, timeline, stepTimeS, gap, savedAt} or
 * undefined.
 */
export function loadPlan(key) {
  return getRecord('plan', key);
}

/**
 * Stores a finished run's answer unless the stored one is better (a faster
 * plan, or the same with a smaller gap); true if it stored it.
 */
export async function savePlan(key, done) {
  const result = done.result;
  const stepTimeS = result.found ? result.step_time_s : Infinity;
  const gap = result.found ? result.gap : 1;
  const stored = await loadPlan(key);
  if (stored &&
      (stored.stepTimeS < stepTimeS || (stored.stepTimeS === stepTimeS && stored.gap <= gap))) {
    return false;
  }
  await putRecord('plan', {
    key,
    text: done.text,
    megatron: done.megatron,
    megatronNotes: done.megatronNotes,
    torchtitan: done.torchtitan,
    timeline: done.timeline,
    timelineError: done.timelineError,
    stepTimeS,
    gap,
    savedAt: new Date().toISOString(),
  });
  return true;
}
