import type { InternalAnswer } from '@checkout/http';
import {
  OrderPageResponse,
  OrderPaymentsResponse,
  OrderResponse,
  PaymentsPerHourResponse,
  INTERNAL_API_HEADERS,
  REFUNDS_PER_ORDER_MAX,
  RefundListResponse,
  type CreateRefundRequest,
  type Scope,
} from '@checkout/contracts';
import type { DashboardOrders } from '../domain/dashboard-reads';
import { InternalApi, WITHOUT_TOTAL } from './internal-api';

/**
 * The orders service's internal API, as the gateway calls it: its public and admin routes forward, the dashboard reads.
 */
export class OrdersClient extends InternalApi implements DashboardOrders {
  listOrders(scope: Scope, requestId: string, query: Record<string, string | undefined>) {
    return this.read(OrderPageResponse, {
      method: 'GET',
      path: '/internal/orders',
      scope,
      requestId,
      query,
      headers: WITHOUT_TOTAL,
    });
  }

  getOrder(scope: Scope, requestId: string, id: string) {
    return this.read(OrderResponse, {
      method: 'GET',
      path: `/internal/orders/${encodeURIComponent(id)}`,
      scope,
      requestId,
    });
  }

  orderPayments(scope: Scope, requestId: string, id: string) {
    return this.read(OrderPaymentsResponse, {
      method: 'GET',
      path: `/internal/orders/${encodeURIComponent(id)}/payments`,
      scope,
      requestId,
    });
  }

  /** D48: all of an order's refunds, newest first (an order has at most REFUNDS_PER_ORDER_MAX: one page). */
  orderRefunds(scope: Scope, requestId: string, id: string) {
    return this.read(RefundListResponse, {
      method: 'GET',
      path: `/internal/orders/${encodeURIComponent(id)}/refunds`,
      scope,
      requestId,
      query: { limit: String(REFUNDS_PER_ORDER_MAX) },
    });
  }

  /**
   * D48 from the dashboard's Refund form: orders' whole answer (the refund, the order, its revision), so the order
   * goes on to its session (D46). `formKey` is the confirm page's one-time key: a form sent twice is one refund.
   */
  createRefund(
    scope: Scope,
    requestId: string,
    id: string,
    body: CreateRefundRequest,
    formKey: string,
  ): Promise<InternalAnswer> {
    return this.write({
      method: 'POST',
      path: `/internal/orders/${encodeURIComponent(id)}/refunds`,
      scope,
      requestId,
      body,
      headers: { [INTERNAL_API_HEADERS.idempotencyRecord]: `dashboard:${formKey}` },
    });
  }

  paymentsPerHour(scope: Scope, requestId: string) {
    return this.read(PaymentsPerHourResponse, {
      method: 'GET',
      path: '/internal/orders/payments-per-hour',
      scope,
      requestId,
    });
  }
}
