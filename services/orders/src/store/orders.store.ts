import { scoped, type Collection, type Db, type Filter, type Scope, type ScopedDocument } from '@checkout/mongo';
import { DomainError } from '@checkout/errors';
import { COLLECTIONS } from './indexes';
import type { OrderStatus, PaymentStatus } from '@checkout/contracts';
import type { OrderDocument } from './order.document';

const HOUR_MS = 3_600_000;

/** Payments applied in one hour of the dashboard's chart; `hour` counts whole hours from the chart's start. */
export interface HourTotals {
  hour: number;
  count: number;
  amount: number;
}

export interface OrderListFilter {
  status?: OrderStatus;
  paymentStatus?: PaymentStatus;
  provider?: OrderDocument['provider'];
  locationId?: string;
  externalId?: string;
}

/** The list filter of D20 (and D47's externalId), shared by the page with and without its total. */
function listFilter(filter: OrderListFilter): Filter<OrderDocument> {
  const query: Filter<OrderDocument> = {};
  if (filter.status) query.status = filter.status;
  if (filter.paymentStatus) query.paymentStatus = filter.paymentStatus;
  if (filter.provider) query.provider = filter.provider;
  if (filter.locationId) query.locationId = filter.locationId;
  // The uniqueKey of an order with an externalId is "ext:<externalId>" (D37): served by org_mode_uniqueKey.
  if (filter.externalId !== undefined) query.uniqueKey = `ext:${filter.externalId}`;
  return query;
}

/** D37's uniqueness, kept apart from the orders so that they can be sharded by their id (indexes.ts). */
interface ExternalIdDocument extends ScopedDocument {
  /** The merchant, mode and externalId: the unique _id decides, on one shard, who holds it. */
  _id: string;
  externalId: string;
  orderId: string;
  createdAt: Date;
}

const externalIdKey = (scope: Scope, externalId: string) => `${scope.organizationId}/${scope.mode}/${externalId}`;

/** The only code that touches the orders collection; every call is scoped to one organization and mode. */
export class OrdersStore {
  readonly collection: Collection<OrderDocument>;
  private readonly externalIds: Collection<ExternalIdDocument>;

  constructor(db: Db) {
    this.collection = db.collection<OrderDocument>(COLLECTIONS.orders);
    this.externalIds = db.collection<ExternalIdDocument>(COLLECTIONS.orderExternalIds);
  }

  /**
   * Reserves `externalId` for `orderId` with one unique insert, or finds the reservation that holds it: the id of
   * the order it names (`orderId` when this call made it). Written before the order, so a crash between the two
   * leaves a reservation naming an order never stored, which the next creation with that externalId completes.
   */
  async reserveExternalId(scope: Scope, externalId: string, orderId: string, now: Date): Promise<string> {
    const reservation = { _id: externalIdKey(scope, externalId), externalId, orderId, createdAt: now };
    const { doc } = await scoped(this.externalIds, scope).insertOnce(reservation);
    // The _id names the tenant, so no other tenant's reservation can hold it.
    if (!doc) throw new Error(`externalId reservation ${reservation._id} refused, yet not found`);
    return doc.orderId;
  }

  /**
   * Migration orders.0003: an order stored with an externalId before the reservations existed takes its reservation;
   * one that names an order never stored (a creation refused by the old unique index) is moved to it.
   */
  async reserveExternalIdOf(order: OrderDocument, now: Date): Promise<void> {
    if (order.externalId === undefined) return;
    const scope = { organizationId: order.organizationId, mode: order.mode };
    const held = await this.reserveExternalId(scope, order.externalId, order._id, now);
    if (held === order._id || (await this.getOrder(scope, held))) return;
    await scoped(this.externalIds, scope).updateOne(
      { _id: externalIdKey(scope, order.externalId), orderId: held },
      { $set: { orderId: order._id } },
    );
  }

