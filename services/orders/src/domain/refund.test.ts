import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { REFUNDS_PER_ORDER_MAX } from '@checkout/contracts';
import type { Scope } from '@checkout/mongo';
import type { OrderDocument } from '../store/order.document';
import { applyPayment, cancelOrder, newOrder } from './order';
import { presentOrder } from './order.presenter';
import { createRefund, refundableOf, refundsPage, settleRefund } from './refund';

// D48's rules as pure functions: what a refund may take, what it moves, at most once by its id. The component
// and e2e tests run the same rules through the one conditional write, under concurrency.

const SCOPE: Scope = { organizationId: 'org_refunds', mode: 'test' };
const NOW = new Date('2026-03-01T10:00:00.000Z');
const LATER = new Date('2026-03-01T10:05:00.000Z');

function order(total = 1000): OrderDocument {
  return {
    ...newOrder({ items: [{ name: 'Tea', quantity: 1, unitPrice: total }] }, { scope: SCOPE, now: NOW }),
    ...SCOPE,
  } as OrderDocument;
}

function paid(amount: number, total = 1000): OrderDocument {
  const { next } = applyPayment(order(total), { paymentId: 'pay_test_1', amount, method: 'card' }, NOW);
  if (!next) throw new Error('an open order takes a payment');
  return next;
}

function refunded(current: OrderDocument, input: Parameters<typeof createRefund>[1]): OrderDocument {
  const { next } = createRefund(current, input, LATER);
  if (!next) throw new Error('expected the refund to be written');
  return next;
}

