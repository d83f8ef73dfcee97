// What the page keeps in IndexedDB (database 'shardlab'), so a reload or a
// crashed tab never loses a result: one object store per lab. 'best' holds
// the sharding lab's best plan per instance (keyed by the SHA-256 of its
// file); 'pipeline', 'teach' and 'plan' hold records keyed by `key`, which
// each lab chooses. Used by the labs; the browser tests read the same database.

const DB_NAME = 'shardlab';
const DB_VERSION = 3;  // 1: 'best' only; 2: adds 'pipeline' and 'teach'; 3: adds 'plan'
const STORES = Object.freeze({best: 'sha256', pipeline: 'key', teach: 'key', plan: 'key'});

function open() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB_NAME, DB_VERSION);
    req.onupgradeneeded = () => {
      const db = req.result;
      for (const [name, keyPath] of Object.entries(STORES)) {
        if (!db.objectStoreNames.contains(name)) db.createObjectStore(name, {keyPath});
      }
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

async function transact(storeName, mode, body) {
  if (!(storeName in STORES)) throw new Error(`no IndexedDB store '${storeName}'`);
  const db = await open();
  try {
    return await new Promise((resolve, reject) => {
      const tx = db.transaction(storeName, mode);
      const req = body(tx.objectStore(storeName));
      tx.oncomplete = () => resolve(req ? req.result : undefined);
      tx.onerror = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

/** The record under key in a lab's store, or undefined. */
export function getRecord(storeName, key) {
  return transact(storeName, 'readonly', (store) => store.get(key));
}

/** Writes (replaces) a record; it must carry the store's key field. */
export function putRecord(storeName, record) {
  return transact(storeName, 'readwrite', (store) => store.put(record));
}

/**
 * {sha256, name, cost, plan: Int32Array, bound, savedAt} or undefined; records
 * saved since the page restores runs also hold status ('done' | 'stopped' |
 * null), elapsedS and trace ([[seconds, cost, bound], ...], exact strings).
 */
export function loadBest(sha256) {
  return getRecord('best', sha256);
}

/**
 * Saves the plan and what its run reached when it beats what is stored: a
 * lower cost, or the same cost with a higher bound or a longer run. Returns
 * true if it did.
 */
export async function saveBest(
    {sha256, name, cost, plan, bound, status = null, elapsedS = null, trace = null}) {
  const stored = await loadBest(sha256);
  if (stored) {
    const was = BigInt(stored.cost);
    const now = BigInt(cost);
    const sameButFurther = was === now &&
        (BigInt(bound) > BigInt(stored.bound || 0) ||
         (BigInt(bound) === BigInt(stored.bound || 0) && elapsedS !== null &&
          elapsedS > (stored.elapsedS || 0)));
    if (was < now || (was === now && !sameButFurther)) return false;
  }
  await putRecord('best', {
    sha256,
    name,
    cost: String(cost),
    bound: String(bound),
    plan: Int32Array.from(plan),
    status,
    elapsedS,
    trace,
    savedAt: new Date().toISOString(),
  });
  return true;
}
