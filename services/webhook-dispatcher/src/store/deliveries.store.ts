import type { Collection, Db } from 'mongodb';
import { Leases, isDuplicateKeyError, scoped, type Scope } from '@checkout/mongo';
import { COLLECTIONS } from './indexes';
import type { AttemptRecord, DeliveryDocument } from './documents';

export const deliveryLeaseKey = (id: string): string => `deliveries:${id}`;

export type ClaimResult = { claimed: true; delivery: DeliveryDocument } | { claimed: false; reason: 'missing' | 'finished' | 'stale' | 'busy' };

export interface AttemptOutcome {
  record: AttemptRecord;
  status: DeliveryDocument['status'];
  nextAttemptAt: Date | null;
  /** Until when the retry tier (or nobody, for finished deliveries) holds it. */
  lockedUntil: Date;
  deadLetterPending: boolean;
}

/**
 * The only code that touches the deliveries collection. The events API reads through `scope`; the dispatch
 * path (consumers, scheduler, sweep) works by delivery id on behalf of the platform, re-deriving the scope from
 * the stored document for every write. Every read-modify-write runs under the delivery's lease
 * (docs/engineering.md: FerretDB has no atomic conditional update).
 */
export class DeliveriesStore {
  readonly collection: Collection<DeliveryDocument>;

  constructor(
    db: Db,
    private readonly leases: Leases,
  ) {
    this.collection = db.collection<DeliveryDocument>(COLLECTIONS.deliveries);
  }

  /** Inserts a delivery; inserting the same id again returns the stored one (a redelivered Kafka message). */
  async insertDelivery(scope: Scope, doc: Omit<DeliveryDocument, 'organizationId' | 'mode'>): Promise<{ delivery: DeliveryDocument; created: boolean }> {
    const deliveries = scoped(this.collection, scope);
    try {
      await deliveries.insertOne(doc);
      return { delivery: { ...doc, organizationId: scope.organizationId, mode: scope.mode } as DeliveryDocument, created: true };
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      const existing = await deliveries.findOne({ _id: doc._id });
      if (!existing) throw new Error(`delivery ${doc._id} exists under another organization or mode`);
      return { delivery: existing, created: false };
    }
  }

  listForEvent(scope: Scope, eventId: string): Promise<DeliveryDocument[]> {
    return scoped(this.collection, scope).find({ eventId }).sort({ createdAt: 1, _id: 1 }).toArray();
  }

  /** Failed deliveries whose last write is at or after `since` (D44); the caller checks the last attempt's time. */
  listFailedSince(scope: Scope, since: Date, limit: number): Promise<DeliveryDocument[]> {
    return scoped(this.collection, scope).find({ status: 'failed', updatedAt: { $gte: since } }).sort({ updatedAt: 1, _id: 1 }).limit(limit).toArray();
  }

  /** Records which delivery recovered a failed one, so that a later recovery skips it. */
  async markRecovered(id: string, recoveredBy: string, now: Date): Promise<void> {
    await this.leases.withLease(deliveryLeaseKey(id), async () => {
      const current = await this.collection.findOne({ _id: id });
      if (!current || current.recoveredBy !== undefined) return;
      await scoped(this.collection, scopeOf(current)).replaceOne(current._id, { ...current, recoveredBy, updatedAt: now });
    });
  }

  getForDispatch(id: string): Promise<DeliveryDocument | null> {
    return this.collection.findOne({ _id: id });
  }

  /**
   * Takes a delivery for attempt `attempt`: only while it is pending, the attempt is the next one, and no other
   * live process holds it in flight. A waiting retry (lockOwner null) may be taken by whoever brings its attempt.
   */
  claim(input: { id: string; attempt: number; owner: string; now: Date; holdMs: number }): Promise<ClaimResult> {
    return this.leases.withLease(deliveryLeaseKey(input.id), async () => {
      const current = await this.collection.findOne({ _id: input.id });
      if (!current) return { claimed: false, reason: 'missing' } as const;
      if (current.status !== 'pending') return { claimed: false, reason: 'finished' } as const;
      if (current.attemptCount + 1 !== input.attempt) return { claimed: false, reason: 'stale' } as const;
      if (current.lockOwner !== null && current.lockOwner !== input.owner && current.lockedUntil > input.now) return { claimed: false, reason: 'busy' } as const;
      const next: DeliveryDocument = { ...current, lockOwner: input.owner, lockedUntil: new Date(input.now.getTime() + input.holdMs), updatedAt: input.now };
      await scoped(this.collection, scopeOf(current)).replaceOne(current._id, next);
      return { claimed: true, delivery: next } as const;
    });
  }

  /** Appends attempt `attempt` and moves the delivery on; null when that attempt was already recorded. */
  recordAttempt(id: string, outcome: AttemptOutcome, now: Date): Promise<DeliveryDocument | null> {
    return this.leases.withLease(deliveryLeaseKey(id), async () => {
      const current = await this.collection.findOne({ _id: id });
      if (!current || current.status !== 'pending' || current.attemptCount + 1 !== outcome.record.attempt) return null;
      const next = withAttempt(current, outcome, now);
      await scoped(this.collection, scopeOf(current)).replaceOne(current._id, next);
      return next;
    });
  }

  /**
   * Records an attempt on a delivery this process holds (lockOwner = us, lockedUntil still ahead with a margin)
   * with one write and no lease: every other writer of a pending delivery goes through claim(), which refuses
   * while our hold is live, so nothing can be overwritten. Callers fall back to recordAttempt() otherwise.
   */
  async recordAttemptHeld(held: DeliveryDocument, outcome: AttemptOutcome, now: Date): Promise<DeliveryDocument> {
    const next = withAttempt(held, outcome, now);
    await scoped(this.collection, scopeOf(held)).replaceOne(held._id, next);
    return next;
  }

  /** Pending deliveries that nobody holds any more: a crash, a lost retry message, a spilled queue. */
  findRecoverable(now: Date, limit: number): Promise<Array<Pick<DeliveryDocument, '_id' | 'url' | 'attemptCount'>>> {
    return this.collection
      .find({ status: 'pending', lockedUntil: { $lt: now } }, { projection: { _id: 1, url: 1, attemptCount: 1 } })
      .sort({ lockedUntil: 1 })
      .limit(limit)
      .toArray();
  }

  findDeadLetterPending(limit: number): Promise<DeliveryDocument[]> {
    return this.collection.find({ deadLetterPending: true }).limit(limit).toArray();
  }

  async markDeadLettered(id: string, now: Date): Promise<void> {
    await this.leases.withLease(deliveryLeaseKey(id), async () => {
      const current = await this.collection.findOne({ _id: id });
      if (!current || !current.deadLetterPending) return;
      await scoped(this.collection, scopeOf(current)).replaceOne(current._id, { ...current, deadLetterPending: false, updatedAt: now });
    });
  }
}

function scopeOf(doc: DeliveryDocument): Scope {
  return { organizationId: doc.organizationId, mode: doc.mode };
}

/** The delivery after one attempt: the attempt appended, the outcome's state taken, the hold released. */
function withAttempt(delivery: DeliveryDocument, outcome: AttemptOutcome, now: Date): DeliveryDocument {
  return {
    ...delivery,
    attempts: [...delivery.attempts, outcome.record],
    attemptCount: outcome.record.attempt,
    status: outcome.status,
    nextAttemptAt: outcome.nextAttemptAt,
    lockedUntil: outcome.lockedUntil,
    lockOwner: null,
    deadLetterPending: outcome.deadLetterPending,
    updatedAt: now,
  };
}
