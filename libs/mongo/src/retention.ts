import type { Db, Document, Filter } from 'mongodb';
import { PeriodicTask } from './periodic-task';

/**
 * How long the documents of one collection are kept: those whose `field` (a Date) is older than `keepMs` are
 * deleted, if they also match `where` (e.g. only deliveries that reached a final status). The field needs an
 * index (declare it in the service's indexes.ts) so the delete does not scan.
 */
export interface RetentionRule {
  collection: string;
  field: string;
  keepMs: number;
  where?: Filter<Document>;
}

/** Deletes what the rules no longer keep; returns the count per collection. Safe on many replicas at once. */
export async function applyRetention(
  db: Db,
  rules: readonly RetentionRule[],
  now = Date.now(),
): Promise<Record<string, number>> {
  const deleted: Record<string, number> = {};
  for (const rule of rules) {
    const filter: Filter<Document> = { ...rule.where, [rule.field]: { $lt: new Date(now - rule.keepMs) } };
    const { deletedCount } = await db.collection(rule.collection).deleteMany(filter);
    deleted[rule.collection] = (deleted[rule.collection] ?? 0) + deletedCount;
  }
  return deleted;
}

/**
 * The retention sweep of a service (nothing grows without bound). A sweep rather than TTL indexes:
 * it is one mechanism for every collection whatever the engine (the local engines apply no TTL), it can
 * keep documents a TTL index could not tell apart (a delivery still pending), and it runs in the sweeper role.
 */
export function retentionSweep(
  db: Db,
  rules: readonly RetentionRule[],
  intervalMs: number,
  onError: (err: unknown) => void,
): PeriodicTask {
  return new PeriodicTask(() => applyRetention(db, rules), intervalMs, onError);
}
