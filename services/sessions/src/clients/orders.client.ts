import { z } from 'zod';
import { DependencyUnavailableError, DomainError, isErrorCode, type ErrorDetail } from '@checkout/errors';
import { InternalClient } from '@checkout/http';
import {
  APPLY_PAYMENT_OUTCOMES,
  INTERNAL_API_HEADERS,
  Order,
  orderRevisionOf,
  type ApplyPaymentOutcome,
  type OrderSnapshot,
  type PaymentMethod,
  type Scope,
  type ShippingAddress,
} from '@checkout/contracts';

export type OrderView = z.infer<typeof Order>;
export type { OrderSnapshot };

const OrderEnvelope = z.object({ order: Order });
const PaymentEnvelope = z.object({ outcome: z.enum(APPLY_PAYMENT_OUTCOMES) });
const LocationsEnvelope = z.object({ locations: z.array(z.object({ id: z.string(), name: z.string() })) });
const DestinationsEnvelope = z.object({
  paymentDestinations: z.array(
    z.object({ id: z.string(), address: z.string(), status: z.string(), verified: z.boolean() }),
  ),
});
export type PaymentDestination = z.infer<typeof DestinationsEnvelope>['paymentDestinations'][number];
const ErrorEnvelope = z.object({
  code: z.string(),
  message: z.string(),
  details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});

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
 * Typed client of the orders service's internal API. Transport failures and 5xx answers become
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

  async create(scope: Scope, input: unknown, idempotencyKey: string): Promise<OrderSnapshot & { created: boolean }> {
    // The session id is the Idempotency-Key of the create (a retry meets the order it made) and names the
    // session on orders' later answers about the order (D46).
    const answer = await this.call(scope, 'POST', '/internal/orders', input, {
      'idempotency-key': idempotencyKey,
      [INTERNAL_API_HEADERS.checkoutSessionId]: idempotencyKey,
    });
    return { ...snapshotOf(answer), created: answer.status === 201 };
  }

  /** Not on any read path of a session (those present the session's own copy); only where a write needs the order. */
  async get(scope: Scope, orderId: string): Promise<OrderSnapshot> {
    return snapshotOf(await this.call(scope, 'GET', `/internal/orders/${encodeURIComponent(orderId)}`));
  }

  async update(
    scope: Scope,
    orderId: string,
    patch: { shippingAddress?: ShippingAddress; customer?: { phone: string } },
  ): Promise<OrderSnapshot> {
    // Not retried: a PATCH replaces fields, but we keep to the rule of retrying only what is idempotent by contract.
    return snapshotOf(
      await this.call(scope, 'PATCH', `/internal/orders/${encodeURIComponent(orderId)}`, patch, {}, false),
    );
  }

  async cancel(scope: Scope, orderId: string): Promise<OrderSnapshot> {
    return snapshotOf(await this.call(scope, 'POST', `/internal/orders/${encodeURIComponent(orderId)}/cancel`));
  }

  /** The session expired: orders refuses payments from now on; the answer says whether a payment won first. */
  async closePayments(scope: Scope, orderId: string): Promise<OrderSnapshot> {
    return snapshotOf(await this.call(scope, 'POST', `/internal/orders/${encodeURIComponent(orderId)}/close-payments`));
  }

  /**
   * Orders applies a payment at most once by its id (D27) and is the only store of payments: `already_applied`
   * is how a replayed notification is recognised. `amount` omitted: what is still due when orders applies it.
   */
  async applyPayment(
    scope: Scope,
    orderId: string,
    payment: { paymentId: string; amount?: number; method: PaymentMethod },
  ): Promise<OrderSnapshot & { outcome: ApplyPaymentOutcome }> {
    const answer = await this.call(scope, 'POST', `/internal/orders/${encodeURIComponent(orderId)}/payments`, payment);
    return { ...snapshotOf(answer), outcome: PaymentEnvelope.parse(answer.body).outcome };
  }

  async listLocations(scope: Scope): Promise<{ id: string; name: string }[]> {
    const { body } = await this.call(scope, 'GET', '/internal/admin/locations');
    return LocationsEnvelope.parse(body).locations;
  }

  /**
   * The payment destination an order names (its `pd_` id or its address), whatever its state, or null when orders
   * has none: the hosted page decides with it whether stablecoin payments may be taken.
   */
  async findPaymentDestination(scope: Scope, destination: string): Promise<PaymentDestination | null> {
    const { body } = await this.call(
      scope,
      'GET',
      `/internal/admin/payment-destinations?destination=${encodeURIComponent(destination)}`,
    );
    return DestinationsEnvelope.parse(body).paymentDestinations[0] ?? null;
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  private async call(
    scope: Scope,
    method: 'GET' | 'POST' | 'PATCH',
    path: string,
    payload?: unknown,
    extraHeaders: Record<string, string> = {},
    idempotent = true,
  ): Promise<Answer> {
    const { status, body, headers } = await this.client.json({
      method,
      path,
      scope,
      body: payload,
      headers: extraHeaders,
      idempotent,
    });
    if (status >= 500) throw new DependencyUnavailableError('orders', new Error(`orders answered ${status}`));
    if (status >= 400) throw toDomainError(status, body);
    return { status, body, headers };
  }
}

interface Answer {
  status: number;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
}

function snapshotOf(answer: Answer): OrderSnapshot {
  const revision = orderRevisionOf(answer.headers);
  if (revision === null)
    throw new DependencyUnavailableError(
      'orders',
      new Error(`orders answered without a valid ${INTERNAL_API_HEADERS.orderRevision}`),
    );
  return { order: OrderEnvelope.parse(answer.body).order, revision };
}

/** Orders' D6 envelope as a DomainError with orders' own code and details; callers re-map codes. */
function toDomainError(status: number, body: unknown): Error {
  const envelope = ErrorEnvelope.safeParse(body);
  if (!envelope.success || !isErrorCode(envelope.data.code))
    return new Error(`orders answered ${status} without an error envelope`);
  const details: ErrorDetail[] | undefined = envelope.data.details;
  return new DomainError(envelope.data.code, envelope.data.message, details ? { details } : {});
}
