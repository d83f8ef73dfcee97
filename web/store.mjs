// Keeps the best plan found for each instance (keyed by the SHA-256 of its
// file) in IndexedDB, so a reload or a crashed tab never loses it. Used by
// app.mjs; the browser tests read the same database ('shardlab', store 'best').

const DB_NAME = 'shardlab';
const STORE = 'best';

function open() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB_NAME, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE, {keyPath: 'sha256'});
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

async function transact(mode, body) {
  const db = await open();
  try {
    return await new Promise((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const req = body(tx.objectStore(STORE));
      tx.oncomplete = () => resolve(req ? req.result : undefined);
      tx.onerror = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

/** {sha256, name, cost, plan: Int32Array, bound, savedAt} or undefined. */
export function loadBest(sha256) {
  return transact('readonly', (store) => store.get(sha256));
}

/** Saves the plan when it beats what is stored; returns true if it did. */
export async function saveBest({sha256, name, cost, plan, bound}) {
  const stored = await loadBest(sha256);
  if (stored && BigInt(stored.cost) <= BigInt(cost)) return false;
  await transact('readwrite', (store) => store.put({
    sha256,
    name,
    cost: String(cost),
    bound: String(bound),
    plan: Int32Array.from(plan),
    savedAt: new Date().toISOString(),
  }));
  return true;
}
