import { describe, expect, it } from 'vitest';
import { createLogger } from '@checkout/logger';
import { buildSessionEvent, eventually, gate, settledYet, withinTurns } from '@checkout/testing';
import { NO_SIGNING } from '../clients/gateway.client';
import type { SendResult } from '../clients/webhook-endpoints.client';
import { createDispatcherMetrics } from '../metrics';
import type { AttemptOutcome, DeliveriesStore } from '../store/deliveries.store';
import type { DeliveryDocument } from '../store/delivery.document';
import type { EventDocument } from '../store/event.document';
import type { EventsStore } from '../store/events.store';
import { createDispatcher, type IncomingSessionEvent } from './dispatcher';
import { HostScheduler } from './host-scheduler';

// The session-events handler (issues 9 and 25) with the stores replaced by ports the test controls (pure logic;
// the component tests run the same code against Kafka and the database). kafkajs fetches again only once every
// batch of the last fetch is handed over, so the handler must return without waiting for the database, yet
// keep waiting while the scheduler is full (back-pressure). An event's first delivery is stored once, after its
// first attempt and with it (one write per successful delivery); one whose attempt waits in a queue for longer than
// storeQueuedAfterMs is stored pending and held meanwhile, so its batch can be done; the batch is done once every
// delivery of it is stored.

const OK: SendResult = { kind: 'success', ok: true, statusCode: 200, durationMs: 1, error: null, responseSnippet: null };

function incoming(count: number): IncomingSessionEvent[] {
  return Array.from({ length: count }, () => {
    const { body, ...envelope } = buildSessionEvent({ callbackUrl: 'http://127.0.0.1:9/hook' });
    return { envelope, createdAt: body.createdAt, rawBody: body as unknown as Record<string, unknown> };
  });
}

/** A dispatcher whose inserts wait for `inserts`, and whose every attempt waits for `answers`. */
function dispatcherWith(limits: { maxInFlight: number; maxQueued: number }, storeQueuedAfterMs = 60_000) {
  const inserts = gate();
  const answers = gate();
  const sent: string[] = [];
  const storedDeliveries: DeliveryDocument[] = [];
  const recordedOutcomes: AttemptOutcome[] = [];
  const events = {
    recordEvents: async (docs: readonly EventDocument[]) => {
      await inserts.promise;
      return new Map(docs.map((event) => [event._id, { event, created: true }]));
    },
  };
  const deliveries = {
    insertDeliveries: async (docs: readonly DeliveryDocument[]) => {
      await inserts.promise;
      storedDeliveries.push(...docs);
      return new Set<string>();
    },
    existingIds: async () => new Set<string>(),
    recordAttempts: async (items: ReadonlyArray<{ outcome: AttemptOutcome }>) => {
      recordedOutcomes.push(...items.map(({ outcome }) => outcome));
      return items.length;
    },
  };
  const scheduler = new HostScheduler({ maxPerHost: limits.maxInFlight, maxQueuedPerHost: 100, ...limits });
  const dispatcher = createDispatcher({
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
    policy: { delaysMs: [10_000, 60_000, 600_000, 3_600_000], maxAttempts: 5, timeoutMs: 5_000, claimTtlMs: 30_000, storeQueuedAfterMs },
  });
  return { record: dispatcher.record, scheduler, inserts, answers, sent, storedDeliveries, recordedOutcomes };
}

