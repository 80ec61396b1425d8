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
import { HostScheduler } from './host-scheduler';
import { nextAttempt, parseRetryAfter } from './retry-policy';
import { initialDeliveryId, recoveryDeliveryId } from './recovery';
import { GroupCommit } from '../store/group-commit';

/** A pre-claimed delivery is attempted without a fresh claim only while its claim outlives the attempt by this. */
const CLAIM_SAFETY_MS = 500;
/** Most successful attempts recorded by one bulkWrite. */
const SUCCESS_BATCH_LIMIT = 100;

export interface IncomingSessionEvent {
  envelope: SessionEventV1;
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

export interface DispatcherDeps {
  events: EventsStore;
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
  policy: { delaysMs: readonly number[]; maxAttempts: number; timeoutMs: number; claimTtlMs: number };
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

  constructor(private readonly deps: DispatcherDeps) {
    this.successes = new GroupCommit(async (items) => {
      const recorded = await deps.deliveries.recordAttempts(items);
      deps.metrics.deliveries.inc({ outcome: 'succeeded' }, recorded);
      if (recorded < items.length) deps.logger.info({ dropped: items.length - recorded }, 'attempt results dropped: those attempts were already recorded elsewhere');
      // Bounded, so one command never holds the engine's single writer for long (the claims, inserts and
      // health checks of everything else queue behind it).
    }, SUCCESS_BATCH_LIMIT);
  }

  stop(): void {
    this.stopped = true;
  }

