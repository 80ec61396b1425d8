import { indexesOn, shardedBy, type IndexDefinition, type ShardingDeclaration } from '@checkout/mongo';

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

/** How each collection would be sharded (libs/mongo's shardedBy; docs/operations.md, "Shard keys"). */
export const SESSION_SHARDING: readonly ShardingDeclaration[] = [
  shardedBy(COLLECTIONS.sessions, {
    key: { _id: 'hashed' },
    why:
      'one document per checkout session; the hosted page and processor notifications find it by id alone, before ' +
      "the merchant is known (the id is the customer's capability), and every write names its id: a hashed id " +
      "spreads a hot merchant's sessions over every shard",
    broadcasts: [
      {
        command: 'find',
        fields: ['organizationId', 'mode', 'orderId'],
        by: 'SessionsStore.findByOrderId',
        why: 'the order-events consumer (flow 5): an order event names the order, not its session; off the request path',
      },
      {
        command: 'find',
        fields: ['organizationId', 'mode'],
        by: 'SessionsStore.listSessions',
        why: "the dashboard's sessions page (D47): a merchant's newest sessions, from every shard",
      },
      {
        command: 'aggregate',
        fields: ['organizationId', 'mode'],
        by: 'SessionsStore.listSessions (its total: countDocuments is an aggregate)',
        why: "the dashboard's sessions page (D47)",
      },
      {
        command: 'find',
        fields: ['status', 'expiresAt'],
        by: 'SessionsStore.findDuePendingAcrossTenants',
        why: 'the expiry sweep (flow 4)',
      },
      { command: 'find', fields: ['outboxPending'], by: 'OutboxRelay.sweep', why: "the outbox relay's sweep" },
    ],
  }),
];
