import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ErrorBody, zodIssuesToDetails } from './errors';
import { WebhookEvent } from './event-catalog';
import { ORDER_CANCELLED, ORDER_PAYMENT_APPLIED, OrderEventMessage, SessionEventV1, orderChangedEvent } from './events';
import { EventListResponse, EventResponse, ListEventsQuery } from './events-api';
import { ALL_TOPICS, CONSUMER_GROUPS, TOPICS, topicName } from './topics';

const session = {
  id: 'cs_test_sess1',
  url: 'https://checkout.example/cs_test_sess1',
  status: 'completed',
  active: false,
  customerId: 'cust_test_c1',
  failedAttempts: 1,
  successUrl: 'https://shop.example/ok',
  callbackUrl: 'https://shop.example/hooks',
  expiresAt: '2026-11-21T11:00:00.000Z',
  createdAt: '2026-11-21T10:00:00.000Z',
  updatedAt: '2026-11-21T10:05:00.000Z',
  requireFromCustomer: { phone: false, shippingAddress: false, location: false },
  locale: 'auto',
  sessionData: { cart: 'abc' },
  order: {
    id: 'ord_test_o1',
    externalId: 'cart-1',
    provider: 'native',
    currency: 'USD',
    status: 'completed',
    paymentStatus: 'paid',
    amounts: { subtotal: 3097, tax: 0, discount: 310, tip: 0, total: 2787, paid: 2787, refunded: 0 },
    customer: { id: 'cust_test_c1', email: 'buyer@example.com' },
    items: [{ id: 'item_a', name: 'A', quantity: 1, unitPrice: 3097, totalPrice: 3097, itemType: 'product' }],
    taxes: [],
    discounts: [{ id: 'disc_a', name: 'Ten', type: 'percentage', amount: 10, scope: 'order' }],
    metadata: {},
    paidAt: '2026-11-21T10:05:00.000Z',
    createdAt: '2026-11-21T10:00:00.000Z',
    updatedAt: '2026-11-21T10:05:00.000Z',
  },
};
const body = { id: 'evt_test_e1', event: 'checkout.session.completed', createdAt: '2026-11-21T10:05:00.000Z', session };
const message = {
  version: 1,
  eventId: 'evt_test_e1',
  type: 'checkout.session.completed',
  occurredAt: '2026-11-21T10:05:00.000Z',
  organizationId: 'org_1',
  mode: 'test',
  sessionId: 'cs_test_sess1',
  callbackUrl: 'https://shop.example/hooks',
  body,
};

describe('webhook body (D30)', () => {
  it('When a completed event is parsed, then it is exactly {id, event, createdAt, session} (D30)', () => {
    const parsed = WebhookEvent.parse({ ...body, extra: 1 });
    expect(Object.keys(parsed).sort()).toEqual(['createdAt', 'event', 'id', 'session']);
  });

  it('When the event name is not one this service fires, then it is rejected (D30)', () => {
    expect(WebhookEvent.safeParse({ ...body, event: 'order.created' }).success).toBe(false);
  });
});

describe('SessionEventV1 envelope', () => {
  it('When a well-formed completed message is parsed, then it is accepted and discriminated by type', () => {
    const parsed = SessionEventV1.parse(message);
    expect(parsed.type).toBe('checkout.session.completed');
    expect(parsed.body.event).toBe(parsed.type);
  });

  it('When callbackUrl is null, then it is accepted: the event is recorded, not delivered (D32)', () => {
    expect(SessionEventV1.safeParse({ ...message, callbackUrl: null }).success).toBe(true);
  });

  it.each([
    ['a version other than 1', { version: 2 }],
    ['type and body.event disagreeing', { type: 'checkout.session.expired' }],
    ['body.id differing from eventId', { eventId: 'evt_test_other' }],
    ['sessionId differing from body.session.id', { sessionId: 'cs_test_other' }],
    ['mode disagreeing with the ids', { mode: 'live' }],
    ['no organizationId', { organizationId: '' }],
  ])('When the message has %s, then it is poison (rejected)', (_, patch) => {
    expect(SessionEventV1.safeParse({ ...message, ...patch }).success).toBe(false);
  });
});

describe('events API (D34)', () => {
  it('When an event is returned with deliveries, then attempts carry null statusCode/error where there is none', () => {
    const response = {
      event: body,
      deliveries: [
        {
          id: 'dlv_test_d1',
          url: 'https://shop.example/hooks',
          status: 'succeeded',
          attempts: [
            { attempt: 1, at: '2026-11-21T10:05:00.000Z', statusCode: null, durationMs: 5000, error: 'timeout' },
            { attempt: 2, at: '2026-11-21T10:05:15.000Z', statusCode: 200, durationMs: 40, error: null },
          ],
        },
      ],
    };
    expect(EventResponse.parse(response)).toEqual(response);
    expect(
      EventListResponse.parse({ events: [body], pagination: { page: 1, limit: 20, total: 1, hasMore: false } }).events,
    ).toHaveLength(1);
  });

  it('When events are listed, then type and sessionId filters parse and bad values fail (D34, D20)', () => {
    expect(ListEventsQuery.parse({ type: 'checkout.session.expired', sessionId: 'cs_live_x' })).toEqual({
      page: 1,
      limit: 20,
      type: 'checkout.session.expired',
      sessionId: 'cs_live_x',
    });
    expect(ListEventsQuery.safeParse({ type: 'expired' }).success).toBe(false);
    expect(ListEventsQuery.safeParse({ sessionId: 'abc' }).success).toBe(false);
    expect(ListEventsQuery.safeParse({ limit: '' }).success).toBe(false);
  });
});

