import { z } from 'zod';
import {
  CreateReportRequest,
  REPORT_COLUMNS,
  REPORT_CSV_CONTENT_TYPE,
  REPORT_RETENTION_DAYS,
  REPORT_WINDOW_MAX_DAYS,
  ReportResponse,
} from '@checkout/contracts';
import { declareRoutes, LINKS, linksTo, type PublicRoute } from './public-route';

const columns = Object.entries(REPORT_COLUMNS)
  .map(([type, names]) => `\`${type}\`: ${names.map((name) => `\`${name}\``).join(', ')}`)
  .join('; ');

/** D52's report runs, built and kept by orders. */
export const REPORT_PUBLIC_ROUTES: readonly PublicRoute[] = declareRoutes({ tag: 'Reports', upstream: 'orders' }, [
  {
    route: 'POST /v0/reports -> /internal/reports',
    operationId: 'createReport',
    recordsEvents: true,
    summary: 'Run a report: a CSV of balance transactions, orders or refunds created in a window',
    description:
      `Starts a report run of the records created in [createdAfter, createdBefore) (at most ` +
      `${REPORT_WINDOW_MAX_DAYS} days) and answers it \`pending\` at once; \`GET /v0/reports/{reportId}\` ` +
      'says when it has `succeeded`, and the `report.succeeded` / `report.failed` events tell subscribed webhook ' +
      'endpoints. With an `Idempotency-Key`, a retry is the same report (D42). A malformed body or window is 400 ' +
      '`REPORT_CREATE_FAILED` with details.',
    body: { schema: CreateReportRequest, required: true },
    success: { status: 202, schema: ReportResponse },
    links: linksTo(LINKS.report, 'reportId', '/report/id'),
    errors: ['REPORT_CREATE_FAILED', 'INVALID_REQUEST'],
  },
  {
    route: 'GET /v0/reports/:reportId -> /internal/reports/:reportId',
    operationId: 'getReport',
    summary: 'Retrieve a report run',
    description:
      `A report of this organization and mode; another's, the other mode's, or one older than ` +
      `${REPORT_RETENTION_DAYS} days is 404 \`REPORT_NOT_FOUND\` (D4's pattern).`,
    success: { status: 200, schema: ReportResponse },
    errors: ['INVALID_REPORT_ID', 'REPORT_NOT_FOUND'],
  },
  {
    route: 'GET /v0/reports/:reportId/file -> /internal/reports/:reportId/file',
    operationId: 'getReportFile',
    summary: "Download a succeeded report's CSV",
    description:
      'RFC 4180 (CRLF line ends, a header row, one line per record), amounts in minor units, times ISO-8601, and ' +
      "any cell beginning with `=`, `+`, `-`, `@`, a tab or a carriage return prefixed with `'` so that a " +
      `spreadsheet reads no formula. The same bytes at every download. Columns: ${columns}. A report not ` +
      'yet succeeded is 409 `REPORT_NOT_READY`.',
    success: {
      status: 200,
      // No bound on a file's length can be stated; the pattern says what its lines are made of.
      schema: z.string().max(Number.MAX_SAFE_INTEGER).describe('The CSV file, header row first.'),
      contentType: REPORT_CSV_CONTENT_TYPE,
    },
    errors: ['INVALID_REPORT_ID', 'REPORT_NOT_FOUND', 'REPORT_NOT_READY'],
  },
]);
