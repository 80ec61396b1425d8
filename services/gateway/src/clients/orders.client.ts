import {
  OrderPageResponse,
  OrderPaymentsResponse,
  OrderResponse,
  PaymentsPerHourResponse,
  type Scope,
} from '@checkout/contracts';
import { InternalApi, WITHOUT_TOTAL } from './internal-api';

/**
 * The orders service's internal API, as the gateway calls it: its public and admin routes forward, the dashboard reads.
 */
export class OrdersClient extends InternalApi {
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

  paymentsPerHour(scope: Scope, requestId: string) {
    return this.read(PaymentsPerHourResponse, {
      method: 'GET',
      path: '/internal/orders/payments-per-hour',
      scope,
      requestId,
    });
  }
}
