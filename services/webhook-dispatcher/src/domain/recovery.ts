import { derivedId, type Mode } from '@checkout/contracts';

/**
 * The id of the delivery that recovers a failed one (D44), derived from the failed delivery's id: concurrent
 * recoveries insert the same id and the unique _id lets one of them win.
 */
export function recoveryDeliveryId(failedDeliveryId: string, mode: Mode): string {
  return derivedId('dlv', mode, `recover:${failedDeliveryId}`);
}
