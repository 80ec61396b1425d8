import { DomainError } from '@checkout/errors';
import {
  REFUNDS_PER_ORDER_MAX,
  paymentStatusFor,
  type RefundFailureReason,
  type RefundReason,
} from '@checkout/contracts';
import { toEntries } from '@checkout/mongo';
import type { OrderDocument, StoredRefund } from '../store/order.document';

// Pure refund rules (D48). Each returns the whole next order, which the store writes in place of the one read only
// if that one is still there (its revision in the filter): the guard on what is refundable and the order's amounts
// and refunds move together, in one conditional write, with the change's events. No I/O here.

/** Refunds of orders stored before refunds existed are simply none; their amounts have no `refunded` (0). */
export function refundsOf(order: OrderDocument): StoredRefund[] {
  return order.refunds ?? [];
}

/** D48: refundable = paid − (succeeded + pending refunds); a failed refund's amount is refundable again. */
export function refundableOf(order: OrderDocument): number {
  const held = refundsOf(order)
    .filter((r) => r.status !== 'failed')
    .reduce((sum, r) => sum + r.amount, 0);
  return order.amounts.paid - held;
}

/** What the simulated processor (test mode) or the live one (pending until its notification) makes of a new refund. */
export type RefundOutcome = 'succeeded' | 'pending' | 'failed';

export interface RefundInput {
  /** Derived from the request's Idempotency-Key when it has one, so a retry meets the refund the first try made. */
  refundId: string;
  /**
   * A refund by this id, if made no earlier than `notBefore`, is this request's too: the id a gateway of the release
   * before derived for the same Idempotency-Key (from the record alone), met by a retry through a newer one.
   */
  sameAs?: { id: string; notBefore: Date } | undefined;
  amount?: number | undefined;
  reason?: RefundReason | undefined;
  metadata?: Record<string, string> | undefined;
  outcome: RefundOutcome;
}

/** The order's amounts and payment status once its refunds are what `refunds` says (D48, D19 while none succeeded). */
function withRefunds(order: OrderDocument, refunds: StoredRefund[], now: Date): OrderDocument {
  const refunded = refunds.filter((r) => r.status === 'succeeded').reduce((sum, r) => sum + r.amount, 0);
  return {
    ...order,
    refunds,
    amounts: { ...order.amounts, refunded },
    paymentStatus: paymentStatusFor(order.amounts.paid, order.amounts.total, refunded),
    updatedAt: now,
  };
}

/**
 * Admits a refund only while it fits in what is refundable (D48), at most once by its id: a refund id already on
 * the order returns that refund and writes nothing. Any order that has received money may be refunded, whatever its
 * status; the order's status never changes.
 */
export function createRefund(
  order: OrderDocument,
  input: RefundInput,
  now: Date,
): { next: OrderDocument | null; refund: StoredRefund } {
  const refunds = refundsOf(order);
  const { sameAs } = input;
  const existing =
    refunds.find((r) => r.id === input.refundId) ??
    (sameAs && refunds.find((r) => r.id === sameAs.id && r.createdAt >= sameAs.notBefore));
  if (existing) return { next: null, refund: existing };
  if (order.amounts.paid === 0)
    throw new DomainError('REFUND_FAILED', `Order ${order._id} has received no money, so nothing can be refunded.`);
  const refundable = refundableOf(order);
  if (refundable <= 0)
    throw new DomainError(
      'REFUND_FAILED',
      `Nothing is left to refund on order ${order._id}: its succeeded and pending refunds hold all it was paid.`,
    );
  const amount = input.amount ?? refundable;
  if (amount > refundable)
    throw new DomainError(
      'REFUND_FAILED',
      `The refund of ${amount} exceeds what is refundable on order ${order._id} (${refundable}).`,
      { details: [{ path: 'amount', message: `must be at most ${refundable}` }] },
    );
  if (refunds.length >= REFUNDS_PER_ORDER_MAX)
    throw new DomainError(
      'REFUND_FAILED',
      `Order ${order._id} already has ${REFUNDS_PER_ORDER_MAX} refunds, the most one order may have.`,
    );
  const refund: StoredRefund = {
    id: input.refundId,
    amount,
    status: input.outcome,
    reason: input.reason ?? null,
    ...(input.outcome === 'failed' && { failureReason: 'declined' as const }),
    metadata: toEntries(input.metadata ?? {}),
    createdAt: now,
    updatedAt: now,
  };
  return { next: withRefunds(order, [...refunds, refund], now), refund };
}

/**
 * A pending refund succeeds or fails (the processor's notification, or D48's test helper). Applied at most once:
 * the same outcome again changes nothing (a replayed notification); a refund already settled the other way, or
 * one this order does not have, is refused.
 */
export function settleRefund(
  order: OrderDocument,
  settlement: { refundId: string; outcome: 'succeeded' | 'failed'; failureReason?: RefundFailureReason | undefined },
  now: Date,
): { next: OrderDocument | null; refund: StoredRefund } {
  const refunds = refundsOf(order);
  const refund = refunds.find((r) => r.id === settlement.refundId);
  if (!refund) throw new DomainError('REFUND_NOT_FOUND', `No refund ${settlement.refundId} exists.`);
  if (refund.status === settlement.outcome) return { next: null, refund };
  if (refund.status !== 'pending')
    throw new DomainError(
      'REFUND_FAILED',
      `Refund ${refund.id} is already ${refund.status}; only a pending refund can be settled.`,
    );
  const settled: StoredRefund = {
    ...refund,
    status: settlement.outcome,
    ...(settlement.outcome === 'failed' && { failureReason: settlement.failureReason ?? 'unknown' }),
    updatedAt: now,
  };
  return {
    next: withRefunds(
      order,
      refunds.map((r) => (r.id === refund.id ? settled : r)),
      now,
    ),
    refund: settled,
  };
}

/** An order's refunds as its list shows them (D48): newest first, then by id, paginated as orders are (D20). */
export function refundsPage(
  order: OrderDocument,
  page: number,
  limit: number,
): { refunds: StoredRefund[]; total: number } {
  const all = [...refundsOf(order)].sort(
    (a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0),
  );
  return { refunds: all.slice((page - 1) * limit, page * limit), total: all.length };
}
