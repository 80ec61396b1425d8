/**
 * User-chosen keys (metadata, sessionData) may contain "." and "$", which FerretDB rejects as field names and
 * MongoDB treats specially, so they are stored as a list of entries and turned back into an object on read.
 */
export interface StoredEntry<V> {
  k: string;
  v: V;
}

export function toEntries<V>(record: Record<string, V>): StoredEntry<V>[] {
  return Object.entries(record).map(([k, v]) => ({ k, v }));
}

export function fromEntries<V>(entries: readonly StoredEntry<V>[] | undefined): Record<string, V> {
  const out: Record<string, V> = {};
  for (const { k, v } of entries ?? []) {
    // defineProperty so a key named "__proto__" stays data instead of changing the object's prototype.
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
