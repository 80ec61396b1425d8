import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_AMOUNT } from './orders';
import { amountDue, computeAmounts, paymentStatusFor, percentageOf, type AmountsInput } from './pricing';

const item = (quantity: number, unitPrice: number) => ({ quantity, unitPrice });
const tax = (amount: number) => ({ amount });
const fixed = (amount: number) => ({ type: 'fixed' as const, amount });
const percent = (amount: number) => ({ type: 'percentage' as const, amount });

function accepted(input: Partial<AmountsInput>) {
  const result = computeAmounts({ items: [], taxes: [], discounts: [], paid: 0, ...input });
  if (!result.ok) throw new Error(`expected acceptance, got ${JSON.stringify(result.problems)}`);
  return result;
}

function rejected(input: Partial<AmountsInput>) {
  const result = computeAmounts({ items: [], taxes: [], discounts: [], paid: 0, ...input });
  if (result.ok) throw new Error(`expected rejection, got ${JSON.stringify(result.amounts)}`);
  return result.problems;
}

describe('computeAmounts (D17)', () => {
  it('When the spec example is computed, then 10% of 3097 is 310 and total 2787 (D17)', () => {
    const { amounts } = accepted({ items: [item(1, 3097)], discounts: [percent(10)] });
    expect(amounts).toEqual({ subtotal: 3097, tax: 0, discount: 310, tip: 0, total: 2787, paid: 0, refunded: 0 });
  });

  it.each([
    // [subtotal, percent, expected discount]
    [10, 5, 1], // 0.5 → 1: a half rounds up
    [3, 15, 0], // 0.45 → 0
    [3097, 10, 310], // 309.7 → 310
    [150, 1, 2], // 1.5 → 2
    [149, 1, 1], // 1.49 → 1
    [250, 1, 3], // 2.5 → 3 (half up, not half even)
    [1, 50, 1], // 0.5 → 1
    [1, 49, 0],
    [0, 50, 0],
    [999, 100, 999],
    [MAX_AMOUNT, 33, 330_000_000_000], // 329,999,999,999.67, exact only in integer arithmetic
  ])('When %i is discounted by %i%%, then the line discount rounds half up (D17)', (subtotal, pct, expected) => {
    expect(Number(percentageOf(BigInt(subtotal), BigInt(pct)))).toBe(expected);
  });

  it('When items, taxes and discounts combine, then total = subtotal + tax − discount and totalPrice is per line (D17)', () => {
    const result = accepted({
      items: [item(2, 1500), item(3, 333)],
      taxes: [tax(250), tax(49)],
      discounts: [fixed(100), percent(10), percent(5)],
      paid: 0,
    });
    // subtotal 3000 + 999 = 3999; 10% → 399.9 → 400; 5% → 199.95 → 200; fixed 100.
    expect(result.itemTotals).toEqual([3000, 999]);
    expect(result.amounts).toEqual({
      subtotal: 3999,
      tax: 299,
      discount: 700,
      tip: 0,
      total: 3598,
      paid: 0,
      refunded: 0,
    });
  });

  it('When two percentage lines each have a half, then each rounds on its own, not their sum (D17: per line)', () => {
    // 5% of 10 = 0.5 twice: per line 1 + 1 = 2; summing first would give round(1.0) = 1.
    expect(accepted({ items: [item(1, 10)], discounts: [percent(5), percent(5)] }).amounts.discount).toBe(2);
  });

  it('When paid is passed in, then it is carried unchanged and not capped by the total (D19 overpaid)', () => {
    expect(accepted({ items: [item(1, 100)], paid: 150 }).amounts.paid).toBe(150);
  });

  it('When there are no lines, then every amount is 0 (D36 allows a total of 0)', () => {
    expect(accepted({}).amounts).toEqual({ subtotal: 0, tax: 0, discount: 0, tip: 0, total: 0, paid: 0, refunded: 0 });
  });

  it('When a discount is 100%, then total is 0 and accepted (D36)', () => {
    expect(accepted({ items: [item(3, 999)], discounts: [percent(100)] }).amounts.total).toBe(0);
  });
});

