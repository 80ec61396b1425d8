// Group commit: writes that arrive while one is in progress are sent together as the next one. Nothing waits
// for a batch to fill: a lone write goes at once (no latency added when idle), and under load each database
// command carries everything that piled up during the previous one, so the number of commands per write falls
// as the rate rises. The engine executes commands one after another, so one command in flight is enough.

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

export class GroupCommit<T, R = void> {
  private waiting: Array<Waiting<T, R>> = [];
  private flushing = false;

  /** `write` returns one result per item, in the items' order. */
  constructor(
    private readonly write: (items: readonly T[]) => Promise<readonly R[]>,
    private readonly maxBatch = 1_000,
  ) {}

  /** Resolves with the item's result once it has been written (with whatever else was waiting), rejects if that write failed. */
  add(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, this.maxBatch);
        try {
          const results = await this.write(batch.map((w) => w.item));
          batch.forEach((w, i) => w.resolve(results[i] as R));
        } catch (err) {
          for (const w of batch) w.reject(err);
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}
