import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isDomainError, type ErrorCode } from '@checkout/errors';
import { computeAmounts, isIdOf, paymentStatusFor } from '@checkout/contracts';
import { fromEntries, type Scope } from '@checkout/mongo';
import type { OrderDocument } from '../store/order.document';
import {
  applyPayment,
  assertEditable,
  cancelOrder,
  closePayments,
  newOrder,
  updateOrder,
  type ItemInput,
  type NewOrderInput,
} from './order';

// The pure order rules (order.ts): what a new order looks like, which orders may change, and how a patch, a
// cancel, a payment and an expiry change one. No engines; the use cases that store the results are covered by
// the component tests.

const SCOPE: Scope = { organizationId: 'org_rules', mode: 'test' };
const CREATED = new Date('2026-01-15T12:00:00.000Z');
const LATER = new Date('2026-01-15T12:05:00.000Z');
const COFFEE: ItemInput = { name: 'Coffee', quantity: 2, unitPrice: 450 };

/** A stored order: newOrder's document with the fields the store adds. */
function order(input: Partial<NewOrderInput> = {}, stored: Partial<OrderDocument> = {}): OrderDocument {
  // newOrder's type is loose (an Omit of a document with an index signature); this is the stored shape.
  return {
    ...newOrder({ items: [COFFEE], ...input }, { scope: SCOPE, now: CREATED }),
    ...SCOPE,
    revision: 1,
    ...stored,
  } as OrderDocument;
}

/** An order that has received `paid` (partially_paid or more), as applyPayment leaves it. */
function paidOrder(paid: number, stored: Partial<OrderDocument> = {}): OrderDocument {
  const open = order();
  return {
    ...open,
    amounts: { ...open.amounts, paid },
    paymentStatus: paymentStatusFor(paid, open.amounts.total),
    ...stored,
  };
}

function codeOf(run: () => unknown): ErrorCode | undefined {
  try {
    run();
  } catch (err) {
    if (isDomainError(err)) return err.code;
    throw err;
  }
  return undefined;
}

const card = (paymentId: string, amount: number) => ({ paymentId, amount, method: 'card' });

const itemArb: fc.Arbitrary<ItemInput> = fc.record({
  name: fc.string({ minLength: 1, maxLength: 20 }),
  quantity: fc.integer({ min: 1, max: 1_000 }),
  unitPrice: fc.integer({ min: 0, max: 100_000 }),
});
const itemsArb = fc.array(itemArb, { minLength: 1, maxLength: 5 });

