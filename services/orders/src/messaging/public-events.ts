import {
  ORDER_CANCELLED,
  ORDER_PAYMENT_APPLIED,
  ORDER_PAYMENTS_CLOSED,
  ORDER_REFUND_CREATED,
  ORDER_REFUND_SETTLED,
  ORDER_UPDATED,
  type OrderPublicEventType,
} from '@checkout/contracts';
import type { OrderChange } from '../domain/orders.use-cases';
import type { OrderDocument } from '../store/order.document';
import { refundsOf } from '../domain/refund';

/** One public event a change owes merchants (D49); `refundId` names the refund of a refund.* event. */
export interface OwedPublicEvent {
  type: OrderPublicEventType;
  refundId?: string;
}

/**
 * D49, in one place: which public events an order change owes merchants. Orders writes them with the change (its
 * outbox), so an event exists exactly when its change does; nobody downstream decides it again.
 * - a creation → `order.created`;
 * - an edit → `order.updated`; a cancel → `order.cancelled`;
 * - a payment that completes the order (paid or overpaid, D19) → `order.paid`; a partial one (D28) → `order.updated`;
 * - a refund admitted → `refund.created`, and at once `refund.succeeded` or `refund.failed` when the (simulated)
 *   processor answered in the same write; a pending refund settled → `refund.succeeded` or `refund.failed`.
 *   A refund's events carry the order, so refunds owe no `order.updated` besides (docs/decisions.md);
 * - payments closed by an expiry → nothing: nothing a merchant sees changed.
 */
export function publicEventsOf(
  change: OrderChange,
  current: OrderDocument | null,
  next: OrderDocument,
): OwedPublicEvent[] {
  switch (change.kind) {
    case 'created':
      return [{ type: 'order.created' }];
    case ORDER_UPDATED:
      return [{ type: 'order.updated' }];
    case ORDER_CANCELLED:
      return [{ type: 'order.cancelled' }];
    case ORDER_PAYMENT_APPLIED:
      return [
        { type: next.status === 'completed' && current?.status !== 'completed' ? 'order.paid' : 'order.updated' },
      ];
    case ORDER_PAYMENTS_CLOSED:
      return [];
    case ORDER_REFUND_CREATED:
    case ORDER_REFUND_SETTLED: {
      const refund = refundsOf(next).find((r) => r.id === change.refundId);
      if (!refund) throw new Error(`order ${next._id} has no refund ${change.refundId} to tell of`);
      const settled: OwedPublicEvent[] =
        refund.status === 'pending' ? [] : [{ type: `refund.${refund.status}`, refundId: refund.id }];
      return change.kind === ORDER_REFUND_CREATED
        ? [{ type: 'refund.created', refundId: refund.id }, ...settled]
        : settled;
    }
  }
}
