import { DomainError } from '@checkout/errors';
import type { Scope } from '@checkout/mongo';
import {
  ORDER_CANCELLED,
  ORDER_PAYMENT_APPLIED,
  ORDER_PAYMENTS_CLOSED,
  ORDER_REFUND_CREATED,
  ORDER_REFUND_SETTLED,
  ORDER_UPDATED,
  type OrderEventType,
  type RefundFailureReason,
} from '@checkout/contracts';
import type { OrderListFilter } from '../store/orders.store';
import type { StoredOrders, StoredReferenceData } from './ports';
import type { OrderDocument, StoredCustomer, StoredRefund } from '../store/order.document';
import {
  applyPayment,
  cancelOrder,
  closePayments,
  newOrder,
  newOrderId,
  updateOrder,
  type NewOrderInput,
  type OrderUpdateInput,
  type PaymentOutcome,
} from './order';
import { paymentsChartStart, paymentsPerHour } from './payments-per-hour';
import { createRefund, refundsOf, refundsPage, settleRefund, type RefundInput } from './refund';

export interface CustomerInput {
  email?: string;
  name?: string;
  phone?: string;
}

/**
 * What a write did to an order, which decides its events: the internal event's type (a creation has none), and for
 * a refund's events which refund.
 */
export type OrderChange =
  | { kind: 'created' }
  | { kind: Exclude<OrderEventType, typeof ORDER_REFUND_CREATED | typeof ORDER_REFUND_SETTLED> }
  | { kind: typeof ORDER_REFUND_CREATED | typeof ORDER_REFUND_SETTLED; refundId: string };

/** Where a change's events go: written with the change (outbox), published after (messaging/). */
export interface OrderEventsOutbox {
  /** `next` (the change of `current`, null for a new order) with its events appended: the write that stores them. */
  withEvents(current: OrderDocument | null, next: OrderDocument, change: OrderChange, now: Date): OrderDocument;
  /** Publishes the events of a document just written; never fails (the relay's sweep is the fallback). */
  publishWritten(doc: OrderDocument): Promise<void>;
}

export interface OrderCommandsDeps {
  orders: StoredOrders;
  referenceData: StoredReferenceData;
  events: OrderEventsOutbox;
  clock: () => Date;
}

/**
 * Which orders a caller may read or change: the merchant's (through the gateway) any order of its scope; the
 * sessions service only those it created for a checkout session (the ones that name one): it never needs
 * another, and a compromised sessions pod should not reach the rest of a merchant's orders.
 */
export type OrderAccess = 'any' | 'session-orders';

/** An order outside the caller's access is "not found", as another organization's is (D4). */
function visible(order: OrderDocument, access: OrderAccess): boolean {
  return access === 'any' || order.checkoutSessionId !== undefined;
}

/**
 * The orders use cases: each resolves references (customer, location, destination), then hands the pure
 * rules in ./order.ts the facts, then stores the result. One class so the routes stay thin.
 */
export class OrderCommands {
  constructor(private readonly deps: OrderCommandsDeps) {}

  async create(
    scope: Scope,
    input: NewOrderInput & { customer?: CustomerInput },
    origin: { idempotencyKey?: string; checkoutSessionId?: string } = {},
  ): Promise<{ order: OrderDocument; created: boolean }> {
    const now = this.deps.clock();
    await this.checkReferences(scope, input);
    const customer = input.customer
      ? await this.resolveCustomer(scope, input.customer, undefined, now, 'ORDER_CREATE_FAILED')
      : undefined;
    const held = await this.externalIdHolder(scope, input.externalId, origin, now);
    if ('existing' in held) return { order: held.existing, created: false };
    const doc = newOrder(input, { scope, now, id: held.id, ...(customer && { customer }), ...origin });
    // D49: order.created is written with the order, in the insert.
    const withEvents = this.deps.events.withEvents(
      null,
      { ...doc, ...scope } as OrderDocument,
      { kind: 'created' },
      now,
    );
    const result = await this.deps.orders.insertOrder(scope, withEvents);
    if (result.created) await this.deps.events.publishWritten(result.order);
    return result;
  }

