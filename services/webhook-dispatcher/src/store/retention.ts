import { MODES, type Mode } from '@checkout/contracts';
import { retentionSweep, type Db, type PeriodicTask, type RetentionRule } from '@checkout/mongo';
import { COLLECTIONS } from './indexes';

/**
 * The budgets' daily counts are kept a week past their day (operators read what a tenant made lately), whatever the
 * events' retention: one tiny document per organization, mode and day.
 */
const USAGE_KEEP_MS = 8 * 24 * 3_600_000;

/** The retention rules of events and finished deliveries, each mode kept for its own time (D34), and of the counts. */
export function webhookRetentionRules(keepMs: Readonly<Record<Mode, number>>): RetentionRule[] {
  return [
    ...MODES.flatMap((mode): RetentionRule[] => [
      { collection: COLLECTIONS.events, field: 'createdAt', keepMs: keepMs[mode], where: { mode } },
      {
        collection: COLLECTIONS.deliveries,
        field: 'createdAt',
        keepMs: keepMs[mode],
        where: { mode, status: { $ne: 'pending' } },
      },
    ]),
    { collection: COLLECTIONS.tenantUsage, field: 'dayStart', keepMs: USAGE_KEEP_MS },
  ];
}

/**
 * The retention sweep of events and finished deliveries (D34), every `intervalMs`: what is older than its mode's
 * `keepMs` goes (test mode's is shorter: what every merchant shares is not spent on keeping test traffic). Pending
 * deliveries are never deleted: they are still to be attempted.
 */
export function webhookRetention(
  db: Db,
  settings: { keepMs: Readonly<Record<Mode, number>>; intervalMs: number },
  onError: (err: unknown) => void,
): PeriodicTask {
  return retentionSweep(db, webhookRetentionRules(settings.keepMs), settings.intervalMs, onError);
}
