import type { ScopedDocument } from '@checkout/mongo';
import type { OutboxFields } from '@checkout/kafka';
import type { ReportStatus, ReportType } from '@checkout/contracts';

/** A runner's claim on a pending report (docs/books.md, "Reports"): another replica takes it once `until` passes. */
export interface ReportLease {
  owner: string;
  until: Date;
}

/**
 * A report run (D52). Its events wait in its outbox (report.succeeded / report.failed, written with the status that
 * owes them); its CSV is a GridFS file of orders' database, `fileId`, kept as long as the report.
 */
export interface ReportDocument extends ScopedDocument, OutboxFields {
  /** `rpt_<mode>_<suffix>`: derived from the Idempotency-Key when there is one (D42), so a retry is this report. */
  _id: string;
  type: ReportType;
  status: ReportStatus;
  createdAfter: Date;
  createdBefore: Date;
  createdAt: Date;
  /** createdAt + 30 days: from then on the report is 404 and the retention sweep deletes it and its file. */
  expiresAt: Date;
  /** Set while a runner builds it. Internal. */
  lease?: ReportLease;
  /** Runs started so far: each writes a file of its own (`<id>.<run>`), so a crashed run's chunks are never read. */
  attempts: number;
  rows?: number;
  asOf?: Date;
  fileId?: string;
  failureReason?: 'internal_error';
  finishedAt?: Date;
}
