import type { CheckoutSession } from '@checkout/contracts';
import type { OrderView } from './ports';
import type { SessionDocument } from '../store/session.document';
import { effectiveStatus, readSessionData } from './session';

/**
 * The public CheckoutSession (D1, D21, D22, D25, D39), with the session's copy of its order (the newest snapshot
 * orders answered or published; see SessionCommands). Used for API responses and for event snapshots alike, so a
 * webhook's session is identical to what GET returns.
 */
export function presentSession(
  doc: SessionDocument,
  order: OrderView,
  now: Date,
  checkoutBaseUrl: string,
): CheckoutSession {
  const status = effectiveStatus(doc.status, order.status, doc.expiresAt, now);
  return {
    id: doc._id,
    url: `${checkoutBaseUrl}/${doc._id}`,
    status,
    active: status === 'pending',
    ...(order.customer?.id !== undefined && { customerId: order.customer.id }),
    failedAttempts: doc.failedAttempts,
    successUrl: doc.successUrl,
    callbackUrl: doc.callbackUrl,
    expiresAt: doc.expiresAt.toISOString(),
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
    requireFromCustomer: { ...doc.requireFromCustomer },
    locale: doc.locale ?? 'auto',
    sessionData: readSessionData(doc.sessionDataJson),
    order,
  };
}