  /**
   * D37 by a reservation, not a unique index of the orders (docs/operations.md, "Shard keys"): the id the new order
   * takes. Its externalId reserved for it: its own id. Held for an order that exists: that creation again (the same
   * Idempotency-Key) answers it, another is a duplicate. Held for an order never stored (its creator crashed
   * between the two writes, or is storing it now): this creation completes it under that id, and the insert
   * decides between the two.
   */
  private async externalIdHolder(
    scope: Scope,
    externalId: string | undefined,
    origin: { idempotencyKey?: string },
    now: Date,
  ): Promise<{ id: string } | { existing: OrderDocument }> {
    const id = newOrderId(scope, origin.idempotencyKey);
    if (externalId === undefined) return { id };
    const held = await this.deps.orders.reserveExternalId(scope, externalId, id, now);
    if (held === id) return { id };
    const existing = await this.deps.orders.getOrder(scope, held);
    if (!existing) return { id: held };
    if (origin.idempotencyKey !== undefined && existing.creationKey === `idem:${origin.idempotencyKey}`)
      return { existing };
    throw new DomainError('DUPLICATE_EXTERNAL_ID', `An order with externalId "${externalId}" already exists.`);
  }

  async get(scope: Scope, id: string, access: OrderAccess = 'any'): Promise<OrderDocument> {
    const order = await this.deps.orders.getOrder(scope, id);
    if (!order || !visible(order, access)) throw notFound(id);
    return order;
  }

  /** D47: the dashboard's payments-per-hour chart over the last 7 days. */
  async paymentsPerHour(scope: Scope) {
    const now = this.deps.clock();
    return paymentsPerHour(await this.deps.orders.paymentsPerHourSince(scope, paymentsChartStart(now)), now);
  }

  list(scope: Scope, filter: OrderListFilter, page: number, limit: number) {
    return this.deps.orders.listOrders(scope, filter, page, limit);
  }

  /** D47: a page without its total, for the dashboard's pager (no count). */
  listPage(scope: Scope, filter: OrderListFilter, page: number, limit: number) {
    return this.deps.orders.listOrdersPage(scope, filter, page, limit);
  }

  async update(
    scope: Scope,
    id: string,
    patch: OrderUpdateInput & { customer?: CustomerInput },
    access: OrderAccess = 'any',
  ): Promise<OrderDocument> {
    const existing = await this.get(scope, id, access);
    const now = this.deps.clock();
    // Resolving a customer writes to customers, so it happens first; the order is then re-read and
    // re-checked by mutateOrder's conditional write.
    const customer = patch.customer
      ? await this.resolveCustomer(scope, patch.customer, existing.customer, now, 'ORDER_UPDATE_FAILED')
      : undefined;
    // The merchant edits through the gateway, which brings the session's copy up to date before it answers
    // (D46); the event is the at-least-once path for the same change (D25).
    const written = await this.changeOrder(scope, id, now, (current) => ({
      next: updateOrder(current, patch, customer, now),
      change: { kind: ORDER_UPDATED },
      result: undefined,
    }));
    return written.order;
  }

  async cancel(scope: Scope, id: string, access: OrderAccess = 'any'): Promise<OrderDocument> {
    // Sessions learn of the cancel from the gateway before it answers (D46), and from this event, written with the
    // change itself, at least once (D25).
    const written = await this.changeOrder(scope, id, this.deps.clock(), (current, now) => {
      if (!visible(current, access)) throw notFound(id);
      return { next: cancelOrder(current, now), change: { kind: ORDER_CANCELLED }, result: undefined };
    });
    return written.order;
  }

