import { GroupCommit } from '@checkout/coalesce';
import { DomainError } from '@checkout/errors';
import type { Scope } from '@checkout/mongo';
import { derivedId, newId, type Mode } from '@checkout/contracts';
import type { DeliveryDocument } from '../store/delivery.document';
import type { EventDocument } from '../store/event.document';
import type { Attempts } from './attempts';
import type { DispatcherDeps, IncomingSessionEvent } from './dispatcher';
import type { FirstDeliveries } from './first-deliveries';

/** Most events written by one batched command. */
const WRITE_BATCH_LIMIT = 200;

/**
 * The id of an event's first delivery, derived from the event id: the event and its delivery are inserted at the
 * same time (neither needs the other's result), and a redelivered message names the same delivery.
 */
export function initialDeliveryId(eventId: string, mode: Mode): string {
  return derivedId('dlv', mode, `initial:${eventId}`);
}

/** The webhook body exactly as D30 orders it: `{id, event, createdAt, session}` (plus anything newer the producer added). */
export function webhookBodyJson(rawBody: Record<string, unknown>): string {
  const { id, event, createdAt, session, ...rest } = rawBody;
  return JSON.stringify({ id, event, createdAt, session, ...rest });
}

/**
 * Takes in what is to be delivered: the events of a consumed batch each with its first delivery, and the new
 * deliveries of a redelivery or a recovery. An event's first delivery is queued for its attempt before it is
 * stored, and stored once that attempt is over, with it (first-deliveries.ts: one write per successful delivery,
 * issue 9); one that does not fit in memory here is stored at once, held by nobody, for a lane refill or the
 * recovery sweep. Any other new delivery is stored pending, held by this process, before it is queued.
 */
export class Recorder {
  /** Events as they arrive, the batches of every partition together; true for each this insert made. */
  private readonly eventInserts: GroupCommit<EventDocument, boolean>;
  /** Holds given back on deliveries that did not fit in memory here. */
  private readonly releases: GroupCommit<string>;

  constructor(
    private readonly deps: DispatcherDeps,
    private readonly attempts: Attempts,
    private readonly firstDeliveries: FirstDeliveries,
  ) {
    this.eventInserts = new GroupCommit(async (docs) => {
      const recorded = await deps.events.recordEvents(docs);
      return docs.map((doc) => recorded.get(doc._id)?.created === true);
    }, { maxBatch: WRITE_BATCH_LIMIT });
    this.releases = new GroupCommit(async (ids) => {
      await deps.deliveries.releaseHolds(ids, deps.owner, deps.clock());
      return ids.map((): void => undefined);
    }, { maxBatch: WRITE_BATCH_LIMIT });
  }

