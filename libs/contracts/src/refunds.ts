import { z } from 'zod';
import { Pagination, Timestamp, paginationQueryShape } from './common';
import { Metadata } from './user-data';
import { OrderId, RefundId } from './ids';
import { Order } from './orders';

// D48: refunds. Money goes back exactly once, and never more than came in: orders owns them beside the payments
// (docs/refunds.md), so these are the shapes of its answers and of the requests the gateway forwards to it.

export const REFUND_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export const RefundStatus = z
  .enum(REFUND_STATUSES)
  .describe(
    '`pending` until the processor settles it (live mode), then `succeeded` or `failed`; a failed refund gives its ' +
      'amount back to what is refundable.',
  );
export type RefundStatus = z.infer<typeof RefundStatus>;

export const REFUND_REASONS = ['requested_by_customer', 'duplicate', 'fraudulent'] as const;
export const RefundReason = z.enum(REFUND_REASONS).describe('Why the money goes back (D48).');
export type RefundReason = z.infer<typeof RefundReason>;

/** Why a processor refused a refund; Stripe's names for the same outcomes. */
export const REFUND_FAILURE_REASONS = [
  'declined',
  'expired_or_canceled_card',
  'insufficient_funds',
  'lost_or_stolen_card',
  'unknown',
] as const;
export const RefundFailureReason = z
  .enum(REFUND_FAILURE_REASONS)
  .describe('Why the processor refused the refund; present on a failed refund only.');
export type RefundFailureReason = z.infer<typeof RefundFailureReason>;

/**
 * How many refunds one order may have (docs/decisions.md): an order's refunds live in the order document, where the
 * one conditional write that admits a refund can see them all, so their number is bounded. Stripe has no bound;
 * a hundred partial refunds of one order is far past any merchant's need, and one list page shows them all.
 */
export const REFUNDS_PER_ORDER_MAX = 100;

// ---------------------------------------------------------------------------------------------------------
// Requests

const refundRequestShape = {
  amount: z
    .int()
    .min(1)
    .optional()
    .describe(
      'Minor units to give back, at least 1; default: all that is still refundable (paid − succeeded and pending ' +
        'refunds). More than that → 400 `REFUND_FAILED`.',
    ),
  reason: RefundReason.optional(),
  metadata: Metadata.optional(),
};

export const CreateRefundRequest = z.strictObject(refundRequestShape).meta({
  id: 'CreateRefundRequest',
  description:
    'Every field optional: an empty body refunds all that is refundable. Any order that has received money may be ' +
    'refunded, whatever its status (D48).',
});
export type CreateRefundRequest = z.infer<typeof CreateRefundRequest>;

export const TEST_REFUND_OUTCOMES = ['succeeded', 'pending', 'failed'] as const;

/** D48's test helper: the API's body plus the outcome the simulated processor gives it. */
export const TestHelperCreateRefundRequest = z
  .strictObject({
    ...refundRequestShape,
    outcome: z
      .enum(TEST_REFUND_OUTCOMES)
      .default('succeeded')
      .describe(
        "The simulated processor's answer. `pending` waits for `POST /v0/test_helpers/refunds/{refundId}/settle`.",
      ),
  })
  .meta({ id: 'TestHelperCreateRefundRequest' });
export type TestHelperCreateRefundRequest = z.infer<typeof TestHelperCreateRefundRequest>;

export const SETTLE_OUTCOMES = ['succeeded', 'failed'] as const;

export const SettleRefundRequest = z
  .strictObject({
    outcome: z.enum(SETTLE_OUTCOMES).describe('How the simulated processor settles the pending refund.'),
  })
  .meta({ id: 'SettleRefundRequest' });
export type SettleRefundRequest = z.infer<typeof SettleRefundRequest>;

export const ListRefundsQuery = z.strictObject({ ...paginationQueryShape }).meta({ id: 'ListRefundsQuery' });
export type ListRefundsQuery = z.infer<typeof ListRefundsQuery>;

// ---------------------------------------------------------------------------------------------------------
// Responses

export const Refund = z
  .object({
    id: RefundId,
    orderId: OrderId,
    amount: z.int().min(1).describe('Minor units given back (or, while pending or failed, asked for).'),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/)
      .describe("The order's currency."),
    status: RefundStatus,
    reason: RefundReason.nullable().describe('As given at creation; null when none was.'),
    failureReason: RefundFailureReason.optional(),
    metadata: Metadata,
    createdAt: Timestamp,
    updatedAt: Timestamp.describe('Moves when the refund is settled.'),
  })
  .meta({
    id: 'Refund',
    description:
      "Money given back from an order's payments (D48). The refunds of an order that succeed never add up to more " +
      'than it was paid, under any concurrency.',
  });
export type Refund = z.infer<typeof Refund>;

export const RefundResponse = z.object({ refund: Refund }).meta({ id: 'RefundResponse' });
export type RefundResponse = z.infer<typeof RefundResponse>;

export const RefundListResponse = z
  .object({ refunds: z.array(Refund), pagination: Pagination })
  .meta({ id: 'RefundListResponse' });
export type RefundListResponse = z.infer<typeof RefundListResponse>;

/**
 * Orders' internal answer to a refund write: the refund, and the order as the write left it, so that the gateway
 * hands a checkout session the order before it answers the merchant (D46); the merchant gets `{refund}`.
 */
export const RefundWithOrderResponse = z.object({ refund: Refund, order: Order });
export type RefundWithOrderResponse = z.infer<typeof RefundWithOrderResponse>;