  /**
   * Applies a captured payment at most once by payment id (D27); used by the sessions service. `amount`
   * omitted: what is still due when the payment lands (D29's default), decided here, on the order as stored.
   * Its events are on Kafka before the answer, as every write's are: order.paid is the event a merchant's back
   * office ships on, and the sweep is only for what a crash left behind.
   */
  async applyPayment(
    scope: Scope,
    id: string,
    payment: { paymentId: string; amount?: number | undefined; method: string },
    access: OrderAccess = 'any',
  ): Promise<{ order: OrderDocument; outcome: PaymentOutcome }> {
    // Not applied (a replay, `already_applied`): nothing written, nothing published.
    const written = await this.changeOrder(scope, id, this.deps.clock(), (current, now) => {
      if (!visible(current, access)) throw notFound(id);
      const amount = payment.amount ?? current.amounts.total - current.amounts.paid;
      const { next, outcome } = applyPayment(
        current,
        { paymentId: payment.paymentId, method: payment.method, amount },
        now,
      );
      return { next, change: { kind: ORDER_PAYMENT_APPLIED }, result: outcome };
    });
    return { order: written.order, outcome: written.result };
  }

  /**
   * Its checkout session expired (D21): the order takes no more payments, unless one got there first. Like a
   * payment, only sessions calls this; its event is on Kafka before the answer.
   */
  async closePayments(scope: Scope, id: string, access: OrderAccess = 'any'): Promise<OrderDocument> {
    const written = await this.changeOrder(scope, id, this.deps.clock(), (current) => {
      if (!visible(current, access)) throw notFound(id);
      return { next: closePayments(current), change: { kind: ORDER_PAYMENTS_CLOSED }, result: undefined };
    });
    return written.order;
  }

  /**
   * D48: admits a refund in one conditional write of the order, which guards what is refundable and moves the
   * order's amounts, its refunds and the change's events together (a lost race re-reads and decides again, so
   * concurrent refunds never add up to more than was paid). At most once by refund id: a retry finds it and writes
   * nothing. The merchant is answered after the events are on Kafka, and the gateway hands a checkout session the
   * order before that (D46).
   */
  async createRefund(scope: Scope, orderId: string, input: RefundInput): Promise<RefundWrite> {
    const written = await this.changeOrder(scope, orderId, this.deps.clock(), (current, now) => {
      const { next, refund } = createRefund(current, input, now);
      return { next, change: { kind: ORDER_REFUND_CREATED, refundId: refund.id }, result: refund };
    });
    return { order: written.order, refund: written.result };
  }

  /**
   * A pending refund succeeds or fails (D48): one conditional write of its order, naming the refund and the status
   * it must still have (pending); the same outcome again is a replay and writes nothing.
   */
  async settleRefund(
    scope: Scope,
    refundId: string,
    outcome: 'succeeded' | 'failed',
    failureReason?: RefundFailureReason,
  ): Promise<RefundWrite> {
    const holder = await this.deps.orders.findByRefundId(scope, refundId);
    if (!holder) throw refundNotFound(refundId);
    return this.settleOn(scope, holder._id, refundId, outcome, failureReason);
  }

  /**
   * D48, live mode: the processor's notification settles a refund. It names only the refund; the order holding it
   * says whose it is (organization, mode), as a payment notification's session does.
   */
  async settleRefundFromProcessor(
    refundId: string,
    outcome: 'succeeded' | 'failed',
    failureReason?: RefundFailureReason,
  ): Promise<RefundWrite> {
    const holder = await this.deps.orders.findByRefundIdAcrossTenants(refundId);
    if (!holder) throw refundNotFound(refundId);
    const scope = { organizationId: holder.organizationId, mode: holder.mode };
    return this.settleOn(scope, holder._id, refundId, outcome, failureReason);
  }

  /** D48: an order's refunds, newest first, paginated as orders are. */
  async listRefunds(scope: Scope, orderId: string, page: number, limit: number) {
    const order = await this.get(scope, orderId);
    return { order, ...refundsPage(order, page, limit) };
  }

  async getRefund(scope: Scope, refundId: string): Promise<{ order: OrderDocument; refund: StoredRefund }> {
    const order = await this.deps.orders.findByRefundId(scope, refundId);
    const refund = order && refundsOf(order).find((r) => r.id === refundId);
    if (!order || !refund) throw refundNotFound(refundId);
    return { order, refund };
  }

