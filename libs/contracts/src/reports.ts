import { z } from 'zod';
import { Timestamp } from './common';
import { ID_PREFIXES, idMaxLength, idSchema } from './ids';

// D52: report runs. A merchant asks for a report of a window; orders builds its CSV off the request path, keeps the
// file 30 days and answers it as it was built (docs/books.md, "Reports").

export const ReportId = idSchema(ID_PREFIXES.report, 'Report id, `rpt_<mode>_<suffix>` (D52).');

export const REPORT_TYPES = ['balance_transactions', 'orders', 'refunds'] as const;
export const ReportType = z
  .enum(REPORT_TYPES)
  .describe('What the file lists: balance transactions, orders, or refunds, created in the window.');
export type ReportType = z.infer<typeof ReportType>;

/**
 * The CSV's header row of each type, in column order (D52: amounts in minor units, times ISO-8601). A column is
 * only ever added at the end, so a spreadsheet or a parser reading columns by position keeps working.
 */
export const REPORT_COLUMNS = {
  balance_transactions: ['id', 'type', 'orderId', 'sourceId', 'amount', 'currency', 'createdAt', 'recordedAt'],
  orders: [
    'id',
    'externalId',
    'status',
    'paymentStatus',
    'currency',
    'total',
    'paid',
    'refunded',
    'createdAt',
    'updatedAt',
  ],
  refunds: ['id', 'orderId', 'status', 'amount', 'currency', 'reason', 'failureReason', 'createdAt', 'updatedAt'],
} as const satisfies Record<ReportType, readonly string[]>;

/** D52: the longest window a report covers. */
export const REPORT_WINDOW_MAX_DAYS = 366;
/** D52: a report and its file are kept this long after the report was created, then 404. */
export const REPORT_RETENTION_DAYS = 30;
export const REPORT_CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';

export const REPORT_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export const ReportStatus = z
  .enum(REPORT_STATUSES)
  .describe('`pending` while it is built; then `succeeded` (its file can be downloaded) or `failed`.');
export type ReportStatus = z.infer<typeof ReportStatus>;

export const REPORT_FAILURE_REASONS = ['internal_error'] as const;

const DAY_MS = 24 * 60 * 60 * 1000;
const windowBound = (description: string) => z.iso.datetime({ offset: true }).max(40).describe(description);

export const CreateReportRequest = z
  .strictObject({
    type: ReportType,
    createdAfter: windowBound('The window starts at this ISO-8601 time, inclusive (filters `createdAt`).'),
    createdBefore: windowBound(
      `The window ends before this ISO-8601 time, exclusive; at most ${REPORT_WINDOW_MAX_DAYS} days after ` +
        'createdAfter, so consecutive windows neither overlap nor leave a gap.',
    ),
  })
  .superRefine((request, ctx) => {
    const span = Date.parse(request.createdBefore) - Date.parse(request.createdAfter);
    if (span <= 0) {
      ctx.addIssue({ code: 'custom', path: ['createdBefore'], message: 'must be after createdAfter' });
    } else if (span > REPORT_WINDOW_MAX_DAYS * DAY_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['createdBefore'],
        message: `must be at most ${REPORT_WINDOW_MAX_DAYS} days after createdAfter`,
      });
    }
  })
  .meta({
    id: 'CreateReportRequest',
    description: `A report of the records created in [createdAfter, createdBefore), at most ${REPORT_WINDOW_MAX_DAYS} days (D52).`,
  });
export type CreateReportRequest = z.infer<typeof CreateReportRequest>;

export const Report = z
  .object({
    id: ReportId,
    type: ReportType,
    status: ReportStatus,
    createdAfter: Timestamp.describe('The window, inclusive.'),
    createdBefore: Timestamp.describe('The window, exclusive.'),
    createdAt: Timestamp,
    expiresAt: Timestamp.describe(
      `When the report and its file are deleted (${REPORT_RETENTION_DAYS} days after createdAt); then 404.`,
    ),
    rows: z.int().min(0).optional().describe('Lines of the file besides its header row; on a succeeded report.'),
    asOf: Timestamp.optional().describe(
      'The file holds every record recorded up to this time (a balance transaction: its `recordedAt`; an order ' +
        'or a refund: its state at this time or a little later). On a succeeded report.',
    ),
    fileUrl: z
      .string()
      .max(idMaxLength(ID_PREFIXES.report) + '/v0/reports//file'.length)
      .regex(/^\/v0\/reports\/rpt_(?:live|test)_[0-9A-Za-z]+\/file$/)
      .optional()
      .describe('`/v0/reports/{id}/file`: the CSV, with the same API key. On a succeeded report.'),
    failureReason: z.enum(REPORT_FAILURE_REASONS).optional().describe('On a failed report: why.'),
  })
  .meta({
    id: 'Report',
    description:
      'A report run (D52): built asynchronously; once `succeeded`, its CSV is the same at every download for ' +
      `${REPORT_RETENTION_DAYS} days.`,
  });
export type Report = z.infer<typeof Report>;

export const ReportResponse = z.object({ report: Report }).meta({ id: 'ReportResponse' });
export type ReportResponse = z.infer<typeof ReportResponse>;
