import { GroupCommit } from '@checkout/coalesce';
import { webhookHeaders, type RetryMessage, type Scope } from '@checkout/contracts';
import { inSpan } from '@checkout/telemetry';
import type { DeliveryDocument } from '../../store/delivery.document';
import { attemptOutcome, notSentResult, type AttemptOutcome, type SendResult } from '../rules/attempt-outcome';
import { signingSecretsOf } from '../rules/webhook-body';
import type { DispatcherDeps } from './ports';
import type { SubmitResult, Target } from './lanes';
import type { EndpointFailures } from './endpoint-failures';
import type { DeliveryRef } from './records';

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
type Queueable = Pick<DeliveryDocument, '_id' | 'url' | 'endpointId' | 'organizationId' | 'mode' | 'eventId'>;

/** Put off, not made: the signing secret could not be read (D35). */
interface Deferred {
  deferredUntil: Date;
}

/** An attempt made (or refused before sending), and the delivery's next state. */
interface Made {
  result: SendResult;
  outcome: AttemptOutcome;
  finished: Date;
}

function attemptKey(deliveryId: string, attempt: number): string {
  return `${deliveryId}#${attempt}`;
}

function deliveryIdOf(key: string): string {
  return key.slice(0, key.lastIndexOf('#'));
}

/**
 * The one attempt path, whoever brings the attempt (a recorded event, a redelivery, a retry tier, the recovery
 * sweep, a lane taking back what it spilled), read top to bottom from `run`: the delivery taken (held already, or
 * claimed with one conditional update), its secrets, the POST, the outcome the rules decide, then that outcome
 * recorded by one conditional update naming the attempt it follows (successes share one command), and a failure
 * handed to its retry tier or the dead letters.
 */
export class Attempts {
  private stopped = false;
  private readonly successes: GroupCommit<{ delivery: DeliveryRef; outcome: AttemptOutcome; now: Date }>;
  /** Holds given back on held deliveries that did not fit in memory here. */
  private readonly releases: GroupCommit<string>;

