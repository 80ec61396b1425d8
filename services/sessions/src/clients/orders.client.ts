import { DependencyUnavailableError } from '@checkout/errors';
import { InternalClient, callInternal, type InternalAnswer, type InternalCall } from '@checkout/http';
import { INTERNAL_API_HEADERS, INTERNAL_ROUTES, orderRevisionOf, type Scope } from '@checkout/contracts';
import type { OrderSnapshot, Orders, PaymentDestination } from '../domain/ports';

export interface OrdersClientOptions {
  baseUrl: string;
  internalToken: string;
  /** connect / headers / body timeout; an orders call never hangs a request longer than this (D7). */
  timeoutMs?: number;
  connections?: number;
  /** Extra attempts of an idempotent call after a transport failure or a 503. */
  retries?: number;
}

const R = INTERNAL_ROUTES;

/**
 * Orders' internal API, as sessions calls it: each call is a route of libs/contracts' INTERNAL_ROUTES, made and read
 * by libs/http's callInternal (orders' refusals as DomainErrors with orders' code, which the flows map to their
 * endpoint's codes; an outage as DependencyUnavailableError('orders'), 503). Only idempotent calls are retried (the
 * table says which: GET, create with an Idempotency-Key, cancel, close-payments, a payment by its payment id).
 */
export class OrdersClient implements Orders {
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
    const result = await callInternal(this.client, R.createOrder, {
      scope,
      body: input as InternalCall<typeof R.createOrder>['body'],
      headers: { 'idempotency-key': idempotencyKey, [INTERNAL_API_HEADERS.checkoutSessionId]: idempotencyKey },
    });
    return { ...snapshotOf(result), created: result.answer.status === 201 };
  }

  /** Not on any read path of a session (those present the session's own copy); only where a write needs the order. */
  async get(scope: Scope, orderId: string): Promise<OrderSnapshot> {
    return snapshotOf(await callInternal(this.client, R.getOrder, { scope, params: { orderId } }));
  }

  async update(scope: Scope, orderId: string, patch: Parameters<Orders['update']>[2]): Promise<OrderSnapshot> {
    return snapshotOf(await callInternal(this.client, R.updateOrder, { scope, params: { orderId }, body: patch }));
  }

  async cancel(scope: Scope, orderId: string): Promise<OrderSnapshot> {
    return snapshotOf(await callInternal(this.client, R.cancelOrder, { scope, params: { orderId } }));
  }

  async closePayments(scope: Scope, orderId: string): Promise<OrderSnapshot> {
    return snapshotOf(await callInternal(this.client, R.closePayments, { scope, params: { orderId } }));
  }

  async applyPayment(scope: Scope, orderId: string, payment: Parameters<Orders['applyPayment']>[2]) {
    const result = await callInternal(this.client, R.applyPayment, { scope, params: { orderId }, body: payment });
    return { ...snapshotOf(result), outcome: result.value.outcome };
  }

  async listLocations(scope: Scope): Promise<{ id: string; name: string }[]> {
    return (await callInternal(this.client, R.listLocations, { scope })).value.locations;
  }

  async findPaymentDestination(scope: Scope, destination: string): Promise<PaymentDestination | null> {
    const { value } = await callInternal(this.client, R.findPaymentDestinations, { scope, query: { destination } });
    return value.paymentDestinations[0] ?? null;
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

/**
 * Orders' answer about an order as a snapshot: the order, and the revision orders stored with it (its header);
 * without the revision sessions could not tell a newer copy from an older one.
 */
function snapshotOf({
  value,
  answer,
}: {
  value: { order: OrderSnapshot['order'] };
  answer: InternalAnswer;
}): OrderSnapshot {
  const revision = orderRevisionOf(answer.headers);
  if (revision === null)
    throw new DependencyUnavailableError(
      'orders',
      new Error(`orders answered without a valid ${INTERNAL_API_HEADERS.orderRevision}`),
    );
  return { order: value.order, revision };
}
