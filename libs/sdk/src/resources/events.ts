import type {
  Delivery,
  EventListResponse,
  EventResponse,
  RecoverEventsResponse,
  RedeliverResponse,
  WebhookEvent,
} from '@checkout/contracts';
import type { HttpClient, RequestOptions } from '../http';
import { ListResult } from '../pagination';
import type { EventListParams, EventRecoverParams } from '../types';

const path = (id: string) => `/v0/events/${encodeURIComponent(id)}`;

export class Events {
  constructor(private readonly http: HttpClient) {}

  /** `await` for one page, `for await` for every event (newest first). */
  list(params: EventListParams = {}): ListResult<WebhookEvent, EventListResponse> {
    const { page = 1, ...filters } = params;
    return new ListResult(
      (number) => this.http.request<EventListResponse>('GET', '/v0/events', { query: { ...filters, page: number } }),
      (p) => p.events,
      page,
    );
  }

  /** The event with its deliveries and their attempts. */
  retrieve(id: string): Promise<EventResponse> {
    return this.http.request<EventResponse>('GET', path(id));
  }

  /** A new delivery of the event (same event id, new delivery id). */
  async redeliver(id: string, options?: RequestOptions): Promise<Delivery> {
    return (await this.http.request<RedeliverResponse>('POST', `${path(id)}/redeliver`, options && { options }))
      .delivery;
  }

  /** Every delivery that failed since `since` is delivered again, once (D44). */
  recover(params: EventRecoverParams, options?: RequestOptions): Promise<RecoverEventsResponse> {
    const since = params.since instanceof Date ? params.since.toISOString() : params.since;
    return this.http.request<RecoverEventsResponse>('POST', '/v0/events/recover', {
      body: { since },
      ...(options && { options }),
    });
  }
}