  constructor(
    private readonly deps: DispatcherDeps,
    private readonly endpointFailures: EndpointFailures,
  ) {
    const { local } = deps;
    this.successes = new GroupCommit<{ delivery: DeliveryRef; outcome: AttemptOutcome; now: Date }, void>(
      async (items) => {
        const recorded = await deps.stores.deliveries.recordAttempts(items);
        local.metrics.deliveries.inc({ outcome: 'succeeded' }, recorded);
        if (recorded < items.length)
          local.logger.info(
            { dropped: items.length - recorded },
            'attempt results dropped: those attempts were already recorded elsewhere',
          );
        return items.map((): void => undefined);
      },
      { maxBatch: WRITE_BATCH_LIMIT },
    );
    this.releases = new GroupCommit(
      async (ids) => {
        await deps.stores.deliveries.releaseHolds(ids, local.owner, local.clock());
        return ids.map((): void => undefined);
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
    const { local } = this.deps;
    const dropped = this.deps.scheduler.stop().map(deliveryIdOf);
    const givingBack =
      dropped.length === 0
        ? undefined
        : this.deps.stores.deliveries.releaseHolds(dropped, local.owner, local.clock()).catch((err: unknown) => {
            local.logger.warn(
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
      host: this.deps.outbound.hostKey(delivery.url),
      lane: { organizationId: delivery.organizationId, mode: delivery.mode },
      ...(delivery.endpointId !== undefined && { destination: delivery.endpointId }),
    };
  }

  /** Whether an attempt of this delivery is queued or running here. */
  isQueued(deliveryId: string, attempt: number): boolean {
    return this.deps.scheduler.has(attemptKey(deliveryId, attempt));
  }

  /**
   * Queues attempt `attempt`. `held`: this process stored the delivery held for it, so the attempt needs no claim;
   * stored unheld (this process does not dispatch, or is stopping), it is left to the recovery sweep. A held one that
   * does not fit in memory here (its host's or its merchant's queue is full, or this process is stopping) is given
   * back: the recovery sweep attempts it when there is room, or, when its merchant's lane was full, the lane takes it
   * back once it has drained.
   */
  queue(delivery: Queueable, attempt: number, held?: HeldDelivery): SubmitResult {
    const { local, scheduler } = this.deps;
    if (held && held.delivery.lockOwner !== local.owner) return 'stopped';
    // The job keeps the delivery's id and shard key only, as the store's writes about its attempts name it.
    const { _id, organizationId, mode, eventId } = delivery;
    const ref: DeliveryRef = { _id, organizationId, mode, eventId };
    const result = scheduler.submit(attemptKey(_id, attempt), this.target(delivery), (release) =>
      this.run(ref, delivery.url, attempt, release, held),
    );
    local.metrics.queued.set(scheduler.queued);
    if (!held || result === 'queued' || result === 'duplicate') return result;
    const lane = { organizationId, mode };
    const laneWasFull = scheduler.laneIsFull(lane);
    this.releases.add(_id).then(
      () => {
        // Armed again now that it is unheld: a refill that ran meanwhile could not have seen it.
        if (laneWasFull && !this.stopped) scheduler.whenLaneHasRoom(lane);
      },
      (err: unknown) =>
        local.logger.warn(
          { err, deliveryId: _id },
          'could not give back a delivery that did not fit in memory; the recovery sweep takes it once its hold lapses',
        ),
    );
    return result;
  }

  /** Retry consumer handler: the retry is due; queue it (the claim at run time rejects stale ones). */
  async onRetryDue(message: RetryMessage): Promise<void> {
    await this.deps.scheduler.waitForRoom();
    const delivery = await this.deps.stores.deliveries.getForDispatch(message.deliveryId);
    if (!delivery || delivery.status !== 'pending' || delivery.attemptCount + 1 !== message.attempt) return;
    this.queue(delivery, message.attempt);
  }

  /** Publishes a failed delivery's dead letter, then clears its flag; left for the recovery sweep when that fails. */
  async publishDeadLetter(delivery: DeliveryDocument, now: Date): Promise<void> {
    try {
      await this.deps.outbound.publisher.publishDeadLetter(delivery, now);
      await this.deps.stores.deliveries.markDeadLettered(delivery, now);
    } catch (err) {
      this.deps.local.logger.warn(
        { err, deliveryId: delivery._id },
        'could not publish dead letter; the recovery sweep will retry',
      );
    }
  }

  /**
   * The attempt, from its slots to its recorded outcome (and its retry message). First a slot on the address `url`
   * connects to, beside its name's (`release`): names that resolve to one address share its cap; taken before the
   * delivery is claimed, so that a wait here never eats into the hold the attempt needs. Then the delivery taken,
   * and in a span of the trace that caused it, the POST; both slots are given back once the request is over, before
   * the outcome is recorded.
   */
  private async run(
    ref: DeliveryRef,
    url: string,
    attempt: number,
    release: () => void,
    held?: HeldDelivery,
  ): Promise<void> {
    if (this.stopped) return;
    const { local, outbound, scheduler } = this.deps;
    const address = await outbound.addressOf(url);
    const leave = address === null ? undefined : await scheduler.addresses.take(address);
    try {
      if (this.stopped) return;
      const started = local.clock();
      const taken = await this.take(ref, attempt, started, held);
      if (!taken) return;
      const { delivery, body } = taken;
      if (attempt === 1)
        local.metrics.firstAttemptDelay.observe(Math.max(0, (started.getTime() - delivery.createdAt.getTime()) / 1000));
      const attributes = {
        'checkout.delivery_id': ref._id,
        'checkout.event_id': delivery.eventId,
        'checkout.event_type': delivery.eventType,
        'checkout.attempt': attempt,
        'checkout.organization_id': delivery.organizationId,
        'checkout.mode': delivery.mode,
        'http.request.method': 'POST',
        'server.address': outbound.hostKey(delivery.url),
      };
      await inSpan(
        'webhook attempt',
        { kind: 'client', parent: delivery.trace ?? 'none', attributes },
        async (span) => {
          const made = await this.make(delivery, body, attempt, started);
          leave?.();
          release();
          if ('deferredUntil' in made) {
            span.setAttributes({ 'checkout.outcome': 'deferred' });
            await this.deps.stores.deliveries.deferAttempt(ref, attempt, made.deferredUntil, started);
            return;
          }
          // The attempt's answer on its span: the status code, the outcome (success, timeout…), and failed unless 2xx.
          const { kind, statusCode, ok } = made.result;
          span.setAttributes({ 'checkout.outcome': kind, 'http.response.status_code': statusCode ?? undefined });
          if (!ok) span.fail();
          await this.recordOutcome(delivery, made);
        },
      );
    } finally {
      leave?.();
    }
  }

  /** The delivery and its body: as held, while the hold outlives the attempt; otherwise claimed for this attempt. */
  private async take(
    ref: DeliveryRef,
    attempt: number,
    started: Date,
    held: HeldDelivery | undefined,
  ): Promise<HeldDelivery | null> {
    const { policy, local, stores } = this.deps;
    if (
      held &&
      held.delivery.lockOwner === local.owner &&
      held.delivery.lockedUntil.getTime() - started.getTime() > policy.timeoutMs + CLAIM_SAFETY_MS
    )
      return held;
    const claim = await stores.deliveries.claim({
      delivery: ref,
      attempt,
      owner: local.owner,
      now: started,
      holdMs: policy.claimTtlMs,
    });
    if (!claim.claimed) {
      local.logger.debug({ deliveryId: ref._id, attempt, reason: claim.reason }, 'attempt skipped');
      return null;
    }
    const delivery = claim.delivery;
    if (held) return { delivery, body: held.body };
    const event = await stores.events.getEvent(
      { organizationId: delivery.organizationId, mode: delivery.mode },
      delivery.eventId,
    );
    if (!event) throw new Error(`delivery ${ref._id} has no event ${delivery.eventId}`);
    return { delivery, body: event.body };
  }

  /**
   * One attempt (D31, D40): the secrets to sign with (its endpoint's, D50, or its organization's, D35), the signed
   * POST, and the delivery's next state as the rules decide it. Never send unsigned what the merchant expects signed;
   * and our outage is not the merchant's failed attempt: when the secret cannot be read, nothing is sent and the
   * attempt is put off without using up one of the five (the sweep brings it back).
   */
  private async make(
    delivery: DeliveryDocument,
    body: string,
    attempt: number,
    started: Date,
  ): Promise<Made | Deferred> {
    const { local, policy, outbound } = this.deps;
    const scope = { organizationId: delivery.organizationId, mode: delivery.mode };
    let secrets: readonly string[] = [];
    let notSent: string | undefined;
    try {
      if (delivery.endpointId === undefined) secrets = await outbound.secrets.secretsFor(scope);
      else {
        // D50: signed with the endpoint's own secret (and, within 24 h of a rotation, the one it replaced).
        const endpoint = await this.deps.directory.forAttempt(scope, delivery.endpointId);
        if (!endpoint) notSent = 'the endpoint was deleted';
        else if (endpoint.disabled !== null) notSent = 'the endpoint is disabled';
        else secrets = signingSecretsOf(endpoint, started);
      }
    } catch (err) {
      local.metrics.deferred.inc({ reason: 'signing_secret_unavailable' });
      local.logger.debug(
        { err, deliveryId: delivery._id, attempt },
        'attempt put off: the signing secret is unavailable',
      );
      return { deferredUntil: new Date(started.getTime() + (policy.delaysMs[0] ?? 10_000)) };
    }
    let result: SendResult;
    if (notSent !== undefined) result = notSentResult('endpoint_unavailable', `not sent: ${notSent}`);
    else {
      local.metrics.inFlight.inc();
      local.metrics.queued.set(this.deps.scheduler.queued);
      try {
        const { eventId, _id: deliveryId, eventType } = delivery;
        const timestamp = Math.floor(local.clock().getTime() / 1000);
        let headers: Record<string, string> | Error;
        try {
          headers = webhookHeaders({ eventId, deliveryId, eventType, body, secrets, timestamp });
        } catch (err) {
          headers = err instanceof Error ? err : new Error(String(err));
        }
        // A secret that cannot be used will not heal by waiting: a failed attempt, visible in the events API.
        result =
          headers instanceof Error
            ? notSentResult('signing_failed', `signing failed: ${headers.message}`)
            : await outbound.sender.send({ url: delivery.url, headers, body });
      } finally {
        local.metrics.inFlight.dec();
      }
      local.metrics.attemptDuration.observe({ outcome: result.kind }, result.durationMs / 1000);
    }
    const status = result.statusCode;
    local.metrics.attempts.inc({
      outcome: result.kind,
      attempt: String(attempt),
      status_class: status === null ? 'none' : `${Math.floor(status / 100)}xx`,
    });
    const finished = local.clock();
    const outcome = attemptOutcome({ result, attempt, started, finished, schedule: policy, rng: local.rng });
    return { result, outcome, finished };
  }

  /**
   * One conditional write, whether or not the attempt outlived its hold: it names the attempt it follows.
   * Successes share their command with whatever other successes are waiting; a failure is written alone, since
   * only the writer that won may publish its retry or dead letter.
   */
  private async recordOutcome(delivery: DeliveryDocument, { result, outcome, finished }: Made): Promise<void> {
    if (result.ok) {
      await this.successes.add({ delivery, outcome, now: finished });
      return;
    }
    const { local, outbound } = this.deps;
    const updated = await this.deps.stores.deliveries.recordAttempt(delivery, outcome, finished);
    if (!updated) {
      local.logger.info(
        { deliveryId: delivery._id, attempt: outcome.record.attempt },
        'attempt result dropped: that attempt was already recorded elsewhere',
      );
      return;
    }
    if (delivery.endpointId !== undefined && result.kind !== 'endpoint_unavailable')
      await this.endpointFailures.failed(
        { organizationId: delivery.organizationId, mode: delivery.mode },
        delivery.endpointId,
        finished,
      );
    const retryAt = outcome.nextAttemptAt;
    if (retryAt) {
      const retry = { deliveryId: updated._id, attempt: updated.attemptCount + 1, notBefore: retryAt.toISOString() };
      await outbound.publisher.publishRetry(retry).catch((err: unknown) => {
        // The delivery is stored as pending; the recovery sweep retries it once its hold lapses.
        local.logger.warn(
          { err, deliveryId: updated._id },
          'could not publish retry message; the recovery sweep will pick it up',
        );
      });
      return;
    }
    local.metrics.deliveries.inc({ outcome: 'failed' });
    // Not sent because its endpoint was disabled or deleted (D50): no failure of the merchant's server to park.
    if (updated.deadLetterPending) await this.publishDeadLetter(updated, finished);
  }
}
