import {
  insertManyOnce,
  scoped,
  type Collection,
  type Db,
  type Filter,
  type PushOperator,
  type UpdateFilter,
  type Scope,
} from '@checkout/mongo';
import { COLLECTIONS } from './indexes';
import { deliveryStatsPipeline } from './delivery-stats.pipeline';
import type { AttemptRecord, DeliveryDocument } from './delivery.document';
import type { AttemptOutcome } from '../domain/rules/attempt-outcome';
import type { DeliveryFilter, DeliveryReads, HostAttemptTotals } from '../domain/ports';
import type {
  ClaimResult,
  DeliveryRecords,
  DeliveryRef,
  FailedPage,
  RecoverableDelivery,
} from '../domain/engine/records';

const RECOVERABLE_FIELDS = {
  _id: 1,
  url: 1,
  endpointId: 1,
  attemptCount: 1,
  organizationId: 1,
  mode: 1,
  eventId: 1,
} as const;
/** What the D51 walk reads: fields of its indexes only (no _id), so the index covers it. */
const EVENT_ORDER_FIELDS = { _id: 0, eventId: 1, eventCreatedAt: 1 } as const;

/**
 * The only code that touches the deliveries collection. The events API reads through `scope`; the dispatch
 * path (consumers, scheduler, sweep) works by delivery id on behalf of the platform, re-deriving the scope from
 * the stored document for every write. Every state change is one conditional update whose filter holds the
 * state it expects (pending, the attempt it follows, the hold), so concurrent writers are arbitrated by MongoDB.
 */
export class DeliveriesStore implements DeliveryRecords, DeliveryReads {
  readonly collection: Collection<DeliveryDocument>;

  constructor(db: Db) {
    this.collection = db.collection<DeliveryDocument>(COLLECTIONS.deliveries);
  }

  /** Inserts a delivery; inserting the same id again returns the stored one (a redelivered Kafka message). */
  async insertDelivery(
    scope: Scope,
    doc: Omit<DeliveryDocument, 'organizationId' | 'mode'>,
  ): Promise<{ delivery: DeliveryDocument; created: boolean }> {
    const { created, doc: delivery } = await scoped(this.collection, scope).insertOnce(doc);
    if (!delivery) throw new Error(`delivery ${doc._id} exists under another organization or mode`);
    return { delivery, created };
  }

  /**
   * Inserts many deliveries (of any scopes) in one command, each once: the unique _id arbitrates, so of two
   * processes that both made a delivery's first attempt (a rebalance, a crash) one records it. Returns the ids
   * that already existed; those writes did nothing.
   */
  insertDeliveries(docs: readonly DeliveryDocument[]): Promise<Set<string>> {
    return insertManyOnce(this.collection, docs);
  }

  /**
   * Gives back this owner's hold on new deliveries it could not keep in memory, in one command: nobody holds them
   * from `now`, so a lane's refill or the recovery sweep takes them. Only those still before their first attempt.
   */
  async releaseHolds(ids: readonly string[], owner: string, now: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.collection.updateMany(
      { _id: { $in: [...ids] }, status: 'pending', attemptCount: 0, lockOwner: owner },
      { $set: { lockOwner: null, lockedUntil: now, updatedAt: now } },
    );
  }

  listForEvent(scope: Scope, eventId: string): Promise<DeliveryDocument[]> {
    return scoped(this.collection, scope).find({ eventId }).sort({ createdAt: 1, _id: 1 }).toArray();
  }

  /**
   * D47's delivery chart, summed in the database: the attempts made since `from`, per callback host (the URL's
   * authority, lowercased, without userinfo), with their successes (a 2xx and no error: D31) and a histogram of
   * their durations (rounded down to two significant digits, exact below 100 ms); the `hosts` hosts with the most
   * attempts. Served by org_mode_updatedAt (an attempt moves updatedAt). `$unwind` and `$group` run in the
   * database, so this process holds at most `hosts` hosts of a few hundred buckets each (a merchant's 10⁶
   * deliveries with their attempts used to be read into memory here).
   */
  deliveryStatsSince(scope: Scope, from: Date, hosts: number): Promise<HostAttemptTotals[]> {
    return scoped(this.collection, scope).aggregate<HostAttemptTotals>(
      { updatedAt: { $gte: from } },
      deliveryStatsPipeline(from, hosts),
    );
  }

