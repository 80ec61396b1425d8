import type { BalanceTransaction } from '@checkout/contracts';
import type { BalanceTransactionDocument } from '../store/balance-transaction.document';

/** A stored line as the API shows it (D52): `counted` and the tenant stay inside. */
export function presentBalanceTransaction(doc: BalanceTransactionDocument): BalanceTransaction {
  return {
    id: doc._id,
    type: doc.type,
    orderId: doc.orderId,
    sourceId: doc.sourceId,
    amount: doc.amount,
    currency: doc.currency,
    createdAt: doc.createdAt.toISOString(),
    recordedAt: doc.recordedAt.toISOString(),
  };
}
