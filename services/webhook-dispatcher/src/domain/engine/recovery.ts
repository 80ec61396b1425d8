import { DomainError } from '@checkout/errors';
import type { Scope } from '@checkout/mongo';
import { RECOVER_MAX_AGE_DAYS, RECOVER_MAX_AGE_MS, subscribesTo } from '@checkout/contracts';
import type { DeliveryDocument } from '../../store/delivery.document';
import type { EventDocument } from '../../store/event.document';
import type { WebhookEndpointDocument } from '../../store/webhook-endpoint.document';
import type { Attempts } from './attempts';
import type { DispatcherDeps } from './ports';
import { scopeKey } from './lanes';
import type { DeliveryTarget, Recorder } from './record';
import { endpointDeliveryId, recoveryDeliveryId } from '../rules/fan-out';

/** Failed deliveries a recovery reads at once (D44). */
const RECOVER_PAGE = 200;
/**
 * How long a recovery's claim on its organization and mode outlives a replica that died running it. A recovery
 * that runs longer renews it every third of this, so it is never taken over while it runs.
 */
const RECOVERY_LEASE_MS = 120_000;
/** Most spilled deliveries one lane takes back from the database at once. */
const LANE_REFILL_BATCH = 500;

/**
 * Bringing back what nobody is attempting: the merchant's recovery of failed deliveries (D44), the sweep of
 * pending deliveries nobody holds (a crash, a lost retry message, a spilled queue) and of unsent dead letters,
 * and a lane taking back what it spilled once it has room.
 */
export class Recovery {
  private sweeps = 0;
  /** Lanes being refilled now, and whether they were told of room again meanwhile (one refill at a time per lane). */
  private readonly refilling = new Map<string, { again: boolean }>();

  constructor(
    private readonly deps: DispatcherDeps,
    private readonly recorder: Recorder,
    private readonly attempts: Attempts,
  ) {
    deps.scheduler.onLaneRoom((lane) => void this.refillLane(lane));
  }

  /**
   * D44: every delivery of this organization and mode whose last attempt failed at or after `since` gets one new
   * delivery (as redeliver). The new id is derived from the failed one, so two recoveries running at once would
   * create it once; the failed delivery is then marked, so a later recovery leaves it alone. The failed ones are
   * read a page at a time, those recovered before left out by the query, and one recovery per organization and
   * mode runs at a time: a second one meanwhile is 409 RECOVERY_IN_PROGRESS. Returns how many this call
   * created. A failed delivery to a webhook endpoint goes to the endpoint as it is now (its URL, its secret), and
   * not at all when it was deleted or is disabled.
   *
   * D50, with `endpointId`: only that endpoint's failed deliveries, and then what it missed while it was disabled:
   * every event since `since` (and since the endpoint exists) of a type it is subscribed to that has no delivery to
   * it gets the very delivery it would have had (its id derived from the event and the endpoint), so it is sent once
   * whatever the number of recoveries. The endpoint must be enabled.
   */
  async recover(scope: Scope, since: Date, endpointId?: string): Promise<number> {
    const now = this.deps.local.clock();
    if (since.getTime() < now.getTime() - RECOVER_MAX_AGE_MS) {
      throw new DomainError('INVALID_REQUEST', `since may be at most ${RECOVER_MAX_AGE_DAYS} days ago.`, {
        details: [{ path: 'since', message: `must be within the last ${RECOVER_MAX_AGE_DAYS} days` }],
      });
    }
    const endpoint = endpointId === undefined ? undefined : await this.enabledEndpoint(scope, endpointId);
    const leaseMs = this.deps.recoveryLeaseMs ?? RECOVERY_LEASE_MS;
    const lease = await this.deps.recoveries.tryAcquire(`recover:${scope.mode}:${scope.organizationId}`, leaseMs);
    if (!lease) {
      throw new DomainError(
        'RECOVERY_IN_PROGRESS',
        'A recovery of failed deliveries is already running for this account and mode; try again once it has answered.',
        { retryAfterSeconds: 5 },
      );
    }
    // Renewed while it runs, whatever each page takes: a recovery of months of failures (or a slow database) once
    // outlived its 120 s and let a second one start beside it. Lost anyway (the database did not answer a renewal
    // for a whole lease): it stops after the page it is on, and what it made stays made.
    let lost = false;
    const renewal = setInterval(() => {
      lease.renew().then(
        (stillOurs) => {
          if (!stillOurs) lost = true;
        },
        (err: unknown) => this.deps.local.logger.warn({ err }, 'could not renew a recovery lease; will try again'),
      );
    }, leaseMs / 3);
    renewal.unref();
    try {
      let told = false;
      const held = () => {
        if (lost && !told) {
          told = true;
          this.deps.local.logger.warn(
            { organizationId: scope.organizationId, mode: scope.mode },
            'a recovery lost its lease to another; stopping after what it has done',
          );
        }
        return !lost;
      };
      const recovering = await this.recoverFailed(scope, since, now, endpoint, held);
      return recovering + (endpoint && held() ? await this.recoverMissed(scope, since, endpoint, held) : 0);
    } finally {
      clearInterval(renewal);
      await lease.release();
    }
  }

