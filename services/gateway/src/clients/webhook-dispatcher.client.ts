import {
  INTERNAL_ROUTES as R,
  type CreateWebhookEndpointRequest,
  type Scope,
  type UpdateWebhookEndpointRequest,
} from '@checkout/contracts';
import type { DashboardDispatcher } from '../domain/dashboard-reads';
import type { TenantUsageSource } from '../domain/budgets';
import { InternalApi, WITHOUT_TOTAL } from './internal-api';

type Query = Record<string, string | undefined>;

/** The webhook dispatcher's internal API (events and their deliveries), as the gateway calls it. */
export class WebhookDispatcherClient extends InternalApi implements DashboardDispatcher, TenantUsageSource {
  listEvents(scope: Scope, requestId: string, query: Query) {
    return this.read(R.listEvents, { scope, requestId, query, headers: WITHOUT_TOTAL });
  }

  getEvent(scope: Scope, requestId: string, eventId: string) {
    return this.read(R.getEvent, { scope, requestId, params: { eventId } });
  }

  failedDeliveries(scope: Scope, requestId: string) {
    return this.read(R.failedDeliveries, { scope, requestId });
  }

  deliveryStats(scope: Scope, requestId: string) {
    return this.read(R.deliveryStats, { scope, requestId });
  }

  /**
   * The organization and mode's usage of its daily budgets (the merchant's writes past one are refused). Asked once:
   * the check fails open, so a retry's backoff would only hold the writes waiting on it (domain/budgets.ts).
   */
  tenantUsage(scope: Scope, requestId: string) {
    return this.read(R.tenantUsage, { scope, requestId, idempotent: false });
  }

  redeliver(scope: Scope, requestId: string, eventId: string) {
    return this.read(R.redeliver, { scope, requestId, params: { eventId } });
  }

  recover(scope: Scope, requestId: string, since: string, endpointId?: string) {
    const body = { since, ...(endpointId !== undefined && { endpointId }) };
    return this.read(R.recoverEvents, { scope, requestId, body });
  }

  // D50: the dashboard's webhook endpoint pages.

  listEndpoints(scope: Scope, requestId: string) {
    return this.read(R.listEndpoints, { scope, requestId, query: { limit: '100' } });
  }

  getEndpoint(scope: Scope, requestId: string, endpointId: string) {
    return this.read(R.getEndpoint, { scope, requestId, params: { endpointId } });
  }

  endpointDeliveries(scope: Scope, requestId: string, endpointId: string, page: string | undefined) {
    return this.read(R.endpointDeliveries, { scope, requestId, params: { endpointId }, query: { page, limit: '25' } });
  }

  createEndpoint(scope: Scope, requestId: string, input: CreateWebhookEndpointRequest) {
    return this.read(R.createEndpoint, { scope, requestId, body: input });
  }

  updateEndpoint(scope: Scope, requestId: string, endpointId: string, patch: UpdateWebhookEndpointRequest) {
    return this.read(R.updateEndpoint, { scope, requestId, params: { endpointId }, body: patch });
  }

  rotateEndpointSecret(scope: Scope, requestId: string, endpointId: string) {
    return this.read(R.rotateEndpointSecret, { scope, requestId, params: { endpointId } });
  }
}
