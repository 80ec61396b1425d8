import { indexesOn, shardedBy, type IndexDefinition, type ShardingDeclaration } from '@checkout/mongo';

export const COLLECTIONS = {
  orders: 'orders',
  customers: 'customers',
  locations: 'locations',
  paymentDestinations: 'payment_destinations',
  /** D52: one line per money movement (balance-transaction.document.ts). */
  balanceTransactions: 'balance_transactions',
  /** D52: per organization, mode and currency, the totals of the counted lines (balance.store.ts). */
  balances: 'balances',
  /** D52: the lines not counted yet, a few at any time (balance.store.ts). */
  balanceQueue: 'balance_queue',
  /** D52's report runs (report.document.ts). */
  reports: 'reports',
} as const;

/**
 * The GridFS bucket of the reports' files (D52): collections `report_files.files` and `report_files.chunks`, the
 * driver's own shapes (its format, not ours: no contract fixture).
 */
export const REPORT_FILES_BUCKET = 'report_files';

export const ORDER_INDEXES: readonly IndexDefinition[] = [
  ...indexesOn(COLLECTIONS.orders, {
    // D37: externalId unique per organization and mode, enforced by the database. uniqueKey is
    // "ext:<externalId>" or, without one, "id:<order id>": a partial unique index would be MongoDB's answer,
    // but the local engine ignores partial filters (docs/engines.md), so the key is never missing.
    org_mode_uniqueKey: {
      key: { organizationId: 1, mode: 1, uniqueKey: 1 },
      unique: true,
      servedBy: 'orders.store insertOrder',
    },
    // Flow 2: a session retrying its order create gets the same order back, never a second one.
    org_mode_creationKey: {
      key: { organizationId: 1, mode: 1, creationKey: 1 },
      unique: true,
      servedBy: 'orders.store insertOrder / findByCreationKey',
    },
    org_mode_createdAt_id: {
      key: { organizationId: 1, mode: 1, createdAt: -1, _id: -1 },
      servedBy: 'orders.store listOrders (D20 sort)',
    },
    // D47: the dashboard's payments-per-hour chart (multikey over the embedded payments).
    org_mode_payments_appliedAt: {
      key: { organizationId: 1, mode: 1, 'payments.appliedAt': 1 },
      servedBy: 'orders.store paymentsPerHourSince (dashboard chart, its $match)',
    },
    // D48: a refund by its id, in a tenant's scope (GET /v0/refunds/:id) or across tenants (the processor's
    // notification); multikey over the embedded refunds. Random ids, so one key finds one order.
    refunds_id: { key: { 'refunds.id': 1 }, servedBy: 'orders.store findByRefundId, findByRefundIdAcrossTenants' },
    // D52: the refunds report, the orders holding a refund created in its window (multikey over the refunds).
    org_mode_refunds_createdAt: {
      key: { organizationId: 1, mode: 1, 'refunds.createdAt': 1 },
      servedBy: 'report-sources refunds',
    },
    outboxPending: { key: { outboxPending: 1 }, servedBy: 'OutboxRelay sweep' },
  }),
  ...indexesOn(COLLECTIONS.balanceTransactions, {
    org_mode_createdAt_id: {
      key: { organizationId: 1, mode: 1, createdAt: -1, _id: -1 },
      servedBy: 'balance.store list (newest first, the window filters); reports read lines in this order',
    },
    org_mode_orderId_createdAt: {
      key: { organizationId: 1, mode: 1, orderId: 1, createdAt: -1, _id: -1 },
      servedBy: 'balance.store list filtered by orderId',
    },
  }),
  ...indexesOn(COLLECTIONS.balanceQueue, {
    org_mode_currency_recordedAt: {
      key: { organizationId: 1, mode: 1, currency: 1, recordedAt: 1 },
      servedBy: 'balance.store uncounted, readBalance (the oldest queued line: asOf)',
    },
    recordedAt: { key: { recordedAt: 1 }, servedBy: 'balance.store scopesToCount (the sweep)' },
  }),
  ...indexesOn(COLLECTIONS.balances, {
    pending_batch: { key: { 'pending.batch': 1 }, servedBy: 'balance.store scopesToCount (a batch left pending)' },
  }),
  ...indexesOn(COLLECTIONS.reports, {
    status_createdAt: { key: { status: 1, createdAt: 1 }, servedBy: 'reports.store claim (the poll, oldest first)' },
    expiresAt: { key: { expiresAt: 1 }, servedBy: 'reports.store expired (the retention sweep)' },
    outboxPending: { key: { outboxPending: 1 }, servedBy: 'OutboxRelay sweep of the reports' },
  }),
  ...indexesOn(`${REPORT_FILES_BUCKET}.chunks`, {
    // GridFS's own index, declared so the index job makes it: a file's chunks read in order.
    files_id_n: { key: { files_id: 1, n: 1 }, unique: true, servedBy: 'GridFS read (report-files)' },
  }),
  ...indexesOn(`${REPORT_FILES_BUCKET}.files`, {
    filename_uploadDate: { key: { filename: 1, uploadDate: 1 }, servedBy: 'GridFS (report-files), its own index' },
  }),
  ...indexesOn(COLLECTIONS.customers, {
    org_mode_email: {
      key: { organizationId: 1, mode: 1, email: 1 },
      unique: true,
      servedBy: 'customers.store findOrCreateCustomer (D11)',
    },
  }),
  ...indexesOn(COLLECTIONS.locations, {
    org_mode_createdAt: {
      key: { organizationId: 1, mode: 1, createdAt: -1 },
      servedBy: 'locations.store listLocations',
    },
  }),
  ...indexesOn(COLLECTIONS.paymentDestinations, {
    org_mode_address: {
      key: { organizationId: 1, mode: 1, address: 1 },
      servedBy: 'destinations.store findDestination by address (D15)',
    },
  }),
];

