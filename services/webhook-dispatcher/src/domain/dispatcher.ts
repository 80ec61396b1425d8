import { GroupCommit } from '@checkout/coalesce';
import type { Logger } from '@checkout/logger';
import { DomainError } from '@checkout/errors';
import type { Scope } from '@checkout/mongo';
import { RECOVER_MAX_AGE_DAYS, RECOVER_MAX_AGE_MS, deliveryHeaders, newId, signatureHeaders, type SessionEventV1 } from '@checkout/contracts';
import type { AttemptOutcome, DeliveriesStore } from '../store/deliveries.store';
import type { EventsStore } from '../store/events.store';
import type { AttemptRecord, DeliveryDocument, EventDocument } from '../store/documents';
import type { SendResult } from '../clients/webhook-sender';
import type { SigningSecrets } from '../clients/gateway-settings.client';
import type { DispatcherMetrics } from '../metrics';
import type { RetryMessage } from '../messaging/webhook-messages';
import { laneKey, type HostScheduler, type Target } from './host-scheduler';
import { nextAttempt, parseRetryAfter } from './retry-policy';
import { initialDeliveryId, recoveryDeliveryId } from './recovery';

/** A pre-claimed delivery is attempted without a fresh claim only while its claim outlives the attempt by this. */
const CLAIM_SAFETY_MS = 500;
/** Failed deliveries a recovery reads at once (D44). */
const RECOVER_PAGE = 200;
/** How long a recovery's claim on its organization and mode outlives a replica that died running it. */
const RECOVERY_LEASE_MS = 120_000;
/** Most spilled deliveries one lane takes back from the database at once. */
const LANE_REFILL_BATCH = 500;
/** Most documents written by one batched command. */
const WRITE_BATCH_LIMIT = 200;

interface Unstored {
  delivery: DeliveryDocument;
  queuedAt: number;
  stored: () => void;
  failed: (err: unknown) => void;
}

export interface IncomingSessionEvent {
  /**
   * The validated envelope without its parsed body: the body is kept once, as rawBody. Batches wait in memory
   * while the scheduler is full (back-pressure), so every copy per event counts.
   */
  envelope: Omit<SessionEventV1, 'body'>;
  /** The body's createdAt, validated with it. */
  createdAt: string;
  /** The webhook body as produced, unknown fields included. */
  rawBody: Record<string, unknown>;
}

export interface WebhookSenderPort {
  send(input: { url: string; headers: Record<string, string>; body: string }): Promise<SendResult>;
}

export interface WebhookPublisherPort {
  publishRetry(message: RetryMessage): Promise<void>;
  publishDeadLetter(delivery: DeliveryDocument, failedAt: Date): Promise<void>;
}

/** One holder at a time per key, across replicas (libs/mongo Leases). */
export interface ExclusiveWork {
  tryAcquire(key: string, ttlMs: number): Promise<{ release(): Promise<void> } | null>;
}

export interface DispatcherDeps {
  events: EventsStore;
  /** Keeps recoveries (D44) to one at a time per organization and mode. */
  recoveries: ExclusiveWork;
  deliveries: DeliveriesStore;
  scheduler: HostScheduler;
  sender: WebhookSenderPort;
  hostKey: (url: string) => string;
  secrets: SigningSecrets;
  publisher: WebhookPublisherPort;
  metrics: DispatcherMetrics;
  logger: Logger;
  clock: () => Date;
  rng: () => number;
  /** Identifies this process in delivery claims. */
  owner: string;
  /** False in events-API-only pods: new deliveries are left to the consumer pods' recovery sweep. */
  dispatchLocally: boolean;
  policy: {
    delaysMs: readonly number[];
    maxAttempts: number;
    timeoutMs: number;
    claimTtlMs: number;
    /**
     * A first attempt still queued after this long (its host is busy or hanging) is stored at once, held by this
     * process: its batch's offsets can then be committed, so what a crash replays stays bounded, and the events
     * API shows the delivery as pending.
     */
    storeQueuedAfterMs: number;
  };
}