describe('computeAmounts limits (D10)', () => {
  it('When the subtotal is exactly 999,999,999,999, then it is accepted (D10)', () => {
    expect(accepted({ items: [item(1, MAX_AMOUNT)] }).amounts.total).toBe(MAX_AMOUNT);
  });

  it('When an item totalPrice exceeds the ceiling, then the item and the subtotal are both reported (D10)', () => {
    // 1,000,000 × 1,000,000 = 10^12 > 999,999,999,999 by exactly one.
    const problems = rejected({ items: [item(1_000_000, 1_000_000)] });
    expect(problems.map((p) => p.path)).toEqual(['items.0', 'items', 'amounts.total']);
  });

  it('When lines are each fine but their sum overflows, then the subtotal is reported (D10)', () => {
    const problems = rejected({ items: [item(1, MAX_AMOUNT), item(1, 1)] });
    expect(problems.map((p) => p.path)).toContain('items');
    expect(problems.map((p) => p.path)).not.toContain('items.0');
  });

  it('When the tax total exceeds the ceiling, then taxes are reported (D10)', () => {
    const problems = rejected({ items: [item(1, 1)], taxes: [tax(MAX_AMOUNT), tax(1)] });
    expect(problems.map((p) => p.path)).toContain('taxes');
  });

  it('When subtotal and tax are each under the ceiling but the total is over, then the total is reported (D10)', () => {
    const problems = rejected({ items: [item(1, MAX_AMOUNT)], taxes: [tax(1)] });
    expect(problems).toEqual([{ path: 'amounts.total', message: expect.stringContaining('999999999999') }]);
  });

  it('When a discount brings an over-ceiling total back under it, then it is accepted (only results count, D10)', () => {
    const { amounts } = accepted({ items: [item(1, MAX_AMOUNT)], taxes: [tax(10)], discounts: [fixed(10)] });
    expect(amounts.total).toBe(MAX_AMOUNT);
  });

  it('When discounts exceed the subtotal, then it is rejected at discounts (D10)', () => {
    expect(rejected({ items: [item(1, 100)], discounts: [fixed(101)] })).toEqual([
      { path: 'discounts', message: 'discount total 101 exceeds the subtotal 100' },
    ]);
  });

  it('When a fixed and a percentage discount together exceed the subtotal, then it is rejected (D10)', () => {
    expect(rejected({ items: [item(1, 100)], discounts: [percent(100), fixed(1)] }).map((p) => p.path)).toEqual([
      'discounts',
    ]);
  });

  it('When discounts equal the subtotal, then it is accepted even with taxes left to pay (D10)', () => {
    expect(accepted({ items: [item(1, 100)], taxes: [tax(7)], discounts: [fixed(100)] }).amounts.total).toBe(7);
  });

  it('When the discount is fixed against an empty subtotal, then it is rejected (D10)', () => {
    expect(rejected({ items: [item(1, 0)], discounts: [fixed(1)] }).map((p) => p.path)).toEqual(['discounts']);
  });

  it.each([
    ['a fractional unitPrice', { items: [item(1, 1.5)] }, 'items.0.unitPrice'],
    ['a zero quantity', { items: [item(0, 1)] }, 'items.0.quantity'],
    ['a negative tax', { taxes: [tax(-1)] }, 'taxes.0.amount'],
    ['an unsafe discount', { discounts: [fixed(2 ** 53)] }, 'discounts.0.amount'],
    ['a NaN paid', { paid: Number.NaN }, 'amounts.paid'],
  ])('When the input has %s, then it is a problem, not an exception', (_, input, path) => {
    expect(rejected(input).map((p) => p.path)).toContain(path);
  });
});

describe('amountDue', () => {
  it('When an order is partly paid, then the rest is due; when it is overpaid, then nothing is (never negative)', () => {
    expect(amountDue({ total: 100, paid: 30 })).toBe(70);
    expect(amountDue({ total: 100, paid: 100 })).toBe(0);
    expect(amountDue({ total: 100, paid: 130 })).toBe(0);
  });
});

describe('paymentStatusFor (D19)', () => {
  it.each([
    [0, 1000, 'unpaid'],
    [0, 0, 'unpaid'],
    [1, 1000, 'partially_paid'],
    [999, 1000, 'partially_paid'],
    [1000, 1000, 'paid'],
    [1001, 1000, 'overpaid'],
    [5, 0, 'overpaid'],
  ] as const)('When paid is %i of a %i total, then status is %s (D19)', (paid, total, expected) => {
    expect(paymentStatusFor(paid, total)).toBe(expected);
  });

  it.each([
    [1000, 1000, 0, 'paid'],
    [1000, 1000, 1, 'partially_refunded'],
    [1000, 1000, 999, 'partially_refunded'],
    [1000, 1000, 1000, 'refunded'],
    [1500, 1000, 500, 'partially_refunded'],
    [1500, 1000, 1500, 'refunded'],
    [400, 1000, 400, 'refunded'],
    [400, 1000, 100, 'partially_refunded'],
  ] as const)(
    'When paid is %i of a %i total and %i refunded, then status is %s (D48: D19 while nothing is refunded)',
    (paid, total, refunded, expected) => {
      expect(paymentStatusFor(paid, total, refunded)).toBe(expected);
    },
  );
});

// ---------------------------------------------------------------------------------------------------------
// Properties

