import type {
  Delivery,
  EventListResponse,
  EventResponse,
  RecoverEventsResponse,
  RedeliverResponse,
  WebhookEvent,
} from '@checkout/contracts';
import type { HttpClient, Query, RequestOptions } from '../http';
import { isoWindow, ListResult } from '../pagination';
import type { EventListParams, EventRecoverParams, EventRedeliverParams } from '../types';

const path = (id: string) => `/v0/events/${encodeURIComponent(id)}`;

/** The server's default page size (contracts' LIMIT_DEFAULT; the SDK takes only types from there). */
const LIMIT_DEFAULT = 20;
/**
 * How far a list filtered by deliveries pages (contracts' DELIVERY_SEARCH_MAX, D51): page × limit at most this, a
 * 400 past it. `client.test.ts` checks that the two agree.
 */
export const DELIVERY_SEARCH_MAX = 10_000;

/**
 * The pages of a list filtered by `deliveryStatus` or `endpointId`, numbered on as if unbounded: once the next page
 * would pass DELIVERY_SEARCH_MAX, a new window starts just after the last event read (`createdBefore` its time + 1
 * ms, page 1 again), so `for await` reads every event; the events of that millisecond read twice are skipped by
 * ListResult, which yields each id once. Starting again from the first page starts from the caller's window.
 */
function windowedPages(
  fetchPage: (query: Query) => Promise<EventListResponse>,
  filters: Query,
  firstPage: number,
  limit: number,
): (number: number) => Promise<EventListResponse> {
  let window = { createdBefore: filters.createdBefore, offset: 0 };
  let lastCreatedAt: string | undefined;
  return async (number) => {
    if (number === firstPage) {
      window = { createdBefore: filters.createdBefore, offset: 0 };
      lastCreatedAt = undefined;
    }
    if ((number - window.offset) * limit > DELIVERY_SEARCH_MAX && lastCreatedAt !== undefined)
      window = { createdBefore: new Date(Date.parse(lastCreatedAt) + 1).toISOString(), offset: number - 1 };
    const answer = await fetchPage({
      ...filters,
      ...(window.createdBefore !== undefined && { createdBefore: window.createdBefore }),
      page: number - window.offset,
    });
    lastCreatedAt = answer.events.at(-1)?.createdAt ?? lastCreatedAt;
    return answer;
  };
}

export class Events {
  constructor(private readonly http: HttpClient) {}

  /** `await` for one page, `for await` for every event (newest first). */
  list(params: EventListParams = {}): ListResult<WebhookEvent, EventListResponse> {
    const { page = 1, createdAfter, createdBefore, ...rest } = params;
    const filters = { ...rest, ...isoWindow({ createdAfter, createdBefore }) };
    const fetchPage = (query: Query) => this.http.request<EventListResponse>('GET', '/v0/events', { query });
    const byDeliveries = rest.deliveryStatus !== undefined || rest.endpointId !== undefined;
    return new ListResult(
      byDeliveries
        ? windowedPages(fetchPage, filters, page, rest.limit ?? LIMIT_DEFAULT)
        : (number) => fetchPage({ ...filters, page: number }),
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
