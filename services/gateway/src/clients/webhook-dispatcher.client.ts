import {
  EndpointDeliveriesResponse,
  WebhookEndpointList,
  WebhookEndpointResponse,
  WebhookEndpointSecretResponse,
  type CreateWebhookEndpointRequest,
  type UpdateWebhookEndpointRequest,
  DeliveryStatsResponse,
  EventPageResponse,
  EventResponse,
  FailedDeliveriesResponse,
  RecoverEventsResponse,
  RedeliverResponse,
  type Scope,
} from '@checkout/contracts';
import type { DashboardDispatcher } from '../domain/dashboard-reads';
import { InternalApi, WITHOUT_TOTAL } from './internal-api';

/** The webhook dispatcher's internal API (events and their deliveries), as the gateway calls it. */
export class WebhookDispatcherClient extends InternalApi implements DashboardDispatcher {
  listEvents(scope: Scope, requestId: string, query: Record<string, string | undefined>) {
    return this.read(EventPageResponse, {
      method: 'GET',
      path: '/internal/events',
      scope,
      requestId,
      query,
      headers: WITHOUT_TOTAL,
    });
  }

  getEvent(scope: Scope, requestId: string, id: string) {
    return this.read(EventResponse, {
      method: 'GET',
      path: `/internal/events/${encodeURIComponent(id)}`,
      scope,
      requestId,
    });
  }

  failedDeliveries(scope: Scope, requestId: string) {
    return this.read(FailedDeliveriesResponse, {
      method: 'GET',
      path: '/internal/events/failed-deliveries',
      scope,
      requestId,
    });
  }

  deliveryStats(scope: Scope, requestId: string) {
    return this.read(DeliveryStatsResponse, {
      method: 'GET',
      path: '/internal/events/delivery-stats',
      scope,
      requestId,
    });
  }

  redeliver(scope: Scope, requestId: string, id: string) {
    return this.read(RedeliverResponse, {
      method: 'POST',
      path: `/internal/events/${encodeURIComponent(id)}/redeliver`,
      scope,
      requestId,
    });
  }

  recover(scope: Scope, requestId: string, since: string, endpointId?: string) {
    return this.read(RecoverEventsResponse, {
      method: 'POST',
      path: '/internal/events/recover',
      scope,
      requestId,
      body: { since, ...(endpointId !== undefined && { endpointId }) },
    });
  }

  // D50: the dashboard's webhook endpoint pages.

  listEndpoints(scope: Scope, requestId: string) {
    return this.read(WebhookEndpointList, {
      method: 'GET',
      path: '/internal/webhook-endpoints',
      scope,
      requestId,
      query: { limit: '100' },
    });
  }

  getEndpoint(scope: Scope, requestId: string, id: string) {
    return this.read(WebhookEndpointResponse, {
      method: 'GET',
      path: `/internal/webhook-endpoints/${encodeURIComponent(id)}`,
      scope,
      requestId,
    });
  }

  endpointDeliveries(scope: Scope, requestId: string, id: string, page: string | undefined) {
    return this.read(EndpointDeliveriesResponse, {
      method: 'GET',
      path: `/internal/webhook-endpoints/${encodeURIComponent(id)}/deliveries`,
      scope,
      requestId,
      query: { page, limit: '25' },
    });
  }

  createEndpoint(scope: Scope, requestId: string, input: CreateWebhookEndpointRequest) {
    return this.read(WebhookEndpointSecretResponse, {
      method: 'POST',
      path: '/internal/webhook-endpoints',
      scope,
      requestId,
      body: input,
    });
  }

  updateEndpoint(scope: Scope, requestId: string, id: string, patch: UpdateWebhookEndpointRequest) {
    return this.read(WebhookEndpointResponse, {
      method: 'PATCH',
      path: `/internal/webhook-endpoints/${encodeURIComponent(id)}`,
      scope,
      requestId,
      body: patch,
    });
  }

  rotateEndpointSecret(scope: Scope, requestId: string, id: string) {
    return this.read(WebhookEndpointSecretResponse, {
      method: 'POST',
      path: `/internal/webhook-endpoints/${encodeURIComponent(id)}/rotate-secret`,
      scope,
      requestId,
    });
  }
}
