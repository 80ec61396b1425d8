import { LRUCache } from 'lru-cache';

/**
 * A value another owner keeps (an organization's signing secret in the gateway, D35), remembered for a short time
 * so that a warm caller does not ask for it on every request (D43). lru-cache does the caching: one load per key
 * at a time (`fetch`: the callers in flight for a key wait for the same load), the time to live, the bound on
 * entries (least recently used first). What it lacks is added here: remembering a failed load for a pause.
 */
export interface TtlCacheOptions<V> {
  /** 0: nothing is remembered (every get loads, concurrent callers still share a load). */
  ttlMs: number;
  /** Past this many entries the least recently used goes (entries are cheap to read again). */
  maxEntries: number;
  /** Which loaded values to remember (e.g. not an unknown key: creating one then takes effect at once). */
  remember?: (value: V) => boolean;
  /**
   * Stale if error: when a load fails, the owner is asked again only after this long (at most ttlMs), so callers
   * meanwhile neither wait for nor hammer an owner that is down. Until then they get the value read before, or,
   * if none was ever read, the same error at once. Unset: every caller's load is tried, and a failed one fails
   * its callers.
   */
  staleRetryMs?: number;
  /** The clock the time to live is measured on (tests). */
  now?: () => number;
}

/** What a load gave: a value, or (stale if error, nothing read before) the failure callers get until the pause ends. */
type Outcome<V> = { value: V } | { failure: unknown };

export class TtlCache<V> {
  private readonly cache: LRUCache<string, Outcome<V>, () => Promise<V>>;

  constructor(private readonly options: TtlCacheOptions<V>) {
    this.cache = new LRUCache<string, Outcome<V>, () => Promise<V>>({
      max: options.maxEntries,
      ttl: Math.max(options.ttlMs, 1),
      // A load evicted while in flight still answers its callers (it is only not stored).
      ignoreFetchAbort: true,
      ...(options.now && { perf: { now: shiftedOffZero(options.now) }, ttlResolution: 0 }),
      // Not allowStaleOnFetchRejection: it serves the stale value but leaves it stale, so every caller would ask
      // the owner again; here the value read before (or the failure) is stored again for the pause instead.
      fetchMethod: async (_key, stale, { options: entry, context: load }) => {
        try {
          return { value: await load() };
        } catch (err) {
          if (options.staleRetryMs === undefined) throw err;
          entry.ttl = Math.max(Math.min(options.ttlMs, options.staleRetryMs), 1);
          return stale && 'value' in stale ? stale : { failure: err };
        }
      },
    });
  }

  async get(key: string, load: () => Promise<V>): Promise<V> {
    const outcome = await this.cache.fetch(key, { context: load });
    // fetchMethod always answers an outcome or throws; undefined would mean lru-cache changed its contract.
    if (outcome === undefined) throw new Error(`TtlCache: no outcome for ${key}`);
    if ('failure' in outcome) throw outcome.failure;
    // Not to be remembered: dropped once its callers have it, unless something newer took its place.
    if (!this.remembers(outcome.value) && this.cache.peek(key) === outcome) this.cache.delete(key);
    return outcome.value;
  }

  private remembers(value: V): boolean {
    return this.options.ttlMs > 0 && (this.options.remember?.(value) ?? true);
  }
}

/** lru-cache takes an entry stored at time 0 for one with no time to live; a test clock may well start at 0. */
function shiftedOffZero(now: () => number): () => number {
  return () => now() + 1;
}
