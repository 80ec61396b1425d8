import type { IndexDefinition } from '@checkout/mongo';
import { processedEventsCollection } from '@checkout/kafka';

/** The name under which the order-events consumer records processed event ids (idempotentOnEventId). */
export const ORDER_EVENTS_CONSUMER = 'sessions_order_events';

export const COLLECTIONS = {
  sessions: 'sessions',
  payments: 'payments',
  processedOrderEvents: processedEventsCollection(ORDER_EVENTS_CONSUMER),
} as const;

export const SESSION_INDEXES: readonly IndexDefinition[] = [
  // Flow 4: the expiry sweeper's query, pending sessions whose expiresAt has passed (across tenants).
  { collection: COLLECTIONS.sessions, name: 'status_expiresAt', key: { status: 1, expiresAt: 1 }, servedBy: 'sessions.store findDuePendingAcrossTenants' },
  { collection: COLLECTIONS.sessions, name: 'outboxPending', key: { outboxPending: 1 }, servedBy: 'OutboxRelay sweep' },
  // D25: an order.cancelled event names the order; the session is found by it.
  { collection: COLLECTIONS.sessions, name: 'org_mode_orderId', key: { organizationId: 1, mode: 1, orderId: 1 }, servedBy: 'sessions.store findByOrderId' },
  { collection: COLLECTIONS.processedOrderEvents, name: 'processedAt', key: { processedAt: 1 }, servedBy: 'retention sweep (app.ts)' },
  { collection: COLLECTIONS.payments, name: 'org_mode_sessionId', key: { organizationId: 1, mode: 1, sessionId: 1 }, servedBy: 'payments.store listForSession' },
];
