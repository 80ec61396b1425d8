import { GroupCommit } from '@checkout/coalesce';
import { deliveryHeaders, signatureHeaders, type RetryMessage } from '@checkout/contracts';
import type { Scope } from '@checkout/mongo';
import { inSpan, type SpanHandle } from '@checkout/telemetry';
import type { AttemptOutcome } from '../store/deliveries.store';
import type { AttemptRecord, DeliveryDocument } from '../store/delivery.document';
import type { SendResult } from '../clients/webhook-endpoints.client';
import type { DispatcherDeps } from './ports';
import type { SubmitResult, Target } from './host-scheduler';
import type { EndpointHealth } from './endpoint-health';
import { nextAttempt, parseRetryAfter } from './retry-policy';
import { signingSecretsOf } from './webhook-endpoints';

/** A held delivery is attempted without a fresh claim only while its hold outlives the attempt by this. */
const CLAIM_SAFETY_MS = 500;
/** Most outcomes written by one batched command, so one command never holds the engine's single writer for long. */
const WRITE_BATCH_LIMIT = 200;

/** A delivery this process stored held, with the body it was stored for: its attempt needs no claim and no read. */
export interface HeldDelivery {
  delivery: DeliveryDocument;
  body: string;
}

/** What an attempt of a delivery needs of it to be queued: where it goes and whose it is. */
type Queueable = Pick<DeliveryDocument, '_id' | 'url' | 'endpointId' | 'organizationId' | 'mode'>;

/** An attempt made, and what follows from it. */
interface Decided {
  result: SendResult;
  outcome: AttemptOutcome;
  retryAt: Date | null;
  finished: Date;
}

/** The attempt's answer on its span: the status code, the outcome (success, timeout…), and failed unless 2xx. */
function attemptOutcomeOnSpan(span: SpanHandle, sent: Decided | { deferredUntil: Date }): void {
  if ('deferredUntil' in sent) {
    span.setAttributes({ 'checkout.outcome': 'deferred' });
    return;
  }
  span.setAttributes({
    'checkout.outcome': sent.result.kind,
    'http.response.status_code': sent.result.statusCode ?? undefined,
  });
  if (!sent.result.ok) span.fail();
}

function attemptKey(deliveryId: string, attempt: number): string {
  return `${deliveryId}#${attempt}`;
}

function deliveryIdOf(key: string): string {
  return key.slice(0, key.lastIndexOf('#'));
}

/**
 * The one attempt path, whoever brings the attempt (a recorded event, a redelivery, a retry tier, the recovery
 * sweep, a lane taking back what it spilled): queue it in the scheduler, take the delivery (held already, or
 * claimed with one conditional update), POST it, then record the outcome with one conditional update that names
 * the attempt it follows (successes share one command), and hand a failure to its retry tier or the dead letters.
 */
export class Attempts {
  private stopped = false;
  private readonly successes: GroupCommit<{ id: string; outcome: AttemptOutcome; now: Date }>;

