import { describe, expect, it } from 'vitest';
import { createLogger } from '@checkout/logger';
import { buildSessionEvent, gate, settledYet, withinTurns } from '@checkout/testing';
import { NO_SIGNING } from '../../clients/gateway.client';
import { createDispatcherMetrics } from '../../metrics';
import type { AttemptOutcome, SendResult } from '../rules/attempt-outcome';
import type { DeliveryDocument } from '../../store/delivery.document';
import type { EventDocument } from '../../store/event.document';
import type { EndpointDirectory } from './endpoint-directory';
import { createDispatcher } from './dispatcher';
import type { IncomingEvent } from './ports';
import type { DeliveryRecords, EndpointRecords, EventRecords, UsageRecords } from './records';
import { HostScheduler } from './host-scheduler';

// The session-events handler with the stores replaced by ports the test controls (pure logic;
// the component tests run the same code against Kafka and the database). kafkajs fetches again only once every
// batch of the last fetch is handed over, so the handler must return without waiting for the database, yet
// keep waiting while the scheduler is full (back-pressure). Each delivery is stored, pending and held, with its
// event before its first attempt; the batch is done once stored, whatever its attempts still do.

const OK: SendResult = {
  kind: 'success',
  ok: true,
  statusCode: 200,
  durationMs: 1,
  error: null,
  responseSnippet: null,
};

function incoming(count: number): IncomingEvent[] {
  return Array.from({ length: count }, () => {
    const { body, ...envelope } = buildSessionEvent({ callbackUrl: 'http://127.0.0.1:9/hook' });
    return { envelope, createdAt: body.createdAt, rawBody: body };
  });
}

/**
 * A dispatcher whose inserts wait for `inserts` (the events' also for `eventInserts`, open unless `holdEvents`), and
 * whose every attempt waits for `answers`.
 */
function dispatcherWith(limits: { maxInFlight: number; maxQueued: number }, holdEvents = false) {
  const inserts = gate();
  const eventInserts = gate();
  if (!holdEvents) eventInserts.open();
  const answers = gate();
  const sent: string[] = [];
  const storedDeliveries: DeliveryDocument[] = [];
  const recordedOutcomes: AttemptOutcome[] = [];
  const givenBack: string[] = [];
  const events = {
    recordEvents: async (docs: readonly EventDocument[]) => {
      await inserts.promise;
      await eventInserts.promise;
      return new Map(docs.map((event) => [event._id, { event, created: true }]));
    },
  };
  const deliveries = {
    insertDeliveries: async (docs: readonly DeliveryDocument[]) => {
      await inserts.promise;
      storedDeliveries.push(...docs);
      return new Set<string>();
    },
    releaseHolds: async (ids: readonly string[], owner: string) => {
      if (owner === 'test-process') givenBack.push(...ids);
    },
    recordAttempts: async (items: ReadonlyArray<{ outcome: AttemptOutcome }>) => {
      recordedOutcomes.push(...items.map(({ outcome }) => outcome));
      return items.length;
    },
  };
  const scheduler = new HostScheduler({ maxPerHost: limits.maxInFlight, maxQueuedPerHost: 100, ...limits });
  const dispatcher = createDispatcher({
    stores: {
      events: events as unknown as EventRecords,
      deliveries: deliveries as unknown as DeliveryRecords,
      endpoints: {} as unknown as EndpointRecords,
      usage: { add: async () => {} } as unknown as UsageRecords,
    },
    // No merchant here has webhook endpoints (D50): fan-out makes nothing.
    directory: { subscribersOf: async (events: unknown[]) => events.map(() => []) } as unknown as EndpointDirectory,
    scheduler,
    outbound: {
      sender: {
        send: async ({ headers }) => {
          sent.push(String(headers['x-service-event-id']));
          await answers.promise;
          return OK;
        },
      },
      hostKey: () => '127.0.0.1:9',
      addressOf: async () => '127.0.0.1:9',
      secrets: NO_SIGNING,
      publisher: { publishRetry: async () => {}, publishDeadLetter: async () => {} },
    },
    local: {
      owner: 'test-process',
      dispatchLocally: true,
      clock: () => new Date(),
      rng: () => 0.5,
      logger: createLogger('dispatcher-test', { level: 'silent' }),
      metrics: createDispatcherMetrics(),
    },
    recoveries: { tryAcquire: async () => ({ release: async () => {}, renew: async () => true }) },
    policy: {
      delaysMs: [10_000, 60_000, 600_000, 3_600_000],
      maxAttempts: 5,
      timeoutMs: 5_000,
      claimTtlMs: 30_000,
      fanOutBacklog: 1_000,
      endpointDisableAfterMs: 3 * 24 * 3_600_000,
    },
  });
  return {
    dispatcher,
    record: dispatcher.record,
    scheduler,
    inserts,
    eventInserts,
    answers,
    sent,
    storedDeliveries,
    recordedOutcomes,
    givenBack,
  };
}

