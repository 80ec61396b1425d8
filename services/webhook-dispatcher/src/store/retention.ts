import { retentionSweep, type Db, type PeriodicTask } from '@checkout/mongo';
import { COLLECTIONS } from './indexes';

/**
 * The retention sweep of events and finished deliveries (D34), every `intervalMs`: what is older than `keepMs` goes.
 * Pending deliveries are never deleted: they are still to be attempted.
 */
export function webhookRetention(
  db: Db,
  settings: { keepMs: number; intervalMs: number },
  onError: (err: unknown) => void,
): PeriodicTask {
  return retentionSweep(
    db,
    [
      { collection: COLLECTIONS.events, field: 'createdAt', keepMs: settings.keepMs },
      {
        collection: COLLECTIONS.deliveries,
        field: 'createdAt',
        keepMs: settings.keepMs,
        where: { status: { $ne: 'pending' } },
      },
    ],
    settings.intervalMs,
    onError,
  );
}
