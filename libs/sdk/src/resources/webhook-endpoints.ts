import type {
  EventTypeInfo,
  EventTypeList,
  WebhookEndpoint,
  WebhookEndpointDeleted,
  WebhookEndpointList,
  WebhookEndpointResponse,
  WebhookEndpointSecretResponse,
  WebhookEndpointWithSecret,
} from '@checkout/contracts';
import type { HttpClient, RequestOptions } from '../http';
import { ListResult } from '../pagination';
import type { WebhookEndpointCreateParams, WebhookEndpointListParams, WebhookEndpointUpdateParams } from '../types';

const path = (id: string) => `/v0/webhook_endpoints/${encodeURIComponent(id)}`;

/** D50: webhook endpoints, each with the event types it receives and its own signing secret. */
export class WebhookEndpoints {
  constructor(private readonly http: HttpClient) {}

  /** Registers an endpoint. Its `secret` is in this answer only: keep it to verify deliveries (`webhooks.verify`). */
  async create(params: WebhookEndpointCreateParams, options?: RequestOptions): Promise<WebhookEndpointWithSecret> {
    return (
      await this.http.request<WebhookEndpointSecretResponse>('POST', '/v0/webhook_endpoints', {
        body: params,
        ...(options && { options }),
      })
    ).endpoint;
  }

  async retrieve(id: string): Promise<WebhookEndpoint> {
    return (await this.http.request<WebhookEndpointResponse>('GET', path(id))).endpoint;
  }

  /** `{disabled: true}` stops deliveries; `{disabled: false}` enables it again. */
  async update(id: string, params: WebhookEndpointUpdateParams): Promise<WebhookEndpoint> {
    return (await this.http.request<WebhookEndpointResponse>('PATCH', path(id), { body: params })).endpoint;
  }

  del(id: string): Promise<WebhookEndpointDeleted> {
    return this.http.request<WebhookEndpointDeleted>('DELETE', path(id));
  }

  /** A new secret, in this answer only; the old one keeps signing beside it for 24 hours. */
  async rotateSecret(id: string): Promise<WebhookEndpointWithSecret> {
    // No Idempotency-Key (its answer is a secret, D50), and a second rotation drops the first's secret: never repeated
    // after an unknown outcome.
    const answer = await this.http.request<WebhookEndpointSecretResponse>('POST', `${path(id)}/rotate_secret`, {
      notRepeatable: true,
    });
    return answer.endpoint;
  }

  /** `await` for one page, `for await` for every endpoint (newest first). */
  list(params: WebhookEndpointListParams = {}): ListResult<WebhookEndpoint, WebhookEndpointList> {
    const { page = 1, ...rest } = params;
    return new ListResult(
      (number) =>
        this.http.request<WebhookEndpointList>('GET', '/v0/webhook_endpoints', { query: { ...rest, page: number } }),
      (p) => p.endpoints,
      page,
    );
  }
}

/** D49: the event catalog. */
export class EventTypes {
  constructor(private readonly http: HttpClient) {}

  /** Every event type with its description and the JSON Schema of its body. */
  async list(): Promise<EventTypeInfo[]> {
    const all: EventTypeInfo[] = [];
    for (let page = 1; ; page += 1) {
      const answer = await this.http.request<EventTypeList>('GET', '/v0/event_types', { query: { page, limit: 100 } });
      all.push(...answer.eventTypes);
      if (!answer.pagination.hasMore || answer.eventTypes.length === 0) return all;
    }
  }
}