  /** D47: the most recently failed deliveries, newest first (org_mode_status_updatedAt, read backwards). */
  listRecentlyFailed(scope: Scope, limit: number): Promise<DeliveryDocument[]> {
    return scoped(this.collection, scope)
      .find({ status: 'failed' })
      .sort({ updatedAt: -1, _id: -1 })
      .limit(limit)
      .toArray();
  }

  /**
   * One page of the failed deliveries not recovered yet whose last change is at or after `since`, in (updatedAt,
   * _id) order from just after `after` (POST /events/recover, D44: read a page at a time, never all at once); the
   * caller checks the last attempt's time. With `endpointId`, only that webhook endpoint's (D50).
   */
  listUnrecoveredFailedSince(
    scope: Scope,
    { since, after, limit, endpointId }: FailedPage,
  ): Promise<DeliveryDocument[]> {
    const filter: Filter<DeliveryDocument> = {
      status: 'failed',
      recoveredBy: { $exists: false },
      updatedAt: { $gte: since },
      ...(endpointId !== undefined && { endpointId }),
    };
    if (after)
      filter.$or = [{ updatedAt: { $gt: after.updatedAt } }, { updatedAt: after.updatedAt, _id: { $gt: after._id } }];
    return scoped(this.collection, scope).find(filter).sort({ updatedAt: 1, _id: 1 }).limit(limit).toArray();
  }

  /**
   * D50's dashboard page of one endpoint: its deliveries, newest event first, one more than the page to tell whether
   * another follows (org_mode_endpointId_eventCreatedAt_eventId).
   */
  listForEndpoint(scope: Scope, endpointId: string, page: number, limit: number): Promise<DeliveryDocument[]> {
    return scoped(this.collection, scope)
      .find({ endpointId })
      .sort({ eventCreatedAt: -1, eventId: -1 })
      .skip((page - 1) * limit)
      .limit(limit + 1)
      .toArray();
  }

  /** D50: whether any delivery to this endpoint succeeded after `since` (an endpoint's run of failures ended). */
  async succeededToEndpointSince(scope: Scope, endpointId: string, since: Date): Promise<boolean> {
    const found = await scoped(this.collection, scope).findOne(
      { endpointId, status: 'succeeded', updatedAt: { $gt: since } },
      { projection: { _id: 1 } },
    );
    return found !== null;
  }

  /**
   * D51: the events (ids) that have a delivery matching `filter`, newest first as the events list is ordered (the
   * event's createdAt, then its id), from the start up to `upTo` distinct events. Deliveries are read in that order
   * from an index that starts with the filter's fields, so one event's deliveries come together and are counted
   * once. Bounded three ways: the caller's `upTo` (page × limit is capped: DELIVERY_SEARCH_MAX), a projection the
   * index covers (no _id: a covered read never loads a document, unless `type` is filtered too), and `maxTimeMs`
   * in the database, under the gateway's upstream timeout, so no query outlives the request that asked for it
   * (MaxTimeMSExpired answers 503, libs/http).
   */
  async eventIdsWithDeliveries(
    scope: Scope,
    filter: DeliveryFilter,
    upTo: number,
    maxTimeMs: number,
  ): Promise<string[]> {
    const cursor = scoped(this.collection, scope)
      .find(deliveryQuery(filter), { projection: EVENT_ORDER_FIELDS })
      .sort({ eventCreatedAt: -1, eventId: -1 })
      .maxTimeMS(maxTimeMs)
      .batchSize(Math.min(1_000, upTo + 1));
    const ids: string[] = [];
    let last: string | undefined;
    try {
      for await (const delivery of cursor) {
        if (delivery.eventId === last) continue;
        last = delivery.eventId;
        ids.push(delivery.eventId);
        if (ids.length >= upTo) break;
      }
    } finally {
      await cursor.close();
    }
    return ids;
  }