describe('newOrder (spec, States; D3, D9, D17, D18, D39)', () => {
  it('When an order is created, then it is open, unpaid, native, in USD, with an ord_ id of its mode and its dates set (D3, D18)', () => {
    const doc = newOrder({ items: [COFFEE] }, { scope: SCOPE, now: CREATED });
    expect(isIdOf('ord', doc._id, 'test')).toBe(true);
    expect(doc).toMatchObject({
      status: 'open',
      paymentStatus: 'unpaid',
      provider: 'native',
      currency: 'USD',
      payments: [],
      createdAt: CREATED,
      updatedAt: CREATED,
    });
    expect(doc.amounts).toEqual({ subtotal: 900, tax: 0, discount: 0, tip: 0, total: 900, paid: 0, refunded: 0 });
  });

  it('When optional fields are not given, then they are absent and metadata is empty (D39)', () => {
    const doc = newOrder({ items: [COFFEE] }, { scope: SCOPE, now: CREATED });
    for (const field of [
      'externalId',
      'customer',
      'shippingAddress',
      'locationId',
      'paymentDestination',
      'checkoutSessionId',
      'paidAt',
      'cancelledAt',
      'paymentsClosed',
    ]) {
      expect(doc, field).not.toHaveProperty(field);
    }
    expect(fromEntries(doc.metadata)).toEqual({});
  });

  it('When a tax has no name, then it is labelled "Tax"; lines get item_/tax_/disc_ ids without a mode word (D3, D9)', () => {
    const doc = order({
      taxes: [
        { type: 'additive', amount: 50 },
        { name: 'VAT', type: 'additive', amount: 10 },
      ],
      discounts: [{ name: 'Regulars', type: 'fixed', amount: 100 }],
    });
    expect(doc.taxes.map((t) => t.name)).toEqual(['Tax', 'VAT']);
    expect(doc.items[0]?.id).toMatch(/^item_[0-9A-Za-z]{24}$/);
    expect(doc.taxes[0]?.id).toMatch(/^tax_[0-9A-Za-z]{24}$/);
    expect(doc.discounts[0]?.id).toMatch(/^disc_[0-9A-Za-z]{24}$/);
    expect(doc.amounts).toEqual({ subtotal: 900, tax: 60, discount: 100, tip: 0, total: 860, paid: 0, refunded: 0 });
  });

  it('When the order has an externalId, then that is its unique key; without one its own id is (D37: the key is always present)', () => {
    const external = newOrder({ items: [COFFEE], externalId: 'pos-1' }, { scope: SCOPE, now: CREATED });
    const plain = newOrder({ items: [COFFEE] }, { scope: SCOPE, now: CREATED });
    expect(external.uniqueKey).toBe('ext:pos-1');
    expect(plain.uniqueKey).toBe(`id:${plain._id}`);
  });

  it('When it is created with an Idempotency-Key (a session), then that is its creation key; otherwise its own id is', () => {
    const keyed = newOrder(
      { items: [COFFEE] },
      { scope: SCOPE, now: CREATED, idempotencyKey: 'cs_test_1', checkoutSessionId: 'cs_test_1' },
    );
    const plain = newOrder({ items: [COFFEE] }, { scope: SCOPE, now: CREATED });
    expect(keyed.creationKey).toBe('idem:cs_test_1');
    expect(keyed.checkoutSessionId).toBe('cs_test_1');
    expect(plain.creationKey).toBe(`id:${plain._id}`);
  });

  it('When the discounts exceed the subtotal, then creation fails with ORDER_CREATE_FAILED and the offending path (D10)', () => {
    try {
      newOrder(
        { items: [COFFEE], discounts: [{ name: 'Too much', type: 'fixed', amount: 901 }] },
        { scope: SCOPE, now: CREATED },
      );
      expect.unreachable('the order should have been refused');
    } catch (err) {
      expect(isDomainError(err) && err.code).toBe('ORDER_CREATE_FAILED');
      expect(isDomainError(err) && err.details?.length).toBeGreaterThan(0);
    }
  });

  it('When an amount exceeds 999,999,999,999, then creation fails with ORDER_CREATE_FAILED (D10)', () => {
    expect(
      codeOf(() =>
        newOrder(
          { items: [{ name: 'Yacht', quantity: 1_000_000, unitPrice: 1_000_000 }] },
          { scope: SCOPE, now: CREATED },
        ),
      ),
    ).toBe('ORDER_CREATE_FAILED');
  });

  it('Property: for any valid lines, each item total is quantity × unitPrice and the amounts are computeAmounts of the lines, nothing paid (D17)', () => {
    fc.assert(
      fc.property(itemsArb, fc.array(fc.integer({ min: 0, max: 10_000 }), { maxLength: 3 }), (items, taxAmounts) => {
        const taxes = taxAmounts.map((amount) => ({ type: 'additive' as const, amount }));
        const doc = order({ items, taxes });
        const priced = computeAmounts({ items, taxes, discounts: [], paid: 0 });
        expect(priced.ok).toBe(true);
        if (!priced.ok) return;
        expect(doc.amounts).toEqual(priced.amounts);
        expect(doc.items.map((i) => i.totalPrice)).toEqual(items.map((i) => i.quantity * i.unitPrice));
        expect(doc.amounts.total).toBe(doc.amounts.subtotal + doc.amounts.tax - doc.amounts.discount + doc.amounts.tip);
      }),
    );
  });
});

describe('assertEditable (spec, States: PATCH or cancel only while open with nothing paid)', () => {
  it('When the order is open and nothing is paid, then it may be edited', () => {
    expect(codeOf(() => assertEditable(order()))).toBeUndefined();
  });

  it.each([
    ['completed', order({}, { status: 'completed' })],
    ['cancelled', order({}, { status: 'cancelled' })],
    ['open but partially paid', paidOrder(100)],
  ])('When the order is %s, then it is ORDER_NOT_EDITABLE', (_state, doc) => {
    expect(codeOf(() => assertEditable(doc))).toBe('ORDER_NOT_EDITABLE');
  });
});