/** The webhook body exactly as D30 orders it: `{id, event, createdAt, session}` (plus anything newer the producer added). */
export function webhookBodyJson(rawBody: Record<string, unknown>): string {
  const { id, event, createdAt, session, ...rest } = rawBody;
  return JSON.stringify({ id, event, createdAt, session, ...rest });
}

/**
 * The dispatcher's use cases: record an event and its delivery, run attempts, decide retries, redeliver, and
 * recover what a crash left behind. Kafka and HTTP are behind ports; the decisions are in retry-policy.ts.
 */
export class Dispatcher {
  private stopped = false;
  private sweeps = 0;

  private readonly successes: GroupCommit<{ id: string; outcome: AttemptOutcome; now: Date }>;
  /** Events as they arrive, batches of every partition together; `created` is false for one stored before. */
  private readonly eventInserts: GroupCommit<EventDocument, { event: EventDocument; created: boolean }>;
  /** Deliveries stored after their first attempt (or unheld, for the sweep); true when this insert made it. */
  private readonly deliveryInserts: GroupCommit<DeliveryDocument, boolean>;
  /** First attempts queued here whose delivery is not stored yet. */
  private readonly unstored = new Map<string, Unstored>();
  /** First attempts stored while queued (storeQueuedAfterMs): the held document, and whether this process made it. */
  private readonly storedWhileQueued = new Map<string, { held: DeliveryDocument; created: Promise<boolean> }>();
  private checkpointTimer: NodeJS.Timeout | undefined;
  /** Lanes being refilled from the database now (refillLane), so that one refill at a time runs per lane. */
  private readonly refilling = new Set<string>();

