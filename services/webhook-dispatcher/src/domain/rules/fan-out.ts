import { derivedId, subscribesTo, type EventType, type Mode } from '@checkout/contracts';
import type { WebhookEndpointDocument } from '../../store/webhook-endpoint.document';

// Who receives an event and under which delivery id, as pure functions. Every id is derived from what it delivers,
// so a replayed message, two replicas or two recoveries name the same delivery and the unique _id makes it once.

/**
 * The id of an event's first delivery (to its session's callback URL), derived from the event id: the event and its
 * delivery are inserted at the same time (neither needs the other's result), and a redelivered message names the
 * same delivery.
 */
export function initialDeliveryId(eventId: string, mode: Mode): string {
  return derivedId('dlv', mode, `initial:${eventId}`);
}

/**
 * The id of an event's delivery to a webhook endpoint (D50), derived from both: a replayed message, two replicas,
 * and a recovery of what a disabled endpoint missed all name the same delivery, so it exists once.
 */
export function endpointDeliveryId(eventId: string, endpointId: string, mode: Mode): string {
  return derivedId('dlv', mode, `endpoint:${eventId}:${endpointId}`);
}

/**
 * The id of the delivery that recovers a failed one (D44), derived from the failed delivery's id: concurrent
 * recoveries insert the same id and the unique _id lets one of them win.
 */
export function recoveryDeliveryId(failedDeliveryId: string, mode: Mode): string {
  return derivedId('dlv', mode, `recover:${failedDeliveryId}`);
}

/**
 * D50: whether an endpoint gets a delivery of an event: enabled now, subscribed to its type, and created no later than
 * the event (an endpoint does not receive what happened before it existed).
 */
export function receives(
  endpoint: Pick<WebhookEndpointDocument, 'disabled' | 'enabledEvents' | 'createdAt'>,
  event: { type: EventType; createdAt: Date },
): boolean {
  return (
    endpoint.disabled === null &&
    subscribesTo(endpoint.enabledEvents, event.type) &&
    endpoint.createdAt.getTime() <= event.createdAt.getTime()
  );
}
