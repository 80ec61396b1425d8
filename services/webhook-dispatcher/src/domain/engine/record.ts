import { GroupCommit } from '@checkout/coalesce';
import { DomainError } from '@checkout/errors';
import type { Scope } from '@checkout/mongo';
import { newId } from '@checkout/contracts';
import { currentTraceCarrier, type TraceCarrier } from '@checkout/telemetry';
import type { DeliveryDocument } from '../../store/delivery.document';
import type { EventDocument } from '../../store/event.document';
import type { Attempts } from './attempts';
import type { DispatcherDeps, IncomingEvent } from './ports';
import { Backlog } from './backlog';
import { UsageMeter } from './usage-meter';
import { endpointDeliveryId, initialDeliveryId } from '../rules/fan-out';
import { webhookBodyJson } from '../rules/webhook-body';

/** Most events (with their deliveries) written by one batched command. */
const WRITE_BATCH_LIMIT = 200;

/** Where a delivery goes: a session's callback URL (D30), or a webhook endpoint (D50) at its URL. */
export interface DeliveryTarget {
  url: string;
  endpointId?: string;
}

/** A delivery stored for its first attempt, with the body it is sent with. */
interface NewDelivery {
  delivery: DeliveryDocument;
  body: string;
}

/**
 * Records what is to be delivered: the events of a consumed batch each with its first delivery, and the new
 * deliveries of a redelivery or a recovery. A delivery is stored before it is attempted, pending and held by
 * this process, so what is stored is what a crash leaves to the recovery sweep; then it is queued for its attempt.
 */
export class Recorder {
  /** Events as they arrive, the batches of every partition together; true for each this insert made. */
  private readonly eventInserts: GroupCommit<EventDocument, boolean>;
  /** First deliveries likewise, in a command of their own beside the events'; their attempts wait for both. */
  private readonly deliveryInserts: GroupCommit<DeliveryDocument, boolean>;
  /** Deliveries to webhook endpoints being made (their events counted until the endpoints are read), not yet queued. */
  private readonly fanningOut = new Backlog();
  /** What the inserts made, counted against each tenant's budgets. */
  private readonly usage: UsageMeter;

