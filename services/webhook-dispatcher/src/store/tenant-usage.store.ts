import {
  MongoBulkWriteError,
  isDuplicateKeyError,
  type AnyBulkWriteOperation,
  type Collection,
  type Db,
} from '@checkout/mongo';
import type { Mode, Scope } from '@checkout/contracts';
import { COLLECTIONS } from './indexes';
import type { UsageCounts, UsageIncrement, UsageRecords } from '../domain/engine/records';

/**
 * One organization and mode's usage of one UTC day: `_id` is `organizationId|mode|day`, so a day's counts are one
 * document each tenant's writes `$inc`. `dayStart` is the day's UTC midnight, the retention sweep's field.
 */
interface TenantUsageDocument extends UsageCounts {
  _id: string;
  organizationId: string;
  mode: Mode;
  day: string;
  dayStart: Date;
}

const usageId = (scope: Scope, day: string) => `${scope.organizationId}|${scope.mode}|${day}`;

/** The only code that touches the tenant_usage collection (the budgets' counts, docs/webhooks.md "Budgets"). */
export class TenantUsageStore implements UsageRecords {
  private readonly collection: Collection<TenantUsageDocument>;

  constructor(db: Db) {
    this.collection = db.collection<TenantUsageDocument>(COLLECTIONS.tenantUsage);
  }

  /**
   * Adds every tenant's counts in one unordered command, one upsert per tenant and day. Two replicas creating one
   * tenant's document at once: the one refused as a duplicate is the only one sent again, now an update.
   */
  async add(increments: readonly UsageIncrement[]): Promise<void> {
    if (increments.length === 0) return;
    const operations = increments.map((increment) => this.upsert(increment));
    try {
      await this.collection.bulkWrite(operations, { ordered: false });
    } catch (err) {
      const again = duplicatesOf(err).map((index) => operations[index]);
      if (again.length === 0) throw err;
      await this.collection.bulkWrite(
        again.filter((op) => op !== undefined),
        { ordered: false },
      );
    }
  }

  async read(scope: Scope, day: string): Promise<UsageCounts> {
    const doc = await this.collection.findOne({ _id: usageId(scope, day) });
    return { events: doc?.events ?? 0, deliveries: doc?.deliveries ?? 0, bytes: doc?.bytes ?? 0 };
  }

  /** The counts of one day's tenants of one mode that reached any of `atLeast` (few: only those near a budget). */
  async reaching(day: string, mode: Mode, atLeast: UsageCounts): Promise<UsageCounts[]> {
    return this.collection
      .find(
        {
          day,
          mode,
          $or: [
            { events: { $gte: atLeast.events } },
            { deliveries: { $gte: atLeast.deliveries } },
            { bytes: { $gte: atLeast.bytes } },
          ],
        },
        { projection: { _id: 0, events: 1, deliveries: 1, bytes: 1 } },
      )
      .toArray();
  }

  private upsert({ scope, day, dayStart, counts }: UsageIncrement): AnyBulkWriteOperation<TenantUsageDocument> {
    return {
      updateOne: {
        filter: { _id: usageId(scope, day) },
        update: {
          $inc: { events: counts.events, deliveries: counts.deliveries, bytes: counts.bytes },
          $setOnInsert: { organizationId: scope.organizationId, mode: scope.mode, day, dayStart },
        },
        upsert: true,
      },
    };
  }
}

/** The operations of a bulk write refused only as duplicates (an upsert racing another); none if anything else. */
function duplicatesOf(err: unknown): number[] {
  if (!(err instanceof MongoBulkWriteError)) return [];
  type Refused = { index: number; code?: number };
  const refused: unknown = err.writeErrors;
  const errors: readonly Refused[] = Array.isArray(refused) ? (refused as Refused[]) : [refused as Refused];
  if (errors.length === 0 || !errors.every((e) => isDuplicateKeyError(e))) return [];
  return errors.map((e) => e.index);
}
