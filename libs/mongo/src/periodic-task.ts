/**
 * Runs `run` now and then again `intervalMs` after each run finishes, never two at once, until stopped.
 * The sweeps that stand in for what FerretDB lacks (TTL indexes, change streams) — outbox leftovers, due
 * sessions, stale webhook deliveries — all run on it. A failed run is reported and the next one still comes.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(
    private readonly run: () => Promise<unknown>,
    private readonly intervalMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops scheduling and waits for a run in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.run()
        .then(() => undefined, this.onError)
        .finally(() => {
          this.running = undefined;
          this.schedule(this.intervalMs);
        });
    }, delayMs);
    this.timer.unref();
  }
}
