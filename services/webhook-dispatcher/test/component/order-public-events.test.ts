import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eventually } from '@checkout/testing';
import {
  TOPICS,
  newId,
  newLineId,
  orderPublicEvent,
  topicName,
  type EventListResponse,
  type EventResponse,
  type Mode,
  type OrderPublicEventMessage,
  type OrderPublicEventType,
} from '@checkout/contracts';
import { collectTopic, internalHeaders, testKafka, useDispatcherFixture } from './support';

// D49: orders' public events (order.*, refund.*) come in on orders.public-events and are recorded once each in the
// events API, by the same recording path as session events, with no delivery (a session's callback URL receives
// only its session's events). What does not parse is parked on the dead-letter topic.

const scope = { organizationId: `org_pub_${randomBytes(3).toString('hex')}`, mode: 'test' as Mode };

function order(id: string, at: string) {
  return {
    id,
    provider: 'native',
    currency: 'USD',
    status: 'completed',
    paymentStatus: 'partially_refunded',
    amounts: { subtotal: 1000, tax: 0, discount: 0, tip: 0, total: 1000, paid: 1000, refunded: 300 },
    items: [
      { id: newLineId('item'), name: 'Tea', quantity: 1, unitPrice: 1000, totalPrice: 1000, itemType: 'product' },
    ],
    taxes: [],
    discounts: [],
    metadata: { 'a.b': 'kept' },
    paidAt: at,
    createdAt: at,
    updatedAt: at,
  };
}

function publicEvent(type: OrderPublicEventType, orderId: string, at: string): OrderPublicEventMessage {
  const refund = type.startsWith('refund.')
    ? {
        id: newId('re', scope.mode),
        orderId,
        amount: 300,
        currency: 'USD',
        status: 'succeeded',
        reason: null,
        metadata: {},
        createdAt: at,
        updatedAt: at,
      }
    : undefined;
  return orderPublicEvent({
    type,
    eventId: newId('evt', scope.mode),
    organizationId: scope.organizationId,
    mode: scope.mode,
    occurredAt: new Date(at),
    order: order(orderId, at),
    ...(refund && { refund }),
  });
}

async function api<T>(path: string): Promise<T> {
  const response = await fetch(`${fixture.dispatcher.url}${path}`, { headers: internalHeaders(scope) });
  return (await response.json()) as T;
}

const fixture = useDispatcherFixture('order_public_events');

describe('orders.public-events → the events API (D49)', () => {
  it('When order and refund events arrive, one of them twice, then each is recorded once, newest first, filterable by type, with no delivery', async () => {
    const topic = topicName(fixture.dispatcher.config.TOPIC_PREFIX, TOPICS.orderPublicEvents);
    const orderId = newId('ord', scope.mode);
    const at = (s: number) => new Date(Date.UTC(2026, 2, 1, 10, 0, s)).toISOString();
    const created = publicEvent('order.created', orderId, at(1));
    const refundCreated = publicEvent('refund.created', orderId, at(2));
    const refundSucceeded = publicEvent('refund.succeeded', orderId, at(3));
    for (const message of [created, refundCreated, refundSucceeded, refundCreated])
      await fixture.producer.sendRaw(topic, orderId, JSON.stringify(message));

    // The page and its total are two reads side by side, on any engine: an answer read while the events are being
    // recorded can count three and list fewer (seen once on FerretDB), so this waits for the page itself.
    const listed = await eventually(
      async () => {
        const list = await api<EventListResponse>('/internal/events');
        return list.events.length >= 3 ? list : undefined;
      },
      { deadlineMs: 20_000, description: 'the three events recorded' },
    );
    expect(listed.pagination.total).toBe(3);
    expect(listed.events.map((e) => e.id)).toEqual([refundSucceeded.eventId, refundCreated.eventId, created.eventId]);
    // The body exactly as orders wrote it: {id, event, createdAt, refund, order}.
    expect(listed.events[0]).toEqual(refundSucceeded.body);
    expect(Object.keys(listed.events[0] ?? {})).toEqual(['id', 'event', 'createdAt', 'refund', 'order']);

    const refunds = await api<EventListResponse>('/internal/events?type=refund.succeeded');
    expect(refunds.events.map((e) => e.id)).toEqual([refundSucceeded.eventId]);
    const one = await api<EventResponse>(`/internal/events/${created.eventId}`);
    expect(one).toEqual({ event: created.body, deliveries: [] });
  });

  it('When a message does not parse (its body names another order), then it is parked on the dead-letter topic and nothing is recorded', async () => {
    const topic = topicName(fixture.dispatcher.config.TOPIC_PREFIX, TOPICS.orderPublicEvents);
    const deadLetter = await collectTopic(
      testKafka(),
      topicName(fixture.dispatcher.config.TOPIC_PREFIX, TOPICS.webhookDeadLetter),
    );
    try {
      const orderId = newId('ord', scope.mode);
      const good = publicEvent('order.cancelled', orderId, new Date().toISOString());
      const poison = { ...good, orderId: newId('ord', scope.mode) };
      await fixture.producer.sendRaw(topic, poison.orderId, JSON.stringify(poison));
      await eventually(
        () => deadLetter.messages.some((m) => m.headers['x-original-topic'] === topic && m.key === poison.orderId),
        { deadlineMs: 20_000, description: 'the poison message parked' },
      );
      const found = await fetch(`${fixture.dispatcher.url}/internal/events/${good.eventId}`, {
        headers: internalHeaders(scope),
      });
      expect(found.status).toBe(404);
      await found.body?.cancel();
    } finally {
      await deadLetter.stop();
    }
  });
});
