import type { Scope } from '@checkout/mongo';
import type { OrderDocument, StoredCustomer } from '../store/order.document';
import type { HourTotals, OrderListFilter } from '../store/orders.store';
import type { BalanceTransactionDocument } from '../store/balance-transaction.document';
import type { BalanceDocument, BalanceLineFilter, BalanceScope, NewBalanceTransaction } from '../store/balance.store';
import type { DestinationStatus, LocationDocument, PaymentDestinationDocument } from '../store/reference-data.document';

// The stores as the use cases need them: interfaces the domain owns, implemented by store/orders.store.ts and
// store/reference-data.store.ts (wired in app.ts), so that a rule is tested with a fake and never with a database.

/** The orders collection: reads, and the writes a use case decides (one conditional update each). */
export interface StoredOrders {
  /**
   * Inserts a new order. The unique indexes decide races: a second order with the same externalId is
   * DUPLICATE_EXTERNAL_ID (D37); a repeated creation key (a session retrying) returns the order it made.
   */
  insertOrder(
    scope: Scope,
    doc: Omit<OrderDocument, 'organizationId' | 'mode'>,
  ): Promise<{ order: OrderDocument; created: boolean }>;
  /** D37: reserves `externalId` for `orderId` (one unique insert), or the id of the order its reservation names. */
  reserveExternalId(scope: Scope, externalId: string, orderId: string, now: Date): Promise<string>;
  /**
   * D47's payments chart, summed in the database: payments applied since `from`, counted and summed per whole
   * hour from `from` (at most the window's hours come back, whatever the number of payments). Served by
   * org_mode_payments_appliedAt (a multikey index); `$unwind` and `$group` run in the database, so this process
   * holds the totals only (a merchant's 10⁶ one-cent payments used to be read into memory here).
   */
  paymentsPerHourSince(scope: Scope, from: Date): Promise<HourTotals[]>;
  getOrder(scope: Scope, id: string): Promise<OrderDocument | null>;
  /** The order holding refund `refundId` in this scope (D48's GET /v0/refunds/:id), through the refunds_id index. */
  findByRefundId(scope: Scope, refundId: string): Promise<OrderDocument | null>;
  /**
   * The order holding refund `refundId`, whatever its organization and mode: a processor's notification names only
   * the refund (as a payment notification names only its session), and the order found says whose it is.
   */
  findByRefundIdAcrossTenants(refundId: string): Promise<OrderDocument | null>;
  listOrders(
    scope: Scope,
    filter: OrderListFilter,
    page: number,
    limit: number,
  ): Promise<{ orders: OrderDocument[]; total: number }>;
  /** The same page without the count (D47's dashboard): one more is fetched to tell whether another page follows. */
  listOrdersPage(
    scope: Scope,
    filter: OrderListFilter,
    page: number,
    limit: number,
  ): Promise<{ orders: OrderDocument[]; hasMore: boolean }>;
  /**
   * Read-modify-write of one order as one conditional update (replaceIfUnchanged: the revision read is the
   * expected state); a lost race re-reads and re-applies `change`, so every rule sees the order as stored.
   * `change` is pure: it returns the new document, or null to leave the order as it is (no write, so
   * updatedAt does not move: D36).
   */
  mutateOrder<R>(
    scope: Scope,
    id: string,
    change: (current: OrderDocument) => { next: OrderDocument | null; result: R },
  ): Promise<{ order: OrderDocument; result: R } | null>;
}

/** Customers, locations and payment destinations (D38), scoped to the organization and mode. */
export interface StoredReferenceData {
  /** D11: find-or-create by lowercased email; the unique index makes concurrent first uses agree. */
  findOrCreateCustomer(
    scope: Scope,
    input: { email: string; name?: string; phone?: string },
    now: Date,
  ): Promise<StoredCustomer>;
  getLocation(scope: Scope, id: string): Promise<LocationDocument | null>;
  createLocation(scope: Scope, name: string, now: Date): Promise<LocationDocument>;
  listLocations(scope: Scope): Promise<LocationDocument[]>;
  /** D15: a destination is found by its id or by its address, within this organization and mode. */
  findDestination(scope: Scope, idOrAddress: string): Promise<PaymentDestinationDocument | null>;
  createDestination(
    scope: Scope,
    input: { address: string; network: string; status: DestinationStatus; verified: boolean },
    now: Date,
  ): Promise<PaymentDestinationDocument>;
  updateDestination(
    scope: Scope,
    id: string,
    patch: { status?: DestinationStatus; verified?: boolean },
    now: Date,
  ): Promise<PaymentDestinationDocument | null>;
  listDestinations(scope: Scope): Promise<PaymentDestinationDocument[]>;
}

/** D52: the lines and the balances (store/balance.store.ts; docs/books.md). */
export interface StoredBooks {
  /** Inserts the lines not stored yet, uncounted; how many it inserted. */
  insertMissing(scope: Scope, lines: readonly NewBalanceTransaction[]): Promise<number>;
  /** One step of the counting (two-phase, exactly once); how many lines it added, 0 when none was left. */
  countStep(scope: BalanceScope, now: Date): Promise<number>;
  /** Counting until nothing is left in the scope; how many lines were added. */
  countAll(scope: BalanceScope, now: () => Date): Promise<number>;
  /** The scopes with a line recorded before `before` still uncounted, or a batch pending since before it. */
  scopesToCount(before: Date, limit: number): Promise<BalanceScope[]>;
  readBalance(scope: BalanceScope): Promise<{ balance: BalanceDocument | null; oldestUncounted: Date | null }>;
  list(
    scope: Scope,
    filter: BalanceLineFilter,
    page: number,
    limit: number,
  ): Promise<{ lines: BalanceTransactionDocument[]; total: number }>;
  getLine(scope: Scope, id: string): Promise<BalanceTransactionDocument | null>;
}
