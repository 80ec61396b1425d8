import { appendToOutbox, type OutboxRelay } from '@checkout/kafka';
import { nextRevision } from '@checkout/mongo';
import { newId, orderChangedEvent, type OrderEventType } from '@checkout/contracts';
import type { OrderEventsOutbox } from '../domain/orders.use-cases';
import { presentOrder } from '../domain/order.presenter';
import type { OrderDocument } from '../store/order.document';

/**
 * What orders produces on `orders.events`: every change of an order carries its event in the same document write
 * (the outbox), so a change is never stored without its event; the relay publishes it after the write, and its
 * sweep publishes whatever a crash or a Kafka outage left behind. Sessions' order-events consumer reads them.
 */
export class OrderEventsProducer implements OrderEventsOutbox {
  constructor(
    private readonly relay: Pick<OutboxRelay<OrderDocument>, 'publishWritten'>,
    private readonly topic: string,
  ) {}

  /**
   * `next` (the change of `current`) with its order event appended to the outbox: one write stores both. The
   * event carries the presented order and the revision the write will store, so consumers can tell a newer
   * snapshot from an older one.
   */
  withEvent(current: OrderDocument, next: OrderDocument, type: OrderEventType, now: Date): OrderDocument {
    const revision = nextRevision(current.revision);
    const event = orderChangedEvent({
      type,
      organizationId: current.organizationId,
      mode: current.mode,
      occurredAt: now,
      revision,
      order: presentOrder(next),
    });
    return appendToOutbox(next, {
      eventId: newId('evt', current.mode),
      topic: this.topic,
      key: current._id,
      value: JSON.stringify(event),
      createdAt: now,
    });
  }

  /** Publishes the events of a document just written; if Kafka is down the relay's sweep publishes them later. */
  async publishWritten(doc: OrderDocument): Promise<void> {
    await this.relay.publishWritten(doc).catch(() => {
      // The change itself has happened; the outbox keeps its event until the sweep gets it out.
    });
  }
}
