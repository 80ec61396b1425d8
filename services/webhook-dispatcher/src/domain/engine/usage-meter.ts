import { GroupCommit } from '@checkout/coalesce';
import type { Logger } from '@checkout/logger';
import type { DeliveryDocument } from '../../store/delivery.document';
import type { EventDocument } from '../../store/event.document';
import type { UsageIncrement, UsageRecords } from './records';
import { mergeIncrements, storedBytes, usageIncrements } from '../rules/usage';

/**
 * Counts what the recorder stores against its tenant's budgets (docs/webhooks.md, "Budgets"): only what an insert
 * made (a replayed message finds its documents stored and counts nothing). The counts of everything stored while
 * one update is out go together in the next, one upsert per tenant, all in one command, so a burst of batches costs
 * a command per group commit, never one per event. Nothing waits for it: an attempt is not delayed by its count, and
 * a count that fails (the database away) is lost, not retried: the budgets protect capacity, they are not a bill.
 */
export class UsageMeter {
  private readonly updates: GroupCommit<UsageIncrement>;

  constructor(
    store: Pick<UsageRecords, 'add'>,
    private readonly clock: () => Date,
    private readonly logger: Logger,
  ) {
    this.updates = new GroupCommit(async (increments) => {
      await store.add(mergeIncrements(increments));
      return increments.map((): void => undefined);
    });
  }

  /** Events an insert made. */
  events(created: readonly EventDocument[]): void {
    this.count(created.map((doc) => ({ doc, kind: 'events' as const, bytes: storedBytes(doc) })));
  }

  /** Deliveries an insert made. */
  deliveries(created: readonly DeliveryDocument[]): void {
    this.count(created.map((doc) => ({ doc, kind: 'deliveries' as const, bytes: storedBytes(doc) })));
  }

  private count(counted: Parameters<typeof usageIncrements>[0]): void {
    if (counted.length === 0) return;
    void this.updates.addAll(usageIncrements(counted, this.clock())).catch((err: unknown) => {
      this.logger.warn({ err }, 'could not count usage against the budgets; these counts are lost');
    });
  }
}
