import type { Readable } from 'node:stream';
import type { Scope } from '@checkout/mongo';
import type { BalanceTransactionDocument } from '../store/balance-transaction.document';
import type { OrderDocument, StoredRefund } from '../store/order.document';
import type { ReportDocument } from '../store/report.document';

// What report runs (D52) need of orders' store, as interfaces the domain owns (store/reports.store.ts,
// store/report-sources.ts and store/report-files.ts implement them; app.ts wires them).

/** What a run reads: records created in [createdAfter, createdBefore) and recorded up to asOf. */
export interface ReportWindow {
  createdAfter: Date;
  createdBefore: Date;
  asOf: Date;
}

/** A refund with the order fields its row needs. */
export interface RefundRow {
  orderId: string;
  currency: string;
  refund: StoredRefund;
}

/** The records of a report, each read from a cursor in the order of the file (oldest first): never all in memory. */
export interface ReportSources {
  balanceTransactions(scope: Scope, window: ReportWindow): AsyncIterable<BalanceTransactionDocument>;
  orders(scope: Scope, window: ReportWindow): AsyncIterable<OrderDocument>;
  refunds(scope: Scope, window: ReportWindow): AsyncIterable<RefundRow>;
}

/** The reports' files (GridFS in orders' database). */
export interface ReportFiles {
  /** Stores the file `fileId` from its chunks as they come; resolves once the whole file is stored. */
  write(fileId: string, chunks: AsyncIterable<Uint8Array>): Promise<void>;
  /** The stored file, streamed. */
  read(fileId: string): Readable;
  /** Deletes the files (and any chunks a crashed run left without its file); a missing one is no error. */
  delete(fileIds: readonly string[]): Promise<void>;
}

/** What a run's end writes: its status and what it found, with the event it owes (D52) in the same write. */
export type ReportOutcome = Pick<ReportDocument, 'status'> &
  Partial<Pick<ReportDocument, 'rows' | 'asOf' | 'fileId' | 'failureReason'>> & { finishedAt: Date };

/** A report as its writes name it: its id and its merchant (the shard key, docs/operations.md). */
export type ReportRef = Pick<ReportDocument, '_id' | 'organizationId' | 'mode'>;

/** The reports collection. A run is claimed with a lease, by one conditional update; so is its end. */
export interface StoredReports {
  /** Inserts the report, or finds the one holding its id (a retry with the same Idempotency-Key, D42). */
  insertOnce(scope: Scope, doc: Omit<ReportDocument, 'organizationId' | 'mode'>): Promise<ReportDocument>;
  get(scope: Scope, id: string): Promise<ReportDocument | null>;
  /**
   * Takes the lease of a pending report that has none or whose lease expired (`report`: that one; else any, oldest
   * first), counting a run; null if there is none to take.
   */
  claim(lease: { owner: string; until: Date }, now: Date, report?: ReportRef): Promise<ReportDocument | null>;
  /** Extends a held lease; false once it is no longer this owner's (expired and taken over). */
  renew(report: ReportRef, lease: { owner: string; until: Date }): Promise<boolean>;
  /** Ends the run this owner holds, with its event in the outbox; null if the lease was lost meanwhile. */
  finish(
    doc: ReportDocument,
    owner: string,
    outcome: ReportOutcome,
    withEvent: (finished: ReportDocument) => ReportDocument,
  ): Promise<ReportDocument | null>;
  /** Reports past their expiresAt, at most `limit`. */
  expired(now: Date, limit: number): Promise<ReportDocument[]>;
  remove(report: ReportRef): Promise<void>;
}

/** Orders' report events: written with the report's end (its outbox), published right after. */
export interface ReportEventsOutbox {
  withEvent(doc: ReportDocument, now: Date): ReportDocument;
  publishWritten(doc: ReportDocument): Promise<void>;
}
