import { DomainError, type ErrorCode } from '@checkout/errors';
import {
  computeAmounts,
  derivedId,
  newId,
  newLineId,
  paymentStatusFor,
  type ApplyPaymentOutcome,
} from '@checkout/contracts';
import { toEntries, type Scope } from '@checkout/mongo';
import type {
  AppliedPayment,
  OrderDocument,
  StoredAddress,
  StoredCustomer,
  StoredDiscount,
  StoredItem,
  StoredTax,
} from '../store/order.document';

// Pure order rules: building a new order, updating, cancelling and applying payments. No I/O here; the
// routes resolve customers, locations and destinations first and hand the results in.

export interface ItemInput {
  name: string;
  quantity: number;
  unitPrice: number;
}
interface TaxInput {
  name?: string;
  type: 'additive';
  amount: number;
}
interface DiscountInput {
  name: string;
  type: 'fixed' | 'percentage';
  amount: number;
}

interface LinesInput {
  items: ItemInput[];
  taxes: TaxInput[];
  discounts: DiscountInput[];
}

export interface NewOrderInput extends Partial<LinesInput> {
  items: ItemInput[];
  externalId?: string;
  shippingAddress?: StoredAddress;
  locationId?: string;
  paymentDestination?: string;
  metadata?: Record<string, string>;
}

export interface OrderUpdateInput {
  items?: ItemInput[];
  taxes?: TaxInput[];
  discounts?: DiscountInput[];
  shippingAddress?: StoredAddress;
  metadata?: Record<string, string>;
}

const DEFAULT_TAX_NAME = 'Tax'; // D9

/** Prices the lines (D17) or fails with the endpoint's code and the offending paths (D10). */
function priceLines(lines: LinesInput, paid: number, failureCode: ErrorCode) {
  const priced = computeAmounts({ ...lines, paid });
  if (!priced.ok) throw new DomainError(failureCode, 'The order amounts are invalid.', { details: priced.problems });
  const items: StoredItem[] = lines.items.map((item, i) => ({
    id: newLineId('item'),
    name: item.name,
    quantity: item.quantity,
    unitPrice: item.unitPrice,
    totalPrice: priced.itemTotals[i] ?? 0,
    itemType: 'product',
  }));
  const taxes: StoredTax[] = lines.taxes.map((t) => ({
    id: newLineId('tax'),
    name: t.name ?? DEFAULT_TAX_NAME,
    type: 'additive',
    amount: t.amount,
  }));
  const discounts: StoredDiscount[] = lines.discounts.map((d) => ({
    id: newLineId('disc'),
    name: d.name,
    type: d.type,
    amount: d.amount,
  }));
  return { items, taxes, discounts, amounts: priced.amounts };
}

/**
 * A new order's id: derived from its creation's Idempotency-Key (a session's retry), so that a retry meets the
 * order it made on its _id, on one shard (docs/operations.md, "Shard keys"); drawn at random otherwise.
 */
export function newOrderId(scope: Scope, idempotencyKey?: string): string {
  if (idempotencyKey === undefined) return newId('ord', scope.mode);
  return derivedId('ord', scope.mode, `order\n${scope.organizationId}\n${idempotencyKey}`);
}

export function newOrder(
  input: NewOrderInput,
  context: {
    scope: Scope;
    now: Date;
    /** The id its externalId's reservation names (orders.use-cases.ts); newOrderId's otherwise. */
    id?: string;
    customer?: StoredCustomer;
    idempotencyKey?: string;
    checkoutSessionId?: string;
  },
): Omit<OrderDocument, 'organizationId' | 'mode'> {
  const id = context.id ?? newOrderId(context.scope, context.idempotencyKey);
  const lines = priceLines(
    { items: input.items, taxes: input.taxes ?? [], discounts: input.discounts ?? [] },
    0,
    'ORDER_CREATE_FAILED',
  );
  return {
    _id: id,
    uniqueKey: input.externalId !== undefined ? `ext:${input.externalId}` : `id:${id}`,
    creationKey: context.idempotencyKey !== undefined ? `idem:${context.idempotencyKey}` : `id:${id}`,
    ...(context.checkoutSessionId !== undefined && { checkoutSessionId: context.checkoutSessionId }),
    ...(input.externalId !== undefined && { externalId: input.externalId, externalIdReserved: true as const }),
    provider: 'native',
    currency: 'USD',
    status: 'open',
    paymentStatus: 'unpaid',
    ...lines,
    ...(context.customer && { customer: context.customer }),
    ...(input.shippingAddress && { shippingAddress: input.shippingAddress }),
    ...(input.locationId !== undefined && { locationId: input.locationId }),
    ...(input.paymentDestination !== undefined && { paymentDestination: input.paymentDestination }),
    metadata: toEntries(input.metadata ?? {}),
    payments: [],
    refunds: [],
    balanceLines: true,
    outbox: [],
    outboxPending: false,
    createdAt: context.now,
    updatedAt: context.now,
  };
}