describe('updateOrder (PATCH; D8, D10, D36)', () => {
  it('When the patch is empty or repeats what is stored, then nothing changes and updatedAt stays (D36)', () => {
    const doc = order({ metadata: { till: '3' }, taxes: [{ type: 'additive', amount: 5 }] });
    expect(updateOrder(doc, {}, undefined, LATER)).toBeNull();
    expect(
      updateOrder(
        doc,
        { metadata: { till: '3' }, items: [COFFEE], taxes: [{ name: 'Tax', type: 'additive', amount: 5 }] },
        undefined,
        LATER,
      ),
    ).toBeNull();
  });

  it("Property: re-sending any order's own lines changes nothing, although re-priced lines get new ids (D36)", () => {
    fc.assert(
      fc.property(itemsArb, (items) => {
        const doc = order({ items });
        expect(
          updateOrder(
            doc,
            { items: doc.items.map(({ name, quantity, unitPrice }) => ({ name, quantity, unitPrice })) },
            undefined,
            LATER,
          ),
        ).toBeNull();
      }),
    );
  });

  it('When items change, then the amounts are recomputed, the new items get new ids, untouched lines keep theirs and updatedAt moves (D17, D36)', () => {
    const doc = order({ taxes: [{ name: 'VAT', type: 'additive', amount: 10 }] });
    const next = updateOrder(doc, { items: [{ name: 'Cake', quantity: 3, unitPrice: 600 }] }, undefined, LATER);
    expect(next?.amounts).toEqual({ subtotal: 1800, tax: 10, discount: 0, tip: 0, total: 1810, paid: 0, refunded: 0 });
    expect(next?.items[0]?.id).not.toBe(doc.items[0]?.id);
    expect(next?.taxes).toEqual(doc.taxes);
    expect(next?.updatedAt).toBe(LATER);
    expect(next?.createdAt).toBe(CREATED);
  });

  it('When metadata is patched with {}, then an empty object is stored (D36); shippingAddress is replaced as a whole (D12)', () => {
    const doc = order({
      metadata: { till: '3' },
      shippingAddress: { line1: '1 Main St', line2: 'Flat 2', city: 'London', country: 'GB' },
    });
    const next = updateOrder(
      doc,
      { metadata: {}, shippingAddress: { line1: '2 High St', city: 'Leeds', country: 'GB' } },
      undefined,
      LATER,
    );
    expect(next && fromEntries(next.metadata)).toEqual({});
    expect(next?.shippingAddress).toEqual({ line1: '2 High St', city: 'Leeds', country: 'GB' });
  });

  it('When the caller resolved a customer, then it replaces the snapshot (D11)', () => {
    const customer = { id: 'cust_test_1', email: 'ada@example.com', name: 'Ada' };
    expect(updateOrder(order(), {}, customer, LATER)?.customer).toEqual(customer);
    expect(updateOrder(order({}, { customer }), {}, { ...customer }, LATER)).toBeNull();
  });

  it('When the order is not editable, then the patch is refused with ORDER_NOT_EDITABLE, even an empty one', () => {
    expect(codeOf(() => updateOrder(order({}, { status: 'cancelled' }), {}, undefined, LATER))).toBe(
      'ORDER_NOT_EDITABLE',
    );
    expect(codeOf(() => updateOrder(paidOrder(1), { metadata: {} }, undefined, LATER))).toBe('ORDER_NOT_EDITABLE');
  });

  it('When the new lines price out of bounds, then the patch fails with ORDER_UPDATE_FAILED (D10)', () => {
    expect(
      codeOf(() =>
        updateOrder(order(), { discounts: [{ name: 'All and more', type: 'fixed', amount: 901 }] }, undefined, LATER),
      ),
    ).toBe('ORDER_UPDATE_FAILED');
  });
});

describe('cancelOrder (spec, States; D36)', () => {
  it('When an open unpaid order is cancelled, then it is cancelled with cancelledAt and updatedAt set to now, and the rest kept', () => {
    const doc = order();
    const next = cancelOrder(doc, LATER);
    expect(next).toEqual({ ...doc, status: 'cancelled', cancelledAt: LATER, updatedAt: LATER });
  });

  it('When the order is already cancelled, then nothing changes: cancel is idempotent and updatedAt stays (D36)', () => {
    expect(cancelOrder(order({}, { status: 'cancelled', cancelledAt: CREATED }), LATER)).toBeNull();
  });

  it('When the order is completed or has received a payment, then the cancel fails with ORDER_CANCEL_FAILED', () => {
    expect(codeOf(() => cancelOrder(order({}, { status: 'completed' }), LATER))).toBe('ORDER_CANCEL_FAILED');
    expect(codeOf(() => cancelOrder(paidOrder(100), LATER))).toBe('ORDER_CANCEL_FAILED');
  });
});

