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
import type { EventListParams, EventRecoverParams, EventRedeliverParams } from '../types';

const path = (id: string) => `/v0/events/${encodeURIComponent(id)}`;

export class Events {
  constructor(private readonly http: HttpClient) {}

  /** `await` for one page, `for await` for every event (newest first). */
  list(params: EventListParams = {}): ListResult<WebhookEvent, EventListResponse> {
    const { page = 1, createdAfter, createdBefore, ...rest } = params;
    const iso = (value: string | Date) => (value instanceof Date ? value.toISOString() : value);
    const filters = {
      ...rest,
      ...(createdAfter !== undefined && { createdAfter: iso(createdAfter) }),
      ...(createdBefore !== undefined && { createdBefore: iso(createdBefore) }),
    };
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

  /**
   * A new delivery of the event (same event id, new delivery id): to its session's callback URL, or, with
   * `{endpointId}`, to that webhook endpoint (D50).
   */
  async redeliver(id: string, params: EventRedeliverParams = {}, options?: RequestOptions): Promise<Delivery> {
    return (
      await this.http.request<RedeliverResponse>('POST', `${path(id)}/redeliver`, {
        ...(params.endpointId !== undefined && { body: params }),
        ...(options && { options }),
      })
    ).delivery;
  }

  /**
   * Every delivery that failed since `since` is delivered again, once (D44); with `endpointId`, that endpoint's, and
   * every event it missed while disabled (D50).
   */
  recover(params: EventRecoverParams, options?: RequestOptions): Promise<RecoverEventsResponse> {
    const since = params.since instanceof Date ? params.since.toISOString() : params.since;
    return this.http.request<RecoverEventsResponse>('POST', '/v0/events/recover', {
      body: { since, ...(params.endpointId !== undefined && { endpointId: params.endpointId }) },
      ...(options && { options }),
    });
  }
}
