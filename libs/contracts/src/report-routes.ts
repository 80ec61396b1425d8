import { routesOf } from './internal-route';
import { CreateReportRequest, ReportResponse } from './reports';

const orders = routesOf('orders');

/** D52's report runs: orders builds and keeps them; the gateway forwards the merchant's calls. */
export const REPORT_INTERNAL_ROUTES = {
  createReport: orders({
    method: 'POST',
    path: '/internal/reports',
    callers: ['gateway'],
    request: CreateReportRequest,
    answer: ReportResponse,
    errors: ['REPORT_CREATE_FAILED', 'INVALID_REQUEST'],
  }),
  getReport: orders({
    method: 'GET',
    path: '/internal/reports/:reportId',
    callers: ['gateway'],
    answer: ReportResponse,
    errors: ['REPORT_NOT_FOUND'],
  }),
  /** The CSV, streamed (text/csv): the gateway passes it on as it comes, never whole in memory. */
  reportFile: orders({
    method: 'GET',
    path: '/internal/reports/:reportId/file',
    callers: ['gateway'],
    errors: ['REPORT_NOT_FOUND', 'REPORT_NOT_READY'],
  }),
};
