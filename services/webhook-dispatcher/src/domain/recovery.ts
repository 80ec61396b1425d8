import { derivedId, type Mode } from '@checkout/contracts';

/**
 * The id of the delivery that recovers a failed one (D44), derived from the failed delivery's id: concurrent
 * recoveries insert the same id and the unique _id lets one of them win.
 */
export function recoveryDeliveryId(failedDeliveryId: string, mode: Mode): string {
  return derivedId('dlv', mode, `recover:${failedDeliveryId}`);
}

/**
 * The id of an event's first delivery, derived from the event id: the event and its delivery can then be inserted
 * at the same time (neither needs the other's result), and a redelivered message re-creates the same delivery.
 */
export function initialDeliveryId(eventId: string, mode: Mode): string {
  return derivedId('dlv', mode, `initial:${eventId}`);
}
