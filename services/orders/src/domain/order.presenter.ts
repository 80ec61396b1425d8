import { fromEntries } from '@checkout/mongo';
import type { Refund } from '@checkout/contracts';
import type { OrderDocument, StoredRefund } from '../store/order.document';

/**
 * The order as every reader outside orders sees it: the public Order of libs/contracts (spec; D18, D39: optional
 * fields are omitted while unset). One presentation for the HTTP answers and the order events (whose schema checks
 * it on the way out), so a session's copy of its order, taken from either, equals what GET answers; it lives in
 * domain because both use it.
 */
export function presentOrder(doc: OrderDocument) {
  return {
    id: doc._id,
    ...(doc.externalId !== undefined && { externalId: doc.externalId }),
    provider: doc.provider,
    currency: doc.currency,
    status: doc.status,
    paymentStatus: doc.paymentStatus,
    // An order stored before refunds existed has no amounts.refunded: nothing was refunded (D48).
    amounts: { ...doc.amounts, refunded: doc.amounts.refunded ?? 0 },
    ...(doc.customer && { customer: { ...doc.customer } }),
    items: doc.items.map((i) => ({
      id: i.id,
      name: i.name,
      quantity: i.quantity,
      unitPrice: i.unitPrice,
      totalPrice: i.totalPrice,
      itemType: i.itemType,
    })),
    taxes: doc.taxes.map((t) => ({
      id: t.id,
      name: t.name,
      type: t.type,
      amount: t.amount,
      rate: null,
      scope: 'order' as const,
    })),
    discounts: doc.discounts.map((d) => ({
      id: d.id,
      name: d.name,
      type: d.type,
      amount: d.amount,
      scope: 'order' as const,
    })),
    ...(doc.shippingAddress && { shippingAddress: { ...doc.shippingAddress } }),
    ...(doc.locationId !== undefined && { locationId: doc.locationId }),
    ...(doc.paymentDestination !== undefined && { paymentDestination: doc.paymentDestination }),
    metadata: fromEntries(doc.metadata),
    ...(doc.paidAt && { paidAt: doc.paidAt.toISOString() }),
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
  };
}

/** A refund as every reader outside orders sees it (D48): API answers and refund.* events alike. */
export function presentRefund(order: OrderDocument, refund: StoredRefund): Refund {
  return {
    id: refund.id,
    orderId: order._id,
    amount: refund.amount,
    currency: order.currency,
    status: refund.status,
    reason: refund.reason,
    ...(refund.failureReason !== undefined && { failureReason: refund.failureReason }),
    metadata: fromEntries(refund.metadata),
    createdAt: refund.createdAt.toISOString(),
    updatedAt: refund.updatedAt.toISOString(),
  };
}
