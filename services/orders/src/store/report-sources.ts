import type { Collection, Db, Filter, Scope } from '@checkout/mongo';
import type { RefundRow, ReportSources, ReportWindow } from '../domain/report-ports';
import type { BalanceTransactionDocument } from './balance-transaction.document';
import { COLLECTIONS } from './indexes';
import type { OrderDocument } from './order.document';

/** Documents fetched per round trip: a batch in memory at a time, whatever the number of rows. */
const BATCH = 1_000;

/**
 * The window as a `createdAt` range, ending at asOf too when that comes first: an order or a refund is recorded when
 * it is created, so one created after asOf was not recorded by then (D52).
 */
function createdIn(window: ReportWindow): { $gte: Date; $lt: Date } {
  const justAfterAsOf = new Date(window.asOf.getTime() + 1);
  return {
    $gte: window.createdAfter,
    $lt: justAfterAsOf < window.createdBefore ? justAfterAsOf : window.createdBefore,
  };
}

const tenant = (scope: Scope) => ({ organizationId: scope.organizationId, mode: scope.mode });

/** The records of D52's reports, read from cursors in the file's order (oldest first), never all at once. */
export class ReportSourcesStore implements ReportSources {
  private readonly lineCollection: Collection<BalanceTransactionDocument>;
  private readonly orderCollection: Collection<OrderDocument>;

  constructor(db: Db) {
    this.lineCollection = db.collection<BalanceTransactionDocument>(COLLECTIONS.balanceTransactions);
    this.orderCollection = db.collection<OrderDocument>(COLLECTIONS.orders);
  }

  /** Lines created in the window and recorded up to asOf; org_mode_createdAt_id read backwards. */
  balanceTransactions(scope: Scope, window: ReportWindow): AsyncIterable<BalanceTransactionDocument> {
    const filter: Filter<BalanceTransactionDocument> = {
      ...tenant(scope),
      createdAt: { $gte: window.createdAfter, $lt: window.createdBefore },
      recordedAt: { $lte: window.asOf },
    };
    return this.lineCollection.find(filter, { batchSize: BATCH }).sort({ createdAt: 1, _id: 1 });
  }

  /** Orders created in the window by asOf, as they stand when read; org_mode_createdAt_id read backwards. */
  orders(scope: Scope, window: ReportWindow): AsyncIterable<OrderDocument> {
    return this.orderCollection
      .find(
        { ...tenant(scope), createdAt: createdIn(window) },
        {
          batchSize: BATCH,
          projection: {
            externalId: 1,
            status: 1,
            paymentStatus: 1,
            currency: 1,
            amounts: 1,
            createdAt: 1,
            updatedAt: 1,
          },
        },
      )
      .sort({ createdAt: 1, _id: 1 }) as AsyncIterable<OrderDocument>;
  }

  /**
   * Refunds created in the window by asOf, with their order's id and currency: the orders holding one, through the
   * multikey org_mode_refunds_createdAt, each order's refunds oldest first (the file groups them by order).
   */
  async *refunds(scope: Scope, window: ReportWindow): AsyncGenerator<RefundRow> {
    const created = createdIn(window);
    const holding = this.orderCollection
      .find(
        { ...tenant(scope), refunds: { $elemMatch: { createdAt: created } } },
        { batchSize: BATCH, projection: { currency: 1, refunds: 1 } },
      )
      .sort({ 'refunds.createdAt': 1, _id: 1 });
    for await (const order of holding) {
      for (const refund of order.refunds ?? []) {
        if (refund.createdAt >= created.$gte && refund.createdAt < created.$lt)
          yield { orderId: order._id, currency: order.currency, refund };
      }
    }
  }
}