  private async settleOn(
    scope: Scope,
    orderId: string,
    refundId: string,
    outcome: 'succeeded' | 'failed',
    failureReason: RefundFailureReason | undefined,
  ): Promise<RefundWrite> {
    const change = { kind: ORDER_REFUND_SETTLED, refundId } as const;
    const written = await this.changeOrder(
      scope,
      orderId,
      this.deps.clock(),
      (current, now) => {
        const { next, refund } = settleRefund(current, { refundId, outcome, failureReason }, now);
        return { next, change, result: refund };
      },
      () => refundNotFound(refundId),
    );
    return { order: written.order, refund: written.result };
  }

  /**
   * One rule applied to the order as stored, in one conditional write with the event the change owes (mutateOrder:
   * a lost race re-reads and applies the rule again). `next` null: nothing to write, nor to publish; otherwise the
   * event is on Kafka before the answer (the sweep is only for what a crash leaves behind).
   */
  private async changeOrder<R>(
    scope: Scope,
    id: string,
    now: Date,
    rule: (current: OrderDocument, now: Date) => { next: OrderDocument | null; change: OrderChange; result: R },
    missing: () => DomainError = () => notFound(id),
  ): Promise<{ order: OrderDocument; result: R }> {
    const written = await this.deps.orders.mutateOrder(scope, id, (current) => {
      const { next, change, result } = rule(current, now);
      return { next: next && this.deps.events.withEvents(current, next, change, now), result: { result, next } };
    });
    if (!written) throw missing();
    if (written.result.next) await this.deps.events.publishWritten(written.order);
    return { order: written.order, result: written.result.result };
  }

  private async checkReferences(
    scope: Scope,
    input: { locationId?: string; paymentDestination?: string },
  ): Promise<void> {
    if (input.locationId !== undefined && !(await this.deps.referenceData.getLocation(scope, input.locationId))) {
      throw new DomainError(
        'LOCATION_NOT_FOUND',
        `No location ${input.locationId} exists for this organization and mode.`,
      );
    }
    if (input.paymentDestination !== undefined) {
      const destination = await this.deps.referenceData.findDestination(scope, input.paymentDestination);
      if (!destination)
        throw new DomainError(
          'PAYMENT_DESTINATION_NOT_FOUND',
          'No matching payment destination exists for this organization and mode.',
        );
      if (destination.status !== 'active' || !destination.verified) {
        throw new DomainError(
          'PAYMENT_DESTINATION_NOT_ACTIVE',
          `Payment destination ${destination._id} is ${destination.status === 'active' ? 'not verified' : destination.status}.`,
        );
      }
    }
  }

  /** D11: a different email switches to that customer; given fields merge into the snapshot. */
  private async resolveCustomer(
    scope: Scope,
    input: CustomerInput,
    current: StoredCustomer | undefined,
    now: Date,
    failureCode: 'ORDER_CREATE_FAILED' | 'ORDER_UPDATE_FAILED',
  ): Promise<StoredCustomer> {
    const email = input.email ?? current?.email;
    if (email === undefined) {
      throw new DomainError(failureCode, 'customer.email is required when the order has no customer yet.', {
        details: [{ path: 'customer.email', message: 'Required' }],
      });
    }
    const base =
      current && current.email === email
        ? current
        : await this.deps.referenceData.findOrCreateCustomer(
            scope,
            {
              email,
              ...(input.name !== undefined && { name: input.name }),
              ...(input.phone !== undefined && { phone: input.phone }),
            },
            now,
          );
    return {
      ...base,
      ...(input.name !== undefined && { name: input.name }),
      ...(input.phone !== undefined && { phone: input.phone }),
    };
  }
}

/** A refund write's answer: the refund, and its order as the write left it (D46: a session's copy follows). */
export interface RefundWrite {
  order: OrderDocument;
  refund: StoredRefund;
}

function notFound(id: string): DomainError {
  return new DomainError('ORDER_NOT_FOUND', `No order ${id} exists.`);
}

function refundNotFound(id: string): DomainError {
  return new DomainError('REFUND_NOT_FOUND', `No refund ${id} exists.`);
}