  private async enabledEndpoint(scope: Scope, id: string): Promise<WebhookEndpointDocument> {
    const endpoint = await this.deps.stores.endpoints.get(scope, id);
    if (!endpoint) throw new DomainError('WEBHOOK_ENDPOINT_NOT_FOUND', `No webhook endpoint ${id}.`);
    if (endpoint.disabled !== null)
      throw new DomainError('WEBHOOK_ENDPOINT_DISABLED', `Webhook endpoint ${id} is disabled; enable it first.`);
    return endpoint;
  }

  /** The failed deliveries since `since` (of one endpoint, or all), each delivered again once. */
  private async recoverFailed(
    scope: Scope,
    since: Date,
    now: Date,
    only: WebhookEndpointDocument | undefined,
    held: () => boolean,
  ): Promise<number> {
    let recovering = 0;
    let after: DeliveryDocument | undefined;
    // The endpoints the failed deliveries were for, as they are now (read once each).
    const endpoints = new Map<string, WebhookEndpointDocument | null>(only ? [[only._id, only]] : []);
    for (;;) {
      if (!held()) return recovering;
      const page = await this.deps.stores.deliveries.listUnrecoveredFailedSince(scope, {
        since,
        after,
        limit: RECOVER_PAGE,
        endpointId: only?._id,
      });
      const events = await this.deps.stores.events.getEvents(scope, [...new Set(page.map((failed) => failed.eventId))]);
      for (const failed of page) {
        const lastAttempt = failed.attempts.at(-1);
        const event = events.get(failed.eventId);
        if (!lastAttempt || lastAttempt.at < since || !event) continue;
        const target = await this.targetOf(scope, failed, event, endpoints);
        if (!target) continue;
        const replacementId = recoveryDeliveryId(failed._id, scope.mode);
        const { created } = await this.recorder.recordDelivery(scope, event, replacementId, target);
        await this.deps.stores.deliveries.markRecovered(failed, replacementId, now);
        if (created) recovering += 1;
      }
      if (page.length < RECOVER_PAGE) return recovering;
      after = page.at(-1);
    }
  }

  /** Where a failed delivery goes again: its callback URL, or its endpoint if that is still there and enabled. */
  private async targetOf(
    scope: Scope,
    failed: DeliveryDocument,
    event: EventDocument,
    endpoints: Map<string, WebhookEndpointDocument | null>,
  ): Promise<DeliveryTarget | null> {
    if (failed.endpointId === undefined) return event.callbackUrl === null ? null : { url: event.callbackUrl };
    if (!endpoints.has(failed.endpointId))
      endpoints.set(failed.endpointId, await this.deps.stores.endpoints.get(scope, failed.endpointId));
    const endpoint = endpoints.get(failed.endpointId);
    return endpoint && endpoint.disabled === null ? { url: endpoint.url, endpointId: endpoint._id } : null;
  }

