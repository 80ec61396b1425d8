import { z } from 'zod';
import { Timestamp } from './common';
import { DeliveryId } from './ids';
import { WEBHOOK_RETRY_TIERS } from './topics';

// Messages on the dispatcher's own retry tiers. They carry ids and counters; the delivery document holds the truth.
// Tier N holds deliveries whose attempt N failed, so every message in a tier waited the same delay and the tier's
// FIFO order is (up to jitter) the order in which they become due.

/** A retry waiting in a tier: attempt `attempt` of the delivery, due at `notBefore`. */
export const RetryMessage = z.object({
  deliveryId: DeliveryId,
  attempt: z
    .int()
    .min(2)
    .max(WEBHOOK_RETRY_TIERS.length + 1),
  notBefore: Timestamp,
});
export type RetryMessage = z.infer<typeof RetryMessage>;
