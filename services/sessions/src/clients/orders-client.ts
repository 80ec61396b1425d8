import { Pool, errors as undiciErrors } from 'undici';
import { z } from 'zod';
import { DependencyUnavailableError, DomainError, isErrorCode, type ErrorDetail } from '@checkout/errors';
import { currentRequestId } from '@checkout/logger';
import { INTERNAL_HEADERS, type RequestScope } from '@checkout/http';
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
  private readonly pool: Pool;
  private readonly retries: number;

  constructor(private readonly options: OrdersClientOptions) {
    const timeout = options.timeoutMs ?? 3_000;
    this.pool = new Pool(new URL(options.baseUrl).origin, {
      connections: options.connections ?? 64,
      connectTimeout: timeout,
      headersTimeout: timeout,
      bodyTimeout: timeout,
      keepAliveTimeout: 10_000,
    });
    this.retries = options.retries ?? 2;
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
    await this.pool.close();
  }

  private async call(
    scope: RequestScope,
    method: 'GET' | 'POST' | 'PATCH',
    path: string,
    payload?: unknown,
    extraHeaders: Record<string, string> = {},
    retry = true,
  ): Promise<{ status: number; body: unknown }> {
    const headers: Record<string, string> = {
      [INTERNAL_HEADERS.token]: this.options.internalToken,
      [INTERNAL_HEADERS.organization]: scope.organizationId,
      [INTERNAL_HEADERS.mode]: scope.mode,
      accept: 'application/json',
      ...extraHeaders,
    };
    const requestId = currentRequestId();
    if (requestId) headers['x-request-id'] = requestId;
    const body = payload === undefined ? undefined : JSON.stringify(payload);
    if (body !== undefined) headers['content-type'] = 'application/json';

    const attempts = retry ? this.retries + 1 : 1;
    let lastError: unknown;
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      let status: number;
      let text: string;
      try {
        const response = await this.pool.request({ method, path, headers, body });
        status = response.statusCode;
        text = await response.body.text();
      } catch (err) {
        lastError = err;
        if (attempt < attempts && isTransportError(err)) {
          await backoff(attempt);
          continue;
        }
        throw new DependencyUnavailableError('orders', err);
      }
      if (status >= 500) {
        lastError = new Error(`orders answered ${status}`);
        if (attempt < attempts && status === 503) {
          await backoff(attempt);
          continue;
        }
        throw new DependencyUnavailableError('orders', lastError);
      }
      const parsed = parseJson(text);
      if (status >= 400) throw toDomainError(status, parsed);
      return { status, body: parsed };
    }
    throw new DependencyUnavailableError('orders', lastError);
  }
}

function isTransportError(err: unknown): boolean {
  return (
    err instanceof undiciErrors.UndiciError ||
    (typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'string' && /^E[A-Z]+$/.test((err as { code: string }).code))
  );
}

function backoff(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 50 * 3 ** (attempt - 1) * (0.5 + Math.random())));
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Orders' D6 envelope as a DomainError with orders' own code and details; callers re-map codes. */
function toDomainError(status: number, body: unknown): Error {
  const envelope = ErrorEnvelope.safeParse(body);
  if (!envelope.success || !isErrorCode(envelope.data.code)) return new Error(`orders answered ${status} without an error envelope`);
  if (envelope.data.code === 'UNAUTHORIZED') return new Error('orders refused our internal token (INTERNAL_TOKEN mismatch)');
  const details: ErrorDetail[] | undefined = envelope.data.details;
  return new DomainError(envelope.data.code, envelope.data.message, details ? { details } : {});
}