  /**
   * D50: the events since `since` the endpoint is subscribed to and has no delivery of (it was disabled when they
   * were recorded), each given the delivery it would have had; one that exists already is left as it is.
   */
  private async recoverMissed(
    scope: Scope,
    since: Date,
    endpoint: WebhookEndpointDocument,
    held: () => boolean,
  ): Promise<number> {
    const from = new Date(Math.max(since.getTime(), endpoint.createdAt.getTime()));
    const target = { url: endpoint.url, endpointId: endpoint._id };
    let recovering = 0;
    let after: EventDocument | undefined;
    for (;;) {
      if (!held()) return recovering;
      const page = await this.deps.stores.events.listCreatedSince(scope, from, after, RECOVER_PAGE);
      recovering += await this.recorder.recordDeliveries(
        page
          .filter((event) => subscribesTo(endpoint.enabledEvents, event.type))
          .map((event) => ({ event, deliveryId: endpointDeliveryId(event._id, endpoint._id, scope.mode), target })),
      );
      if (page.length < RECOVER_PAGE) return recovering;
      after = page.at(-1);
    }
  }

  /**
   * Queues pending deliveries that nobody holds (crash, lost retry message, spilled queue) and publishes dead
   * letters a crash left unsent. Returns how many deliveries it queued. One process at a time runs it (a lease,
   * background-work.ts).
   */
  async sweep(batchSize = 500): Promise<number> {
    if (this.attempts.isStopped) return 0;
    const { scheduler } = this.deps;
    const { deliveries } = this.deps.stores;
    const now = this.deps.local.clock();
    let queued = 0;
    const skip = { lanes: scheduler.fullLanes(), modes: scheduler.fullModes() };
    for (const delivery of await deliveries.findRecoverable(now, batchSize, skip)) {
      const attempt = delivery.attemptCount + 1;
      if (this.attempts.isQueued(delivery._id, attempt)) continue;
      if (!scheduler.hasRoomFor(this.attempts.target(delivery))) continue;
      if (this.attempts.queue(delivery, attempt) === 'queued') queued += 1;
    }
    // Dead letters left unsent are rare (a crash or broker outage right after the last attempt): look every
    // fifth sweep: the query is cheap on an index, but there is rarely anything to find.
    if (this.sweeps++ % 5 === 0) {
      for (const delivery of await deliveries.findDeadLetterPending(100))
        await this.attempts.publishDeadLetter(delivery, now);
    }
    return queued;
  }

  /**
   * A merchant whose attempts spilled (its lane was full) has room again: its pending deliveries nobody holds are
   * queued now, oldest first, instead of at the next recovery sweep (which runs on one replica, every few seconds).
   * Each attempt is claimed when it runs, so a sweep or another replica taking the same delivery runs it once.
   */
  private async refillLane(lane: Scope): Promise<void> {
    const id = scopeKey(lane);
    const running = this.refilling.get(id);
    if (running) {
      // What was given back after this refill's read is taken on the next pass.
      running.again = true;
      return;
    }
    if (this.attempts.isStopped) return;
    const state = { again: true };
    this.refilling.set(id, state);
    try {
      while (state.again && !this.attempts.isStopped) {
        state.again = false;
        if (!(await this.refillOnce(lane))) break;
      }
    } catch (err) {
      this.deps.local.logger.warn(
        { err, organizationId: lane.organizationId, mode: lane.mode },
        'could not take back spilled deliveries; the recovery sweep will',
      );
    } finally {
      this.refilling.delete(id);
    }
  }

  /** One read of the lane's unheld deliveries, queued in order; false once the lane is full again. */
  private async refillOnce(lane: Scope): Promise<boolean> {
    const found = await this.deps.stores.deliveries.findRecoverableOf(lane, this.deps.local.clock(), LANE_REFILL_BATCH);
    for (const delivery of found) {
      if (this.attempts.isQueued(delivery._id, delivery.attemptCount + 1)) continue;
      // Full again (or this host's queue is): the rest waits for the next time it has room.
      if (this.attempts.queue(delivery, delivery.attemptCount + 1) === 'spilled') return false;
    }
    if (found.length === LANE_REFILL_BATCH) this.deps.scheduler.whenLaneHasRoom(lane);
    return true;
  }
}
