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
  /** D37: one document per externalId of a merchant and mode, naming its order (orders.store reserveExternalId). */
  orderExternalIds: 'order_external_ids',
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
    // but the local engine ignores partial filters (docs/engines.md), so the key is never missing. Retiring with
    // org_mode_creationKey (ORDER_SHARDING): order_external_ids holds the uniqueness from this release on.
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

/** How each collection would be sharded (libs/mongo's shardedBy; docs/operations.md, "Shard keys"). */
export const ORDER_SHARDING: readonly ShardingDeclaration[] = [
  shardedBy(COLLECTIONS.orders, {
    key: TENANT_AND_ID,
    why:
      'one document per order, the largest collection, written on every payment and refund: every request names ' +
      "its merchant, so an order is read and written by its id on one shard and listed from its merchant's range; " +
      "the ids are random (or hashed from a creation's key), so a merchant with half the traffic has its range " +
      'split into many chunks that the balancer spreads, and no chunk takes every insert (no monotonic key)',
    broadcasts: [
      { command: 'find', fields: ['outboxPending'], by: 'OutboxRelay.sweep', why: RELAY_SWEEP },
      { command: 'find', fields: ['revision'], by: 'orders.0001-revision-on-every-order', why: MIGRATION },
      {
        command: 'find',
        fields: ['amounts.paid', 'balanceLines'],
        by: 'orders.0002-balance-transactions-…',
        why: MIGRATION,
      },
      {
        command: 'find',
        fields: ['externalId', 'externalIdReserved'],
        by: 'orders.0003-external-id-reservations',
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
    retiring: [
      {
        index: 'org_mode_uniqueKey',
        dropWhen:
          'the release after the one that reserves externalIds (order_external_ids), once orders.0003 is recorded ' +
          'done in every environment and no replica of an earlier release runs; a plain index of the same fields ' +
          "takes its place for the orders list's externalId filter",
      },
      {
        index: 'org_mode_creationKey',
        dropWhen:
          'the same release: every running version derives the id of an order created with an Idempotency-Key ' +
          "from it (newOrderId), so a retry meets its order on the _id; a session's retry comes within seconds",
      },
    ],
  }),
  shardedBy(COLLECTIONS.orderExternalIds, {
    key: { _id: 'hashed' },
    why:
      "D37's uniqueness of an externalId per merchant and mode, apart from the orders: one document per order " +
      'created with one, inserted (or found) by its _id, the merchant, mode and externalId: hashed, so a hot ' +
      "merchant's reservations spread and the insert that decides is on one shard",
  }),
  shardedBy(COLLECTIONS.customers, {
    key: { organizationId: 1, mode: 1, email: 1 },
    why:
      'one per buyer email of a merchant (D11), found or created by email on order creation: the unique ' +
      "org_mode_email is the shard key itself; emails are not monotonic, and a hot merchant's buyers split by email",
  }),
  shardedBy(COLLECTIONS.locations, {
    key: null,
    why: 'a few per merchant (its list stops at 500)',
  }),
  shardedBy(COLLECTIONS.paymentDestinations, {
    key: null,
    why: 'a few per merchant (D15), found by id or address within it',
  }),
  shardedBy(COLLECTIONS.balanceTransactions, {
    key: TENANT_AND_ID,
    why:
      'one line per payment or refund (D52), written by the ledger consumer; listed by merchant (newest first, or ' +
      "one order's) from its range, read by id on one shard; the id is hashed from the movement, so it fixes the " +
      'merchant and a replayed line meets its duplicate _id on the same shard, and a hot merchant spreads',
  }),
  shardedBy(COLLECTIONS.balances, {
    key: null,
    why: 'one document per merchant, mode and currency (D52), its _id naming them',
  }),
  shardedBy(COLLECTIONS.balanceQueue, {
    key: null,
    why: 'the lines not counted yet (D52): a few at any time, whatever the traffic',
  }),
  shardedBy(COLLECTIONS.reports, {
    key: TENANT_AND_ID,
    why: "a merchant's report runs (D52), a few a day, read by id within the merchant on one shard",
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
    why: "a report's file (D52), GridFS's own document, read by its id",
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
    why: "GridFS's chunks as MongoDB shards them: one file's chunks together, read in order by files_id",
  }),
];
