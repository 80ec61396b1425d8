import { appendToOutbox, type OutboxRelay } from '@checkout/kafka';
import { newId, reportPublicEvent } from '@checkout/contracts';
import type { ReportEventsOutbox } from '../domain/report-ports';
import { presentReport } from '../domain/report.presenter';
import type { ReportDocument } from '../store/report.document';

/**
 * D52's report events, as orders' other public events (order-events.producer.ts): `report.succeeded` or
 * `report.failed` written in the report document's outbox by the update that ends the run, published right after on
 * TOPICS.reportEvents (key: the report id), and by the relay's sweep after a crash or a Kafka outage.
 */
export class ReportEventsProducer implements ReportEventsOutbox {
  constructor(
    private readonly relay: Pick<OutboxRelay<ReportDocument>, 'publishWritten'>,
    private readonly topic: string,
  ) {}

  withEvent(doc: ReportDocument, now: Date): ReportDocument {
    if (doc.status === 'pending') return doc;
    const eventId = newId('evt', doc.mode);
    const event = reportPublicEvent({
      type: doc.status === 'succeeded' ? 'report.succeeded' : 'report.failed',
      eventId,
      organizationId: doc.organizationId,
      mode: doc.mode,
      occurredAt: now,
      report: presentReport(doc),
    });
    return appendToOutbox(doc, {
      eventId,
      topic: this.topic,
      key: doc._id,
      value: JSON.stringify(event),
      createdAt: now,
    });
  }

  async publishWritten(doc: ReportDocument): Promise<void> {
    await this.relay.publishWritten(doc).catch(() => {
      // The report has ended; its outbox keeps the event until the sweep gets it out.
    });
  }
}