  constructor(
    private readonly deps: DispatcherDeps,
    private readonly health: EndpointHealth,
  ) {
    this.successes = new GroupCommit<{ id: string; outcome: AttemptOutcome; now: Date }, void>(
      async (items) => {
        const recorded = await deps.deliveries.recordAttempts(items);
        deps.metrics.deliveries.inc({ outcome: 'succeeded' }, recorded);
        if (recorded < items.length)
          deps.logger.info(
            { dropped: items.length - recorded },
            'attempt results dropped: those attempts were already recorded elsewhere',
          );
        return items.map((): void => undefined);
      },
      { maxBatch: WRITE_BATCH_LIMIT },
    );
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /**
   * Makes no attempt from now on: the queued ones are dropped, and their deliveries' holds given back in one
   * command, so that the other replicas' recovery sweep takes them at its next round instead of once the holds
   * lapse (WEBHOOK_CLAIM_TTL_MS). Resolves once the attempts in flight are over with their outcomes recorded and
   * the holds given back, or after `graceMs` (a database that does not answer must not hold the stop).
   */
  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    const dropped = this.deps.scheduler.stop().map(deliveryIdOf);
    const givingBack =
      dropped.length === 0
        ? undefined
        : this.deps.deliveries.releaseHolds(dropped, this.deps.owner, this.deps.clock()).catch((err: unknown) => {
            this.deps.logger.warn(
              { err, deliveries: dropped.length },
              'could not give back the holds of the attempts queued at stop; they wait for WEBHOOK_CLAIM_TTL_MS',
            );
          });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all([this.deps.scheduler.idle(), givingBack]),
      new Promise((resolve) => (timer = setTimeout(resolve, graceMs))),
    ]);
    clearTimeout(timer);
  }

  /**
   * Where an attempt queues: its host (and its webhook endpoint, D50), in its organization and mode's lane (fair
   * between merchants, and between a merchant's endpoints).
   */
  target(delivery: Pick<Queueable, 'url' | 'endpointId'> & Scope): Target {
    return {
      host: this.deps.hostKey(delivery.url),
      lane: { organizationId: delivery.organizationId, mode: delivery.mode },
      ...(delivery.endpointId !== undefined && { destination: delivery.endpointId }),
    };
  }

  /** Whether an attempt of this delivery is queued or running here. */
  isQueued(deliveryId: string, attempt: number): boolean {
    return this.deps.scheduler.has(attemptKey(deliveryId, attempt));
  }

  /** Queues attempt `attempt`; `held` when this process stored the delivery held for it (no claim needed). */
  queue(delivery: Queueable, attempt: number, held?: HeldDelivery): SubmitResult {
    const deliveryId = delivery._id;
    const result = this.deps.scheduler.submit(attemptKey(deliveryId, attempt), this.target(delivery), (release) =>
      this.run(deliveryId, attempt, release, held),
    );
    this.deps.metrics.queued.set(this.deps.scheduler.queued);
    return result;
  }

  /** Retry consumer handler: the retry is due; queue it (the claim at run time rejects stale ones). */
  async onRetryDue(message: RetryMessage): Promise<void> {
    await this.deps.scheduler.waitForRoom();
    const delivery = await this.deps.deliveries.getForDispatch(message.deliveryId);
    if (!delivery || delivery.status !== 'pending' || delivery.attemptCount + 1 !== message.attempt) return;
    this.queue(delivery, message.attempt);
  }

  /** Publishes a failed delivery's dead letter, then clears its flag; left for the recovery sweep when that fails. */
  async publishDeadLetter(delivery: DeliveryDocument, now: Date): Promise<void> {
    try {
      await this.deps.publisher.publishDeadLetter(delivery, now);
      await this.deps.deliveries.markDeadLettered(delivery._id, now);
    } catch (err) {
      this.deps.logger.warn(
        { err, deliveryId: delivery._id },
        'could not publish dead letter; the recovery sweep will retry',
      );
    }
  }

  /** `release` frees the host's slot: called once the request is over, before the outcome is recorded. */
  private async run(deliveryId: string, attempt: number, release: () => void, held?: HeldDelivery): Promise<void> {
    if (this.stopped) return;
    const started = this.deps.clock();
    const taken = await this.take(deliveryId, attempt, started, held);
    if (!taken) return;
    if (attempt === 1)
      this.deps.metrics.firstAttemptDelay.observe(
        Math.max(0, (started.getTime() - taken.delivery.createdAt.getTime()) / 1000),
      );
    // A span in the trace that caused the delivery, from the POST to its recorded outcome (and its retry message).
    await inSpan(
      'webhook attempt',
      {
        kind: 'client',
        parent: taken.delivery.trace ?? 'none',
        attributes: {
          'checkout.delivery_id': deliveryId,
          'checkout.event_id': taken.delivery.eventId,
          'checkout.event_type': taken.delivery.eventType,
          'checkout.attempt': attempt,
          'checkout.organization_id': taken.delivery.organizationId,
          'checkout.mode': taken.delivery.mode,
          'http.request.method': 'POST',
          'server.address': this.deps.hostKey(taken.delivery.url),
        },
      },
      async (span) => {
        const sent = await this.sendAndDecide(taken.delivery, taken.body, attempt, started);
        release();
        attemptOutcomeOnSpan(span, sent);
        if ('deferredUntil' in sent) {
          await this.deps.deliveries.deferAttempt(deliveryId, attempt, sent.deferredUntil, started);
          return;
        }
        await this.recordOutcome(taken.delivery, sent);
      },
    );
  }

  /** The delivery and its body: as held, while the hold outlives the attempt; otherwise claimed for this attempt. */
  private async take(
    deliveryId: string,
    attempt: number,
    started: Date,
    held: HeldDelivery | undefined,
  ): Promise<HeldDelivery | null> {
    const { policy, owner } = this.deps;
    if (
      held &&
      held.delivery.lockOwner === owner &&
      held.delivery.lockedUntil.getTime() - started.getTime() > policy.timeoutMs + CLAIM_SAFETY_MS
    )
      return held;
    const claim = await this.deps.deliveries.claim({
      id: deliveryId,
      attempt,
      owner,
      now: started,
      holdMs: policy.claimTtlMs,
    });
    if (!claim.claimed) {
      this.deps.logger.debug({ deliveryId, attempt, reason: claim.reason }, 'attempt skipped');
      return null;
    }
    const delivery = claim.delivery;
    if (held) return { delivery, body: held.body };
    const event = await this.deps.events.getEvent(
      { organizationId: delivery.organizationId, mode: delivery.mode },
      delivery.eventId,
    );
    if (!event) throw new Error(`delivery ${deliveryId} has no event ${delivery.eventId}`);
    return { delivery, body: event.body };
  }

  /**
   * One conditional write, whether or not the attempt outlived its hold: it names the attempt it follows.
   * Successes share their command with whatever other successes are waiting; a failure is written alone, since
   * only the writer that won may publish its retry or dead letter.
   */
  private async recordOutcome(
    delivery: DeliveryDocument,
    { result, outcome, retryAt, finished }: Decided,
  ): Promise<void> {
    if (result.ok) {
      await this.successes.add({ id: delivery._id, outcome, now: finished });
      return;
    }
    const updated = await this.deps.deliveries.recordAttempt(delivery._id, outcome, finished);
    if (!updated) {
      this.deps.logger.info(
        { deliveryId: delivery._id, attempt: outcome.record.attempt },
        'attempt result dropped: that attempt was already recorded elsewhere',
      );
      return;
    }
    if (delivery.endpointId !== undefined && result.kind !== 'endpoint_unavailable')
      await this.health.failed(
        { organizationId: delivery.organizationId, mode: delivery.mode },
        delivery.endpointId,
        finished,
      );
    if (retryAt) {
      await this.deps.publisher
        .publishRetry({ deliveryId: updated._id, attempt: updated.attemptCount + 1, notBefore: retryAt.toISOString() })
        .catch((err: unknown) => {
          // The delivery is stored as pending; the recovery sweep retries it once its hold lapses.
          this.deps.logger.warn(
            { err, deliveryId: updated._id },
            'could not publish retry message; the recovery sweep will pick it up',
          );
        });
      return;
    }
    this.deps.metrics.deliveries.inc({ outcome: 'failed' });
    // Not sent because its endpoint was disabled or deleted (D50): no failure of the merchant's server to park.
    if (updated.deadLetterPending) await this.publishDeadLetter(updated, finished);
  }

  /** One attempt and what follows from it (D31, D40): the record to store and the delivery's next state. */
  private async sendAndDecide(
    delivery: DeliveryDocument,
    body: string,
    attempt: number,
    started: Date,
  ): Promise<Decided | { deferredUntil: Date }> {
    const { policy, metrics } = this.deps;
    const scope = { organizationId: delivery.organizationId, mode: delivery.mode };
    let secrets: readonly string[];
    try {
      if (delivery.endpointId === undefined) secrets = await this.deps.secrets.secretsFor(scope);
      else {
        // D50: signed with the endpoint's own secret (and, within 24 h of a rotation, the one it replaced).
        const endpoint = await this.deps.endpoints.forAttempt(scope, delivery.endpointId);
        if (!endpoint || endpoint.disabled !== null)
          return this.notSent(attempt, started, endpoint ? 'the endpoint is disabled' : 'the endpoint was deleted');
        secrets = signingSecretsOf(endpoint, started);
      }
    } catch (err) {
      // Never send unsigned what the merchant expects signed; and our outage is not the merchant's failed attempt:
      // nothing is sent, the attempt is put off without using up one of the five (the sweep brings it back).
      metrics.deferred.inc({ reason: 'signing_secret_unavailable' });
      this.deps.logger.debug(
        { err, deliveryId: delivery._id, attempt },
        'attempt put off: the signing secret is unavailable',
      );
      return { deferredUntil: new Date(started.getTime() + (policy.delaysMs[0] ?? 10_000)) };
    }
    metrics.inFlight.inc();
    metrics.queued.set(this.deps.scheduler.queued);
    let result: SendResult;
    try {
      result = await this.send(delivery, body, secrets);
    } finally {
      metrics.inFlight.dec();
    }
    metrics.attempts.inc({
      outcome: result.kind,
      attempt: String(attempt),
      status_class: result.statusCode === null ? 'none' : `${Math.floor(result.statusCode / 100)}xx`,
    });
    metrics.attemptDuration.observe({ outcome: result.kind }, result.durationMs / 1000);

    const finished = this.deps.clock();
    const record: AttemptRecord = {
      attempt,
      at: started,
      statusCode: result.statusCode,
      durationMs: result.durationMs,
      error: result.error,
      responseSnippet: result.responseSnippet,
    };
    const decision = result.ok
      ? null
      : nextAttempt({
          attempt,
          now: finished,
          delaysMs: policy.delaysMs,
          maxAttempts: policy.maxAttempts,
          rng: this.deps.rng,
          retryAfterMs: parseRetryAfter(result.retryAfter, finished),
        });
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

  /**
   * An attempt not made because its webhook endpoint was disabled or deleted meanwhile (D50): the delivery ends
   * failed with that reason and no retry, so that a recovery for the endpoint once it is enabled again sends it.
   */
  private notSent(attempt: number, started: Date, why: string): Decided {
    const finished = this.deps.clock();
    const result: SendResult = {
      kind: 'endpoint_unavailable',
      ok: false,
      statusCode: null,
      durationMs: 0,
      error: `not sent: ${why}`,
      responseSnippet: null,
    };
    this.deps.metrics.attempts.inc({ outcome: result.kind, attempt: String(attempt), status_class: 'none' });
    return {
      result,
      outcome: {
        record: { attempt, at: started, statusCode: null, durationMs: 0, error: result.error, responseSnippet: null },
        status: 'failed',
        nextAttemptAt: null,
        lockedUntil: finished,
        deadLetterPending: false,
      },
      retryAt: null,
      finished,
    };
  }

  private async send(delivery: DeliveryDocument, body: string, secrets: readonly string[]): Promise<SendResult> {
    const headers = deliveryHeaders({
      eventId: delivery.eventId,
      deliveryId: delivery._id,
      eventType: delivery.eventType,
    });
    if (secrets.length > 0) {
      try {
        Object.assign(
          headers,
          signatureHeaders({
            secret: secrets,
            id: delivery.eventId,
            timestamp: Math.floor(this.deps.clock().getTime() / 1000),
            body,
          }),
        );
      } catch (err) {
        // A secret that cannot be used will not heal by waiting: a failed attempt, visible in the events API.
        return {
          kind: 'signing_failed',
          ok: false,
          statusCode: null,
          durationMs: 0,
          error: `signing failed: ${err instanceof Error ? err.message : String(err)}`,
          responseSnippet: null,
        };
      }
    }
    return this.deps.sender.send({ url: delivery.url, headers, body });
  }
}
