// Mixed versions: every committed message fixture (libs/contracts/fixtures/messages) goes through
// the parse function its consumer runs on receipt, and every shape today's producers make has a fixture. A
// change that breaks an older producer's message fails here, before a rolling deploy would run both.
import { describe, expect, it } from 'vitest';
import {
  ORDER_EVENT_TYPES,
  ORDER_PUBLIC_EVENT_TYPES,
  REPORT_EVENT_TYPES,
  SESSION_EVENT_TYPES,
  TOPIC_KEYS,
  TOPICS,
  WEBHOOK_RETRY_TIERS,
} from '@checkout/contracts';
import { DeadLetterEntry } from '../../deploy/scripts/replay-dead-letter';
import { parseOrderEvent } from '@checkout/sessions/testing';
import { parseOrderNamed } from '@checkout/orders/testing';
import {
  parseOrderPublicEvent,
  parseReportEvent,
  parseRetryMessage,
  parseSessionEvent,
} from '@checkout/webhook-dispatcher/testing';
import { fixtureShape, produceAll, readFixtures, type MessageFixture } from './message-fixtures';

const fixtures = readFixtures();
const ofTopic = (topic: string) => fixtures.filter((f) => f.topic === topic);
/** What a consumer's runner hands its parse function: the message value through JSON.parse (libs/kafka). */
const received = (fixture: MessageFixture): unknown => JSON.parse(JSON.stringify(fixture.value));

const retryTopics = WEBHOOK_RETRY_TIERS.map((tier) => TOPICS.webhookRetry(tier));
const KNOWN_TOPICS = [
  TOPICS.orderEvents,
  TOPICS.orderPublicEvents,
  TOPICS.reportEvents,
  TOPICS.sessionEvents,
  ...retryTopics,
  TOPICS.webhookDeadLetter,
];

describe('message fixtures: every committed shape parses in its consumer', () => {
  it('has fixtures only for topics the platform uses, and some for each', () => {
    for (const { topic } of fixtures) expect(KNOWN_TOPICS).toContain(topic);
    for (const topic of KNOWN_TOPICS) expect(ofTopic(topic).length, topic).toBeGreaterThan(0);
  });

  it.each(ofTopic(TOPICS.orderEvents).map((f) => [f.name, f.fixture] as const))(
    "orders.events/%s → sessions' order-events consumer",
    (_name, fixture) => {
      const parsed = parseOrderEvent(received(fixture));
      if (!parsed.ok) throw new Error(parsed.error);
      const value = fixture.value as { type: string; orderId: string };
      expect(parsed.value.type).toBe(value.type);
      expect(ORDER_EVENT_TYPES).toContain(parsed.value.type);
      expect(parsed.value.orderId).toBe(fixture.key);
    },
  );

  it.each(ofTopic(TOPICS.orderEvents).map((f) => [f.name, f.fixture] as const))(
    "orders.events/%s → orders' balance-lines consumer (D52: it reads only whose order it is)",
    (_name, fixture) => {
      const parsed = parseOrderNamed(received(fixture));
      if (!parsed.ok) throw new Error(parsed.error);
      expect(parsed.value.orderId).toBe(fixture.key);
      expect(parsed.value).toMatchObject({
        organizationId: expect.any(String),
        mode: expect.stringMatching(/^(test|live)$/),
      });
    },
  );

  it.each(ofTopic(TOPICS.sessionEvents).map((f) => [f.name, f.fixture] as const))(
    "checkout.session.events/%s → the dispatcher's session-events consumer",
    (_name, fixture) => {
      const parsed = parseSessionEvent(received(fixture));
      if (!parsed.ok) throw new Error(parsed.error);
      const value = fixture.value as { type: string; body: unknown };
      expect(parsed.value.envelope.type).toBe(value.type);
      expect(Object.values(SESSION_EVENT_TYPES)).toContain(parsed.value.envelope.type);
      expect(parsed.value.envelope.sessionId).toBe(fixture.key);
      // The webhook body reaches the merchant as the producer wrote it.
      expect(parsed.value.rawBody).toEqual(value.body);
    },
  );

  it.each(ofTopic(TOPICS.orderPublicEvents).map((f) => [f.name, f.fixture] as const))(
    "orders.public-events/%s → the dispatcher's order-public-events consumer (D49)",
    (_name, fixture) => {
      const parsed = parseOrderPublicEvent(received(fixture));
      if (!parsed.ok) throw new Error(parsed.error);
      const value = fixture.value as { type: string; eventId: string; body: unknown };
      expect(parsed.value.envelope).toMatchObject({ type: value.type, eventId: value.eventId, callbackUrl: null });
      expect(ORDER_PUBLIC_EVENT_TYPES).toContain(parsed.value.envelope.type);
      expect(fixture.headers?.['event-id']).toBe(value.eventId);
      // The body reaches the events API as the producer wrote it.
      expect(parsed.value.rawBody).toEqual(value.body);
    },
  );

  it.each(ofTopic(TOPICS.reportEvents).map((f) => [f.name, f.fixture] as const))(
    "reports.public-events/%s → the dispatcher's report-events consumer (D52)",
    (_name, fixture) => {
      const parsed = parseReportEvent(received(fixture));
      if (!parsed.ok) throw new Error(parsed.error);
      const value = fixture.value as { type: string; eventId: string; reportId: string; body: unknown };
      expect(parsed.value.envelope).toMatchObject({ type: value.type, eventId: value.eventId, callbackUrl: null });
      expect(REPORT_EVENT_TYPES).toContain(parsed.value.envelope.type);
      expect(fixture.key).toBe(value.reportId);
      expect(fixture.headers?.['event-id']).toBe(value.eventId);
      expect(parsed.value.rawBody).toEqual(value.body);
    },
  );

  it.each(
    fixtures
      .filter((f) => retryTopics.includes(f.topic))
      .map((f) => [`${f.topic}/${f.name}`, f.topic, f.fixture] as const),
  )("%s → the dispatcher's retry consumer", (_name, topic, fixture) => {
    const parsed = parseRetryMessage(received(fixture));
    if (!parsed.ok) throw new Error(parsed.error);
    // Tier N holds the retry for attempt N + 1.
    expect(TOPICS.webhookRetry((parsed.value.attempt - 1) as (typeof WEBHOOK_RETRY_TIERS)[number])).toBe(topic);
    expect(parsed.value.deliveryId).toBe(fixture.key);
  });

  it.each(ofTopic(TOPICS.webhookDeadLetter).map((f) => [f.name, f.fixture] as const))(
    'webhooks.dead-letter/%s → the dead-letter replay',
    (_name, fixture) => {
      const entry = DeadLetterEntry.safeParse(received(fixture));
      // A message a consumer parked (x-original-topic) is reported and skipped by the replay; a failed delivery is
      // redelivered.
      if (fixture.headers?.['x-original-topic'] !== undefined) {
        expect(entry.success).toBe(false);
      } else {
        if (!entry.success) throw new Error(entry.error.message);
        expect(entry.data.deliveryId).toBe(fixture.key);
      }
    },
  );
});