  /** Of these events, those with a delivery matching `filter` (a session's few events, filtered by delivery). */
  async eventsWithDeliveriesAmong(
    scope: Scope,
    eventIds: readonly string[],
    filter: DeliveryFilter,
  ): Promise<Set<string>> {
    if (eventIds.length === 0) return new Set();
    const found = await scoped(this.collection, scope)
      .find({ ...deliveryQuery(filter), eventId: { $in: [...eventIds] } }, { projection: { eventId: 1 } })
      .toArray();
    return new Set(found.map((delivery) => delivery.eventId));
  }

  /** Records which delivery recovered a failed one, so that a later recovery skips it. */
  async markRecovered(delivery: DeliveryRef, recoveredBy: string, now: Date): Promise<void> {
    // Only the first recovery marks it: the condition is the mark's absence, in one update.
    await this.collection.updateOne(
      { ...one(delivery), recoveredBy: { $exists: false } },
      { $set: { recoveredBy, updatedAt: now } },
    );
  }

  getForDispatch(id: string): Promise<DeliveryDocument | null> {
    return this.collection.findOne({ _id: id });
  }

  /**
   * Takes a delivery for attempt `attempt`: only while it is pending, the attempt is the next one, and no other
   * live process holds it in flight. A waiting retry (lockOwner null) may be taken by whoever brings its attempt.
   */
  async claim(input: {
    delivery: DeliveryRef;
    attempt: number;
    owner: string;
    now: Date;
    holdMs: number;
  }): Promise<ClaimResult> {
    const claimable: Filter<DeliveryDocument> = {
      ...one(input.delivery, input.attempt),
      $or: [{ lockOwner: null }, { lockOwner: input.owner }, { lockedUntil: { $lte: input.now } }],
    };
    const claimed = await this.collection.findOneAndUpdate(
      claimable,
      {
        $set: {
          lockOwner: input.owner,
          lockedUntil: new Date(input.now.getTime() + input.holdMs),
          updatedAt: input.now,
        },
      },
      { returnDocument: 'after' },
    );
    if (claimed) return { claimed: true, delivery: claimed };
    // Refused: one more read says why (only the refusal pays for it).
    const current = await this.collection.findOne(one(input.delivery));
    if (!current) return { claimed: false, reason: 'missing' };
    if (current.status !== 'pending') return { claimed: false, reason: 'finished' };
    if (current.attemptCount + 1 !== input.attempt) return { claimed: false, reason: 'stale' };
    return { claimed: false, reason: 'busy' };
  }

  /**
   * Appends attempt `attempt` and moves the delivery on, in one conditional update that names the attempt it
   * follows: null when that attempt was already recorded (by a replica that took over a lapsed hold).
   */
  recordAttempt(delivery: DeliveryRef, outcome: AttemptOutcome, now: Date): Promise<DeliveryDocument | null> {
    return this.collection.findOneAndUpdate(one(delivery, outcome.record.attempt), attemptUpdate(outcome, now), {
      returnDocument: 'after',
    });
  }

  /**
   * recordAttempt for many successful attempts in one command: each update is still conditional on the attempt it
   * follows, and they are unordered, so one that lost (already recorded elsewhere) does not hold back the rest.
   * Returns how many were recorded.
   */
  async recordAttempts(
    items: ReadonlyArray<{ delivery: DeliveryRef; outcome: AttemptOutcome; now: Date }>,
  ): Promise<number> {
    if (items.length === 0) return 0;
    const result = await this.collection.bulkWrite(
      items.map(({ delivery, outcome, now }) => ({
        updateOne: { filter: one(delivery, outcome.record.attempt), update: attemptUpdate(outcome, now) },
      })),
      { ordered: false },
    );
    return result.matchedCount;
  }

  /**
   * Gives attempt `attempt` back, not made (nothing was sent: D35, the signing secret could not be read): the
   * delivery stays pending with the attempts it had, and nobody holds it from `until`, when the recovery sweep
   * brings it back. Conditional on the attempt it would have been, like recordAttempt.
   */
  async deferAttempt(delivery: DeliveryRef, attempt: number, until: Date, now: Date): Promise<void> {
    await this.collection.updateOne(one(delivery, attempt), {
      $set: { nextAttemptAt: until, lockedUntil: until, lockOwner: null, updatedAt: now },
    });
  }

