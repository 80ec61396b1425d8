import type { ScopedDocument } from '@checkout/mongo';
import type { BalanceTransactionType } from '@checkout/contracts';

/**
 * One balance transaction (D52), collection `balance_transactions`: one immutable line per money movement of an
 * order. Its `_id` is derived from the movement (`derivedId('txn', mode, sourceId)`), so inserting it once by `_id`
 * gives exactly one line per movement under any replay, duplicate, crash or concurrency (docs/books.md). Written
 * by the ledger's consumer and backfill; read by the API and by reports.
 */
export interface BalanceTransactionDocument extends ScopedDocument {
  /** `txn_<mode>_<suffix>`, derived from sourceId. */
  _id: string;
  type: BalanceTransactionType;
  orderId: string;
  /** The payment's `paymentId` or the refund's `id`. */
  sourceId: string;
  /** Signed minor units: a payment > 0, a refund < 0. */
  amount: number;
  currency: string;
  /** When the money moved: a payment's appliedAt, a refund's updatedAt once succeeded (it never changes again). */
  createdAt: Date;
  /** When the line was inserted. */
  recordedAt: Date;
  /**
   * Internal: false until the counting step has added the line to its scope's balance (docs/books.md, "The
   * counting"); never presented.
   */
  counted: boolean;
}
