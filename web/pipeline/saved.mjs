// The best planned schedule per problem, kept in IndexedDB (store 'pipeline'
// of ../store.mjs) so that a reload or a crashed tab never loses it. The key
// is the SHA-256 of the core's normalized problem JSON (pipelineNormalize),
// so the same problem typed differently finds the same record. The schedule
// is stored as UTF-8 bytes (a Uint8Array): a 10 MB string would be copied
// and serialised on the main thread, where bytes are one memcpy.
import {getRecord, putRecord} from '../store.mjs';

/** Hex SHA-256 of a text (Web Crypto: browsers and node). */
export async function sha256Hex(text) {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export const problemKey = (normalizedProblem) => sha256Hex(normalizedProblem);

/**
 * {key, name, makespan, bound, schedule (JSON as UTF-8 bytes; text in
 * records of older pages), savedAt} or undefined.
 */
export function loadPlanned(key) {
  return getRecord('pipeline', key);
}

/**
 * Stores the schedule (json: its text or UTF-8 bytes) when it beats the
 * stored one; true if it did.
 */
export async function savePlanned(key, {name, makespan, bound, json}) {
  const stored = await loadPlanned(key);
  if (stored && stored.makespan <= makespan) {
    if (bound !== null && (stored.bound === null || bound > stored.bound)) {
      await putRecord('pipeline', {...stored, bound});  // a better proof of the same schedule
    }
    return false;
  }
  await putRecord('pipeline', {
    key,
    name,
    makespan,
    bound: bound ?? null,
    schedule: typeof json === 'string' ? new TextEncoder().encode(json) : json,
    savedAt: new Date().toISOString(),
  });
  return true;
}