  constructor(
    private readonly deps: DispatcherDeps,
    private readonly attempts: Attempts,
  ) {
    this.usage = new UsageMeter(deps.stores.usage, deps.local.clock, deps.local.logger);
    this.eventInserts = new GroupCommit(
      async (docs) => {
        const recorded = await deps.stores.events.recordEvents(firstOfEachId(docs));
        const created = createdOnce(docs, (doc) => recorded.get(doc._id)?.created === true);
        this.usage.events(docs.filter((_, i) => created[i]));
        return created;
      },
      { maxBatch: WRITE_BATCH_LIMIT },
    );
    this.deliveryInserts = new GroupCommit(
      async (docs) => {
        const existing = await deps.stores.deliveries.insertDeliveries(firstOfEachId(docs));
        const created = createdOnce(docs, (doc) => !existing.has(doc._id));
        this.usage.deliveries(docs.filter((_, i) => created[i]));
        return created;
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
    const now = this.deps.local.clock();
    const events = new Map<string, EventDocument>();
    const deliveries: NewDelivery[] = [];
    /** Each event's consumer span (while tracing is on): its deliveries to endpoints join that trace too. */
    const traces = new Map<string, TraceCarrier>();
    // Held by this process from the start: given back at once if it does not fit in memory here after all.
    const holdHere = this.deps.local.dispatchLocally && !this.attempts.isStopped;
    for (const { envelope, createdAt, rawBody, trace } of batch) {
      if (events.has(envelope.eventId)) continue;
      const { eventId, callbackUrl } = envelope;
      // D32: the first delivery goes to the session's callback URL, when it has one.
      const deliveryId = callbackUrl === null ? null : initialDeliveryId(eventId, envelope.mode);
      const event: EventDocument = {
        _id: eventId,
        organizationId: envelope.organizationId,
        mode: envelope.mode,
        type: envelope.type,
        ...(envelope.sessionId !== undefined && { sessionId: envelope.sessionId }),
        createdAt: new Date(createdAt),
        body: webhookBodyJson(rawBody),
        callbackUrl,
        initialDeliveryId: deliveryId,
        recordedAt: now,
      };
      events.set(eventId, event);
      if (trace) traces.set(eventId, trace);
      if (deliveryId !== null && callbackUrl !== null)
        deliveries.push({
          delivery: this.newDelivery(event, deliveryId, now, holdHere, { url: callbackUrl }, trace),
          body: event.body,
        });
    }
    const stored = [...events.values()];
    const storingDeliveries = this.deliveryInserts.addAll(deliveries.map(({ delivery }) => delivery));
    const storingEvents = this.eventInserts.addAll(stored);
    // Beside them, each event's deliveries to the webhook endpoints subscribed to it (D50), once they are read.
    const fanningOut = this.fanOut(stored, traces, now, storingEvents);
    storingEvents.then(
      (created) => {
        const undeliverable = stored.filter((event, i) => created[i] && event.callbackUrl === null).length;
        if (undeliverable > 0) this.deps.local.metrics.deliveries.inc({ outcome: 'no_callback_url' }, undeliverable);
      },
      () => {},
    );
    const { placed } = this.queueOnceStored(deliveries, withEventsStored(storingDeliveries, storingEvents));
    const done = Promise.all([storingEvents, storingDeliveries, fanningOut]).then(() => undefined);
    // Handled by the consumer once this returns; until then a failed insert must not count as unhandled.
    done.catch(() => {});
    await placed;
    // Back-pressure for the fan-out too, whose places are taken once its endpoints are read: the consumer fetches on
    // only while the deliveries being made for endpoints stay within the in-memory bound.
    await this.fanningOut.below(this.deps.policy.fanOutBacklog);
    return { done };
  }

  /**
   * D50: stores each event's delivery to every enabled endpoint of its organization and mode subscribed to its type,
   * held by this process, and queues their first attempts, each in a place of the scheduler taken once the endpoints
   * are known. Resolves once they are stored (the batch's offsets wait for that); queueing goes on after. The
   * deliveries made count in the fan-out backlog until queued (the consumers wait while it is full); events whose
   * endpoints are being read do not, so a handler never waits for that read: what piles up meanwhile is what the
   * consumers fetch during one read, which all the batches waiting for it share.
   */
  private async fanOut(
    events: readonly EventDocument[],
    traces: ReadonlyMap<string, TraceCarrier>,
    now: Date,
    storingEvents: Promise<unknown>,
  ): Promise<void> {
    let counted = 0;
    try {
      const subscribers = await this.deps.directory.subscribersOf(
        events.map((event) => ({
          scope: { organizationId: event.organizationId, mode: event.mode },
          type: event.type,
          createdAt: event.createdAt,
        })),
      );
      const holdHere = this.deps.local.dispatchLocally && !this.attempts.isStopped;
      const deliveries: NewDelivery[] = events.flatMap((event, i) =>
        (subscribers[i] ?? []).map((endpoint) => ({
          delivery: this.newDelivery(
            event,
            endpointDeliveryId(event._id, endpoint._id, event.mode),
            now,
            holdHere,
            { url: endpoint.url, endpointId: endpoint._id },
            traces.get(event._id),
          ),
          body: event.body,
        })),
      );
      this.fanningOut.add(deliveries.length);
      counted = deliveries.length;
      if (deliveries.length === 0) return;
      const storing = this.deliveryInserts.addAll(deliveries.map(({ delivery }) => delivery));
      const made = counted;
      counted = 0;
      void this.queueOnceStored(deliveries, withEventsStored(storing, storingEvents)).queued.finally(() =>
        this.fanningOut.add(-made),
      );
      await storing;
    } finally {
      this.fanningOut.add(-counted);
    }
  }

  /**
   * D34: a new delivery of a stored event (same event id, new delivery id), attempted at once: to its session's
   * callback URL, or, with `endpointId`, to that webhook endpoint of the organization and mode (D50).
   */
  async redeliver(scope: Scope, eventId: string, endpointId?: string): Promise<DeliveryDocument> {
    const event = await this.deps.stores.events.getEvent(scope, eventId);
    if (!event) throw new DomainError('EVENT_NOT_FOUND', `No event ${eventId}.`);
    let target: DeliveryTarget;
    if (endpointId !== undefined) {
      const endpoint = await this.deps.stores.endpoints.get(scope, endpointId);
      if (!endpoint) throw new DomainError('WEBHOOK_ENDPOINT_NOT_FOUND', `No webhook endpoint ${endpointId}.`);
      if (endpoint.disabled !== null)
        throw new DomainError(
          'WEBHOOK_ENDPOINT_DISABLED',
          `Webhook endpoint ${endpointId} is disabled; enable it first.`,
        );
      target = { url: endpoint.url, endpointId };
    } else if (event.callbackUrl === null) {
      throw new DomainError(
        'INVALID_REQUEST',
        'This event has no callback URL (D32); name a webhook endpoint to deliver it to (endpointId).',
      );
    } else {
      target = { url: event.callbackUrl };
    }
    return (await this.recordDelivery(scope, event, newId('dlv', scope.mode), target)).delivery;
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
    target: DeliveryTarget,
  ): Promise<{ delivery: DeliveryDocument; created: boolean }> {
    const holdHere =
      this.deps.local.dispatchLocally &&
      !this.attempts.isStopped &&
      this.deps.scheduler.hasRoomFor(this.attempts.target({ ...target, ...scope }));
    const doc = this.newDelivery(event, deliveryId, this.deps.local.clock(), holdHere, target, currentTraceCarrier());
    const { delivery, created } = await this.deps.stores.deliveries.insertDelivery(scope, doc);
    if (created) this.usage.deliveries([delivery]);
    if (created && holdHere) this.attempts.queue(delivery, 1, { delivery, body: event.body });
    else if (created && this.deps.local.dispatchLocally && this.deps.scheduler.laneIsFull(scope))
      this.deps.scheduler.whenLaneHasRoom(scope);
    return { delivery, created };
  }

  /**
   * recordDelivery for many deliveries at once (a recovery's page): one insert for all, and the first attempt of
   * each it made queued here (given back for the sweep when it does not fit). Returns how many it made.
   */
  async recordDeliveries(
    items: ReadonlyArray<{ event: EventDocument; deliveryId: string; target: DeliveryTarget }>,
  ): Promise<number> {
    const now = this.deps.local.clock();
    const holdHere = this.deps.local.dispatchLocally && !this.attempts.isStopped;
    const trace = currentTraceCarrier();
    const made = items.map(({ event, deliveryId, target }) => ({
      delivery: this.newDelivery(event, deliveryId, now, holdHere, target, trace),
      body: event.body,
    }));
    const existing = await this.deps.stores.deliveries.insertDeliveries(made.map(({ delivery }) => delivery));
    const created = made.filter(({ delivery }) => !existing.has(delivery._id));
    this.usage.deliveries(created.map(({ delivery }) => delivery));
    for (const { delivery, body } of created) this.attempts.queue(delivery, 1, { delivery, body });
    return created.length;
  }

  /**
   * Queues the first attempt of each delivery this insert made, once stored, in a place of the scheduler taken for
   * it. The places are taken one after another, so that a batch's first attempts are queued while it waits for the
   * rest: `placed` resolves once the last is taken (back-pressure), `queued` once every attempt is queued.
   */
  private queueOnceStored(
    deliveries: readonly NewDelivery[],
    storing: Promise<boolean[]>,
  ): { placed: Promise<unknown> | undefined; queued: Promise<void> } {
    const places: Array<Promise<() => void>> = [];
    for (let i = 0; i < deliveries.length; i += 1)
      places.push((places.at(-1) ?? Promise.resolve()).then(() => this.deps.scheduler.reserve()));
    const queued = storing
      .then(async (created) => {
        for (const [i, { delivery, body }] of deliveries.entries()) {
          if (!created[i]) continue;
          const giveBack = await places[i];
          this.attempts.queue(delivery, 1, { delivery, body });
          // The attempt now holds the place it was given (queued, it counts against the same bound).
          giveBack?.();
        }
      })
      .catch(() => {
        // The consumer sees the failed insert through `done` and the batch comes back.
      })
      .finally(() => {
        // Places not used (replays, a failed insert) go back as they come.
        for (const place of places) void place.then((giveBack) => giveBack());
      });
    return { placed: places.at(-1), queued };
  }

  private newDelivery(
    event: EventDocument,
    deliveryId: string,
    now: Date,
    holdHere: boolean,
    target: DeliveryTarget,
    trace: TraceCarrier | undefined,
  ): DeliveryDocument {
    return {
      ...(trace && { trace }),
      _id: deliveryId,
      organizationId: event.organizationId,
      mode: event.mode,
      eventId: event._id,
      eventType: event.type,
      eventCreatedAt: event.createdAt,
      ...(target.endpointId !== undefined && { endpointId: target.endpointId }),
      url: target.url,
      status: 'pending',
      attempts: [],
      attemptCount: 0,
      nextAttemptAt: now,
      lockedUntil: holdHere ? new Date(now.getTime() + this.deps.policy.claimTtlMs) : now,
      lockOwner: holdHere ? this.deps.local.owner : null,
      deadLetterPending: false,
      createdAt: now,
      updatedAt: now,
    };
  }
}

/**
 * A first attempt waits for its event's insert as well as its own, though the two commands run side by side: a
 * merchant who gets the webhook and reads its event at once must find it (D46). Each command commits on its own;
 * waiting for the deliveries' only, an event on FerretDB once answered 404 right after its webhook (docs/engines.md).
 * Should the events' insert fail, deliveries it stored stay held here unattempted: the batch comes back, finds them
 * stored, and leaves them to the recovery sweep once their hold lapses (WEBHOOK_CLAIM_TTL_MS), as after a crash.
 */
function withEventsStored(storingDeliveries: Promise<boolean[]>, storingEvents: Promise<unknown>): Promise<boolean[]> {
  return Promise.all([storingDeliveries, storingEvents]).then(([created]) => created);
}

/**
 * A message and its replay can fall in one group commit: the batch inserts each id once, or the second copy, refused
 * as a duplicate, would mark the id as stored before and neither copy would count as the one that made it.
 */
function firstOfEachId<T extends { _id: string }>(docs: readonly T[]): T[] {
  const byId = new Map<string, T>();
  for (const doc of docs) if (!byId.has(doc._id)) byId.set(doc._id, doc);
  return [...byId.values()];
}

/** The first copy of an id the batch made is created; its later copies are replays. */
function createdOnce<T extends { _id: string }>(docs: readonly T[], made: (doc: T) => boolean): boolean[] {
  const seen = new Set<string>();
  return docs.map((doc) => {
    const first = !seen.has(doc._id);
    seen.add(doc._id);
    return first && made(doc);
  });
}
