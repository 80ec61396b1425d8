/**
 * A value another owner keeps (the gateway's API keys and checkout settings in its database, an organization's
 * signing secret in the gateway), remembered for a short time so that a warm caller does not ask for it on
 * every request (D43). One load per key at a time: when an entry lapses under load, the callers in flight for
 * that key wait for the same load. The time to live also bounds how long a changed value goes unnoticed.
 */
export interface TtlCacheOptions<V> {
  ttlMs: number;
  /** Past this many entries the cache starts over (a crude bound; entries are cheap to read again). */
  maxEntries: number;
  /** Which loaded values to remember (e.g. not an unknown key: creating one then takes effect at once). */
  remember?: (value: V) => boolean;
  /**
   * Stale if error: when a load fails, the owner is asked again only after this long (at most ttlMs), so callers
   * meanwhile neither wait for nor hammer an owner that is down. Until then they get the value read before, or,
   * if none was ever read, the same error at once. Unset: every caller's load is tried, and a failed one fails
   * its callers (the gateway's choice: a revoked key must not keep working through a database outage).
   */
  staleRetryMs?: number;
  now?: () => number;
}

export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();
  private readonly loading = new Map<string, Promise<V>>();
  /** With staleRetryMs: a failed load with nothing stale to serve, remembered until the owner is asked again. */
  private readonly failures = new Map<string, { err: unknown; until: number }>();
  /** Bumped by forget(): a load that started before it must not store what it read. */
  private generation = 0;

  constructor(private readonly options: TtlCacheOptions<V>) {}

  get(key: string, load: () => Promise<V>): Promise<V> {
    const entry = this.entries.get(key);
    if (entry && entry.until >= this.now()) return Promise.resolve(entry.value);
    const failure = this.failures.get(key);
    if (failure && failure.until >= this.now()) return Promise.reject(failure.err);
    let pending: Promise<V> | undefined = this.loading.get(key);
    if (!pending) {
      const startedIn = this.generation;
      pending = load()
        .then(
          (value) => {
            this.failures.delete(key);
            if (this.options.ttlMs > 0 && startedIn === this.generation && (this.options.remember?.(value) ?? true)) {
              if (this.entries.size >= this.options.maxEntries) this.entries.clear();
              this.entries.set(key, { value, until: this.now() + this.options.ttlMs });
            }
            return value;
          },
          (err: unknown) => {
            if (this.options.staleRetryMs === undefined || startedIn !== this.generation) throw err;
            const askAgainAt = this.now() + Math.min(this.options.ttlMs, this.options.staleRetryMs);
            const stale = this.entries.get(key);
            if (stale) {
              stale.until = askAgainAt;
              return stale.value;
            }
            if (this.failures.size >= this.options.maxEntries) this.failures.clear();
            this.failures.set(key, { err, until: askAgainAt });
            throw err;
          },
        )
        .finally(() => {
          // forget() may have dropped this load and a newer one started meanwhile: that one stays.
          if (this.loading.get(key) === pending) this.loading.delete(key);
        });
      this.loading.set(key, pending);
    }
    return pending;
  }

  /** Drops a key this replica has just changed, so that its own next read sees the change. */
  forget(key: string): void {
    this.entries.delete(key);
    this.failures.delete(key);
    this.loading.delete(key);
    this.generation += 1;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}
