import { DomainError } from '@checkout/errors';
import type { Scope } from '@checkout/mongo';
import {
  ORDER_CANCELLED,
  ORDER_PAYMENT_APPLIED,
  ORDER_PAYMENTS_CLOSED,
  ORDER_UPDATED,
  type OrderEventType,
} from '@checkout/contracts';
import type { OrdersStore, OrderListFilter } from '../store/orders.store';
import type { ReferenceDataStore } from '../store/reference-data.store';
import type { OrderDocument, StoredCustomer } from '../store/order.document';
import {
  applyPayment,
  cancelOrder,
  closePayments,
  newOrder,
  updateOrder,
  type NewOrderInput,
  type OrderUpdateInput,
  type PaymentOutcome,
} from './order';
import { paymentsChartStart, paymentsPerHour } from './payments-per-hour';

export interface CustomerInput {
  email?: string;
  name?: string;
  phone?: string;
}

/** Where a change's order event goes: written with the change (outbox), published after (messaging/). */
export interface OrderEventsOutbox {
  /** `next` (the change of `current`) with its event of `type` appended: the one write that stores both. */
  withEvent(current: OrderDocument, next: OrderDocument, type: OrderEventType, now: Date): OrderDocument;
  /** Publishes the events of a document just written; never fails (the relay's sweep is the fallback). */
  publishWritten(doc: OrderDocument): Promise<void>;
}

export interface OrderCommandsDeps {
  orders: OrdersStore;
  referenceData: ReferenceDataStore;
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
    const doc = newOrder(input, { scope, now, ...(customer && { customer }), ...origin });
    return this.deps.orders.insertOrder(scope, doc);
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
    const result = await this.deps.orders.mutateOrder(scope, id, (current) => {
      const next = updateOrder(current, patch, customer, now);
      return { next: next && this.deps.events.withEvent(current, next, ORDER_UPDATED, now), result: next !== null };
    });
    if (!result) throw notFound(id);
    // The merchant edits through the gateway, which brings the session's copy up to date before it answers
    // (D46); the event is the at-least-once path for the same change (D25).
    if (result.result) await this.deps.events.publishWritten(result.order);
    return result.order;
  }

  async cancel(scope: Scope, id: string, access: OrderAccess = 'any'): Promise<OrderDocument> {
    const now = this.deps.clock();
    const result = await this.deps.orders.mutateOrder(scope, id, (current) => {
      if (!visible(current, access)) throw notFound(id);
      const cancelled = cancelOrder(current, now);
      if (!cancelled) return { next: null, result: false };
      // Sessions learn of the cancel from the gateway before it answers (D46), and from this event, written with
      // the change itself, at least once (D25).
      return { next: this.deps.events.withEvent(current, cancelled, ORDER_CANCELLED, now), result: true };
    });
    if (!result) throw notFound(id);
    if (result.result) await this.deps.events.publishWritten(result.order);
    return result.order;
  }

  /**
   * Applies a captured payment at most once by payment id (D27); used by the sessions service. `amount`
   * omitted: what is still due when the payment lands (D29's default), decided here, on the order as stored.
   * The event is written with the payment but not published on this path: the caller (sessions) keeps the
   * answer; the event is for a caller that died before storing it, and the relay's sweep publishes it.
   */
  async applyPayment(
    scope: Scope,
    id: string,
    payment: { paymentId: string; amount?: number | undefined; method: string },
    access: OrderAccess = 'any',
  ): Promise<{ order: OrderDocument; outcome: PaymentOutcome }> {
    const now = this.deps.clock();
    const result = await this.deps.orders.mutateOrder(scope, id, (current) => {
      if (!visible(current, access)) throw notFound(id);
      const amount = payment.amount ?? current.amounts.total - current.amounts.paid;
      const { next, outcome } = applyPayment(
        current,
        { paymentId: payment.paymentId, method: payment.method, amount },
        now,
      );
      return { next: next && this.deps.events.withEvent(current, next, ORDER_PAYMENT_APPLIED, now), result: outcome };
    });
    if (!result) throw notFound(id);
    return { order: result.order, outcome: result.result };
  }

  /**
   * Its checkout session expired (D21): the order takes no more payments, unless one got there first. Like a
   * payment, only sessions calls this and keeps the answer; the relay's sweep publishes the event.
   */
  async closePayments(scope: Scope, id: string, access: OrderAccess = 'any'): Promise<OrderDocument> {
    const now = this.deps.clock();
    const result = await this.deps.orders.mutateOrder(scope, id, (current) => {
      if (!visible(current, access)) throw notFound(id);
      const closed = closePayments(current);
      return { next: closed && this.deps.events.withEvent(current, closed, ORDER_PAYMENTS_CLOSED, now), result: null };
    });
    if (!result) throw notFound(id);
    return result.order;
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

function notFound(id: string): DomainError {
  return new DomainError('ORDER_NOT_FOUND', `No order ${id} exists.`);
}
