import type { LRUCache } from 'lru-cache';

/**
 * lru-cache aborts a load that a delete or set of the same key overtakes, with these reasons (its dist/esm/index.js).
 */
const OVERTAKEN = new Set(['deleted', 'replaced']);

/**
 * `cache.fetch(key)` (lru-cache: one load per key at a time, shared by every caller), read again when this
 * process changed the entry while it was loading. lru-cache then aborts the load, so that what it read before
 * the change is not stored, and rejects the callers waiting for it; they want the value after the change
 * instead of an error (e.g. a request reading an organization's settings while an operator changes them).
 */
export async function fetchLatest<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(
  cache: LRUCache<K, V, unknown>,
  key: K,
): Promise<V | undefined> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await cache.fetch(key);
    } catch (err) {
      if (attempt >= 3 || !(err instanceof Error && OVERTAKEN.has(err.message))) throw err;
    }
  }
}
