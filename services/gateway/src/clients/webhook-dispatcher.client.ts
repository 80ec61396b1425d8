import {
  DeliveryStatsResponse,
  EventPageResponse,
  EventResponse,
  FailedDeliveriesResponse,
  RecoverEventsResponse,
  RedeliverResponse,
  type Scope,
} from '@checkout/contracts';
import { InternalApi, WITHOUT_TOTAL } from './internal-api';

/** The webhook dispatcher's internal API (events and their deliveries), as the gateway calls it. */
export class WebhookDispatcherClient extends InternalApi {
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

  recover(scope: Scope, requestId: string, since: string) {
    return this.read(RecoverEventsResponse, {
      method: 'POST',
      path: '/internal/events/recover',
      scope,
      requestId,
      body: { since },
    });
  }
}