describe('Recorder.recordEventsAndQueueFirstAttempts (issues 9, 25)', () => {
  it('When the events insert is slow, then the handler returns before it, the attempts go once it is done, and done waits for the deliveries, each stored once with its first attempt', async () => {
    const { record, inserts, answers, sent, storedDeliveries, recordedOutcomes } = dispatcherWith({ maxInFlight: 10, maxQueued: 100 });
    const handed = record.recordEventsAndQueueFirstAttempts(incoming(3));
    expect(await settledYet(handed)).toBe(true);
    const { done } = await handed;
    expect(sent).toHaveLength(0);

    inserts.open();
    expect(await withinTurns(() => sent.length === 3)).toBe(true);
    // In flight and not stored: the batch is not done, so a crash now brings its messages back from Kafka.
    expect(await settledYet(done)).toBe(false);
    expect(storedDeliveries).toHaveLength(0);

    answers.open();
    expect(await withinTurns(() => storedDeliveries.length === 3)).toBe(true);
    expect(await settledYet(done)).toBe(true);
    // One insert each, with the attempt in it: no update follows (issue 9).
    expect(storedDeliveries.map((d) => [d.status, d.attempts.length, d.lockOwner])).toEqual(Array.from({ length: 3 }, () => ['succeeded', 1, null]));
    expect(recordedOutcomes).toHaveLength(0);
  });

  it('When a first attempt waits in a queue longer than storeQueuedAfterMs, then its delivery is stored pending and held, the batch is done once the one in flight is stored, and the waiting attempt records its outcome by update', async () => {
    // One attempt at a time for the host: the first is in flight (waiting for its answer), the other two queue.
    const { record, inserts, answers, sent, storedDeliveries, recordedOutcomes } = dispatcherWith({ maxInFlight: 1, maxQueued: 100 }, 100);
    inserts.open();
    const { done } = await record.recordEventsAndQueueFirstAttempts(incoming(3));
    expect(await withinTurns(() => sent.length === 1)).toBe(true);

    await eventually(() => storedDeliveries.length === 2, { deadlineMs: 5_000, description: 'the two queued first deliveries stored by the checkpoint' });
    expect(storedDeliveries.map((d) => [d.status, d.attempts.length, d.lockOwner])).toEqual([['pending', 0, 'test-process'], ['pending', 0, 'test-process']]);
    expect(await settledYet(done)).toBe(false);

    answers.open();
    await eventually(() => storedDeliveries.length === 3 && recordedOutcomes.length === 2, { deadlineMs: 5_000, description: 'every outcome recorded' });
    expect(storedDeliveries[2]).toMatchObject({ status: 'succeeded', attemptCount: 1 });
    expect(recordedOutcomes.map((o) => [o.status, o.record.attempt])).toEqual([['succeeded', 1], ['succeeded', 1]]);
    expect(new Set(sent).size).toBe(3);
    await done;
  });

  it('When a message is replayed while its first attempt is in flight here, then it is not sent again and the replayed batch is done only once the delivery is stored', async () => {
    const { record, inserts, answers, sent, storedDeliveries } = dispatcherWith({ maxInFlight: 10, maxQueued: 100 });
    inserts.open();
    const batch = incoming(1);
    const original = await record.recordEventsAndQueueFirstAttempts(batch);
    expect(await withinTurns(() => sent.length === 1)).toBe(true);

    const replayed = await record.recordEventsAndQueueFirstAttempts(batch);
    // Committing the replay now would leave the in-flight attempt's delivery to a crash.
    expect(await settledYet(replayed.done)).toBe(false);

    answers.open();
    await Promise.all([original.done, replayed.done]);
    expect(sent).toHaveLength(1);
    expect(storedDeliveries).toHaveLength(1);
  });

  it('When the scheduler is full, then the handler waits for room (back-pressure) and returns once the batch has its places', async () => {
    // Two attempts in flight (they wait for their answers) and two queued fill it; the fifth event has no place.
    const { record, scheduler, inserts, answers, sent } = dispatcherWith({ maxInFlight: 2, maxQueued: 2 });
    inserts.open();
    const handed = record.recordEventsAndQueueFirstAttempts(incoming(5));
    expect(await withinTurns(() => sent.length === 2 && scheduler.queued === 2)).toBe(true);
    expect(await settledYet(handed)).toBe(false);

    answers.open();
    const { done } = await handed;
    await done;
    expect(await withinTurns(() => new Set(sent).size === 5)).toBe(true);
    await scheduler.idle();
  });
});