describe('Recorder.recordEventsAndQueueFirstAttempts ', () => {
  it('When the inserts are slow, then the handler returns before them, done waits for them only, the attempts go once they are done, and the outcomes are recorded afterwards', async () => {
    const { record, inserts, answers, sent, storedDeliveries, recordedOutcomes } = dispatcherWith({
      maxInFlight: 10,
      maxQueued: 100,
    });
    const handed = record.recordEventsAndQueueFirstAttempts(incoming(3));
    expect(await settledYet(handed)).toBe(true);
    const { done } = await handed;
    expect(await settledYet(done)).toBe(false);
    expect(sent).toHaveLength(0);

    inserts.open();
    expect(await withinTurns(() => sent.length === 3)).toBe(true);
    // Stored before any attempt, pending and held by this process: the batch is done while the attempts still wait.
    expect(await settledYet(done)).toBe(true);
    expect(storedDeliveries.map((d) => [d.status, d.attempts.length, d.lockOwner])).toEqual(
      Array.from({ length: 3 }, () => ['pending', 0, 'test-process']),
    );
    expect(recordedOutcomes).toHaveLength(0);

    answers.open();
    expect(await withinTurns(() => recordedOutcomes.length === 3)).toBe(true);
    expect(recordedOutcomes.map((o) => [o.status, o.record.attempt])).toEqual(
      Array.from({ length: 3 }, () => ['succeeded', 1]),
    );
  });

  it('When the deliveries are stored before their events, then no attempt goes until the events are stored too (D46)', async () => {
    // The two inserts are separate commands that commit on their own. Waiting for the deliveries' only, an event on
    // FerretDB once answered 404 to a merchant who read it right after its webhook.
    const { record, inserts, eventInserts, sent, storedDeliveries } = dispatcherWith(
      { maxInFlight: 10, maxQueued: 100 },
      true,
    );
    const { done } = await record.recordEventsAndQueueFirstAttempts(incoming(2));
    inserts.open();
    expect(await withinTurns(() => storedDeliveries.length === 2)).toBe(true);
    expect(await withinTurns(() => sent.length > 0)).toBe(false);
    expect(await settledYet(done)).toBe(false);

    eventInserts.open();
    expect(await withinTurns(() => sent.length === 2)).toBe(true);
    await done;
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

describe('Dispatcher.stop', () => {
  it('When it stops with attempts queued and one in flight, then the queued ones are dropped with their holds given back in one command, and the one in flight is finished and recorded', async () => {
    // One attempt at a time: the first is in flight (waiting for its answer), the other two are queued, held here.
    const { dispatcher, record, inserts, answers, sent, storedDeliveries, recordedOutcomes, givenBack } =
      dispatcherWith({ maxInFlight: 1, maxQueued: 100 });
    inserts.open();
    const { done } = await record.recordEventsAndQueueFirstAttempts(incoming(3));
    await done;
    expect(await withinTurns(() => sent.length === 1)).toBe(true);

    const stopping = dispatcher.stop(60_000);
    // Without the holds given back, the other replicas' sweep would leave these two alone for WEBHOOK_CLAIM_TTL_MS.
    expect(await withinTurns(() => givenBack.length === 2)).toBe(true);
    const inFlight = storedDeliveries.find((d) => String(d.eventId) === sent[0]);
    expect(new Set(givenBack)).toEqual(new Set(storedDeliveries.filter((d) => d !== inFlight).map((d) => d._id)));
    expect(await settledYet(stopping)).toBe(false);

    answers.open();
    await stopping;
    expect(recordedOutcomes.map((o) => [o.status, o.record.attempt])).toEqual([['succeeded', 1]]);
    expect(sent).toHaveLength(1);
  });
});
