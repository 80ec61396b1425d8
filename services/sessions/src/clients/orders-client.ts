import { z } from 'zod';
import { DependencyUnavailableError, DomainError, isErrorCode, type ErrorDetail } from '@checkout/errors';
import { InternalClient, type RequestScope } from '@checkout/http';
import { Order, type PaymentMethod, type ShippingAddress } from '@checkout/contracts';

export type OrderView = z.infer<typeof Order>;

const OrderEnvelope = z.object({ order: Order });
const PaymentEnvelope = z.object({ order: Order, outcome: z.enum(['applied', 'already_applied']) });
const LocationsEnvelope = z.object({ locations: z.array(z.object({ id: z.string(), name: z.string() })) });
const DestinationsEnvelope = z.object({ paymentDestinations: z.array(z.object({ id: z.string(), address: z.string(), status: z.string(), verified: z.boolean() })) });
const ErrorEnvelope = z.object({ code: z.string(), message: z.string(), details: z.array(z.object({ path: z.string(), message: z.string() })).optional() });

export interface OrdersClientOptions {
  baseUrl: string;
  internalToken: string;
  /** connect / headers / body timeout; an orders call never hangs a request longer than this (D7). */
  timeoutMs?: number;
  connections?: number;
  /** Extra attempts of an idempotent call after a transport failure or a 503. */
  retries?: number;
}

/**
 * Typed client of the orders service's internal API (style.md §11). Transport failures and 5xx answers become
 * DependencyUnavailableError('orders') (→ 503); orders' error envelopes become DomainErrors with orders' code,
 * which the callers map to their endpoint's codes. Only idempotent calls are retried: GET, create with an
 * Idempotency-Key, cancel (idempotent by the spec), and a payment (applied at most once by its payment id).
 */
export class OrdersClient {
  private readonly client: InternalClient;

  constructor(options: OrdersClientOptions) {
    this.client = new InternalClient({
      service: 'orders',
      baseUrl: options.baseUrl,
      internalToken: options.internalToken,
      timeoutMs: options.timeoutMs ?? 3_000,
      connections: options.connections ?? 64,
      retries: options.retries ?? 2,
    });
  }

  async create(scope: RequestScope, input: unknown, idempotencyKey: string): Promise<{ order: OrderView; created: boolean }> {
    const { status, body } = await this.call(scope, 'POST', '/internal/orders', input, { 'idempotency-key': idempotencyKey });
    return { order: OrderEnvelope.parse(body).order, created: status === 201 };
  }

  async get(scope: RequestScope, orderId: string): Promise<OrderView> {
    const { body } = await this.call(scope, 'GET', `/internal/orders/${encodeURIComponent(orderId)}`);
    return OrderEnvelope.parse(body).order;
  }

  async update(scope: RequestScope, orderId: string, patch: { shippingAddress?: ShippingAddress; customer?: { phone: string } }): Promise<OrderView> {
    // Not retried: a PATCH replaces fields, but we keep to the rule of retrying only what is idempotent by contract.
    const { body } = await this.call(scope, 'PATCH', `/internal/orders/${encodeURIComponent(orderId)}`, patch, {}, false);
    return OrderEnvelope.parse(body).order;
  }

  async cancel(scope: RequestScope, orderId: string): Promise<OrderView> {
    const { body } = await this.call(scope, 'POST', `/internal/orders/${encodeURIComponent(orderId)}/cancel`);
    return OrderEnvelope.parse(body).order;
  }

  /** The session expired: orders refuses payments from now on; the answer says whether a payment won first. */
  async closePayments(scope: RequestScope, orderId: string): Promise<OrderView> {
    const { body } = await this.call(scope, 'POST', `/internal/orders/${encodeURIComponent(orderId)}/close-payments`);
    return OrderEnvelope.parse(body).order;
  }

  async applyPayment(scope: RequestScope, orderId: string, payment: { paymentId: string; amount: number; method: PaymentMethod }): Promise<{ order: OrderView; outcome: 'applied' | 'already_applied' }> {
    const { body } = await this.call(scope, 'POST', `/internal/orders/${encodeURIComponent(orderId)}/payments`, payment);
    return PaymentEnvelope.parse(body);
  }

  async listLocations(scope: RequestScope): Promise<{ id: string; name: string }[]> {
    const { body } = await this.call(scope, 'GET', '/internal/admin/locations');
    return LocationsEnvelope.parse(body).locations;
  }

  /** The organization's payment destinations; the hosted page resolves a `pd_` id to its address with it. */
  async listPaymentDestinations(scope: RequestScope): Promise<{ id: string; address: string; status: string; verified: boolean }[]> {
    const { body } = await this.call(scope, 'GET', '/internal/admin/payment-destinations');
    return DestinationsEnvelope.parse(body).paymentDestinations;
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  private async call(
    scope: RequestScope,
    method: 'GET' | 'POST' | 'PATCH',
    path: string,
    payload?: unknown,
    extraHeaders: Record<string, string> = {},
    idempotent = true,
  ): Promise<{ status: number; body: unknown }> {
    const { status, body } = await this.client.json({ method, path, scope, body: payload, headers: extraHeaders, idempotent });
    if (status >= 500) throw new DependencyUnavailableError('orders', new Error(`orders answered ${status}`));
    if (status >= 400) throw toDomainError(status, body);
    return { status, body };
  }
}

/** Orders' D6 envelope as a DomainError with orders' own code and details; callers re-map codes. */
function toDomainError(status: number, body: unknown): Error {
  const envelope = ErrorEnvelope.safeParse(body);
  if (!envelope.success || !isErrorCode(envelope.data.code)) return new Error(`orders answered ${status} without an error envelope`);
  const details: ErrorDetail[] | undefined = envelope.data.details;
  return new DomainError(envelope.data.code, envelope.data.message, details ? { details } : {});
}