  /**
   * Consumer handler for one fetched batch: returns once its events (and their deliveries, D32) are durably
   * stored, in two database commands for the whole batch, issued together. The first delivery's id is derived
   * from the event id, so the two inserts need nothing from each other and a redelivered message re-creates the
   * same delivery; a delivery that already existed belongs to whoever made it (or to the recovery sweep).
   */
  async recordSessionEvents(batch: readonly IncomingSessionEvent[]): Promise<void> {
    await this.deps.scheduler.waitForRoom();
    const now = this.deps.clock();
    const eventDocs = new Map<string, EventDocument>();
    for (const { envelope, rawBody } of batch) {
      if (eventDocs.has(envelope.eventId)) continue;
      eventDocs.set(envelope.eventId, {
        _id: envelope.eventId,
        organizationId: envelope.organizationId,
        mode: envelope.mode,
        type: envelope.type,
        sessionId: envelope.sessionId,
        createdAt: new Date(envelope.body.createdAt),
        body: webhookBodyJson(rawBody),
        callbackUrl: envelope.callbackUrl,
        initialDeliveryId: envelope.callbackUrl === null ? null : initialDeliveryId(envelope.eventId, envelope.mode),
        recordedAt: now,
      });
    }
    // Held here only while the host's queue has room; the rest is left to the recovery sweep (back-pressure).
    const room = new Map<string, number>();
    const held = new Set<string>();
    const deliveryDocs: DeliveryDocument[] = [];
    for (const event of eventDocs.values()) {
      if (event.callbackUrl === null || event.initialDeliveryId === null) continue;
      const host = this.deps.hostKey(event.callbackUrl);
      const left = room.get(host) ?? (this.deps.dispatchLocally && !this.stopped ? this.deps.scheduler.roomFor(host) : 0);
      const holdHere = left > 0;
      room.set(host, left - 1);
      if (holdHere) held.add(event.initialDeliveryId);
      deliveryDocs.push(this.newDelivery({ organizationId: event.organizationId, mode: event.mode }, event, event.initialDeliveryId, now, holdHere));
    }
    const [recorded, existingDeliveries] = await Promise.all([this.deps.events.recordEvents([...eventDocs.values()]), this.deps.deliveries.insertDeliveries(deliveryDocs)]);

    for (const [eventId, { event, created }] of recorded) {
      if (created && event.callbackUrl === null) this.deps.metrics.deliveries.inc({ outcome: 'no_callback_url' });
      const planned = eventDocs.get(eventId)?.initialDeliveryId;
      // An event recorded before first-delivery ids were derived keeps the delivery it was given then.
      if (!created && planned && event.initialDeliveryId !== planned && !existingDeliveries.has(planned)) {
        await this.deps.deliveries.deleteUnattempted(planned);
        held.delete(planned);
      }
    }
    for (const delivery of deliveryDocs) {
      if (existingDeliveries.has(delivery._id) || !held.has(delivery._id)) continue;
      this.enqueue(delivery._id, 1, delivery.url, { delivery, body: eventDocs.get(delivery.eventId)?.body ?? '' });
    }
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
   * delivery (as redeliver). The new id is derived from the failed one, so two recoveries running at once create
   * it once; the failed delivery is then marked, so a later recovery leaves it alone. Returns how many this call
   * created.
   */
  async recover(scope: Scope, since: Date): Promise<number> {
    const now = this.deps.clock();
    if (since.getTime() < now.getTime() - RECOVER_MAX_AGE_MS) {
      throw new DomainError('INVALID_REQUEST', `since may be at most ${RECOVER_MAX_AGE_DAYS} days ago.`, { details: [{ path: 'since', message: `must be within the last ${RECOVER_MAX_AGE_DAYS} days` }] });
    }
    let recovering = 0;
    for (const failed of await this.deps.deliveries.listFailedSince(scope, since, 10_000)) {
      const lastAttempt = failed.attempts.at(-1);
      if (failed.recoveredBy !== undefined || !lastAttempt || lastAttempt.at < since) continue;
      const event = await this.deps.events.getEvent(scope, failed.eventId);
      if (!event || event.callbackUrl === null) continue;
      const replacementId = recoveryDeliveryId(failed._id, scope.mode);
      const { created } = await this.createDelivery(scope, event, replacementId, now);
      await this.deps.deliveries.markRecovered(failed._id, replacementId, now);
      if (created) recovering += 1;
    }
    return recovering;
  }

  private async createDelivery(scope: Scope, event: EventDocument, deliveryId: string, now: Date): Promise<{ delivery: DeliveryDocument; created: boolean }> {
    const url = event.callbackUrl as string;
    // Held by this process while it is queued here; otherwise free for the recovery sweep straight away.
    const holdHere = this.deps.dispatchLocally && !this.stopped && this.deps.scheduler.hasRoomFor(this.deps.hostKey(url));
    const doc = this.newDelivery(scope, event, deliveryId, now, holdHere);
    const { delivery, created } = await this.deps.deliveries.insertDelivery(scope, doc);
    if (created && holdHere) this.enqueue(delivery._id, 1, url, { delivery, body: event.body });
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
    this.enqueue(delivery._id, message.attempt, delivery.url);
  }

  /**
   * Re-dispatches pending deliveries that nobody holds (crash, lost retry message, spilled queue) and publishes
   * dead letters a crash left unsent. Returns how many deliveries it queued.
   */
  async recoverySweep(batchSize = 500): Promise<number> {
    if (this.stopped) return 0;
    const now = this.deps.clock();
    let queued = 0;
    for (const delivery of await this.deps.deliveries.findRecoverable(now, batchSize)) {
      const attempt = delivery.attemptCount + 1;
      if (this.deps.scheduler.has(attemptKey(delivery._id, attempt))) continue;
      if (!this.deps.scheduler.hasRoomFor(this.deps.hostKey(delivery.url))) continue;
      if (this.enqueue(delivery._id, attempt, delivery.url) === 'queued') queued += 1;
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

  private enqueue(deliveryId: string, attempt: number, url: string, preclaimed?: Preclaimed) {
    const result = this.deps.scheduler.submit(attemptKey(deliveryId, attempt), this.deps.hostKey(url), () => this.runAttempt(deliveryId, attempt, preclaimed));
    this.deps.metrics.queued.set(this.deps.scheduler.queued);
    return result;
  }

  private async runAttempt(deliveryId: string, attempt: number, preclaimed?: Preclaimed): Promise<void> {
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

    metrics.inFlight.inc();
    metrics.queued.set(this.deps.scheduler.queued);
    let result: SendResult;
    try {
      result = await this.attempt(delivery, body);
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
    // One conditional write, whether or not the attempt outlived its hold: it names the attempt it follows.
    // Successes, the bulk of the traffic, share their command with whatever other successes are waiting.
    if (result.ok) {
      await this.successes.add({ id: deliveryId, outcome, now: finished });
      return;
    }
    const updated = await this.deps.deliveries.recordAttempt(deliveryId, outcome, finished);
    if (!updated) {
      this.deps.logger.info({ deliveryId, attempt }, 'attempt result dropped: that attempt was already recorded elsewhere');
      return;
    }
    if (retryAt) {
      await this.deps.publisher.publishRetry({ deliveryId, attempt: attempt + 1, notBefore: retryAt.toISOString() }).catch((err: unknown) => {
        // The delivery is stored as pending; the recovery sweep retries it once its hold lapses.
        this.deps.logger.warn({ err, deliveryId }, 'could not publish retry message; the recovery sweep will pick it up');
      });
    } else {
      metrics.deliveries.inc({ outcome: 'failed' });
      await this.publishDeadLetter(updated, finished);
    }
  }

  private async attempt(delivery: DeliveryDocument, body: string): Promise<SendResult> {
    const headers = deliveryHeaders({ eventId: delivery.eventId, deliveryId: delivery._id, eventType: delivery.eventType });
    let secret: string | null;
    try {
      secret = await this.deps.secrets.secretFor({ organizationId: delivery.organizationId, mode: delivery.mode });
    } catch (err) {
      // Never send unsigned what the merchant expects signed: the attempt fails and is retried.
      return { kind: 'network', ok: false, statusCode: null, durationMs: 0, error: `signing secret unavailable: ${err instanceof Error ? err.message : String(err)}`.slice(0, 300), responseSnippet: null };
    }
    if (secret) {
      try {
        Object.assign(headers, signatureHeaders({ secret, id: delivery.eventId, timestamp: Math.floor(this.deps.clock().getTime() / 1000), body }));
      } catch (err) {
        return { kind: 'network', ok: false, statusCode: null, durationMs: 0, error: `signing failed: ${err instanceof Error ? err.message : String(err)}`, responseSnippet: null };
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

interface Preclaimed {
  delivery: DeliveryDocument;
  body: string;
}

export function attemptKey(deliveryId: string, attempt: number): string {
  return `${deliveryId}#${attempt}`;
}
