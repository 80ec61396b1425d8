import { GroupCommit } from '@checkout/coalesce';
import { DomainError } from '@checkout/errors';
import type { Scope } from '@checkout/mongo';
import { derivedId, newId, type Mode } from '@checkout/contracts';
import { currentTraceCarrier, type TraceCarrier } from '@checkout/telemetry';
import type { DeliveryDocument } from '../store/delivery.document';
import type { EventDocument } from '../store/event.document';
import type { Attempts } from './attempts';
import type { DispatcherDeps, IncomingEvent } from './ports';

/** Most events (with their deliveries) written by one batched command. */
const WRITE_BATCH_LIMIT = 200;

/**
 * The id of an event's first delivery, derived from the event id: the event and its delivery are inserted at the
 * same time (neither needs the other's result), and a redelivered message names the same delivery.
 */
export function initialDeliveryId(eventId: string, mode: Mode): string {
  return derivedId('dlv', mode, `initial:${eventId}`);
}

/**
 * The webhook body exactly as D30 and D49 order it: `{id, event, createdAt, session}`, or `{id, event, createdAt,
 * order}` and `{id, event, createdAt, refund, order}` as orders produced them (plus anything newer a producer added).
 */
export function webhookBodyJson(rawBody: Record<string, unknown>): string {
  const { id, event, createdAt, session, ...rest } = rawBody;
  return JSON.stringify({ id, event, createdAt, session, ...rest });
}

/** A consumed batch as it is stored: its events, and the first delivery of each that has a callback URL (D32). */
interface BatchDocuments {
  events: EventDocument[];
  deliveries: Array<{ delivery: DeliveryDocument; body: string }>;
}

/**
 * Records what is to be delivered: the events of a consumed batch each with its first delivery, and the new
 * deliveries of a redelivery or a recovery. A delivery is stored before it is attempted, pending and held by
 * this process, so what is stored is what a crash leaves to the recovery sweep; then it is queued for its attempt.
 */
export class Recorder {
  /** Events as they arrive, the batches of every partition together; true for each this insert made. */
  private readonly eventInserts: GroupCommit<EventDocument, boolean>;
  /** First deliveries likewise, in a command of their own: their attempts wait for it, not for the events'. */
  private readonly deliveryInserts: GroupCommit<DeliveryDocument, boolean>;
  /** Holds given back on deliveries that did not fit in memory here. */
  private readonly releases: GroupCommit<string>;

  constructor(
    private readonly deps: DispatcherDeps,
    private readonly attempts: Attempts,
  ) {
    this.eventInserts = new GroupCommit(
      async (docs) => {
        const recorded = await deps.events.recordEvents(docs);
        return docs.map((doc) => recorded.get(doc._id)?.created === true);
      },
      { maxBatch: WRITE_BATCH_LIMIT },
    );
    this.deliveryInserts = new GroupCommit(
      async (docs) => {
        const existing = await deps.deliveries.insertDeliveries(docs);
        return docs.map((doc) => !existing.has(doc._id));
      },
      { maxBatch: WRITE_BATCH_LIMIT },
    );
    this.releases = new GroupCommit(
      async (ids) => {
        await deps.deliveries.releaseHolds(ids, deps.owner, deps.clock());
        return ids.map((): void => undefined);
      },
      { maxBatch: WRITE_BATCH_LIMIT },
    );
  }

  /**
   * Consumer handler for one fetched batch: stores its events and their first deliveries (one insert per
   * collection, shared with the batches of other partitions arriving meanwhile), and queues each new delivery's
   * first attempt once that delivery is stored. It takes a place in the scheduler for each delivery: while the
   * scheduler is full it waits here (back-pressure: the partition's next fetch waits and the rest stays in
   * Kafka), but never for the database: kafkajs fetches again only once every batch of the last fetch is handed
   * over, so a handler that waited for the inserts would hold back every partition. `done` resolves once the
   * events and the deliveries are stored; the consumer commits the batch's offsets then. A replayed message finds
   * its delivery stored and leaves it to whoever holds it (or, once that hold lapses, to the recovery sweep).
   */
  async recordEventsAndQueueFirstAttempts(batch: readonly IncomingEvent[]): Promise<{ done: Promise<void> }> {
    const { events, deliveries } = this.documentsOf(batch, this.deps.clock());
    // The deliveries' command goes first: their attempts wait for it only.
    const storingDeliveries = this.deliveryInserts.addAll(deliveries.map(({ delivery }) => delivery));
    const storingEvents = this.eventInserts.addAll(events);
    storingEvents.then(
      (created) => {
        const undeliverable = events.filter((event, i) => created[i] && event.callbackUrl === null).length;
        if (undeliverable > 0) this.deps.metrics.deliveries.inc({ outcome: 'no_callback_url' }, undeliverable);
      },
      () => {},
    );
    // One place after another, so that the batch's first attempts are queued while it waits for the rest.
    let lastPlace: Promise<unknown> = Promise.resolve();
    const places = deliveries.map(() => {
      const place = lastPlace.then(() => this.deps.scheduler.reserve());
      lastPlace = place;
      return place;
    });
    void this.queueOnceStored(deliveries, storingDeliveries, places);
    const done = Promise.all([storingEvents, storingDeliveries]).then(() => undefined);
    // Handled by the consumer once this returns; until then a failed insert must not count as unhandled.
    done.catch(() => {});
    await lastPlace;
    return { done };
  }

