import { indexesOn, type IndexDefinition } from '@checkout/mongo';

// Payments are stored once, in orders; the order-events consumer dedupes by the order's revision, not by event
// ids. The `payments` and `processed_events_sessions_order_events` collections of earlier versions are no
// longer read or written (docs/data-model.md, migration note).
export const COLLECTIONS = {
  sessions: 'sessions',
} as const;

export const SESSION_INDEXES: readonly IndexDefinition[] = [
  ...indexesOn(COLLECTIONS.sessions, {
    // Flow 4: the expiry sweeper's query, pending sessions whose expiresAt has passed (across tenants).
    status_expiresAt: { key: { status: 1, expiresAt: 1 }, servedBy: 'sessions.store findDuePendingAcrossTenants' },
    outboxPending: { key: { outboxPending: 1 }, servedBy: 'OutboxRelay sweep' },
    // D47: the dashboard's sessions list, newest first.
    org_mode_createdAt_id: {
      key: { organizationId: 1, mode: 1, createdAt: -1, _id: -1 },
      servedBy: 'sessions.store listSessions',
    },
    // Order events name the order; its session is found by it.
    org_mode_orderId: { key: { organizationId: 1, mode: 1, orderId: 1 }, servedBy: 'sessions.store findByOrderId' },
  }),
];
