import type { z } from 'zod';
import { DependencyUnavailableError, DomainError, isErrorCode } from '@checkout/errors';
import type { InternalClient, RequestScope } from '@checkout/http';
import {
  DeliveryStatsResponse,
  EventPageResponse,
  EventResponse,
  FailedDeliveriesResponse,
  INTERNAL_API_HEADERS,
  OrderPageResponse,
  OrderPaymentsResponse,
  OrderResponse,
  PaymentsPerHourResponse,
  RecoverEventsResponse,
  RedeliverResponse,
  SessionListResponse,
  SessionResponse,
} from '@checkout/contracts';
import type { Upstream } from '../http/public-routes';

const WITHOUT_TOTAL = { [INTERNAL_API_HEADERS.withoutTotal]: '1' };

/**
 * D47: everything the dashboard shows or does goes through the owners' internal APIs, with the dashboard
 * session's scope in the same headers an API-key request sends, so tenancy is enforced by the owners exactly as
 * for the API. An owner's 4xx becomes the DomainError it named (its status comes from the one table); an answer
 * that does not parse is the owner misbehaving, a 503 rather than a page built on a guess.
 */
export class DashboardReader {
  constructor(private readonly upstreams: Record<Upstream, InternalClient>) {}

  private async call<S extends z.ZodType>(upstream: Upstream, schema: S, request: { method: 'GET' | 'POST'; path: string; scope: RequestScope; requestId: string; query?: Record<string, string | undefined>; body?: unknown; headers?: Record<string, string> }): Promise<z.output<S>> {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(request.query ?? {})) if (value !== undefined && value !== '') search.set(name, value);
    const qs = search.size > 0 ? `?${search.toString()}` : '';
    const answer = await this.upstreams[upstream].json({ method: request.method, path: `${request.path}${qs}`, scope: request.scope, requestId: request.requestId, body: request.body, ...(request.headers && { headers: request.headers }) });
    if (answer.status >= 400 && answer.status < 500) {
      const body = answer.body as { code?: unknown; message?: unknown } | null;
      const code = isErrorCode(body?.code) ? body.code : 'INVALID_REQUEST';
      throw new DomainError(code, typeof body?.message === 'string' ? body.message : 'The request was refused.');
    }
    const parsed = answer.status < 300 ? schema.safeParse(answer.body) : undefined;
    if (!parsed?.success) throw new DependencyUnavailableError(this.upstreams[upstream].service, new Error(`unexpected answer ${answer.status} to ${request.method} ${request.path}`));
    return parsed.data;
  }

  /** A page with "next" and "previous" but no total: the owner skips the count (INTERNAL_API_HEADERS.withoutTotal). */
  listOrders(scope: RequestScope, requestId: string, query: Record<string, string | undefined>) {
    return this.call('orders', OrderPageResponse, { method: 'GET', path: '/internal/orders', scope, requestId, query, headers: WITHOUT_TOTAL });
  }
  getOrder(scope: RequestScope, requestId: string, id: string) {
    return this.call('orders', OrderResponse, { method: 'GET', path: `/internal/orders/${encodeURIComponent(id)}`, scope, requestId });
  }
  orderPayments(scope: RequestScope, requestId: string, id: string) {
    return this.call('orders', OrderPaymentsResponse, { method: 'GET', path: `/internal/orders/${encodeURIComponent(id)}/payments`, scope, requestId });
  }
  paymentsPerHour(scope: RequestScope, requestId: string) {
    return this.call('orders', PaymentsPerHourResponse, { method: 'GET', path: '/internal/orders/payments-per-hour', scope, requestId });
  }
  listSessions(scope: RequestScope, requestId: string, query: Record<string, string | undefined>) {
    return this.call('sessions', SessionListResponse, { method: 'GET', path: '/internal/sessions', scope, requestId, query });
  }
  getSession(scope: RequestScope, requestId: string, id: string) {
    return this.call('sessions', SessionResponse, { method: 'GET', path: `/internal/sessions/${encodeURIComponent(id)}`, scope, requestId });
  }
  listEvents(scope: RequestScope, requestId: string, query: Record<string, string | undefined>) {
    return this.call('dispatcher', EventPageResponse, { method: 'GET', path: '/internal/events', scope, requestId, query, headers: WITHOUT_TOTAL });
  }
  getEvent(scope: RequestScope, requestId: string, id: string) {
    return this.call('dispatcher', EventResponse, { method: 'GET', path: `/internal/events/${encodeURIComponent(id)}`, scope, requestId });
  }
  failedDeliveries(scope: RequestScope, requestId: string) {
    return this.call('dispatcher', FailedDeliveriesResponse, { method: 'GET', path: '/internal/events/failed-deliveries', scope, requestId });
  }
  deliveryStats(scope: RequestScope, requestId: string) {
    return this.call('dispatcher', DeliveryStatsResponse, { method: 'GET', path: '/internal/events/delivery-stats', scope, requestId });
  }
  redeliver(scope: RequestScope, requestId: string, id: string) {
    return this.call('dispatcher', RedeliverResponse, { method: 'POST', path: `/internal/events/${encodeURIComponent(id)}/redeliver`, scope, requestId });
  }
  recover(scope: RequestScope, requestId: string, since: string) {
    return this.call('dispatcher', RecoverEventsResponse, { method: 'POST', path: '/internal/events/recover', scope, requestId, body: { since } });
  }
}