  /**
   * Inserts a new order, its externalId reserved first (reserveExternalId). The _id decides races (a creation
   * retried derives the same id, so does the completion of a reservation); so do the unique indexes, until the
   * release that drops them: a second order with the same externalId is DUPLICATE_EXTERNAL_ID (D37); a repeated
   * creation key (a session retrying) returns the order it made.
   */
  async insertOrder(
    scope: Scope,
    doc: Omit<OrderDocument, 'organizationId' | 'mode'>,
  ): Promise<{ order: OrderDocument; created: boolean }> {
    // Revision 0 from the start (orders.0001 gives it to orders stored before): what readers took a missing one as.
    const { created, doc: stored } = await scoped(this.collection, scope).insertOnce(
      { ...doc, revision: typeof doc.revision === 'number' ? doc.revision : 0 },
      { creationKey: doc.creationKey as string },
    );
    // Refused: a retry of the same creation (its creation key found: that order), or another order's externalId.
    if (stored && (created || doc.creationKey !== `id:${doc._id}`)) return { order: stored, created };
    throw new DomainError(
      'DUPLICATE_EXTERNAL_ID',
      `An order with externalId "${doc.externalId ?? ''}" already exists.`,
    );
  }

  /**
   * D47's payments chart, summed in the database: payments applied since `from`, counted and summed per whole
   * hour from `from` (at most the window's hours come back, whatever the number of payments). Served by
   * org_mode_payments_appliedAt (a multikey index); `$unwind` and `$group` run in the database, so this process
   * holds the totals only (a merchant's 10⁶ one-cent payments used to be read into memory here).
   */
  paymentsPerHourSince(scope: Scope, from: Date): Promise<HourTotals[]> {
    return scoped(this.collection, scope).aggregate<HourTotals>({ 'payments.appliedAt': { $gte: from } }, [
      {
        $project: {
          _id: 0,
          payments: { $filter: { input: '$payments', as: 'p', cond: { $gte: ['$$p.appliedAt', from] } } },
        },
      },
      { $unwind: '$payments' },
      {
        $group: {
          _id: { $floor: { $divide: [{ $subtract: ['$payments.appliedAt', from] }, HOUR_MS] } },
          count: { $sum: 1 },
          amount: { $sum: '$payments.amount' },
        },
      },
      { $project: { _id: 0, hour: '$_id', count: 1, amount: 1 } },
    ]);
  }

  getOrder(scope: Scope, id: string): Promise<OrderDocument | null> {
    return scoped(this.collection, scope).findOne({ _id: id });
  }

  /** The order holding refund `refundId` in this scope (D48's GET /v0/refunds/:id), through the refunds_id index. */
  findByRefundId(scope: Scope, refundId: string): Promise<OrderDocument | null> {
    return scoped(this.collection, scope).findOne({ 'refunds.id': refundId });
  }

  /**
   * The order holding refund `refundId`, whatever its organization and mode: a processor's notification names only
   * the refund (as a payment notification names only its session), and the order found says whose it is.
   */
  findByRefundIdAcrossTenants(refundId: string): Promise<OrderDocument | null> {
    return this.collection.findOne({ 'refunds.id': refundId });
  }

  async listOrders(
    scope: Scope,
    filter: OrderListFilter,
    page: number,
    limit: number,
  ): Promise<{ orders: OrderDocument[]; total: number }> {
    const orders = scoped(this.collection, scope);
    const query = listFilter(filter);
    const [list, total] = await Promise.all([
      orders
        .find(query)
        .sort({ createdAt: -1, _id: -1 })
        .skip((page - 1) * limit)
        .limit(limit)
        .toArray(),
      orders.countDocuments(query),
    ]);
    return { orders: list, total };
  }

  /** The same page without the count (D47's dashboard): one more is fetched to tell whether another page follows. */
  async listOrdersPage(
    scope: Scope,
    filter: OrderListFilter,
    page: number,
    limit: number,
  ): Promise<{ orders: OrderDocument[]; hasMore: boolean }> {
    const list = await scoped(this.collection, scope)
      .find(listFilter(filter))
      .sort({ createdAt: -1, _id: -1 })
      .skip((page - 1) * limit)
      .limit(limit + 1)
      .toArray();
    return { orders: list.slice(0, limit), hasMore: list.length > limit };
  }

  /**
   * Read-modify-write of one order as one conditional update (replaceIfUnchanged: the revision read is the
   * expected state); a lost race re-reads and re-applies `change`, so every rule sees the order as stored.
   * `change` is pure: it returns the new document, or null to leave the order as it is (no write, so
   * updatedAt does not move: D36).
   */
  async mutateOrder<R>(
    scope: Scope,
    id: string,
    change: (current: OrderDocument) => { next: OrderDocument | null; result: R },
  ): Promise<{ order: OrderDocument; result: R } | null> {
    const result = await scoped(this.collection, scope).mutate(id, change);
    return result && { order: result.doc, result: result.result };
  }
}
