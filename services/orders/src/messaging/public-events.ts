import type { OrderPublicEventType } from '@checkout/contracts';
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
    case 'order.updated':
      return [{ type: 'order.updated' }];
    case 'order.cancelled':
      return [{ type: 'order.cancelled' }];
    case 'order.payment_applied':
      return [
        { type: next.status === 'completed' && current?.status !== 'completed' ? 'order.paid' : 'order.updated' },
      ];
    case 'order.payments_closed':
      return [];
    case 'order.refund_created':
    case 'order.refund_settled': {
      const refund = refundsOf(next).find((r) => r.id === change.refundId);
      if (!refund) throw new Error(`order ${next._id} has no refund ${change.refundId} to tell of`);
      const settled: OwedPublicEvent[] =
        refund.status === 'pending' ? [] : [{ type: `refund.${refund.status}`, refundId: refund.id }];
      return change.kind === 'order.refund_created'
        ? [{ type: 'refund.created', refundId: refund.id }, ...settled]
        : settled;
    }
  }
}
