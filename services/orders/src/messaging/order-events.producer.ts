import { appendToOutbox, type OutboxEntry, type OutboxRelay } from '@checkout/kafka';
import { nextRevision } from '@checkout/mongo';
import { newId, orderChangedEvent, orderPublicEvent } from '@checkout/contracts';
import type { OrderChange, OrderEventsOutbox } from '../domain/orders.use-cases';
import { presentOrder, presentRefund } from '../domain/order.presenter';
import { refundsOf } from '../domain/refund';
import type { OrderDocument } from '../store/order.document';
import { publicEventsOf } from './public-events';

/** The topics orders writes its events to (TOPICS.orderEvents and TOPICS.orderPublicEvents, under a prefix). */
export interface OrderEventTopics {
  /** The internal order events (sessions' copies of their orders). */
  orderEvents: string;
  /** D49's public order.* and refund.* events (the dispatcher records them in the events API). */
  publicEvents: string;
}

/**
 * What orders produces: every change of an order carries its events in the same document write (the outbox), so a
 * change is never stored without them; the relay publishes them after the write, and its sweep publishes whatever
 * a crash or a Kafka outage left behind. On `orders.events`, the internal event sessions' order-events consumer
 * reads (every change but a creation, which no session waits for); on `orders.public-events`, the public events the
 * change owes merchants (publicEventsOf, D49), which the dispatcher records.
 */
export class OrderEventsProducer implements OrderEventsOutbox {
  constructor(
    private readonly relay: Pick<OutboxRelay<OrderDocument>, 'publishWritten'>,
    private readonly topics: OrderEventTopics,
  ) {}

  /**
   * `next` (the change of `current`; null for a new order) with its events appended to the outbox: one write stores
   * them all. The internal event carries the presented order and the revision the write will store, so consumers
   * can tell a newer snapshot from an older one.
   */
  withEvents(current: OrderDocument | null, next: OrderDocument, change: OrderChange, now: Date): OrderDocument {
    const order = presentOrder(next);
    const entries: OutboxEntry[] = [];
    const entry = (topic: string, eventId: string, value: unknown): OutboxEntry => ({
      eventId,
      topic,
      key: next._id,
      value: JSON.stringify(value),
      createdAt: now,
    });
    if (change.kind !== 'created') {
      const event = orderChangedEvent({
        type: change.kind,
        organizationId: next.organizationId,
        mode: next.mode,
        occurredAt: now,
        revision: nextRevision(current?.revision),
        order,
      });
      entries.push(entry(this.topics.orderEvents, newId('evt', next.mode), event));
    }
    for (const owed of publicEventsOf(change, current, next)) {
      const eventId = newId('evt', next.mode);
      const refund = owed.refundId === undefined ? undefined : refundsOf(next).find((r) => r.id === owed.refundId);
      const event = orderPublicEvent({
        type: owed.type,
        eventId,
        organizationId: next.organizationId,
        mode: next.mode,
        occurredAt: now,
        order,
        ...(refund && { refund: presentRefund(next, refund) }),
      });
      entries.push(entry(this.topics.publicEvents, eventId, event));
    }
    return entries.reduce((doc, e) => appendToOutbox(doc, e), next);
  }

  /** Publishes the events of a document just written; if Kafka is down the relay's sweep publishes them later. */
  async publishWritten(doc: OrderDocument): Promise<void> {
    await this.relay.publishWritten(doc).catch(() => {
      // The change itself has happened; the outbox keeps its events until the sweep gets them out.
    });
  }
}
