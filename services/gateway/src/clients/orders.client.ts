import {
  INTERNAL_API_HEADERS,
  INTERNAL_ROUTES as R,
  REFUNDS_PER_ORDER_MAX,
  type CreateRefundRequest,
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
}