describe('OrderEventMessage (orders.events)', () => {
  const order = session.order;

  it('When an order change is published, then it carries the presented order and its revision', () => {
    const event = orderChangedEvent({
      type: ORDER_PAYMENT_APPLIED,
      organizationId: 'org_1',
      mode: 'test',
      occurredAt: new Date('2026-11-21T10:05:00.000Z'),
      revision: 3,
      order,
    });
    expect(event).toEqual({
      version: 1,
      type: ORDER_PAYMENT_APPLIED,
      orderId: order.id,
      organizationId: 'org_1',
      mode: 'test',
      occurredAt: '2026-11-21T10:05:00.000Z',
      revision: 3,
      order,
    });
  });

  it('When an event has no version or an unknown one, then it does not parse: every deployed producer sends 1', () => {
    const event = orderChangedEvent({
      type: ORDER_PAYMENT_APPLIED,
      organizationId: 'org_1',
      mode: 'test',
      occurredAt: new Date('2026-11-21T10:05:00.000Z'),
      revision: 3,
      order,
    });
    const { version: _version, ...unversioned } = event;
    expect(OrderEventMessage.parse(event)).toEqual(event);
    expect(OrderEventMessage.safeParse(unversioned).success).toBe(false);
    expect(OrderEventMessage.safeParse({ ...event, version: 2 }).success).toBe(false);
  });

  it('When an event arrives without the order or its revision, then it does not parse: no producer ever sent one', () => {
    const event = orderChangedEvent({
      type: ORDER_CANCELLED,
      organizationId: 'org_1',
      mode: 'test',
      occurredAt: new Date('2026-11-21T10:05:00.000Z'),
      revision: 3,
      order,
    });
    const { order: _order, ...withoutOrder } = event;
    const { revision: _revision, ...withoutRevision } = event;
    expect(OrderEventMessage.safeParse(withoutOrder).success).toBe(false);
    expect(OrderEventMessage.safeParse(withoutRevision).success).toBe(false);
  });

  it('When the snapshot is not an Order or the revision is negative, then the producer fails at the source', () => {
    const at = new Date();
    expect(() =>
      orderChangedEvent({
        type: ORDER_PAYMENT_APPLIED,
        organizationId: 'org_1',
        mode: 'test',
        occurredAt: at,
        revision: -1,
        order,
      }),
    ).toThrow();
    expect(() =>
      orderChangedEvent({
        type: ORDER_PAYMENT_APPLIED,
        organizationId: 'org_1',
        mode: 'test',
        occurredAt: at,
        revision: 1,
        order: { id: order.id },
      }),
    ).toThrow();
  });
});

describe('topics', () => {
  it('When topic names are read, then they are the agreed constants', () => {
    expect(TOPICS.sessionEvents).toBe('checkout.session.events');
    expect(TOPICS.orderEvents).toBe('orders.events');
    expect(TOPICS.webhookRetry(1)).toBe('webhooks.retry.1');
    expect(TOPICS.webhookDeadLetter).toBe('webhooks.dead-letter');
    expect(TOPICS.orderPublicEvents).toBe('orders.public-events');
    expect(TOPICS.reportEvents).toBe('reports.public-events');
    expect(ALL_TOPICS).toHaveLength(9);
  });

  it('When a retry tier outside 1..4 is asked for, then it throws (D31: at most 5 attempts)', () => {
    expect(() => TOPICS.webhookRetry(5 as 1)).toThrow(RangeError);
  });

  it('When a prefix is given, then names are namespaced under it; without one they are unchanged', () => {
    expect(topicName('t-abc123', TOPICS.sessionEvents)).toBe('t-abc123.checkout.session.events');
    expect(topicName(undefined, TOPICS.sessionEvents)).toBe('checkout.session.events');
    expect(topicName('', CONSUMER_GROUPS.dispatcherSessionEvents)).toBe('webhook-dispatcher.session-events');
  });

  it('When the prefix has characters Kafka refuses, then it throws', () => {
    expect(() => topicName('bad prefix', TOPICS.sessionEvents)).toThrow(RangeError);
    expect(() => topicName('x'.repeat(240), TOPICS.sessionEvents)).toThrow(RangeError);
  });
});

describe('error body (D6)', () => {
  it('When an error body has details, then it parses; requestId is required (D6)', () => {
    const error = {
      code: 'ORDER_CREATE_FAILED',
      message: 'bad',
      details: [{ path: 'items.0.quantity', message: 'x' }],
      requestId: 'r1',
    };
    expect(ErrorBody.parse(error)).toEqual(error);
    expect(ErrorBody.safeParse({ code: 'X', message: 'y' }).success).toBe(false);
  });

  it('When zod issues are converted, then paths are dotted and unknown keys get their own path (D6, D7)', () => {
    const schema = z.strictObject({ items: z.array(z.strictObject({ quantity: z.int() })) });
    const result = schema.safeParse({ items: [{ quantity: 'x', sku: 1 }], extra: true });
    expect(zodIssuesToDetails(result.error!)).toEqual([
      { path: 'items.0.quantity', message: expect.any(String) },
      { path: 'items.0.sku', message: 'unknown field' },
      { path: 'extra', message: 'unknown field' },
    ]);
  });
});