  /** D34: a new delivery of a stored event (same event id, new delivery id), attempted at once. */
  async redeliver(scope: Scope, eventId: string): Promise<DeliveryDocument> {
    const event = await this.deps.events.getEvent(scope, eventId);
    if (!event) throw new DomainError('EVENT_NOT_FOUND', `No event ${eventId}.`);
    if (event.callbackUrl === null) {
      throw new DomainError('INVALID_REQUEST', 'This event has no callback URL, so it cannot be delivered (D32).');
    }
    return (await this.recordDelivery(scope, event, newId('dlv', scope.mode))).delivery;
  }

  /**
   * Stores one more delivery of a stored event and queues its first attempt; held by this process only when it has
   * room for it now, otherwise left, unheld, to its lane's refill or the recovery sweep. Inserting an id that
   * exists returns the stored delivery (`created` false) and attempts nothing.
   */
  async recordDelivery(
    scope: Scope,
    event: EventDocument,
    deliveryId: string,
  ): Promise<{ delivery: DeliveryDocument; created: boolean }> {
    const url = event.callbackUrl as string;
    const holdHere =
      this.deps.dispatchLocally &&
      !this.attempts.isStopped &&
      this.deps.scheduler.hasRoomFor(this.attempts.target(url, scope));
    const doc = this.newDelivery(scope, event, deliveryId, this.deps.clock(), holdHere, currentTraceCarrier());
    const { delivery, created } = await this.deps.deliveries.insertDelivery(scope, doc);
    if (created && holdHere) this.queueHeld(delivery, event.body);
    else if (created && this.deps.dispatchLocally && this.deps.scheduler.laneIsFull(scope))
      this.deps.scheduler.whenLaneHasRoom(scope);
    return { delivery, created };
  }

  private documentsOf(batch: readonly IncomingEvent[], now: Date): BatchDocuments {
    const events = new Map<string, EventDocument>();
    const deliveries: BatchDocuments['deliveries'] = [];
    // Held by this process from the start: given back at once if it does not fit in memory here after all.
    const holdHere = this.deps.dispatchLocally && !this.attempts.isStopped;
    for (const { envelope, createdAt, rawBody, trace } of batch) {
      if (events.has(envelope.eventId)) continue;
      const scope = { organizationId: envelope.organizationId, mode: envelope.mode };
      const deliveryId = envelope.callbackUrl === null ? null : initialDeliveryId(envelope.eventId, envelope.mode);
      const event: EventDocument = {
        _id: envelope.eventId,
        ...scope,
        type: envelope.type,
        ...(envelope.sessionId !== undefined && { sessionId: envelope.sessionId }),
        createdAt: new Date(createdAt),
        body: webhookBodyJson(rawBody),
        callbackUrl: envelope.callbackUrl,
        initialDeliveryId: deliveryId,
        recordedAt: now,
      };
      events.set(event._id, event);
      if (deliveryId !== null)
        deliveries.push({
          delivery: this.newDelivery(scope, event, deliveryId, now, holdHere, trace),
          body: event.body,
        });
    }
    return { events: [...events.values()], deliveries };
  }

  /** Once the deliveries are stored, queues the first attempt of each this insert made, in the place taken for it. */
  private async queueOnceStored(
    deliveries: BatchDocuments['deliveries'],
    storing: Promise<boolean[]>,
    places: ReadonlyArray<Promise<() => void>>,
  ): Promise<void> {
    try {
      const created = await storing;
      for (const [i, { delivery, body }] of deliveries.entries()) {
        if (!created[i]) continue;
        const giveBack = await places[i];
        this.queueHeld(delivery, body);
        // The attempt now holds the place it was given (queued, it counts against the same bound).
        giveBack?.();
      }
    } catch {
      // The consumer sees the failed insert through `done` and the batch comes back.
    } finally {
      // Places not used (replays, a failed insert) go back as they come.
      for (const place of places) void place.then((giveBack) => giveBack());
    }
  }

  /**
   * Queues the first attempt of a delivery stored held by this process. One that does not fit in memory here (its
   * host's or its merchant's queue is full, or this process is stopping) is given back: the recovery sweep attempts
   * it when there is room, or, when its merchant's lane was full, the lane takes it back once it has drained.
   */
  private queueHeld(delivery: DeliveryDocument, body: string): void {
    if (delivery.lockOwner !== this.deps.owner) return;
    const queued = this.attempts.queue(delivery, 1, { delivery, body });
    if (queued === 'queued' || queued === 'duplicate') return;
    const lane = { organizationId: delivery.organizationId, mode: delivery.mode };
    const laneWasFull = this.deps.scheduler.laneIsFull(lane);
    this.releases.add(delivery._id).then(
      () => {
        // Armed again now that it is unheld: a refill that ran meanwhile could not have seen it.
        if (laneWasFull && !this.attempts.isStopped) this.deps.scheduler.whenLaneHasRoom(lane);
      },
      (err: unknown) =>
        this.deps.logger.warn(
          { err, deliveryId: delivery._id },
          'could not give back a delivery that did not fit in memory; the recovery sweep takes it once its hold lapses',
        ),
    );
  }

  private newDelivery(
    scope: Scope,
    event: EventDocument,
    deliveryId: string,
    now: Date,
    holdHere: boolean,
    trace: TraceCarrier | undefined,
  ): DeliveryDocument {
    return {
      ...(trace && { trace }),
      _id: deliveryId,
      organizationId: scope.organizationId,
      mode: scope.mode,
      eventId: event._id,
      eventType: event.type,
      url: event.callbackUrl as string,
      status: 'pending',
      attempts: [],
      attemptCount: 0,
      nextAttemptAt: now,
      lockedUntil: holdHere ? new Date(now.getTime() + this.deps.policy.claimTtlMs) : now,
      lockOwner: holdHere ? this.deps.owner : null,
      deadLetterPending: false,
      createdAt: now,
      updatedAt: now,
    };
  }
}
