/**
 * D43: a fixed-window rate limit per API key, kept in this replica's memory (no database write per request).
 * Replicas do not talk to each other: each admits its share of the key's limit, ceil(limit / replicas), so
 * with requests spread over `replicas` replicas a key gets about `limit` per window (docs/decisions.md).
 *
 * Windows are aligned to the epoch (every key's window starts at a multiple of windowMs), so when the window
 * moves on every count is stale at once: the counts are dropped together, with no timer and no per-key sweep.
 */
export class RateLimiter {
  /** Requests this replica admits per key and window. */
  readonly share: number;
  private readonly windowMs: number;
  private window = Number.NaN;
  private readonly counts = new Map<string, number>();

  constructor(options: { limitPerWindow: number; windowMs: number; replicas: number }) {
    if (!(options.limitPerWindow >= 1 && options.windowMs >= 1 && options.replicas >= 1))
      throw new RangeError('rate limit, window and replicas must be at least 1');
    this.share = Math.ceil(options.limitPerWindow / options.replicas);
    this.windowMs = options.windowMs;
  }

  /**
   * Returns 0 when the request is admitted, else the whole seconds (at least 1) until its window ends. A request
   * costs `cost` of the share (1: a request; its body's bytes for a limit on bytes): it is admitted while the key has
   * used less than its share, so one request larger than the share still passes, alone in its window.
   */
  admit(keyId: string, now: number, cost = 1): number {
    const window = Math.floor(now / this.windowMs);
    if (window !== this.window) {
      this.window = window;
      this.counts.clear();
    }
    const used = this.counts.get(keyId) ?? 0;
    if (used < this.share) {
      this.counts.set(keyId, used + cost);
      return 0;
    }
    return Math.max(1, Math.ceil(((window + 1) * this.windowMs - now) / 1000));
  }

  /** Keys counted in the current window (for tests: memory stays bounded by the keys active in one window). */
  get trackedKeys(): number {
    return this.counts.size;
  }
}