const arbItem = fc.record({
  quantity: fc.integer({ min: 1, max: 1_000_000 }),
  unitPrice: fc.integer({ min: 0, max: 10_000_000 }),
});
const arbTax = fc.record({ amount: fc.integer({ min: 0, max: 10_000_000 }) });
const arbDiscount = fc.oneof(
  fc.record({ type: fc.constant('fixed' as const), amount: fc.integer({ min: 1, max: 10_000_000 }) }),
  fc.record({ type: fc.constant('percentage' as const), amount: fc.integer({ min: 1, max: 100 }) }),
);
const arbInput = fc.record({
  items: fc.array(arbItem, { minLength: 1, maxLength: 20 }),
  taxes: fc.array(arbTax, { maxLength: 20 }),
  discounts: fc.array(arbDiscount, { maxLength: 20 }),
  paid: fc.integer({ min: 0, max: MAX_AMOUNT }),
});

describe('computeAmounts properties (D17, D10)', () => {
  it('Property: when accepted, total = subtotal + tax − discount and every amount is an integer ≥ 0 within D10', () => {
    fc.assert(
      fc.property(arbInput, (input) => {
        const result = computeAmounts(input);
        if (!result.ok) return;
        const { amounts, itemTotals } = result;
        expect(amounts.total).toBe(amounts.subtotal + amounts.tax - amounts.discount);
        expect(amounts.tip).toBe(0);
        for (const value of [...Object.values(amounts), ...itemTotals]) {
          expect(Number.isSafeInteger(value)).toBe(true);
          expect(value).toBeGreaterThanOrEqual(0);
        }
        for (const value of [amounts.subtotal, amounts.tax, amounts.discount, amounts.total]) {
          expect(value).toBeLessThanOrEqual(MAX_AMOUNT);
        }
        expect(amounts.discount).toBeLessThanOrEqual(amounts.subtotal);
        expect(itemTotals.reduce((a, b) => a + b, 0)).toBe(amounts.subtotal);
      }),
    );
  });

  it('Property: rejection happens exactly when a D10 rule is broken (checked against an independent BigInt model)', () => {
    fc.assert(
      fc.property(arbInput, (input) => {
        const lines = input.items.map((i) => BigInt(i.quantity) * BigInt(i.unitPrice));
        const subtotal = lines.reduce((a, b) => a + b, 0n);
        const tax = input.taxes.reduce((a, t) => a + BigInt(t.amount), 0n);
        // Independent rounding model: round half up as floor(x + 1/2) over rationals, x = subtotal × p / 100.
        const discount = input.discounts.reduce(
          (a, d) => a + (d.type === 'fixed' ? BigInt(d.amount) : (2n * subtotal * BigInt(d.amount) + 100n) / 200n),
          0n,
        );
        const max = BigInt(MAX_AMOUNT);
        const shouldReject =
          lines.some((l) => l > max) ||
          subtotal > max ||
          tax > max ||
          discount > max ||
          discount > subtotal ||
          subtotal + tax - discount > max;
        const result = computeAmounts(input);
        expect(result.ok).toBe(!shouldReject);
        if (result.ok) expect(BigInt(result.amounts.discount)).toBe(discount);
      }),
    );
  });

  it('Property: the result does not depend on the order of items, taxes or discounts', () => {
    fc.assert(
      fc.property(
        arbInput.chain((input) =>
          fc.tuple(
            fc.constant(input),
            fc.shuffledSubarray(input.items, { minLength: input.items.length }),
            fc.shuffledSubarray(input.taxes, { minLength: input.taxes.length }),
            fc.shuffledSubarray(input.discounts, { minLength: input.discounts.length }),
          ),
        ),
        ([input, items, taxes, discounts]) => {
          const a = computeAmounts(input);
          const b = computeAmounts({ ...input, items, taxes, discounts });
          expect(b.ok).toBe(a.ok);
          if (a.ok && b.ok) {
            expect(b.amounts).toEqual(a.amounts);
            expect([...b.itemTotals].sort((x, y) => x - y)).toEqual([...a.itemTotals].sort((x, y) => x - y));
          }
        },
      ),
    );
  });

  it('Property: near the ceiling, large quantities and prices never lose precision (no floating point)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 0, max: MAX_AMOUNT }),
        fc.integer({ min: 1, max: 100 }),
        (quantity, unitPrice, pct) => {
          const exact = BigInt(quantity) * BigInt(unitPrice);
          const result = computeAmounts({
            items: [item(quantity, unitPrice)],
            taxes: [],
            discounts: [percent(pct)],
            paid: 0,
          });
          expect(result.ok).toBe(exact <= BigInt(MAX_AMOUNT));
          if (result.ok) {
            expect(BigInt(result.amounts.subtotal)).toBe(exact);
            expect(BigInt(result.amounts.discount)).toBe((exact * BigInt(pct) + 50n) / 100n);
          }
        },
      ),
    );
  });

  it('Property: paymentStatusFor agrees with paid vs total for every pair (D19)', () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), (paid, total) => {
        const status = paymentStatusFor(paid, total);
        if (paid === 0) return status === 'unpaid';
        if (paid < total) return status === 'partially_paid';
        return status === (paid === total ? 'paid' : 'overpaid');
      }),
    );
  });
});
