import { describe, expect, it } from 'vitest';
import { OrderEventMessage, OrderPublicEventMessage, isIdOf } from '@checkout/contracts';
import type { Scope } from '@checkout/mongo';
import { applyPayment, cancelOrder, closePayments, newOrder, updateOrder } from '../domain/order';
import { presentOrder, presentRefund } from '../domain/order.presenter';
import { createRefund, settleRefund } from '../domain/refund';
import type { OrderDocument } from '../store/order.document';
import { OrderEventsProducer } from './order-events.producer';

// What orders writes to its outbox with a change (the internal event for sessions, the public events of D49 for
// merchants), and what becomes of a publish that fails. No engines: the relay is a stand-in; the component tests
// follow the events through Kafka.

const SCOPE: Scope = { organizationId: 'org_events', mode: 'test' };
const NOW = new Date('2026-01-15T12:00:00.000Z');
const LATER = new Date('2026-01-15T12:05:00.000Z');
const TOPICS = { orderEvents: 'orders.events', publicEvents: 'orders.public-events' };

function storedOrder(revision: number | undefined): OrderDocument {
  const doc = {
    ...newOrder({ items: [{ name: 'Coffee', quantity: 2, unitPrice: 450 }] }, { scope: SCOPE, now: NOW }),
    ...SCOPE,
  } as OrderDocument;
  return revision === undefined ? doc : { ...doc, revision };
}

const noRelay = { publishWritten: () => Promise.resolve(0) };
const producer = new OrderEventsProducer(noRelay, TOPICS);

const internalOf = (doc: OrderDocument) =>
  doc.outbox.filter((e) => e.topic === TOPICS.orderEvents).map((e) => OrderEventMessage.parse(JSON.parse(e.value)));
const publicOf = (doc: OrderDocument) =>
  doc.outbox
    .filter((e) => e.topic === TOPICS.publicEvents)
    .map((e) => ({ entry: e, message: OrderPublicEventMessage.parse(JSON.parse(e.value)) }));
const publicTypes = (doc: OrderDocument) => publicOf(doc).map(({ message }) => message.type);

function paid(amount = 900): OrderDocument {
  const { next } = applyPayment(storedOrder(3), { paymentId: 'pay_test_1', amount, method: 'card' }, NOW);
  if (!next) throw new Error('an open order takes a payment');
  return { ...next, revision: 4, outbox: [], outboxPending: false };
}

describe('OrderEventsProducer: the internal event (sessions)', () => {
  it('When a change is written, then its event goes with it: keyed by the order, the presented order after the change, the revision the write stores', () => {
    const current = storedOrder(4);
    const cancelled = cancelOrder(current, LATER);
    if (!cancelled) throw new Error('an open order cancels');
    const next = producer.withEvents(current, cancelled, { kind: 'order.cancelled' }, LATER);

    expect(next).toMatchObject({ status: 'cancelled', outboxPending: true });
    const entry = next.outbox.find((e) => e.topic === TOPICS.orderEvents);
    expect(entry).toMatchObject({ topic: 'orders.events', key: current._id, createdAt: LATER });
    expect(isIdOf('evt', entry?.eventId, 'test')).toBe(true);
    const [event] = internalOf(next);
    expect(event).toMatchObject({
      version: 1,
      type: 'order.cancelled',
      orderId: current._id,
      ...SCOPE,
      occurredAt: LATER.toISOString(),
      revision: 5,
    });
    expect(event?.order).toEqual(JSON.parse(JSON.stringify(presentOrder(cancelled))));
  });

  it('When the order was never written with a revision, then its first event carries revision 1', () => {
    const current = storedOrder(undefined);
    const next = producer.withEvents(current, { ...current, updatedAt: LATER }, { kind: 'order.cancelled' }, LATER);
    expect(internalOf(next)[0]?.revision).toBe(1);
  });

  it('When an order is created, then only its public event is written: no session waits for a creation', () => {
    const created = producer.withEvents(null, storedOrder(undefined), { kind: 'created' }, NOW);
    expect(internalOf(created)).toEqual([]);
    expect(publicTypes(created)).toEqual(['order.created']);
  });
});

