import { describe, expect, it } from 'vitest';
import { ORDER_CANCELLED, OrderEventMessage, isIdOf } from '@checkout/contracts';
import type { Scope } from '@checkout/mongo';
import { cancelOrder, newOrder } from '../domain/order';
import { presentOrder } from '../domain/order.presenter';
import type { OrderDocument } from '../store/order.document';
import { OrderEventsProducer } from './order-events.producer';

// What orders writes to its outbox with a change, and what becomes of a publish that fails. No engines: the
// relay is a stand-in; the component tests follow the events through Kafka.

const SCOPE: Scope = { organizationId: 'org_events', mode: 'test' };
const NOW = new Date('2026-01-15T12:00:00.000Z');
const LATER = new Date('2026-01-15T12:05:00.000Z');

function storedOrder(revision: number | undefined): OrderDocument {
  const doc = {
    ...newOrder({ items: [{ name: 'Coffee', quantity: 2, unitPrice: 450 }] }, { scope: SCOPE, now: NOW }),
    ...SCOPE,
  } as OrderDocument;
  return revision === undefined ? doc : { ...doc, revision };
}

const noRelay = { publishWritten: () => Promise.resolve(0) };

describe('OrderEventsProducer', () => {
  it('When a change is written, then its event goes with it: keyed by the order, the presented order after the change, the revision the write stores', () => {
    const current = storedOrder(4);
    const cancelled = cancelOrder(current, LATER);
    if (!cancelled) throw new Error('an open order cancels');
    const next = new OrderEventsProducer(noRelay, 'orders.events').withEvent(
      current,
      cancelled,
      ORDER_CANCELLED,
      LATER,
    );

    expect(next).toMatchObject({ status: 'cancelled', outboxPending: true });
    expect(next.outbox).toHaveLength(1);
    const entry = next.outbox[0];
    expect(entry).toMatchObject({ topic: 'orders.events', key: current._id, createdAt: LATER });
    expect(isIdOf('evt', entry?.eventId, 'test')).toBe(true);
    const event = OrderEventMessage.parse(JSON.parse(entry?.value ?? 'null'));
    expect(event).toMatchObject({
      version: 1,
      type: ORDER_CANCELLED,
      orderId: current._id,
      ...SCOPE,
      occurredAt: LATER.toISOString(),
      revision: 5,
    });
    expect(event.order).toEqual(JSON.parse(JSON.stringify(presentOrder(cancelled))));
  });

  it('When the order was never written with a revision, then its first event carries revision 1', () => {
    const current = storedOrder(undefined);
    const next = new OrderEventsProducer(noRelay, 'orders.events').withEvent(
      current,
      { ...current, updatedAt: LATER },
      ORDER_CANCELLED,
      LATER,
    );
    expect(OrderEventMessage.parse(JSON.parse(next.outbox[0]?.value ?? 'null')).revision).toBe(1);
  });

  it('When publishing fails (Kafka down), then the change still answers: the event stays in the outbox for the sweep', async () => {
    const published: OrderDocument[] = [];
    const failing = {
      publishWritten: (doc: OrderDocument) => {
        published.push(doc);
        return Promise.reject(new Error('broker down'));
      },
    };
    const doc = storedOrder(1);
    await expect(new OrderEventsProducer(failing, 'orders.events').publishWritten(doc)).resolves.toBeUndefined();
    expect(published).toEqual([doc]);
  });
});
