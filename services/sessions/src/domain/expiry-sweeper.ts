import type { Logger } from '@checkout/logger';

/**
 * Flow 4's timer: every intervalMs, one sweep (SessionCommands.sweepDue). Every replica may run one; the
 * per-session lease and the re-read status inside sweepDue make each session expire, and fire, exactly once.
 */
export class ExpirySweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(
    private readonly sweep: () => Promise<number>,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.sweep()
        .then((n) => {
          if (n > 0) this.logger.debug({ settled: n }, 'expiry sweep');
        })
        .catch((err: unknown) => this.logger.warn({ err }, 'expiry sweep failed; will retry'))
        .finally(() => {
          this.running = undefined;
          this.schedule(this.intervalMs);
        });
    }, delayMs);
    this.timer.unref();
  }
}
