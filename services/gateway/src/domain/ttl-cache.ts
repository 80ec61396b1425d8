/**
 * What the gateway reads from its database on the request path (API keys, checkout settings), remembered for a
 * short time so that a warm gateway sends no database command per request (D43). One load per key at a time:
 * when an entry lapses under load, the requests in flight for that key wait for the same read. The time to
 * live also bounds how long another replica keeps serving a changed value.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();
  private readonly loading = new Map<string, Promise<V>>();
  /** Bumped by forget(): a load that started before it must not store what it read. */
  private generation = 0;

  constructor(
    private readonly options: {
      ttlMs: number;
      /** Past this many entries the cache starts over (a crude bound; entries are cheap to read again). */
      maxEntries: number;
      /** Which loaded values to remember (e.g. not an unknown key: creating one then takes effect at once). */
      remember?: (value: V) => boolean;
      now?: () => number;
    },
  ) {}

  get(key: string, load: () => Promise<V>): Promise<V> {
    const now = this.options.now ?? Date.now;
    const entry = this.entries.get(key);
    if (entry && entry.until >= now()) return Promise.resolve(entry.value);
    let pending = this.loading.get(key);
    if (!pending) {
      const startedIn = this.generation;
      pending = load()
        .then((value) => {
          if (this.options.ttlMs > 0 && startedIn === this.generation && (this.options.remember?.(value) ?? true)) {
            if (this.entries.size >= this.options.maxEntries) this.entries.clear();
            this.entries.set(key, { value, until: now() + this.options.ttlMs });
          }
          return value;
        })
        .finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }

  /** Drops a key this replica has just changed, so that its own next read sees the change. */
  forget(key: string): void {
    this.entries.delete(key);
    this.loading.delete(key);
    this.generation += 1;
  }
}