describe('message fixtures: every shape a producer can make has one', () => {
  it('has a fixture of every order event type, every public order and refund event type and every session event type', () => {
    const orderTypes = new Set(ofTopic(TOPICS.orderEvents).map((f) => (f.fixture.value as { type: string }).type));
    for (const type of ORDER_EVENT_TYPES) expect(orderTypes, `orders.events has no ${type} fixture`).toContain(type);
    const sessionTypes = new Set(ofTopic(TOPICS.sessionEvents).map((f) => (f.fixture.value as { type: string }).type));
    for (const type of Object.values(SESSION_EVENT_TYPES))
      expect(sessionTypes, `checkout.session.events has no ${type} fixture`).toContain(type);
    const publicTypes = new Set(
      ofTopic(TOPICS.orderPublicEvents).map((f) => (f.fixture.value as { type: string }).type),
    );
    for (const type of ORDER_PUBLIC_EVENT_TYPES)
      expect(publicTypes, `orders.public-events has no ${type} fixture`).toContain(type);
    const reportTypes = new Set(ofTopic(TOPICS.reportEvents).map((f) => (f.fixture.value as { type: string }).type));
    for (const type of REPORT_EVENT_TYPES)
      expect(reportTypes, `reports.public-events has no ${type} fixture`).toContain(type);
  });

  it("has a committed fixture of the shape of every message today's producers make (npm run fixtures adds missing ones)", async () => {
    const missing: string[] = [];
    for (const message of await produceAll()) {
      const shape = fixtureShape(message.fixture);
      if (!ofTopic(message.topic).some((f) => fixtureShape(f.fixture) === shape))
        missing.push(`${message.topic}/${message.name} (${message.fixture.producedBy})`);
    }
    expect(missing, 'shapes without a fixture: run `npm run fixtures` and commit what it writes').toEqual([]);
  });

  // A key changed in a producer alone would move an entity's events to another partition while its older ones wait
  // in the first: TOPIC_KEYS (docs/operations.md, "Topics and partitions") is the one place a key is decided.
  it("keys every message, today's producers' and every committed fixture's, by its topic's TOPIC_KEYS field", async () => {
    const wrong: string[] = [];
    const check = (topic: string, name: string, fixture: MessageFixture) => {
      // A poison message parked on the dead letter keeps its own topic's key (libs/kafka's parkOnDeadLetter).
      const field = TOPIC_KEYS[fixture.headers?.['x-original-topic'] ?? topic]?.key;
      const value = fixture.value as Record<string, unknown>;
      if (field === undefined || value[field] !== fixture.key) wrong.push(`${topic}/${name}: key ${fixture.key}`);
    };
    for (const { topic, name, fixture } of fixtures) check(topic, name, fixture);
    for (const { topic, name, fixture } of await produceAll()) check(topic, `${name} (produced)`, fixture);
    expect(wrong).toEqual([]);
  });
});
