import { MAX_AMOUNT, type Amounts, type DiscountType, type PaymentStatus } from './orders';

// Order pricing, one rule for every service: orders prices its orders with it, and sessions
// checks a create request's total (D24) with it before asking orders for the order.
//
// D17 in exact integer arithmetic. Everything is BigInt inside, so intermediate products such as
// quantity × unitPrice or subtotal × percent never lose precision, even past 2^53; results are converted back
// to numbers only once they are known to be within D10's ceiling (far below 2^53).

export interface AmountsInput {
  items: ReadonlyArray<{ quantity: number; unitPrice: number }>;
  taxes: ReadonlyArray<{ amount: number }>;
  discounts: ReadonlyArray<{ type: DiscountType; amount: number }>;
  /** Σ payments received so far; not recomputed here. */
  paid: number;
}

export interface AmountsProblem {
  /** D6 detail path, in the request's terms where one field is to blame (`items.2`, `discounts`). */
  path: string;
  message: string;
}

export type AmountsResult =
  | { ok: true; amounts: Amounts; /** totalPrice of each item, in input order. */ itemTotals: number[] }
  | { ok: false; problems: AmountsProblem[] };

const MAX = BigInt(MAX_AMOUNT);

/**
 * One percentage discount line: subtotal × percent / 100, rounded half up (D17, per line). Operands are ≥ 0,
 * so adding half the divisor before BigInt's truncating division rounds halves up.
 */
export function percentageOf(subtotal: bigint, percent: bigint): bigint {
  return (subtotal * percent + 50n) / 100n;
}

export function computeAmounts(input: AmountsInput): AmountsResult {
  const problems: AmountsProblem[] = [];

  // The contracts already guarantee these, but this function is pure and reused (tests, payments, future
  // callers); a bad number must become a problem, not a RangeError from BigInt() or a silent wrong total.
  const whole = (value: number, path: string, min = 0): bigint => {
    if (!Number.isSafeInteger(value) || value < min) {
      problems.push({ path, message: `must be an integer ≥ ${min}` });
      return 0n;
    }
    return BigInt(value);
  };
  const overCeiling = (value: bigint, path: string, what: string) => {
    if (value > MAX) problems.push({ path, message: `${what} ${value} exceeds the maximum of ${MAX_AMOUNT}` });
  };

  const itemTotals = input.items.map((item, i) => {
    const total = whole(item.quantity, `items.${i}.quantity`, 1) * whole(item.unitPrice, `items.${i}.unitPrice`);
    overCeiling(total, `items.${i}`, 'item totalPrice');
    return total;
  });
  const subtotal = itemTotals.reduce((sum, total) => sum + total, 0n);
  overCeiling(subtotal, 'items', 'subtotal');

  const tax = input.taxes.reduce((sum, line, i) => sum + whole(line.amount, `taxes.${i}.amount`), 0n);
  overCeiling(tax, 'taxes', 'tax total');

  const discount = input.discounts.reduce((sum, line, i) => {
    const amount = whole(line.amount, `discounts.${i}.amount`);
    return sum + (line.type === 'percentage' ? percentageOf(subtotal, amount) : amount);
  }, 0n);
  overCeiling(discount, 'discounts', 'discount total');
  // D10: a total below zero would mean paying the customer; reject rather than clamp, so the merchant sees it.
  if (discount > subtotal) {
    problems.push({ path: 'discounts', message: `discount total ${discount} exceeds the subtotal ${subtotal}` });
  }

  const tip = 0n; // D17: tips are not collected in v0.
  const total = subtotal + tax - discount + tip;
  overCeiling(total, 'amounts.total', 'order total');

  const paid = whole(input.paid, 'amounts.paid');

  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    amounts: {
      subtotal: Number(subtotal),
      tax: Number(tax),
      discount: Number(discount),
      tip: Number(tip),
      total: Number(total),
      paid: Number(paid),
      // Only an order that has received nothing is priced (the spec's PATCH rule), so nothing is refunded.
      refunded: 0,
    },
    itemTotals: itemTotals.map(Number),
  };
}

/** What is still owed on an order: its total less what was paid, never negative (an overpaid order owes 0, D19). */
export function amountDue(amounts: { total: number; paid: number }): number {
  return Math.max(0, amounts.total - amounts.paid);
}

/**
 * D19 while nothing is refunded, D48 once a refund has succeeded (`refunded`: the succeeded refunds' sum).
 * `paid === 0` is checked first so that a fresh order with a total of 0 (D36, e.g. 100 % off) reads as
 * `unpaid`, matching "created orders are open and unpaid".
 */
export function paymentStatusFor(paid: number, total: number, refunded = 0): PaymentStatus {
  if (refunded > 0) return refunded >= paid ? 'refunded' : 'partially_refunded';
  if (paid === 0) return 'unpaid';
  if (paid < total) return 'partially_paid';
  if (paid === total) return 'paid';
  return 'overpaid';
}