describe('applyPayment (D19, D21, D27, D28)', () => {
  it('When part of the total is paid, then the order stays open, partially_paid, with no paidAt (D28)', () => {
    const { next, outcome } = applyPayment(order(), card('pay_1', 400), LATER);
    expect(outcome).toBe('applied');
    expect(next).toMatchObject({
      status: 'open',
      paymentStatus: 'partially_paid',
      amounts: { paid: 400, total: 900 },
      updatedAt: LATER,
    });
    expect(next).not.toHaveProperty('paidAt');
    expect(next?.payments).toEqual([{ paymentId: 'pay_1', amount: 400, method: 'card', appliedAt: LATER }]);
  });

  it('When the payments reach the total, then the order is completed, paid, with paidAt (D19)', () => {
    const { next } = applyPayment(paidOrder(400), card('pay_2', 500), LATER);
    expect(next).toMatchObject({ status: 'completed', paymentStatus: 'paid', paidAt: LATER, amounts: { paid: 900 } });
  });

  it('When more than the total is paid, then the order is completed and overpaid (D19)', () => {
    const { next } = applyPayment(order(), card('pay_1', 1_000), LATER);
    expect(next).toMatchObject({ status: 'completed', paymentStatus: 'overpaid', amounts: { paid: 1_000 } });
  });

  it('When a payment id was applied before, then it is already_applied and nothing changes, even on a completed order (D27)', () => {
    const first = applyPayment(order(), card('pay_1', 900), LATER).next;
    if (!first) throw new Error('the first payment should apply');
    expect(applyPayment(first, card('pay_1', 900), LATER)).toEqual({ next: null, outcome: 'already_applied' });
  });

  it.each([
    ['cancelled', order({}, { status: 'cancelled' })],
    ['completed', order({}, { status: 'completed' })],
    ['open but its checkout expired (D21)', order({}, { paymentsClosed: true })],
  ])('When the order is %s, then a new payment is refused with ORDER_NOT_PAYABLE', (_state, doc) => {
    expect(codeOf(() => applyPayment(doc, card('pay_new', 100), LATER))).toBe('ORDER_NOT_PAYABLE');
  });

  it('When the amount is below 1 (nothing due), then it is refused with ORDER_NOT_PAYABLE', () => {
    expect(codeOf(() => applyPayment(order(), card('pay_1', 0), LATER))).toBe('ORDER_NOT_PAYABLE');
  });

  it('Property: any run of distinct payments keeps paid = Σ applied, paymentStatus follows paid vs total, and the order completes exactly when paid reaches the total (D19, D27, D28)', () => {
    fc.assert(
      fc.property(
        itemsArb,
        fc.array(fc.integer({ min: 1, max: 50_000 }), { minLength: 1, maxLength: 8 }),
        (items, amounts) => {
          let doc = order({ items });
          let applied = 0;
          for (const [i, amount] of amounts.entries()) {
            if (doc.status !== 'open') {
              expect(codeOf(() => applyPayment(doc, card(`pay_${i}`, amount), LATER))).toBe('ORDER_NOT_PAYABLE');
              continue;
            }
            const { next, outcome } = applyPayment(doc, card(`pay_${i}`, amount), LATER);
            expect(outcome).toBe('applied');
            if (!next) throw new Error('an applied payment changes the order');
            doc = next;
            applied += amount;
            expect(doc.amounts.paid).toBe(applied);
            expect(doc.paymentStatus).toBe(paymentStatusFor(applied, doc.amounts.total));
            expect(doc.status).toBe(applied >= doc.amounts.total ? 'completed' : 'open');
            expect(doc.paidAt !== undefined).toBe(applied >= doc.amounts.total);
            // A retry of any payment already applied changes nothing (D27).
            expect(applyPayment(doc, card(`pay_${i}`, amount), LATER).outcome).toBe('already_applied');
          }
          expect(doc.payments.reduce((sum, p) => sum + p.amount, 0)).toBe(applied);
        },
      ),
    );
  });
});

describe('closePayments (its checkout expired, D21)', () => {
  it('When the order is open, then it takes no more payments, and updatedAt stays (not a change the merchant sees, D36)', () => {
    const doc = order();
    const next = closePayments(doc);
    expect(next).toEqual({ ...doc, paymentsClosed: true });
    expect(next?.updatedAt).toBe(CREATED);
  });

  it('When payments are closed already, or the order is completed or cancelled, then nothing is written (the expiry lost the race or repeated)', () => {
    expect(closePayments(order({}, { paymentsClosed: true }))).toBeNull();
    expect(closePayments(order({}, { status: 'completed' }))).toBeNull();
    expect(closePayments(order({}, { status: 'cancelled' }))).toBeNull();
  });

  it('When payments are closed, then a partially paid order keeps what it received and refuses the rest (D21, D28)', () => {
    const closed = closePayments(paidOrder(400));
    if (!closed) throw new Error('an open order closes');
    expect(closed.amounts.paid).toBe(400);
    expect(codeOf(() => applyPayment(closed, card('pay_late', 500), LATER))).toBe('ORDER_NOT_PAYABLE');
  });
});
