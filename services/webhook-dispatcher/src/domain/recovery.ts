import { createHash } from 'node:crypto';
import { ID_SUFFIX_LENGTH, type Mode } from '@checkout/contracts';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * The id of the delivery that recovers a failed one (D44), derived from the failed delivery's id: concurrent
 * recoveries insert the same id and the unique _id lets one of them win. A hash keeps it unguessable from
 * outside and shaped like any other delivery id (D3).
 */
export function recoveryDeliveryId(failedDeliveryId: string, mode: Mode): string {
  const digest = createHash('sha256').update(`recover:${failedDeliveryId}`).digest();
  let suffix = '';
  for (let i = 0; i < ID_SUFFIX_LENGTH; i += 1) suffix += ALPHABET[(digest[i] as number) % ALPHABET.length];
  return `dlv_${mode}_${suffix}`;
}
