import { indexesOn, type IndexDefinition } from '@checkout/mongo';

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
