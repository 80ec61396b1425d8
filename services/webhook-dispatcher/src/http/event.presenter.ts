import type { Delivery, WebhookEvent } from '@checkout/contracts';
import type { DeliveryDocument } from '../store/delivery.document';
import type { EventDocument } from '../store/event.document';

/** An Event is the webhook body (D34). */
export function presentEvent(doc: EventDocument): WebhookEvent {
  return JSON.parse(doc.body) as WebhookEvent;
}

/** D34: attempts show attempt, at, statusCode, durationMs, error; the response snippet stays internal. */
export function presentDelivery(doc: DeliveryDocument): Delivery {
  return {
    id: doc._id,
    url: doc.url,
    ...(doc.endpointId !== undefined && { endpointId: doc.endpointId }),
    status: doc.status,
    attempts: doc.attempts.map((a) => ({
      attempt: a.attempt,
      at: a.at.toISOString(),
      statusCode: a.statusCode,
      durationMs: a.durationMs,
      error: a.error,
    })),
  };
}
