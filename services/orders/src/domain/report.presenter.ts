import type { Report } from '@checkout/contracts';
import type { ReportDocument } from '../store/report.document';

/** A report as the API and its events show it (D52): what it found once it succeeded, why not once it failed. */
export function presentReport(doc: ReportDocument): Report {
  return {
    id: doc._id,
    type: doc.type,
    status: doc.status,
    createdAfter: doc.createdAfter.toISOString(),
    createdBefore: doc.createdBefore.toISOString(),
    createdAt: doc.createdAt.toISOString(),
    expiresAt: doc.expiresAt.toISOString(),
    ...(doc.status === 'succeeded' && {
      rows: doc.rows ?? 0,
      ...(doc.asOf && { asOf: doc.asOf.toISOString() }),
      fileUrl: `/v0/reports/${doc._id}/file`,
    }),
    ...(doc.status === 'failed' && { failureReason: doc.failureReason ?? 'internal_error' }),
  };
}
