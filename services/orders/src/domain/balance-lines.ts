import {
  derivedId,
  ORDER_CANCELLED,
  ORDER_PAYMENTS_CLOSED,
  ORDER_UPDATED,
  type BalanceTransactionType,
} from '@checkout/contracts';
import type { NewBalanceTransaction } from '../store/balance.store';
import type { OrderDocument } from '../store/order.document';
import { refundsOf } from './refund';

/** A line as the builder makes it: everything but when it is recorded and whether it is counted yet. */
export type BalanceLine = Omit<NewBalanceTransaction, 'recordedAt'>;

/**
 * A line's id, derived from its movement (D52): the same movement always makes the same line, so inserting it once
 * by `_id` makes exactly one line per movement whatever replays it. The seed names the organization and the order
 * besides the movement's id: a payment's id comes from whoever captured it, and two merchants' (or two orders')
 * payments with one id are two movements.
 */
export function balanceTransactionId(
  order: Pick<OrderDocument, 'organizationId' | 'mode' | '_id'>,
  type: BalanceTransactionType,
  sourceId: string,
): string {
  return derivedId(
    'txn',
    order.mode,
    `balance-transaction\n${order.organizationId}\n${order._id}\n${type}\n${sourceId}`,
  );
}

/**
 * Every line an order's money movements make so far (D52): one per payment applied (positive, at its appliedAt)
 * and one per refund that succeeded (negative, at its updatedAt, which a succeeded refund never moves again);
 * pending and failed refunds make none. Built from the stored order alone, whichever version wrote it, so the
 * lines of an order always add up to `amounts.paid − amounts.refunded`: a replay, a duplicate or a lost event
 * only builds again lines that exist already.
 */
export function balanceLinesOf(order: OrderDocument): BalanceLine[] {
  const line = (type: BalanceTransactionType, sourceId: string, amount: number, createdAt: Date): BalanceLine => ({
    _id: balanceTransactionId(order, type, sourceId),
    organizationId: order.organizationId,
    mode: order.mode,
    type,
    orderId: order._id,
    sourceId,
    amount,
    currency: order.currency,
    createdAt,
  });
  return [
    ...order.payments.map((p) => line('payment', p.paymentId, p.amount, p.appliedAt)),
    ...refundsOf(order)
      .filter((r) => r.status === 'succeeded')
      .map((r) => line('refund', r.id, -r.amount, r.updatedAt)),
  ];
}

/**
 * The order events that never move money: an edit (its payments and refunds are not the body's to change), a cancel
 * (ORDER_CANCEL_FAILED once an order has received a payment) and the close of its payments at expiry. Their order's
 * lines are all made already, so the ledger does not read the order for them. Every other type, one it does not know
 * included (a newer orders' event), is read: a movement is never missed for want of a name.
 */
const WITHOUT_MONEY: ReadonlySet<string> = new Set([ORDER_UPDATED, ORDER_CANCELLED, ORDER_PAYMENTS_CLOSED]);

export function mayMoveMoney(eventType: string): boolean {
  return !WITHOUT_MONEY.has(eventType);
}