  /**
   * Consumer handler for one fetched batch. It starts recording the batch's events (one insert, shared with the
   * batches of other partitions arriving meanwhile) and takes a place in the scheduler for each event with a
   * callback URL: while the scheduler is full it waits here (back-pressure: the partition's next fetch waits and
   * the rest stays in Kafka), but never for the database: kafkajs fetches again only once every batch of the last
   * fetch is handed over, so a handler that waited for the insert would hold back every partition. Once the events
   * are recorded, each new event's first attempt is queued in its place. `done` resolves once every delivery of
   * the batch is stored (first-deliveries.ts); until then the batch's offsets stay uncommitted, so a crash brings
   * its messages back (at least once) and the unique delivery id makes a replayed message's delivery once.
   */
  async recordEventsAndQueueFirstAttempts(batch: readonly IncomingSessionEvent[]): Promise<{ done: Promise<void> }> {
    const now = this.deps.clock();
    const events = this.eventsOf(batch, now);
    const recording = this.eventInserts.addAll(events);
    // One place after another, so that the batch's first attempts are queued while it waits for the rest.
    let lastPlace: Promise<unknown> = Promise.resolve();
    const places = events.map((event) => {
      if (event.initialDeliveryId === null) return undefined;
      const place = lastPlace.then(() => this.deps.scheduler.reserve());
      lastPlace = place;
      return place;
    });
    const done = this.queueOnceRecorded(events, recording, places, now).then((storing) => Promise.all(storing).then(() => undefined));
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
  async recordDelivery(scope: Scope, event: EventDocument, deliveryId: string): Promise<{ delivery: DeliveryDocument; created: boolean }> {
    const url = event.callbackUrl as string;
    const holdHere = this.deps.dispatchLocally && !this.attempts.isStopped && this.deps.scheduler.hasRoomFor(this.attempts.target(url, scope));
    const doc = this.newDelivery(scope, event, deliveryId, this.deps.clock(), holdHere);
    const { delivery, created } = await this.deps.deliveries.insertDelivery(scope, doc);
    if (created && holdHere) this.queueHeld(delivery, event.body);
    else if (created && this.deps.dispatchLocally && this.deps.scheduler.laneIsFull(scope)) this.deps.scheduler.whenLaneHasRoom(scope);
    return { delivery, created };
  }

  private eventsOf(batch: readonly IncomingSessionEvent[], now: Date): EventDocument[] {
    const events = new Map<string, EventDocument>();
    for (const { envelope, createdAt, rawBody } of batch) {
      if (events.has(envelope.eventId)) continue;
      events.set(envelope.eventId, {
        _id: envelope.eventId,
        organizationId: envelope.organizationId,
        mode: envelope.mode,
        type: envelope.type,
        sessionId: envelope.sessionId,
        createdAt: new Date(createdAt),
        body: webhookBodyJson(rawBody),
        callbackUrl: envelope.callbackUrl,
        initialDeliveryId: envelope.callbackUrl === null ? null : initialDeliveryId(envelope.eventId, envelope.mode),
        recordedAt: now,
      });
    }
    return [...events.values()];
  }

  /**
   * Once a batch's events are recorded, queues the first attempt of each new one in the place taken for it, as
   * that place comes. Returns, per first delivery, what settles once it is stored.
   */
  private async queueOnceRecorded(events: readonly EventDocument[], recording: Promise<boolean[]>, places: ReadonlyArray<Promise<() => void> | undefined>, now: Date): Promise<Array<Promise<void>>> {
    try {
      const created = await recording;
      const undeliverable = events.filter((event, i) => created[i] && event.callbackUrl === null).length;
      if (undeliverable > 0) this.deps.metrics.deliveries.inc({ outcome: 'no_callback_url' }, undeliverable);
      // A replayed message whose delivery is stored has been attempted already (only a replay pays this read).
      const replayed = events.filter((event, i) => !created[i] && event.initialDeliveryId !== null).map((event) => event.initialDeliveryId as string);
      const stored = await this.deps.deliveries.existingIds(replayed);
      const storing: Array<Promise<void>> = [];
      for (const [i, event] of events.entries()) {
        if (event.initialDeliveryId === null || stored.has(event.initialDeliveryId)) continue;
        const giveBack = await places[i];
        storing.push(this.queueFirst(this.newDelivery(event, event, event.initialDeliveryId, now, true), event.body));
        // The attempt now holds the place it was given (queued, it counts against the same bound).
        giveBack?.();
      }
      return storing;
    } finally {
      // Places not used (replays, events without a callback URL, a failed insert) go back as they come.
      for (const place of places) void place?.then((giveBack) => giveBack());
    }
  }

  /**
   * Queues an event's first attempt, its delivery not stored yet; resolves once the delivery is stored. Only a
   * host or a merchant whose own queue is full (it hangs or is slow) spills it to the database at once, unheld.
   */
  private queueFirst(delivery: DeliveryDocument, body: string): Promise<void> {
    // The same delivery queued here already (a replayed message): that attempt stores it.
    const waitingHere = this.firstDeliveries.whenStored(delivery._id);
    if (waitingHere) return waitingHere;
    if (this.attempts.isQueued(delivery._id, 1)) return Promise.resolve();
    const queueHere = this.deps.dispatchLocally && !this.attempts.isStopped && this.deps.scheduler.hasQueueRoom(this.attempts.target(delivery.url, delivery));
    if (!queueHere) return this.spill(delivery);
    // Known before it is submitted: with a slot free, the attempt starts inside submit() and takes it then.
    const stored = this.firstDeliveries.track(delivery);
    if (this.attempts.queue(delivery, 1, { delivery, body, firstNotStoredYet: true }) === 'queued') return stored;
    // Spilled or stopped after all ('duplicate' was ruled out above): stored now, held by nobody.
    const waiting = this.firstDeliveries.untrack(delivery._id);
    this.spill(delivery).then(waiting?.stored, waiting?.failed);
    return stored;
  }

  /**
   * Stores a first delivery nobody holds, which did not fit in memory here: the recovery sweep attempts it when
   * there is room, or, when its merchant's lane was full, the lane takes it back once it has drained (refillLane).
   */
  private async spill(delivery: DeliveryDocument): Promise<void> {
    const lane = { organizationId: delivery.organizationId, mode: delivery.mode };
    const laneWasFull = this.deps.scheduler.laneIsFull(lane);
    await this.firstDeliveries.insert({ ...delivery, lockOwner: null, lockedUntil: delivery.createdAt });
    if (laneWasFull && this.deps.dispatchLocally && !this.attempts.isStopped) this.deps.scheduler.whenLaneHasRoom(lane);
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
      (err: unknown) => this.deps.logger.warn({ err, deliveryId: delivery._id }, 'could not give back a delivery that did not fit in memory; the recovery sweep takes it once its hold lapses'),
    );
  }

  private newDelivery(scope: Scope, event: EventDocument, deliveryId: string, now: Date, holdHere: boolean): DeliveryDocument {
    return {
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