/** A merchant's documents by organization and mode, then one id: its lists hit its chunks, which still split. */
const TENANT_AND_ID = { organizationId: 1, mode: 1, _id: 1 } as const;
const RELAY_SWEEP = "the outbox relay's sweep (every replica): what a crash left behind, across merchants";
const MIGRATION =
  "a rolling migration's batch (orders' store/migrations.ts): a scan of the old shape, in the background";

/** How each collection would be sharded (libs/mongo's shardedBy; docs/operations.md, "Past one replica set"). */
export const ORDER_SHARDING: readonly ShardingDeclaration[] = [
  shardedBy(COLLECTIONS.orders, {
    key: TENANT_AND_ID,
    why:
      'one document per order, the largest collection; every request names its merchant, and an order is found ' +
      "by its id or listed by its merchant's range; random ids, so a hot merchant's range splits and no chunk " +
      'takes all inserts',
    broadcasts: [
      { command: 'find', fields: ['outboxPending'], by: 'OutboxRelay.sweep', why: RELAY_SWEEP },
      { command: 'find', fields: ['revision'], by: 'orders.0001-revision-on-every-order', why: MIGRATION },
      {
        command: 'find',
        fields: ['amounts.paid', 'balanceLines'],
        by: 'orders.0002-balance-transactions-…',
        why: MIGRATION,
      },
      { command: 'find', fields: ['$and'], by: 'MigrationRunner (a batch after the cursor)', why: MIGRATION },
      {
        command: 'find',
        fields: ['refunds.id'],
        by: 'OrdersStore.findByRefundIdAcrossTenants',
        why: "a live refund's settlement notification names only the refund: once per live refund, by the processor",
      },
    ],
  }),
  shardedBy(COLLECTIONS.customers, {
    key: { organizationId: 1, mode: 1, email: 1 },
    why: 'D11: found or created by email within a merchant, the unique org_mode_email is the shard key itself',
  }),
  shardedBy(COLLECTIONS.locations, {
    key: null,
    why: 'a few per merchant (a list of at most 500 is its only read)',
  }),
  shardedBy(COLLECTIONS.paymentDestinations, {
    key: null,
    why: 'a few per merchant (D15), found by id or address',
  }),
  shardedBy(COLLECTIONS.balanceTransactions, {
    key: TENANT_AND_ID,
    why:
      'two lines per payment or refund at most (D52); listed by merchant, newest first, or by order; ids derived ' +
      'from the movement (so a replay meets its duplicate on the same shard: the tenant is fixed by the id)',
  }),
  shardedBy(COLLECTIONS.balances, {
    key: null,
    why: 'one document per merchant, mode and currency (D52)',
  }),
  shardedBy(COLLECTIONS.balanceQueue, {
    key: null,
    why: 'the lines not counted yet: a few at any time (D52)',
  }),
  shardedBy(COLLECTIONS.reports, {
    key: TENANT_AND_ID,
    why: "a merchant's report runs (D52), read by id within the merchant",
    broadcasts: [
      {
        command: 'findAndModify',
        fields: ['status', '$or'],
        by: 'ReportsStore.claim (the poll)',
        why: 'the report runner takes the oldest pending run of any merchant, off the request path',
      },
      { command: 'find', fields: ['outboxPending'], by: 'OutboxRelay.sweep (reports)', why: RELAY_SWEEP },
      { command: 'find', fields: ['expiresAt'], by: 'ReportsStore.expired', why: 'the retention sweep' },
    ],
  }),
  shardedBy(`${REPORT_FILES_BUCKET}.files`, {
    key: { _id: 'hashed' },
    why: "a report's file, read by its id (D52); GridFS's own collection",
    broadcasts: [
      {
        command: 'find',
        fields: [],
        by: "the driver's GridFSBucket (its index check before a bucket's first upload)",
        why: 'once per process, in the report runner, off the request path',
      },
    ],
  }),
  shardedBy(`${REPORT_FILES_BUCKET}.chunks`, {
    key: { files_id: 1, n: 1 },
    why: "MongoDB's GridFS rule: one file's chunks together, read in order by files_id",
  }),
];
