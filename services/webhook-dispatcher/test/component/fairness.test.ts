import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER, eventually, startWebhookReceiver, type WebhookReceiver } from '@checkout/testing';
import type { SessionEventV1 } from '@checkout/contracts';
import {
  HANGING_STAYS_OPEN,
  buildSessionEvent,
  sessionEventsTopic,
  startDispatcherFixture,
  useDispatcherFixture,
} from './support';

// One merchant cannot delay everyone's webhooks. A test-mode merchant points its callbacks at
// tarpits on many ports (each attempt hangs for the whole 30 s timeout) and sends more events than the dispatcher
// may hold in memory. Before lanes, its attempts took every in-flight slot and its backlog filled the queue, so
// the consumers every merchant shares waited: another merchant's webhook waited 30 s for a slot. Now it holds
// its share (half of the 8 slots, half of the 40 places), test mode as a whole leaves live a quarter, and its
// overflow is stored pending: another merchant's webhook, live or test, goes out while every tarpit still hangs.
// The share is the organization's, both modes together: when a lane was an organization and mode, the same
// merchant hanging in test mode and in live mode (live events through redeliver) held both halves, every slot.

const HANGING_PORTS = 12;
const HOSTILE_EVENTS = 60;
const tarpits: WebhookReceiver[] = [];
const fixture = useDispatcherFixture('fairness', {
  SESSION_EVENTS_PARTITIONS: '1',
  WEBHOOK_MAX_IN_FLIGHT: '8',
  WEBHOOK_MAX_CONCURRENCY_PER_HOST: '2',
  WEBHOOK_MAX_QUEUED: '40',
  ...HANGING_STAYS_OPEN,
});

beforeAll(async () => {
  for (let i = 0; i < HANGING_PORTS; i += 1) {
    const tarpit = await startWebhookReceiver();
    tarpit.answer('/hook', ANSWER.hang);
    tarpits.push(tarpit);
  }
});

// Before the fixture's stop (after hooks run newest first): the hanging attempts end with their tarpits.
afterAll(async () => {
  await Promise.all(tarpits.map((t) => t.close()));
});

const tarpitRequests = () => tarpits.reduce((n, t) => n + t.deliveries('/hook').length, 0);

describe('Fair delivery between merchants and modes', () => {
  it("When one merchant's test-mode and live-mode endpoints on many ports all hang and its backlog passes its share, then another merchant's live and test webhooks are delivered while they still hang", async () => {
    const { receiver, producer, dispatcher } = fixture;
    const topic = sessionEventsTopic(dispatcher.config);
    const hostile: SessionEventV1[] = Array.from({ length: HOSTILE_EVENTS }, (_, i) =>
      buildSessionEvent({
        organizationId: 'org_hostile',
        mode: i % 2 === 0 ? 'test' : 'live',
        callbackUrl: tarpits[i % HANGING_PORTS]?.url('/hook') ?? null,
      }),
    );
    await producer.sendEvents(topic, hostile);
    // Its share of the 8 slots: 4 attempts hang, both modes together, however many ports it has.
    await eventually(() => tarpitRequests() >= 4, {
      deadlineMs: 20_000,
      description: "the hostile merchant's attempts reach its tarpits",
    });

    const live = buildSessionEvent({ organizationId: 'org_other', mode: 'live', callbackUrl: receiver.url('/live') });
    const test = buildSessionEvent({ organizationId: 'org_third', mode: 'test', callbackUrl: receiver.url('/test') });
    await producer.sendEvents(topic, [live, test]);
    // Well inside the tarpits' 30 s: before fairness neither could start until an attempt timed out.
    await eventually(() => receiver.deliveries('/live').length === 1 && receiver.deliveries('/test').length === 1, {
      deadlineMs: 15_000,
      description: "the other merchants' webhooks delivered",
    });
    expect(tarpitRequests()).toBe(4);
    expect(receiver.deliveries('/live')[0]?.headers['x-service-event-id']).toBe(live.eventId);
    expect(receiver.deliveries('/test')[0]?.headers['x-service-event-id']).toBe(test.eventId);
  });
});

describe('A merchant burst beyond its share', () => {
  it('When one merchant sends more events than its share of the queue, then the overflow is stored pending and taken back as its queue drains, each delivered once, without the recovery sweep', async () => {
    const burst = await startDispatcherFixture('fairness_burst', {
      SESSION_EVENTS_PARTITIONS: '1',
      WEBHOOK_MAX_IN_FLIGHT: '4',
      WEBHOOK_MAX_QUEUED: '20',
      SWEEPERS_ENABLED: 'false',
    });
    try {
      const events = Array.from({ length: 150 }, () =>
        buildSessionEvent({ organizationId: 'org_burst', mode: 'live', callbackUrl: burst.receiver.url('/hook') }),
      );
      await burst.producer.sendEvents(sessionEventsTopic(burst.dispatcher.config), events);
      await eventually(() => burst.receiver.deliveries('/hook').length >= events.length, {
        deadlineMs: 45_000,
        description: 'every webhook of the burst delivered',
      });
      const ids = burst.receiver.deliveries('/hook').map((r) => String(r.headers['x-service-event-id']));
      expect(ids).toHaveLength(events.length);
      expect(new Set(ids)).toEqual(new Set(events.map((e) => e.eventId)));
    } finally {
      await burst.stop();
    }
  });
});
