import type { Refund, RefundListResponse, RefundResponse } from '@checkout/contracts';
import type { HttpClient, RequestOptions } from '../http';
import { ListResult } from '../pagination';
import type { RefundCreateParams, RefundListParams, TestRefundCreateParams, TestRefundSettleParams } from '../types';

const enc = encodeURIComponent;

/**
 * D48: money given back from an order's payments. `create` refunds all that is refundable when no amount is given;
 * in test mode it succeeds at once, in live mode it stays `pending` until the processor settles it.
 */
export class Refunds {
  constructor(private readonly http: HttpClient) {}

  async create(orderId: string, params: RefundCreateParams = {}, options?: RequestOptions): Promise<Refund> {
    return (
      await this.http.request<RefundResponse>('POST', `/v0/orders/${enc(orderId)}/refunds`, {
        body: params,
        ...(options && { options }),
      })
    ).refund;
  }

  async retrieve(id: string): Promise<Refund> {
    return (await this.http.request<RefundResponse>('GET', `/v0/refunds/${enc(id)}`)).refund;
  }

  /** An order's refunds: `await` for one page, `for await` for every refund (newest first). */
  list(orderId: string, params: RefundListParams = {}): ListResult<Refund, RefundListResponse> {
    const { page = 1, ...rest } = params;
    return new ListResult(
      (number) =>
        this.http.request<RefundListResponse>('GET', `/v0/orders/${enc(orderId)}/refunds`, {
          query: { ...rest, page: number },
        }),
      (p) => p.refunds,
      page,
    );
  }
}

/** Test mode only (sk_test keys): a refund in any state, and a pending one settled (D48). */
export class TestHelperRefunds {
  constructor(private readonly http: HttpClient) {}

  /** Like `refunds.create`, with the simulated processor's `outcome` (default succeeded). */
  async create(orderId: string, params: TestRefundCreateParams = {}, options?: RequestOptions): Promise<Refund> {
    return (
      await this.http.request<RefundResponse>('POST', `/v0/test_helpers/orders/${enc(orderId)}/refunds`, {
        body: params,
        ...(options && { options }),
      })
    ).refund;
  }

  /** Settles a pending refund as the processor would. */
  async settle(id: string, params: TestRefundSettleParams, options?: RequestOptions): Promise<Refund> {
    return (
      await this.http.request<RefundResponse>('POST', `/v0/test_helpers/refunds/${enc(id)}/settle`, {
        body: params,
        ...(options && { options }),
      })
    ).refund;
  }
}