describe('createRefund (D48)', () => {
  it('When a paid order is partly refunded, then amounts.refunded and paymentStatus move with the refund, and the order status stays', () => {
    const current = paid(1000);
    const { next, refund } = createRefund(
      current,
      {
        refundId: 're_test_a',
        amount: 300,
        reason: 'requested_by_customer',
        metadata: { rma: '7' },
        outcome: 'succeeded',
      },
      LATER,
    );
    expect(refund).toMatchObject({
      id: 're_test_a',
      amount: 300,
      status: 'succeeded',
      reason: 'requested_by_customer',
    });
    expect(next).toMatchObject({
      status: 'completed',
      paymentStatus: 'partially_refunded',
      amounts: { paid: 1000, refunded: 300 },
      updatedAt: LATER,
    });
    expect(presentOrder(next as OrderDocument).amounts.refunded).toBe(300);
  });

  it('When no amount is given, then all that is refundable goes back and the order reads refunded', () => {
    const next = refunded(paid(1000), { refundId: 're_test_b', outcome: 'succeeded' });
    expect(next.refunds?.[0]?.amount).toBe(1000);
    expect(next).toMatchObject({ paymentStatus: 'refunded', amounts: { refunded: 1000 } });
    expect(refundableOf(next)).toBe(0);
  });

  it('When the order received nothing (open or cancelled), then REFUND_FAILED', () => {
    expect(() => createRefund(order(), { refundId: 're_test_c', outcome: 'succeeded' }, LATER)).toThrow(
      expect.objectContaining({ code: 'REFUND_FAILED' }),
    );
    const cancelled = cancelOrder(order(), NOW);
    if (!cancelled) throw new Error('an open, unpaid order cancels');
    expect(() => createRefund(cancelled, { refundId: 're_test_d', amount: 1, outcome: 'succeeded' }, LATER)).toThrow(
      expect.objectContaining({ code: 'REFUND_FAILED' }),
    );
  });

  it('When more than is refundable is asked for, then REFUND_FAILED naming the amount, and pending refunds count against it', () => {
    const withPending = refunded(paid(1000), { refundId: 're_test_e', amount: 600, outcome: 'pending' });
    expect(withPending).toMatchObject({ paymentStatus: 'paid', amounts: { refunded: 0 } });
    expect(refundableOf(withPending)).toBe(400);
    expect(() =>
      createRefund(withPending, { refundId: 're_test_f', amount: 401, outcome: 'succeeded' }, LATER),
    ).toThrow(
      expect.objectContaining({ code: 'REFUND_FAILED', details: [{ path: 'amount', message: 'must be at most 400' }] }),
    );
    expect(
      createRefund(withPending, { refundId: 're_test_g', amount: 400, outcome: 'succeeded' }, LATER).next,
    ).not.toBeNull();
  });

  it('When a partly paid (open) or overpaid order is refunded, then what it received is refundable, whatever its status', () => {
    const partial = paid(400);
    expect(partial.status).toBe('open');
    const next = refunded(partial, { refundId: 're_test_h', amount: 400, outcome: 'succeeded' });
    expect(next).toMatchObject({ status: 'open', paymentStatus: 'refunded' });
    const over = paid(1500);
    expect(over.paymentStatus).toBe('overpaid');
    expect(refunded(over, { refundId: 're_test_i', amount: 500, outcome: 'succeeded' })).toMatchObject({
      paymentStatus: 'partially_refunded',
      amounts: { paid: 1500, refunded: 500 },
    });
  });

  it('When the same refund id comes again, then nothing is written and the first refund is returned (at most once)', () => {
    const next = refunded(paid(1000), { refundId: 're_test_j', amount: 100, outcome: 'succeeded' });
    const again = createRefund(next, { refundId: 're_test_j', amount: 100, outcome: 'succeeded' }, LATER);
    expect(again.next).toBeNull();
    expect(again.refund).toEqual(next.refunds?.[0]);
  });

  it('When a refund names an earlier id it is the same as (sameAs), then a refund by that id made since notBefore is returned, an older one is not', () => {
    const current = refunded(paid(1000), { refundId: 're_test_legacy', amount: 100, outcome: 'succeeded' });
    const retry = { refundId: 're_test_new', amount: 100, outcome: 'succeeded' as const };
    const met = createRefund(current, { ...retry, sameAs: { id: 're_test_legacy', notBefore: NOW } }, LATER);
    expect(met).toMatchObject({ next: null, refund: { id: 're_test_legacy' } });
    const afterIt = new Date(LATER.getTime() + 1);
    const expired = createRefund(current, { ...retry, sameAs: { id: 're_test_legacy', notBefore: afterIt } }, LATER);
    expect(expired.refund.id).toBe('re_test_new');
    expect(expired.next?.refunds).toHaveLength(2);
  });

  it(`When an order already has ${REFUNDS_PER_ORDER_MAX} refunds, then another is REFUND_FAILED (the bound, docs/decisions.md)`, () => {
    let current = paid(1000);
    for (let i = 0; i < REFUNDS_PER_ORDER_MAX; i++)
      current = refunded(current, { refundId: `re_test_k${i}`, amount: 1, outcome: 'failed' });
    expect(() => createRefund(current, { refundId: 're_test_last', amount: 1, outcome: 'succeeded' }, LATER)).toThrow(
      expect.objectContaining({ code: 'REFUND_FAILED' }),
    );
  });

  it('When an order stored before refunds existed (no refunds, no amounts.refunded) is refunded, then it reads as none refunded', () => {
    const { refunds: _none, ...before } = paid(1000);
    const old = { ...before, amounts: { ...before.amounts } } as OrderDocument;
    delete old.amounts.refunded;
    expect(presentOrder(old).amounts.refunded).toBe(0);
    expect(refundableOf(old)).toBe(1000);
    expect(refunded(old, { refundId: 're_test_old', amount: 10, outcome: 'succeeded' }).amounts.refunded).toBe(10);
  });
});

