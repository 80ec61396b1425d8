// Group commit: writes that arrive while one is in progress are sent together as the next one. Nothing waits
// for a batch to fill: a lone write goes at once (no latency added when idle), and under load each command
// carries everything that piled up during the previous one, so the number of commands per write falls as the
// rate rises. The engines (the database, the broker with one produce request in flight) take one command after
// another from a process anyway, so one in flight is enough.

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

export interface GroupCommitOptions {
  /** Items per write at most. */
  maxBatch?: number;
  /**
   * When a write of several items fails with an error for which this is true (one item's content was refused,
   * not the engine unreachable), each item is written again on its own, so a bad item fails only its caller.
   * Otherwise every item of the failed write fails with its error, as each would have alone.
   */
  retryAloneWhen?: (err: unknown) => boolean;
}

export class GroupCommit<T, R = void> {
  private waiting: Array<Waiting<T, R>> = [];
  private flushing = false;

  /** `write` returns one result per item, in the items' order. */
  constructor(
    private readonly write: (items: readonly T[]) => Promise<readonly R[]>,
    private readonly options: GroupCommitOptions = {},
  ) {}

  /**
   * Resolves with the item's result once it has been written (with whatever else was waiting), rejects if that write
   * failed.
   */
  add(item: T): Promise<R> {
    const result = new Promise<R>((resolve, reject) => this.waiting.push({ item, resolve, reject }));
    if (!this.flushing) void this.flush();
    return result;
  }

  /** As add, for items that arrive together: they go in one write (up to maxBatch), with whatever else waits. */
  addAll(items: readonly T[]): Promise<R[]> {
    const results = items.map(
      (item) => new Promise<R>((resolve, reject) => this.waiting.push({ item, resolve, reject })),
    );
    if (!this.flushing) void this.flush();
    return Promise.all(results);
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, this.options.maxBatch ?? Number.POSITIVE_INFINITY);
        try {
          const results = await this.write(batch.map((w) => w.item));
          batch.forEach((w, i) => w.resolve(results[i] as R));
        } catch (err) {
          if (batch.length > 1 && this.options.retryAloneWhen?.(err)) {
            for (const w of batch) await this.write([w.item]).then((results) => w.resolve(results[0] as R), w.reject);
          } else {
            for (const w of batch) w.reject(err);
          }
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}
