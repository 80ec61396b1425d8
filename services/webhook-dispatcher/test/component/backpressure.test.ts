import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandCounter } from '@checkout/mongo/testing';
import { eventually } from '@checkout/testing';
import type { SessionEventV1 } from '@checkout/contracts';
import { buildSessionEvent, sessionEventsTopic, startDispatcherFixture, type DispatcherFixture } from './support';

// Bursts and memory: when more events arrive than the scheduler may hold in memory (WEBHOOK_MAX_QUEUED),
// the consumer waits for room with the rest of its batch, its offsets uncommitted, instead of storing the
// overflow for the recovery sweep. With the sweep off, anything spilled would never be attempted, so every
// delivery arriving shows that nothing was; the commands show that no delivery needed a claim. Fairness between
// merchants is off here (one merchant may use the whole queue): with it on, a merchant's attempts beyond
// its share are stored pending instead (fairness.test.ts), so that its backlog cannot pause the shared consumers.

const EVENTS = 120;
const counter = new CommandCounter();
let fixture: DispatcherFixture;

beforeAll(async () => {
  fixture = await startDispatcherFixture(
    'backpressure',
    {
      SESSION_EVENTS_PARTITIONS: '1',
      WEBHOOK_MAX_IN_FLIGHT: '4',
      WEBHOOK_MAX_QUEUED: '10',
      SWEEPERS_ENABLED: 'false',
      WEBHOOK_ORGANIZATION_SHARE: '1',
      WEBHOOK_LIVE_RESERVED_SHARE: '0',
    },
    { commandCounter: counter },
  );
});

afterAll(async () => {
  await fixture?.stop();
});

describe('Back-pressure beyond the in-memory bound', () => {
  it(`When ${EVENTS} events arrive at once and at most 10 attempts may wait in memory, then the consumer waits for room and every event is delivered once, none through the sweep`, async () => {
    const { receiver, producer, dispatcher } = fixture;
    const events: SessionEventV1[] = Array.from({ length: EVENTS }, () =>
      buildSessionEvent({ callbackUrl: receiver.url('/hook') }),
    );
    const recording = await counter.during(async () => {
      await producer.sendEvents(sessionEventsTopic(dispatcher.config), events);
      await eventually(() => receiver.deliveries('/hook').length >= EVENTS, {
        deadlineMs: 30_000,
        description: `all ${EVENTS} webhooks delivered`,
      });
    });
    const ids = receiver.deliveries('/hook').map((r) => String(r.headers['x-service-event-id']));
    expect(new Set(ids).size).toBe(EVENTS);
    expect(new Set(ids)).toEqual(new Set(events.map((e) => e.eventId)));
    // A spilled delivery would have been claimed (findAndModify) before its attempt; none was. Only the inserts of
    // events and deliveries, the reads of the merchants' webhook endpoints (D50, one per group of batches: never
    // more than the inserts) and the updates recording the outcomes (every outcome is an update now, so an update
    // no longer tells a delivery stored while it waited).
    expect(recording.commands).not.toHaveProperty('findAndModify');
    expect(Object.keys(recording.commands).sort(), JSON.stringify(recording.commands)).toEqual([
      'find',
      'insert',
      'update',
    ]);
    expect(recording.commands.find).toBeLessThanOrEqual(recording.commands.insert ?? 0);
  });
});