describe('OrderEventsProducer: the public events each change owes merchants (D49)', () => {
  it('When an order is created, edited or cancelled, then order.created, order.updated, order.cancelled carry the order after the change', () => {
    const current = storedOrder(2);
    const edited = updateOrder(current, { metadata: { note: 'gift' } }, undefined, LATER);
    if (!edited) throw new Error('the edit changes the order');
    const cancelled = cancelOrder(current, LATER);
    if (!cancelled) throw new Error('an open order cancels');
    expect(publicTypes(producer.withEvents(null, current, { kind: 'created' }, NOW))).toEqual(['order.created']);
    const afterEdit = producer.withEvents(current, edited, { kind: 'order.updated' }, LATER);
    expect(publicTypes(afterEdit)).toEqual(['order.updated']);
    expect(publicTypes(producer.withEvents(current, cancelled, { kind: 'order.cancelled' }, LATER))).toEqual([
      'order.cancelled',
    ]);

    const [{ entry, message } = {} as never] = publicOf(afterEdit);
    expect(entry).toMatchObject({ topic: TOPICS.publicEvents, key: current._id, eventId: message.eventId });
    expect(message).toMatchObject({ version: 1, ...SCOPE, orderId: current._id, type: 'order.updated' });
    expect(message.body).toEqual({
      id: message.eventId,
      event: 'order.updated',
      createdAt: LATER.toISOString(),
      order: JSON.parse(JSON.stringify(presentOrder(edited))),
    });
    // Exactly D49's body, in its order: {id, event, createdAt, order}.
    expect(Object.keys(JSON.parse(entry.value).body)).toEqual(['id', 'event', 'createdAt', 'order']);
  });

  it('When a payment completes the order, then order.paid; a partial payment is order.updated; closing payments owes nothing', () => {
    const current = storedOrder(2);
    const partial = applyPayment(current, { paymentId: 'pay_test_a', amount: 300, method: 'card' }, LATER).next;
    const full = applyPayment(current, { paymentId: 'pay_test_b', amount: 900, method: 'card' }, LATER).next;
    const over = applyPayment(current, { paymentId: 'pay_test_c', amount: 1200, method: 'stablecoin' }, LATER).next;
    if (!partial || !full || !over) throw new Error('an open order takes payments');
    expect(publicTypes(producer.withEvents(current, partial, { kind: 'order.payment_applied' }, LATER))).toEqual([
      'order.updated',
    ]);
    expect(publicTypes(producer.withEvents(current, full, { kind: 'order.payment_applied' }, LATER))).toEqual([
      'order.paid',
    ]);
    expect(publicTypes(producer.withEvents(current, over, { kind: 'order.payment_applied' }, LATER))).toEqual([
      'order.paid',
    ]);
    const closed = closePayments(current);
    if (!closed) throw new Error('an open order closes');
    const afterClose = producer.withEvents(current, closed, { kind: 'order.payments_closed' }, LATER);
    expect(publicTypes(afterClose)).toEqual([]);
    expect(internalOf(afterClose)).toHaveLength(1);
  });

  it('When a refund succeeds at once (test mode), then refund.created and refund.succeeded, each {id, event, createdAt, refund, order}', () => {
    const current = paid();
    const { next, refund } = createRefund(current, { refundId: 're_test_1', amount: 400, outcome: 'succeeded' }, LATER);
    if (!next) throw new Error('a refund of a paid order is admitted');
    const written = producer.withEvents(current, next, { kind: 'order.refund_created', refundId: refund.id }, LATER);
    expect(publicTypes(written)).toEqual(['refund.created', 'refund.succeeded']);
    expect(internalOf(written).map((e) => e.type)).toEqual(['order.refund_created']);
    for (const { entry, message } of publicOf(written)) {
      expect(Object.keys(JSON.parse(entry.value).body)).toEqual(['id', 'event', 'createdAt', 'refund', 'order']);
      expect(message.body).toMatchObject({
        refund: JSON.parse(JSON.stringify(presentRefund(next, refund))),
        order: { id: current._id, paymentStatus: 'partially_refunded', amounts: { paid: 900, refunded: 400 } },
      });
    }
    const ids = publicOf(written).map(({ message }) => message.eventId);
    expect(new Set(ids).size).toBe(2);
  });

  it('When a live refund is created pending and later settled, then refund.created first, then refund.succeeded or refund.failed alone', () => {
    const current = paid();
    const created = createRefund(current, { refundId: 're_test_2', outcome: 'pending' }, LATER);
    if (!created.next) throw new Error('admitted');
    const pending = { ...created.next, outbox: [] };
    expect(
      publicTypes(
        producer.withEvents(current, pending, { kind: 'order.refund_created', refundId: 're_test_2' }, LATER),
      ),
    ).toEqual(['refund.created']);
    for (const outcome of ['succeeded', 'failed'] as const) {
      const settled = settleRefund(pending, { refundId: 're_test_2', outcome }, LATER).next;
      if (!settled) throw new Error('a pending refund settles');
      const written = producer.withEvents(
        pending,
        settled,
        { kind: 'order.refund_settled', refundId: 're_test_2' },
        LATER,
      );
      expect(publicTypes(written)).toEqual([`refund.${outcome}`]);
    }
  });
});

describe('OrderEventsProducer.publishWritten', () => {
  it('When publishing fails (Kafka down), then the change still answers: the event stays in the outbox for the sweep', async () => {
    const published: OrderDocument[] = [];
    const failing = {
      publishWritten: (doc: OrderDocument) => {
        published.push(doc);
        return Promise.reject(new Error('broker down'));
      },
    };
    const doc = storedOrder(1);
    await expect(new OrderEventsProducer(failing, TOPICS).publishWritten(doc)).resolves.toBeUndefined();
    expect(published).toEqual([doc]);
  });
});
