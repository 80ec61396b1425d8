import type { CheckoutSession, SessionResponse } from '@checkout/contracts';
import type { HttpClient, RequestOptions } from '../http';
import type { CheckoutSessionCreateParams, CheckoutSessionUpdateParams, TestPaymentParams } from '../types';
import { TestHelperRefunds } from './refunds';

const path = (id: string) => `/v0/checkout/sessions/${encodeURIComponent(id)}`;

export class CheckoutSessions {
  constructor(private readonly http: HttpClient) {}

  /** Creates the order and its hosted checkout session; send the customer to `session.url`. */
  async create(params: CheckoutSessionCreateParams, options?: RequestOptions): Promise<CheckoutSession> {
    return (
      await this.http.request<SessionResponse>('POST', '/v0/checkout/sessions', {
        body: params,
        ...(options && { options }),
      })
    ).session;
  }

  async retrieve(id: string): Promise<CheckoutSession> {
    return (await this.http.request<SessionResponse>('GET', path(id))).session;
  }

  /** Extends a pending session (`extendExpiry` minutes) or merges `sessionData`. */
  async update(id: string, params: CheckoutSessionUpdateParams): Promise<CheckoutSession> {
    return (await this.http.request<SessionResponse>('PATCH', path(id), { body: params })).session;
  }
}

/** Test mode only (sk_test keys): drive a session as a customer would (D29). */
export class TestHelperCheckoutSessions {
  constructor(private readonly http: HttpClient) {}

  /** Pays through the simulated processors; default: card, the amount still due, succeeded. */
  async pay(id: string, params: TestPaymentParams = {}, options?: RequestOptions): Promise<CheckoutSession> {
    return (
      await this.http.request<SessionResponse>(
        'POST',
        `/v0/test_helpers/checkout/sessions/${encodeURIComponent(id)}/pay`,
        { body: params, ...(options && { options }) },
      )
    ).session;
  }

  /** Expires a pending session now, firing checkout.session.expired. */
  async expire(id: string, options?: RequestOptions): Promise<CheckoutSession> {
    return (
      await this.http.request<SessionResponse>(
        'POST',
        `/v0/test_helpers/checkout/sessions/${encodeURIComponent(id)}/expire`,
        options && { options },
      )
    ).session;
  }
}

export class TestHelpers {
  readonly checkoutSessions: TestHelperCheckoutSessions;
  /** D48: refunds in any state (`create(orderId, {outcome})`) and pending ones settled (`settle(id, {outcome})`). */
  readonly refunds: TestHelperRefunds;
  constructor(http: HttpClient) {
    this.checkoutSessions = new TestHelperCheckoutSessions(http);
    this.refunds = new TestHelperRefunds(http);
  }
}