  constructor(private readonly deps: DispatcherDeps) {
    deps.scheduler.onLaneRoom((lane) => void this.refillLane(lane));
    // Both bounded, so one command never holds the engine's single writer for long (the inserts, claims and
    // health checks of everything else queue behind it).
    this.successes = new GroupCommit<{ id: string; outcome: AttemptOutcome; now: Date }, void>(async (items) => {
      const recorded = await deps.deliveries.recordAttempts(items);
      deps.metrics.deliveries.inc({ outcome: 'succeeded' }, recorded);
      if (recorded < items.length) deps.logger.info({ dropped: items.length - recorded }, 'attempt results dropped: those attempts were already recorded elsewhere');
      return items.map((): void => undefined);
    }, { maxBatch: WRITE_BATCH_LIMIT });
    this.eventInserts = new GroupCommit(async (docs) => {
      const recorded = await deps.events.recordEvents(docs);
      return docs.map((doc) => recorded.get(doc._id) as { event: EventDocument; created: boolean });
    }, { maxBatch: WRITE_BATCH_LIMIT });
    this.deliveryInserts = new GroupCommit(async (docs) => {
      const existing = await deps.deliveries.insertDeliveries(docs);
      return docs.map((doc) => !existing.has(doc._id));
    }, { maxBatch: WRITE_BATCH_LIMIT });
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.checkpointTimer);
  }

  /**
   * Consumer handler for one fetched batch. It starts recording the batch's events (one insert, shared with the
   * batches of other partitions arriving meanwhile) and takes a place in the scheduler for each event with a
   * callback URL: while the scheduler is full it waits here (back-pressure: the partition's next fetch waits and
   * the rest stays in Kafka), but never for the database. kafkajs fetches again only once every batch of the
   * last fetch is handed over, so a handler that waited for the insert would hold back every partition.
   * Once the events are recorded, each new event's first attempt is queued in its place. `done` resolves once
   * every delivery of the batch is stored: a delivery is first stored when its first attempt is over, with that
   * attempt in it, by one insert shared with the others finishing then, so a successful first attempt costs no
   * update at all. Until `done`, the batch's offsets stay uncommitted, so a crash brings its messages back (at
   * least once); the unique delivery id makes a replayed message's delivery once.
   */
  async recordSessionEvents(batch: readonly IncomingSessionEvent[]): Promise<{ done: Promise<void> }> {
    const now = this.deps.clock();
    const eventDocs = new Map<string, EventDocument>();
    for (const { envelope, createdAt, rawBody } of batch) {
      if (eventDocs.has(envelope.eventId)) continue;
      eventDocs.set(envelope.eventId, {
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
    const docs = [...eventDocs.values()];
    const recording = this.eventInserts.addAll(docs);
    // One place after another, so that the batch's first attempts are queued while it waits for the rest.
    let lastPlace: Promise<unknown> = Promise.resolve();
    const places = docs.map((doc) => {
      if (doc.callbackUrl === null) return undefined;
      const place = lastPlace.then(() => this.deps.scheduler.reserve());
      lastPlace = place;
      return place;
    });
    const done = this.queueRecorded(recording, places, now).then((stored) => Promise.all(stored).then(() => undefined));
    // Handled by the consumer once this returns; until then a failed insert must not count as unhandled.
    done.catch(() => {});
    await lastPlace;
    return { done };
  }

  /**
   * Once a batch's events are recorded, queues the first attempt of each new one in the place taken for it, as
   * that place comes. Returns, per attempt queued, what settles once its delivery is stored.
   */
  private async queueRecorded(recording: Promise<Array<{ event: EventDocument; created: boolean }>>, places: ReadonlyArray<Promise<() => void> | undefined>, now: Date): Promise<Array<Promise<void>>> {
    try {
      const recorded = await recording;
      // A replayed message whose delivery is stored has been attempted already (only the rare replay pays this read).
      const replayed = recorded.filter(({ event, created }) => !created && event.callbackUrl !== null && event.initialDeliveryId !== null);
      const stored = await this.deps.deliveries.existingIds(replayed.map(({ event }) => event.initialDeliveryId as string));
      const pending: Array<Promise<void>> = [];
      for (const [i, { event, created }] of recorded.entries()) {
        if (event.callbackUrl === null || event.initialDeliveryId === null) {
          if (created) this.deps.metrics.deliveries.inc({ outcome: 'no_callback_url' });
          continue;
        }
        // A stored event keeps the delivery id it was given then (older ones were random).
        const deliveryId = event.initialDeliveryId;
        if (stored.has(deliveryId)) continue;
        const giveBack = await places[i];
        const scope = { organizationId: event.organizationId, mode: event.mode };
        // Only a host or a merchant whose own queue is full (it hangs or is slow) spills to the database and the sweep.
        const target = this.target(event.callbackUrl, scope);
        const queueHere = this.deps.dispatchLocally && !this.stopped && this.deps.scheduler.hasQueueRoom(target);
        pending.push(queueHere ? this.firstAttempt(this.newDelivery(scope, event, deliveryId, now, true), event.body) : this.spill(this.newDelivery(scope, event, deliveryId, now, false)));
        // The attempt now holds the place it was given (queued, it counts against the same bound).
        giveBack?.();
      }
      return pending;
    } finally {
      // Places not used (replays, events without a callback URL, a failed insert) go back as they come.
      for (const place of places) void place?.then((giveBack) => giveBack());
    }
  }

  /** Queues a first attempt; resolves once the delivery is stored with it (or was already, by another process). */
  private firstAttempt(delivery: DeliveryDocument, body: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const key = attemptKey(delivery._id, 1);
      if (this.deps.scheduler.has(key)) {
        // The same delivery already queued here (a replayed message): that attempt stores it.
        resolve();
        return;
      }
      // Known before it is submitted: with a slot free, the attempt starts inside submit() and takes it then.
      this.unstored.set(delivery._id, { delivery, queuedAt: Date.now(), stored: resolve, failed: reject });
      const submitted = this.deps.scheduler.submit(key, this.target(delivery.url, delivery), (release) => this.runFirstAttempt(delivery, body, release));
      this.deps.metrics.queued.set(this.deps.scheduler.queued);
      if (submitted === 'queued') {
        this.checkpointTimer ??= setInterval(() => this.storeLongQueued(), Math.max(100, this.deps.policy.storeQueuedAfterMs / 4)).unref();
        return;
      }
      // Spilled or stopped ('duplicate' was ruled out above, synchronously): stored for the sweep, held by nobody.
      this.unstored.delete(delivery._id);
      this.spill({ ...delivery, lockOwner: null, lockedUntil: delivery.createdAt }).then(resolve, reject);
    });
  }

  /** Stores, held by this process, the first attempts that have waited in a queue for policy.storeQueuedAfterMs. */
  private storeLongQueued(): void {
    const cutoff = Date.now() - this.deps.policy.storeQueuedAfterMs;
    for (const waiting of this.unstored.values()) {
      if (waiting.queuedAt > cutoff) continue;
      const id = waiting.delivery._id;
      this.unstored.delete(id);
      const now = this.deps.clock();
      const held: DeliveryDocument = { ...waiting.delivery, lockOwner: this.deps.owner, lockedUntil: new Date(now.getTime() + this.deps.policy.claimTtlMs), updatedAt: now };
      const created = this.deliveryInserts.add(held);
      // Handled here; awaited again when the attempt runs (if it ever does: a stop drops queued attempts).
      created.then(waiting.stored, waiting.failed);
      this.storedWhileQueued.set(id, { held, created });
    }
  }

  /**
   * Stores a first attempt's delivery (with the attempt, or put off with none) and tells its batch, which commits
   * its offsets once all its deliveries are stored. False when another process had stored it already.
   */
  private async storeFirst(delivery: DeliveryDocument, waiting: Unstored | undefined): Promise<boolean> {
    let created: boolean;
    try {
      created = await this.deliveryInserts.add(delivery);
    } catch (err) {
      waiting?.failed(err);
      throw err;
    }
    waiting?.stored();
    return created;
  }

  /**
   * Stores a delivery nobody holds, which did not fit in memory here: the recovery sweep attempts it when there is
   * room, or, when its merchant's lane was full, the lane takes it back as soon as it has drained (refillLane).
   */
  private async spill(delivery: DeliveryDocument): Promise<void> {
    const lane = { organizationId: delivery.organizationId, mode: delivery.mode };
    const laneWasFull = this.deps.scheduler.laneIsFull(lane);
    await this.deliveryInserts.add(delivery);
    if (laneWasFull && this.deps.dispatchLocally) this.deps.scheduler.whenLaneHasRoom(lane);
  }

  /** `release` frees the host's slot: called once the request is over, before the attempt is recorded. */
  private async runFirstAttempt(delivery: DeliveryDocument, body: string, release: () => void): Promise<void> {
    const waiting = this.unstored.get(delivery._id);
    this.unstored.delete(delivery._id);
    const storedEarlier = this.storedWhileQueued.get(delivery._id);
    if (storedEarlier) {
      // Stored while it waited: from here on it is an attempt like any other (a conditional update records it).
      this.storedWhileQueued.delete(delivery._id);
      if (await storedEarlier.created) await this.runAttempt(delivery._id, 1, release, { delivery: storedEarlier.held, body });
      return;
    }
    if (this.stopped) {
      const err = new Error('dispatcher stopped before the attempt');
      waiting?.failed(err);
      throw err;
    }
    const started = this.deps.clock();
    const sent = await this.sendAndDecide(delivery, body, 1, started);
    release();
    if ('deferredUntil' in sent) {
      // Nothing was sent: stored with no attempt, left to the recovery sweep once the pause is over.
      await this.storeFirst({ ...delivery, nextAttemptAt: sent.deferredUntil, lockedUntil: sent.deferredUntil, lockOwner: null, updatedAt: started }, waiting);
      return;
    }
    const { result, outcome, retryAt, finished } = sent;
    const attempted: DeliveryDocument = {
      ...delivery,
      attempts: [outcome.record],
      attemptCount: 1,
      status: outcome.status,
      nextAttemptAt: outcome.nextAttemptAt,
      lockedUntil: outcome.lockedUntil,
      lockOwner: null,
      deadLetterPending: outcome.deadLetterPending,
      updatedAt: finished,
    };
    if (!(await this.storeFirst(attempted, waiting))) {
      this.deps.logger.info({ deliveryId: delivery._id }, 'first attempt result dropped: another process recorded that delivery');
      return;
    }
    await this.afterRecorded(attempted, result.ok, retryAt, finished);
  }

  /** D34: a new delivery of a stored event (same event id, new delivery id), attempted at once. */
  async redeliver(scope: Scope, eventId: string): Promise<DeliveryDocument> {
    const event = await this.deps.events.getEvent(scope, eventId);
    if (!event) throw new DomainError('EVENT_NOT_FOUND', `No event ${eventId}.`);
    if (event.callbackUrl === null) {
      throw new DomainError('INVALID_REQUEST', 'This event has no callback URL, so it cannot be delivered (D32).');
    }
    return (await this.createDelivery(scope, event, newId('dlv', scope.mode), this.deps.clock())).delivery;
  }

  /**
   * D44: every delivery of this organization and mode whose last attempt failed at or after `since` gets one new
   * delivery (as redeliver). The new id is derived from the failed one, so two recoveries running at once would
   * create it once; the failed delivery is then marked, so a later recovery leaves it alone. The failed ones are
   * read a page at a time, those recovered before left out by the query, and one recovery per organization and
   * mode runs at a time (issue 22): a second one meanwhile is 409 RECOVERY_IN_PROGRESS. Returns how many this call
   * created.
   */
  async recover(scope: Scope, since: Date): Promise<number> {
    const now = this.deps.clock();
    if (since.getTime() < now.getTime() - RECOVER_MAX_AGE_MS) {
      throw new DomainError('INVALID_REQUEST', `since may be at most ${RECOVER_MAX_AGE_DAYS} days ago.`, { details: [{ path: 'since', message: `must be within the last ${RECOVER_MAX_AGE_DAYS} days` }] });
    }
    const lease = await this.deps.recoveries.tryAcquire(`recover:${scope.mode}:${scope.organizationId}`, RECOVERY_LEASE_MS);
    if (!lease) {
      throw new DomainError('RECOVERY_IN_PROGRESS', 'A recovery of failed deliveries is already running for this account and mode; try again once it has answered.', { retryAfterSeconds: 5 });
    }
    try {
      let recovering = 0;
      let after: DeliveryDocument | undefined;
      for (;;) {
        const page = await this.deps.deliveries.listUnrecoveredFailedSince(scope, since, after, RECOVER_PAGE);
        const events = await this.deps.events.getEvents(scope, [...new Set(page.map((failed) => failed.eventId))]);
        for (const failed of page) {
          const lastAttempt = failed.attempts.at(-1);
          const event = events.get(failed.eventId);
          if (!lastAttempt || lastAttempt.at < since || !event || event.callbackUrl === null) continue;
          const replacementId = recoveryDeliveryId(failed._id, scope.mode);
          const { created } = await this.createDelivery(scope, event, replacementId, now);
          await this.deps.deliveries.markRecovered(failed._id, replacementId, now);
          if (created) recovering += 1;
        }
        if (page.length < RECOVER_PAGE) return recovering;
        after = page.at(-1);
      }
    } finally {
      await lease.release();
    }
  }

  private async createDelivery(scope: Scope, event: EventDocument, deliveryId: string, now: Date): Promise<{ delivery: DeliveryDocument; created: boolean }> {
    const url = event.callbackUrl as string;
    // Held by this process while it is queued here; otherwise free for the recovery sweep straight away.
    const holdHere = this.deps.dispatchLocally && !this.stopped && this.deps.scheduler.hasRoomFor(this.target(url, scope));
    const laneWasFull = this.deps.scheduler.laneIsFull(scope);
    const doc = this.newDelivery(scope, event, deliveryId, now, holdHere);
    const { delivery, created } = await this.deps.deliveries.insertDelivery(scope, doc);
    if (created && holdHere) this.enqueue(delivery, 1, { delivery, body: event.body });
    else if (created && laneWasFull && this.deps.dispatchLocally) this.deps.scheduler.whenLaneHasRoom(scope);
    return { delivery, created };
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

  /** Retry consumer handler: the retry is due; queue it (the claim at run time rejects stale ones). */
  async onRetryDue(message: RetryMessage): Promise<void> {
    await this.deps.scheduler.waitForRoom();
    const delivery = await this.deps.deliveries.getForDispatch(message.deliveryId);
    if (!delivery || delivery.status !== 'pending' || delivery.attemptCount + 1 !== message.attempt) return;
    this.enqueue(delivery, message.attempt);
  }

  /**
   * Re-dispatches pending deliveries that nobody holds (crash, lost retry message, spilled queue) and publishes
   * dead letters a crash left unsent. Returns how many deliveries it queued.
   */
  async recoverySweep(batchSize = 500): Promise<number> {
    if (this.stopped) return 0;
    const now = this.deps.clock();
    let queued = 0;
    const skip = { lanes: this.deps.scheduler.fullLanes(), modes: this.deps.scheduler.fullModes() };
    for (const delivery of await this.deps.deliveries.findRecoverable(now, batchSize, skip)) {
      const attempt = delivery.attemptCount + 1;
      if (this.deps.scheduler.has(attemptKey(delivery._id, attempt))) continue;
      if (!this.deps.scheduler.hasRoomFor(this.target(delivery.url, delivery))) continue;
      if (this.enqueue(delivery, attempt) === 'queued') queued += 1;
    }
    // Dead letters left unsent are rare (a crash or broker outage right after the last attempt): look every
    // fifth sweep: the query is cheap on an index, but there is rarely anything to find.
    if (this.sweeps++ % 5 === 0) {
      for (const delivery of await this.deps.deliveries.findDeadLetterPending(100)) {
        await this.publishDeadLetter(delivery, now);
      }
    }
    return queued;
  }

  /** Where an attempt queues: its host, in its organization and mode's lane (fair between merchants, issue 22). */
  private target(url: string, scope: Scope): Target {
    return { host: this.deps.hostKey(url), lane: { organizationId: scope.organizationId, mode: scope.mode } };
  }

  /**
   * A merchant whose attempts spilled (its lane was full) has room again: its pending deliveries nobody holds are
   * queued now, oldest first, instead of at the next recovery sweep (which runs on one replica, every few seconds).
   * Each attempt is claimed when it runs, so a sweep or another replica taking the same delivery runs it once.
   */
  private async refillLane(lane: Scope): Promise<void> {
    const id = laneKey(lane);
    if (this.stopped || this.refilling.has(id)) return;
    this.refilling.add(id);
    try {
      const found = await this.deps.deliveries.findRecoverableOf(lane, this.deps.clock(), LANE_REFILL_BATCH);
      for (const delivery of found) {
        if (this.deps.scheduler.has(attemptKey(delivery._id, delivery.attemptCount + 1))) continue;
        // Full again (or this host's queue is): the rest waits for the next time it has room.
        if (this.enqueue(delivery, delivery.attemptCount + 1) === 'spilled') return;
      }
      if (found.length === LANE_REFILL_BATCH) this.deps.scheduler.whenLaneHasRoom(lane);
    } catch (err) {
      this.deps.logger.warn({ err, organizationId: lane.organizationId, mode: lane.mode }, 'could not take back spilled deliveries; the recovery sweep will');
    } finally {
      this.refilling.delete(id);
    }
  }

  private enqueue(delivery: Pick<DeliveryDocument, '_id' | 'url' | 'organizationId' | 'mode'>, attempt: number, preclaimed?: Preclaimed) {
    const deliveryId = delivery._id;
    const result = this.deps.scheduler.submit(attemptKey(deliveryId, attempt), this.target(delivery.url, delivery), (release) => this.runAttempt(deliveryId, attempt, release, preclaimed));
    this.deps.metrics.queued.set(this.deps.scheduler.queued);
    return result;
  }

  private async runAttempt(deliveryId: string, attempt: number, release: () => void, preclaimed?: Preclaimed): Promise<void> {
    if (this.stopped) return;
    const { policy, metrics } = this.deps;
    const started = this.deps.clock();
    let delivery: DeliveryDocument;
    let body: string;
    const held = preclaimed?.delivery;
    if (preclaimed && held && held.lockOwner === this.deps.owner && held.lockedUntil.getTime() - started.getTime() > policy.timeoutMs + CLAIM_SAFETY_MS) {
      delivery = held;
      body = preclaimed.body;
    } else {
      const claim = await this.deps.deliveries.claim({ id: deliveryId, attempt, owner: this.deps.owner, now: started, holdMs: policy.claimTtlMs });
      if (!claim.claimed) {
        this.deps.logger.debug({ deliveryId, attempt, reason: claim.reason }, 'attempt skipped');
        return;
      }
      delivery = claim.delivery;
      const event = await this.deps.events.getEvent({ organizationId: delivery.organizationId, mode: delivery.mode }, delivery.eventId);
      if (!event) throw new Error(`delivery ${deliveryId} has no event ${delivery.eventId}`);
      body = event.body;
    }

    const sent = await this.sendAndDecide(delivery, body, attempt, started);
    release();
    if ('deferredUntil' in sent) {
      await this.deps.deliveries.deferAttempt(deliveryId, attempt, sent.deferredUntil, started);
      return;
    }
    const { result, outcome, retryAt, finished } = sent;
    // One conditional write, whether or not the attempt outlived its hold: it names the attempt it follows.
    // Successes share their command with whatever other successes are waiting.
    if (result.ok) {
      await this.successes.add({ id: deliveryId, outcome, now: finished });
      return;
    }
    const updated = await this.deps.deliveries.recordAttempt(deliveryId, outcome, finished);
    if (!updated) {
      this.deps.logger.info({ deliveryId, attempt }, 'attempt result dropped: that attempt was already recorded elsewhere');
      return;
    }
    await this.afterRecorded(updated, false, retryAt, finished);
  }

  /** One attempt and what follows from it (D31, D40): the record to store and the delivery's next state. */
  private async sendAndDecide(delivery: DeliveryDocument, body: string, attempt: number, started: Date): Promise<Decided | { deferredUntil: Date }> {
    const { policy, metrics } = this.deps;
    let secrets: readonly string[];
    try {
      secrets = await this.deps.secrets.secretsFor({ organizationId: delivery.organizationId, mode: delivery.mode });
    } catch (err) {
      // Never send unsigned what the merchant expects signed; and our outage is not the merchant's failed attempt:
      // nothing is sent, the attempt is put off without using up one of the five (the sweep brings it back).
      metrics.deferred.inc({ reason: 'signing_secret_unavailable' });
      this.deps.logger.debug({ err, deliveryId: delivery._id, attempt }, 'attempt put off: the signing secret is unavailable');
      return { deferredUntil: new Date(started.getTime() + (policy.delaysMs[0] ?? 10_000)) };
    }
    metrics.inFlight.inc();
    metrics.queued.set(this.deps.scheduler.queued);
    let result: SendResult;
    try {
      result = await this.attempt(delivery, body, secrets);
    } finally {
      metrics.inFlight.dec();
    }
    metrics.attempts.inc({ outcome: result.kind, attempt: String(attempt), status_class: result.statusCode === null ? 'none' : `${Math.floor(result.statusCode / 100)}xx` });
    metrics.attemptDuration.observe({ outcome: result.kind }, result.durationMs / 1000);

    const finished = this.deps.clock();
    const record: AttemptRecord = { attempt, at: started, statusCode: result.statusCode, durationMs: result.durationMs, error: result.error, responseSnippet: result.responseSnippet };
    const decision = result.ok
      ? null
      : nextAttempt({ attempt, now: finished, delaysMs: policy.delaysMs, maxAttempts: policy.maxAttempts, rng: this.deps.rng, retryAfterMs: parseRetryAfter(result.retryAfter, finished) });
    const retryAt = decision && 'at' in decision ? decision.at : null;
    const outcome: AttemptOutcome = {
      record,
      status: result.ok ? 'succeeded' : retryAt ? 'pending' : 'failed',
      nextAttemptAt: retryAt,
      // While its retry waits in a tier, the sweep leaves it alone until well after it is due.
      lockedUntil: retryAt ? new Date(retryAt.getTime() + policy.claimTtlMs) : finished,
      deadLetterPending: !result.ok && !retryAt,
    };
    return { result, outcome, retryAt, finished };
  }

  /** Once an attempt is stored: count a success, or hand the retry to its tier, or dead-letter the delivery. */
  private async afterRecorded(delivery: DeliveryDocument, ok: boolean, retryAt: Date | null, finished: Date): Promise<void> {
    if (ok) {
      this.deps.metrics.deliveries.inc({ outcome: 'succeeded' });
    } else if (retryAt) {
      await this.deps.publisher.publishRetry({ deliveryId: delivery._id, attempt: delivery.attemptCount + 1, notBefore: retryAt.toISOString() }).catch((err: unknown) => {
        // The delivery is stored as pending; the recovery sweep retries it once its hold lapses.
        this.deps.logger.warn({ err, deliveryId: delivery._id }, 'could not publish retry message; the recovery sweep will pick it up');
      });
    } else {
      this.deps.metrics.deliveries.inc({ outcome: 'failed' });
      await this.publishDeadLetter(delivery, finished);
    }
  }

  private async attempt(delivery: DeliveryDocument, body: string, secrets: readonly string[]): Promise<SendResult> {
    const headers = deliveryHeaders({ eventId: delivery.eventId, deliveryId: delivery._id, eventType: delivery.eventType });
    if (secrets.length > 0) {
      try {
        Object.assign(headers, signatureHeaders({ secret: secrets, id: delivery.eventId, timestamp: Math.floor(this.deps.clock().getTime() / 1000), body }));
      } catch (err) {
        // A secret that cannot be used will not heal by waiting: a failed attempt, visible in the events API.
        return { kind: 'signing_failed', ok: false, statusCode: null, durationMs: 0, error: `signing failed: ${err instanceof Error ? err.message : String(err)}`, responseSnippet: null };
      }
    }
    return this.deps.sender.send({ url: delivery.url, headers, body });
  }

  private async publishDeadLetter(delivery: DeliveryDocument, now: Date): Promise<void> {
    try {
      await this.deps.publisher.publishDeadLetter(delivery, now);
      await this.deps.deliveries.markDeadLettered(delivery._id, now);
    } catch (err) {
      this.deps.logger.warn({ err, deliveryId: delivery._id }, 'could not publish dead letter; the recovery sweep will retry');
    }
  }
}

/** An attempt made, and what follows from it. */
interface Decided {
  result: SendResult;
  outcome: AttemptOutcome;
  retryAt: Date | null;
  finished: Date;
}

interface Preclaimed {
  delivery: DeliveryDocument;
  body: string;
}

export function attemptKey(deliveryId: string, attempt: number): string {
  return `${deliveryId}#${attempt}`;
}
