/** A count of work in progress that callers can wait to see fall below a bound (back-pressure). */
export class Backlog {
  private count = 0;
  private waiters: Array<{ bound: number; resolve: () => void }> = [];

  get size(): number {
    return this.count;
  }

  add(n: number): void {
    this.count += n;
    if (n < 0 && this.waiters.length > 0) {
      const still: typeof this.waiters = [];
      for (const waiter of this.waiters) {
        if (this.count < waiter.bound) waiter.resolve();
        else still.push(waiter);
      }
      this.waiters = still;
    }
  }

  /** Resolves once the count is below `bound` (at once when it is). */
  below(bound: number): Promise<void> {
    if (this.count < bound) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ bound, resolve }));
  }
}
