import { describe, expect, it } from 'vitest';
import { createLogger } from '@checkout/logger';
import { buildSessionEvent, gate, settledYet, withinTurns } from '@checkout/testing';
import { NO_SIGNING } from '../clients/gateway-settings.client';
import type { SendResult } from '../clients/webhook-sender';
import { createDispatcherMetrics } from '../metrics';
import type { DeliveriesStore } from '../store/deliveries.store';
import type { DeliveryDocument, EventDocument } from '../store/documents';
import type { EventsStore } from '../store/events.store';
import { Dispatcher, type IncomingSessionEvent } from './dispatcher';
import { HostScheduler } from './host-scheduler';

// The session-events handler (issue 9) with the stores replaced by ports the test controls (pure logic; the
// component tests run the same code against Kafka and the database). kafkajs fetches again only once every
// batch of the last fetch is handed over, so the handler must return without waiting for the database, yet
// keep waiting while the scheduler is full (back-pressure).

const OK: SendResult = { kind: 'success', ok: true, statusCode: 200, durationMs: 1, error: null, responseSnippet: null };

function incoming(count: number): IncomingSessionEvent[] {
  return Array.from({ length: count }, () => {
    const { body, ...envelope } = buildSessionEvent({ callbackUrl: 'http://127.0.0.1:9/hook' });
    return { envelope, createdAt: body.createdAt, rawBody: body as unknown as Record<string, unknown> };
  });
}

/** A dispatcher whose events insert waits for `eventsInsert`, and whose every attempt waits for `answers`. */
function dispatcherWith(limits: { maxInFlight: number; maxQueued: number }) {
  const eventsInsert = gate();
  const answers = gate();
  const sent: string[] = [];
  const storedDeliveries: DeliveryDocument[] = [];
  const events = {
    recordEvents: async (docs: readonly EventDocument[]) => {
      await eventsInsert.promise;
      return new Map(docs.map((event) => [event._id, { event, created: true }]));
    },
  };
  const deliveries = {
    existingIds: async () => new Set<string>(),
    insertDeliveries: async (docs: readonly DeliveryDocument[]) => {
      storedDeliveries.push(...docs);
      return new Set<string>();
    },
  };
  const scheduler = new HostScheduler({ maxPerHost: limits.maxInFlight, maxQueuedPerHost: 100, ...limits });
  const dispatcher = new Dispatcher({
    events: events as unknown as EventsStore,
    deliveries: deliveries as unknown as DeliveriesStore,
    scheduler,
    sender: {
      send: async ({ headers }) => {
        sent.push(String(headers['x-service-event-id']));
        await answers.promise;
        return OK;
      },
    },
    hostKey: () => '127.0.0.1:9',
    recoveries: { tryAcquire: async () => ({ release: async () => {} }) },
    secrets: NO_SIGNING,
    publisher: { publishRetry: async () => {}, publishDeadLetter: async () => {} },
    metrics: createDispatcherMetrics(),
    logger: createLogger('dispatcher-test', { level: 'silent' }),
    clock: () => new Date(),
    rng: () => 0.5,
    owner: 'test-process',
    dispatchLocally: true,
    policy: { delaysMs: [10_000, 60_000, 600_000, 3_600_000], maxAttempts: 5, timeoutMs: 5_000, claimTtlMs: 30_000, storeQueuedAfterMs: 60_000 },
  });
  return { dispatcher, scheduler, eventsInsert, answers, sent, storedDeliveries };
}

describe('Dispatcher.recordSessionEvents (issue 9)', () => {
  it('When the events insert is slow, then the handler returns before it (the consumer fetches on), the attempts go once it is done, and done waits for the deliveries', async () => {
    const { dispatcher, eventsInsert, answers, sent, storedDeliveries } = dispatcherWith({ maxInFlight: 10, maxQueued: 100 });
    const handed = dispatcher.recordSessionEvents(incoming(3));
    expect(await settledYet(handed)).toBe(true);
    const { done } = await handed;
    expect(sent).toHaveLength(0);

    eventsInsert.open();
    expect(await withinTurns(() => sent.length === 3)).toBe(true);
    expect(await settledYet(done)).toBe(false);
    // The attempts started at once (free slots): each still tells its batch once its delivery is stored, with
    // the attempt in it, one insert each, not only when the long-queued checkpoint finds it.
    answers.open();
    expect(await settledYet(done)).toBe(true);
    expect(storedDeliveries.map((d) => d.attempts.length)).toEqual([1, 1, 1]);
  });

  it('When the scheduler is full, then the handler waits for room (back-pressure) and returns once the batch has its places', async () => {
    // Two attempts in flight (they wait for their answers) and two queued fill it; the fifth event has no place.
    const { dispatcher, scheduler, eventsInsert, answers, sent } = dispatcherWith({ maxInFlight: 2, maxQueued: 2 });
    eventsInsert.open();
    const handed = dispatcher.recordSessionEvents(incoming(5));
    expect(await withinTurns(() => sent.length === 2 && scheduler.queued === 2)).toBe(true);
    expect(await settledYet(handed)).toBe(false);

    answers.open();
    const { done } = await handed;
    await done;
    expect(new Set(sent).size).toBe(5);
    await scheduler.idle();
  });
});