/** Only an open order that has received nothing can change (spec, States; D8). */
export function assertEditable(order: OrderDocument): void {
  if (order.status !== 'open' || order.amounts.paid > 0) {
    throw new DomainError(
      'ORDER_NOT_EDITABLE',
      `Order ${order._id} is ${order.status}${order.amounts.paid > 0 ? ' and has received payment' : ''}; it can no longer be edited.`,
    );
  }
}

/**
 * PATCH semantics: omitted fields stay, given ones replace (customer merges, resolved by the caller).
 * Returns null when nothing would change, so updatedAt only moves on a real change (D36).
 */
export function updateOrder(
  order: OrderDocument,
  patch: OrderUpdateInput,
  customer: StoredCustomer | undefined,
  now: Date,
): OrderDocument | null {
  assertEditable(order);
  let next: OrderDocument = { ...order };
  if (patch.items !== undefined || patch.taxes !== undefined || patch.discounts !== undefined) {
    const lines = priceLines(
      {
        items: patch.items ?? order.items,
        taxes: patch.taxes ?? order.taxes,
        discounts: patch.discounts ?? order.discounts,
      },
      order.amounts.paid,
      'ORDER_UPDATE_FAILED',
    );
    // Lines that were not replaced keep their ids.
    next = {
      ...next,
      items: patch.items !== undefined ? lines.items : order.items,
      taxes: patch.taxes !== undefined ? lines.taxes : order.taxes,
      discounts: patch.discounts !== undefined ? lines.discounts : order.discounts,
      amounts: lines.amounts,
    };
  }
  if (customer !== undefined) next.customer = customer;
  if (patch.shippingAddress !== undefined) next.shippingAddress = patch.shippingAddress;
  if (patch.metadata !== undefined) next.metadata = toEntries(patch.metadata);
  if (sameContent(order, next)) return null;
  return { ...next, updatedAt: now };
}

/** Cancel is idempotent: an already cancelled order is returned as it is (spec; D36: updatedAt stays). */
export function cancelOrder(order: OrderDocument, now: Date): OrderDocument | null {
  if (order.status === 'cancelled') return null;
  if (order.status !== 'open' || order.amounts.paid > 0) {
    throw new DomainError(
      'ORDER_CANCEL_FAILED',
      `Order ${order._id} is ${order.status}${order.amounts.paid > 0 ? ' and has received payment' : ''}; it cannot be cancelled.`,
    );
  }
  return { ...order, status: 'cancelled', cancelledAt: now, updatedAt: now };
}

/** Applied now, or applied before under the same payment id (libs/contracts' answer of the payments route). */
export type PaymentOutcome = ApplyPaymentOutcome;

/**
 * Applies a captured payment at most once by its id (D27). Partial payments leave the order open (D28);
 * reaching the total completes it with paidAt (D19). A cancelled or completed order refuses new money.
 */
export function applyPayment(
  order: OrderDocument,
  payment: { paymentId: string; amount: number; method: string },
  now: Date,
): { next: OrderDocument | null; outcome: PaymentOutcome } {
  if (order.payments.some((p) => p.paymentId === payment.paymentId)) return { next: null, outcome: 'already_applied' };
  if (order.status !== 'open') {
    throw new DomainError('ORDER_NOT_PAYABLE', `Order ${order._id} is ${order.status}; it accepts no payment.`);
  }
  if (order.paymentsClosed === true) {
    throw new DomainError(
      'ORDER_NOT_PAYABLE',
      `The checkout of order ${order._id} has expired; it accepts no payment.`,
    );
  }
  if (payment.amount < 1) throw new DomainError('ORDER_NOT_PAYABLE', `Nothing is due on order ${order._id}.`);
  const applied: AppliedPayment = { ...payment, appliedAt: now };
  const paid = order.amounts.paid + payment.amount;
  // A refund made before this payment (D48: any order with money received) still counts.
  const paymentStatus = paymentStatusFor(paid, order.amounts.total, order.amounts.refunded ?? 0);
  const completed = paid >= order.amounts.total;
  return {
    next: {
      ...order,
      payments: [...order.payments, applied],
      amounts: { ...order.amounts, paid },
      paymentStatus,
      ...(completed && { status: 'completed' as const, paidAt: now }),
      updatedAt: now,
    },
    outcome: 'applied',
  };
}

/**
 * Its checkout expired: an open order takes no more payments (see OrderDocument.paymentsClosed). A completed
 * or cancelled order is left as it is, and the caller learns from its status that the expiry lost the race.
 * null: nothing to write. Not a change the merchant sees, so updatedAt stays.
 */
export function closePayments(order: OrderDocument): OrderDocument | null {
  if (order.status !== 'open' || order.paymentsClosed === true) return null;
  return { ...order, paymentsClosed: true };
}

function sameContent(a: OrderDocument, b: OrderDocument): boolean {
  const strip = (o: OrderDocument) => ({
    ...o,
    items: o.items.map(({ id: _id, ...rest }) => rest),
    taxes: o.taxes.map(({ id: _id, ...rest }) => rest),
    discounts: o.discounts.map(({ id: _id, ...rest }) => rest),
  });
  return JSON.stringify(strip(a)) === JSON.stringify(strip(b));
}
