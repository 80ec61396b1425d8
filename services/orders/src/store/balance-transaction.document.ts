import type { ScopedDocument } from '@checkout/mongo';

/**
 * One balance transaction (D52): one immutable line per money movement of an order, a payment applied
 * (`payment`, amount > 0) or a refund that succeeded (`refund`, amount < 0). Its id is derived from the movement
 * (`derivedId('txn', mode, sourceId)`), so inserting it once by `_id` makes exactly one line per movement under any
 * replay, duplicate, crash or concurrency (docs/books.md).
 */
export interface BalanceTransactionDocument extends ScopedDocument {
  /** `txn_<mode>_<suffix>`, derived from sourceId. */
  _id: string;
  type: 'payment' | 'refund';
  orderId: string;
  /** The payment's `paymentId` or the refund's `id`. */
  sourceId: string;
  /** Signed minor units: a payment's positive, a refund's negative. */
  amount: number;
  currency: string;
  /** When the movement happened: a payment's appliedAt; a refund's updatedAt when it became `succeeded`. */
  createdAt: Date;
  /** When the line was inserted. */
  recordedAt: Date;
  /** Internal: the line is in its scope's balance totals (the two-phase counting step). Never presented. */
  counted: boolean;
}
