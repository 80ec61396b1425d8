import type { OrderListResponse, OrderResponse, Order } from '@checkout/contracts';
import type { HttpClient, RequestOptions } from '../http';
import { ListResult } from '../pagination';
import type { OrderCreateParams, OrderListParams, OrderUpdateParams } from '../types';

const path = (id: string) => `/v0/orders/${encodeURIComponent(id)}`;

export class Orders {
  constructor(private readonly http: HttpClient) {}

  async create(params: OrderCreateParams, options?: RequestOptions): Promise<Order> {
    return (await this.http.request<OrderResponse>('POST', '/v0/orders', { body: params, ...(options && { options }) }))
      .order;
  }

  async retrieve(id: string): Promise<Order> {
    return (await this.http.request<OrderResponse>('GET', path(id))).order;
  }

  async update(id: string, params: OrderUpdateParams): Promise<Order> {
    return (await this.http.request<OrderResponse>('PATCH', path(id), { body: params })).order;
  }

  /** Idempotent: cancelling a cancelled order returns it unchanged. */
  async cancel(id: string, options?: RequestOptions): Promise<Order> {
    return (await this.http.request<OrderResponse>('POST', `${path(id)}/cancel`, options && { options })).order;
  }

  /** `await` for one page, `for await` for every order (newest first). */
  list(params: OrderListParams = {}): ListResult<Order, OrderListResponse> {
    const { page = 1, ...filters } = params;
    return new ListResult(
      (number) => this.http.request<OrderListResponse>('GET', '/v0/orders', { query: { ...filters, page: number } }),
      (p) => p.orders,
      page,
    );
  }
}