  /**
   * Pending deliveries that nobody holds any more: a crash, a lost retry message, a spilled queue. Those of the
   * organizations and modes in `skip` (whose queues are full here) are left out, so that one merchant's spilled
   * backlog never takes every place of a sweep and keeps the others' deliveries waiting.
   */
  findRecoverable(
    now: Date,
    limit: number,
    skip: { lanes: readonly Scope[]; modes: readonly Scope['mode'][] } = { lanes: [], modes: [] },
  ): Promise<RecoverableDelivery[]> {
    const filter: Filter<DeliveryDocument> = { status: 'pending', lockedUntil: { $lt: now } };
    const excluded: Array<Filter<DeliveryDocument>> = [
      ...skip.lanes.map(({ organizationId, mode }) => ({ organizationId, mode })),
      ...(skip.modes.length > 0 ? [{ mode: { $in: [...skip.modes] } }] : []),
    ];
    if (excluded.length > 0) filter.$nor = excluded;
    return this.collection
      .find(filter, { projection: RECOVERABLE_FIELDS })
      .sort({ lockedUntil: 1 })
      .limit(limit)
      .toArray();
  }

  /** findRecoverable for one organization and mode: a lane taking back what it spilled (Recovery.refillLane). */
  findRecoverableOf(scope: Scope, now: Date, limit: number): Promise<RecoverableDelivery[]> {
    return scoped(this.collection, scope)
      .find({ status: 'pending', lockedUntil: { $lt: now } }, { projection: RECOVERABLE_FIELDS })
      .sort({ lockedUntil: 1 })
      .limit(limit)
      .toArray();
  }

  findDeadLetterPending(limit: number): Promise<DeliveryDocument[]> {
    return this.collection.find({ deadLetterPending: true }).limit(limit).toArray();
  }

  async markDeadLettered(delivery: DeliveryRef, now: Date): Promise<void> {
    await this.collection.updateOne(
      { ...one(delivery), deadLetterPending: true },
      { $set: { deadLetterPending: false, updatedAt: now } },
    );
  }
}

/** The deliveries a D51 filter names: each given field equal, the event's time in [createdAfter, createdBefore). */
function deliveryQuery(filter: DeliveryFilter): Filter<DeliveryDocument> {
  const query: Filter<DeliveryDocument> = {};
  if (filter.status !== undefined) query.status = filter.status;
  if (filter.endpointId !== undefined) query.endpointId = filter.endpointId;
  if (filter.eventType !== undefined) query.eventType = filter.eventType;
  if (filter.createdAfter !== undefined || filter.createdBefore !== undefined)
    query.eventCreatedAt = {
      ...(filter.createdAfter !== undefined && { $gte: filter.createdAfter }),
      ...(filter.createdBefore !== undefined && { $lt: filter.createdBefore }),
    };
  return query;
}

/**
 * One delivery by its id and its shard key (WEBHOOK_SHARDING): a write the cluster sends to one shard. With `awaiting`,
 * the delivery as it is just before that attempt: still pending, with the attempts before it recorded. Every write
 * about an attempt is conditional on it, so of two processes acting on one attempt one wins.
 */
function one(delivery: DeliveryRef, awaiting?: number): Filter<DeliveryDocument> {
  const { _id, organizationId, mode, eventId } = delivery;
  return awaiting === undefined
    ? { _id, organizationId, mode, eventId }
    : { _id, organizationId, mode, eventId, status: 'pending', attemptCount: awaiting - 1 };
}

/** The update for one attempt: the attempt appended, the outcome's state taken, the hold released. */
function attemptUpdate(outcome: AttemptOutcome, now: Date): UpdateFilter<DeliveryDocument> {
  return {
    // The driver's PushOperator cannot resolve array fields of a document type with an index signature
    // (ScopedDocument extends Document); the shape is checked by `satisfies` instead.
    $push: { attempts: outcome.record } satisfies {
      attempts: AttemptRecord;
    } as unknown as PushOperator<DeliveryDocument>,
    $set: {
      attemptCount: outcome.record.attempt,
      status: outcome.status,
      nextAttemptAt: outcome.nextAttemptAt,
      lockedUntil: outcome.lockedUntil,
      lockOwner: null,
      deadLetterPending: outcome.deadLetterPending,
      updatedAt: now,
    },
  };
}