describe('settleRefund (D48)', () => {
  const pending = () => refunded(paid(1000), { refundId: 're_test_p', amount: 700, outcome: 'pending' });

  it('When a pending refund succeeds, then it counts in amounts.refunded', () => {
    const { next, refund } = settleRefund(pending(), { refundId: 're_test_p', outcome: 'succeeded' }, LATER);
    expect(refund).toMatchObject({ status: 'succeeded', updatedAt: LATER });
    expect(next).toMatchObject({ paymentStatus: 'partially_refunded', amounts: { refunded: 700 } });
  });

  it('When a pending refund fails, then its amount is refundable again and nothing is refunded', () => {
    const { next, refund } = settleRefund(
      pending(),
      { refundId: 're_test_p', outcome: 'failed', failureReason: 'lost_or_stolen_card' },
      LATER,
    );
    expect(refund).toMatchObject({ status: 'failed', failureReason: 'lost_or_stolen_card' });
    expect(next).toMatchObject({ paymentStatus: 'paid', amounts: { refunded: 0 } });
    expect(refundableOf(next as OrderDocument)).toBe(1000);
  });

  it('When the same outcome comes again (a replayed notification), then nothing is written; the other outcome is refused', () => {
    const { next } = settleRefund(pending(), { refundId: 're_test_p', outcome: 'succeeded' }, LATER);
    const settled = next as OrderDocument;
    expect(settleRefund(settled, { refundId: 're_test_p', outcome: 'succeeded' }, LATER).next).toBeNull();
    expect(() => settleRefund(settled, { refundId: 're_test_p', outcome: 'failed' }, LATER)).toThrow(
      expect.objectContaining({ code: 'REFUND_FAILED' }),
    );
    expect(() => settleRefund(settled, { refundId: 're_test_none', outcome: 'failed' }, LATER)).toThrow(
      expect.objectContaining({ code: 'REFUND_NOT_FOUND' }),
    );
  });
});

describe('refundsPage (D48: newest first, paginated as orders)', () => {
  it('When an order has refunds made at different times, then pages show the newest first with the true total', () => {
    let current = paid(1000);
    for (let i = 0; i < 5; i++) {
      const { next } = createRefund(
        current,
        { refundId: `re_test_n${i}`, amount: 10, outcome: 'succeeded' },
        new Date(LATER.getTime() + i * 1000),
      );
      current = next as OrderDocument;
    }
    const first = refundsPage(current, 1, 2);
    expect(first.total).toBe(5);
    expect(first.refunds.map((r) => r.id)).toEqual(['re_test_n4', 're_test_n3']);
    expect(refundsPage(current, 3, 2).refunds.map((r) => r.id)).toEqual(['re_test_n0']);
    expect(refundsPage(current, 4, 2).refunds).toEqual([]);
  });
});

describe('Property: whatever refunds are asked for, in any order and with any outcomes (D48)', () => {
  it('the succeeded refunds never add up to more than was paid, and amounts.refunded and paymentStatus agree with the refunds', () => {
    const step = fc.oneof(
      fc.record({
        kind: fc.constant('create' as const),
        amount: fc.option(fc.integer({ min: 1, max: 1500 })),
        outcome: fc.constantFrom('succeeded' as const, 'pending' as const, 'failed' as const),
      }),
      fc.record({
        kind: fc.constant('settle' as const),
        pick: fc.nat(),
        outcome: fc.constantFrom('succeeded' as const, 'failed' as const),
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1500 }), fc.array(step, { maxLength: 30 }), (paidAmount, steps) => {
        let current = paid(paidAmount);
        steps.forEach((s, i) => {
          try {
            if (s.kind === 'create') {
              const { next } = createRefund(
                current,
                { refundId: `re_test_p${i}`, ...(s.amount !== null && { amount: s.amount }), outcome: s.outcome },
                LATER,
              );
              if (next) current = next;
            } else {
              const refunds = current.refunds ?? [];
              const target = refunds[s.pick % Math.max(1, refunds.length)];
              if (!target) return;
              const { next } = settleRefund(current, { refundId: target.id, outcome: s.outcome }, LATER);
              if (next) current = next;
            }
          } catch (err) {
            if (!['REFUND_FAILED', 'REFUND_NOT_FOUND'].includes((err as { code?: string }).code ?? '')) throw err;
          }
          const refunds = current.refunds ?? [];
          const succeeded = refunds.filter((r) => r.status === 'succeeded').reduce((sum, r) => sum + r.amount, 0);
          const held = refunds.filter((r) => r.status !== 'failed').reduce((sum, r) => sum + r.amount, 0);
          expect(held).toBeLessThanOrEqual(paidAmount);
          expect(current.amounts.refunded).toBe(succeeded);
          const expected = succeeded === 0 ? 'paid' : succeeded === paidAmount ? 'refunded' : 'partially_refunded';
          if (paidAmount === 1000 || succeeded > 0) expect(current.paymentStatus).toBe(expected);
        });
      }),
    );
  });
});
