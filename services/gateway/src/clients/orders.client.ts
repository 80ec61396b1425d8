import type { Readable } from 'node:stream';
import { streamInternal } from '@checkout/http';
import {
  INTERNAL_API_HEADERS,
  INTERNAL_ROUTES as R,
  REFUNDS_PER_ORDER_MAX,
  REPORT_CSV_CONTENT_TYPE,
  type CreateRefundRequest,
  type CreateReportRequest,
  type Scope,
} from '@checkout/contracts';
import type { DashboardOrders } from '../domain/dashboard-reads';
import { InternalApi, WITHOUT_TOTAL } from './internal-api';

type Query = Record<string, string | undefined>;

/**
 * The orders service's internal API, as the gateway calls it: its public and admin routes forward, the dashboard reads.
 */
export class OrdersClient extends InternalApi implements DashboardOrders {
  listOrders(scope: Scope, requestId: string, query: Query) {
    return this.read(R.listOrders, { scope, requestId, query, headers: WITHOUT_TOTAL });
  }

  getOrder(scope: Scope, requestId: string, orderId: string) {
    return this.read(R.getOrder, { scope, requestId, params: { orderId } });
  }

  orderPayments(scope: Scope, requestId: string, orderId: string) {
    return this.read(R.orderPayments, { scope, requestId, params: { orderId } });
  }

  /** D48: all of an order's refunds, newest first (an order has at most REFUNDS_PER_ORDER_MAX: one page). */
  orderRefunds(scope: Scope, requestId: string, orderId: string) {
    const query = { limit: String(REFUNDS_PER_ORDER_MAX) };
    return this.read(R.orderRefunds, { scope, requestId, params: { orderId }, query });
  }

  /**
   * D48 from the dashboard's Refund form: orders' whole answer (the refund, the order, its revision), so the order
   * goes on to its session (D46). `formKey` is the confirm page's one-time key: a form sent twice is one refund.
   */
  async createRefund(scope: Scope, requestId: string, orderId: string, body: CreateRefundRequest, formKey: string) {
    const headers = { [INTERNAL_API_HEADERS.idempotencyRecord]: `dashboard:${formKey}` };
    return (await this.call(R.createRefund, { scope, requestId, params: { orderId }, body, headers })).answer;
  }

  paymentsPerHour(scope: Scope, requestId: string) {
    return this.read(R.paymentsPerHour, { scope, requestId });
  }

  /** D52: the balance, the Balance page's per-day totals and a page of its lines. */
  balance(scope: Scope, requestId: string) {
    return this.read(R.getBalance, { scope, requestId });
  }

  balanceDaily(scope: Scope, requestId: string, days: number) {
    return this.read(R.balanceDaily, { scope, requestId, query: { days: String(days) } });
  }

  listBalanceTransactions(scope: Scope, requestId: string, query: Query) {
    return this.read(R.listBalanceTransactions, { scope, requestId, query });
  }

  /** D52 from the Balance page's Download CSV form: its one-time `formKey` makes the form sent twice one report. */
  createReport(scope: Scope, requestId: string, body: CreateReportRequest, formKey: string) {
    const headers = { [INTERNAL_API_HEADERS.idempotencyRecord]: `dashboard:${formKey}` };
    return this.read(R.createReport, { scope, requestId, body, headers });
  }

  getReport(scope: Scope, requestId: string, reportId: string) {
    return this.read(R.getReport, { scope, requestId, params: { reportId } });
  }

  /** The report's CSV as orders streams it from its store, passed on as it comes. */
  async reportFile(scope: Scope, requestId: string, reportId: string): Promise<Readable> {
    const call = { scope, requestId, params: { reportId }, accept: REPORT_CSV_CONTENT_TYPE };
    return (await streamInternal(this.http, R.reportFile, call)).body;
  }
}
