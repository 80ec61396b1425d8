import { PeriodicTask } from '@checkout/mongo';
import type { Logger } from '@checkout/logger';
import type { ExclusiveWork } from './ports';
import type { Recovery } from './recovery';

const SWEEP_LEASE = 'webhook-dispatcher:recovery-sweep';

export interface BackgroundWorkSettings {
  recoveryIntervalMs: number;
  /** Each recovery round, whether this process took the lease (webhook_recovery_sweeps_total). */
  onRecoveryRound?: (leaseTaken: boolean) => void;
}

/**
 * Periodic work of the stores' own (the retention sweep of events and finished deliveries, D34) and the budgets'
 * gauge.
 */
export interface StoreSweep {
  start(): void;
  stop(): Promise<void>;
}

/**
 * The dispatcher's periodic work, run by sweeper pods: the recovery sweep, one replica at a time (a lease), and
 * the stores' retention sweep, and the count of tenants near their budgets.
 */
export class BackgroundWork {
  private readonly recoveryTask: PeriodicTask;

  constructor(
    private readonly leases: ExclusiveWork,
    private readonly recovery: Recovery,
    private readonly sweeps: readonly StoreSweep[],
    private readonly settings: BackgroundWorkSettings,
    logger: Logger,
  ) {
    this.recoveryTask = new PeriodicTask(
      () => this.sweepOnce(),
      settings.recoveryIntervalMs,
      (err) => logger.warn({ err }, 'recovery sweep failed; will retry'),
    );
  }

  start(): void {
    this.recoveryTask.start();
    for (const sweep of this.sweeps) sweep.start();
  }

  async stop(): Promise<void> {
    await this.recoveryTask.stop();
    await Promise.all(this.sweeps.map((sweep) => sweep.stop()));
  }

  /** One recovery sweep, if no other replica is running one; returns how many deliveries it queued. */
  async sweepOnce(): Promise<number> {
    const lease = await this.leases.tryAcquire(SWEEP_LEASE, Math.max(2 * this.settings.recoveryIntervalMs, 5_000));
    this.settings.onRecoveryRound?.(lease !== null);
    if (!lease) return 0;
    try {
      return await this.recovery.sweep();
    } finally {
      await lease.release().catch(() => {});
    }
  }
}
