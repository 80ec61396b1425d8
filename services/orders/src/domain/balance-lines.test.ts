import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isIdOf, ORDER_EVENT_TYPES, type OrderEventType } from '@checkout/contracts';
import type { Scope } from '@checkout/mongo';
import type { OrderDocument } from '../store/order.document';
import { applyPayment, newOrder } from './order';
import { createRefund, settleRefund } from './refund';
import { balanceLinesOf, balanceTransactionId, mayMoveMoney } from './balance-lines';

// D52's line builder: an order as stored → its lines, one per payment applied and per succeeded refund. The
// integration tests run it through the consumer, the store and the counting against the real engines.

const SCOPE: Scope = { organizationId: 'org_books', mode: 'test' };
const T0 = new Date('2026-03-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

function order(total = 1000): OrderDocument {
  return {
    ...newOrder({ items: [{ name: 'Tea', quantity: 1, unitPrice: total }] }, { scope: SCOPE, now: T0 }),
    ...SCOPE,
  } as OrderDocument;
}

function pay(current: OrderDocument, paymentId: string, amount: number, when: Date): OrderDocument {
  const { next } = applyPayment(current, { paymentId, amount, method: 'card' }, when);
  if (!next) throw new Error('expected the payment to apply');
  return next;
}

function refund(
  current: OrderDocument,
  refundId: string,
  amount: number,
  outcome: 'succeeded' | 'pending' | 'failed',
  when: Date,
) {
  const { next } = createRefund(current, { refundId, amount, outcome }, when);
  if (!next) throw new Error('expected the refund to be written');
  return next;
}

const sum = (o: OrderDocument) => balanceLinesOf(o).reduce((total, line) => total + line.amount, 0);

describe('balanceLinesOf (D52)', () => {
  it('When an order has no payment, then it has no line', () => {
    expect(balanceLinesOf(order())).toEqual([]);
  });

  it('When two payments were applied, then each is one positive line at its appliedAt, named for its payment', () => {
    const paid = pay(pay(order(1000), 'pay_test_a', 400, at(1)), 'pay_test_b', 600, at(2));
    const lines = balanceLinesOf(paid);
    expect(lines).toEqual([
      expect.objectContaining({ type: 'payment', sourceId: 'pay_test_a', amount: 400, createdAt: at(1) }),
      expect.objectContaining({ type: 'payment', sourceId: 'pay_test_b', amount: 600, createdAt: at(2) }),
    ]);
    for (const line of lines) {
      expect(line).toMatchObject({ ...SCOPE, orderId: paid._id, currency: 'USD' });
      expect(isIdOf('txn', line._id, 'test')).toBe(true);
    }
  });

  it('When refunds are pending, failed and succeeded, then only the succeeded one is a line, negative, at its settlement', () => {
    let current = pay(order(1000), 'pay_test_a', 1000, at(1));
    current = refund(current, 're_test_pending', 100, 'pending', at(2));
    current = refund(current, 're_test_failed', 200, 'failed', at(3));
    current = refund(current, 're_test_ok', 300, 'succeeded', at(4));
    const refunds = balanceLinesOf(current).filter((l) => l.type === 'refund');
    expect(refunds).toEqual([expect.objectContaining({ sourceId: 're_test_ok', amount: -300, createdAt: at(4) })]);
    const settled = settleRefund(current, { refundId: 're_test_pending', outcome: 'succeeded' }, at(9)).next;
    expect(settled && balanceLinesOf(settled).find((l) => l.sourceId === 're_test_pending')).toMatchObject({
      amount: -100,
      createdAt: at(9),
    });
  });

  it('When the same order is built again later, then its existing lines come out identical (ids included)', () => {
    const first = pay(order(1000), 'pay_test_a', 500, at(1));
    const later = refund(pay(first, 'pay_test_b', 500, at(2)), 're_test_x', 200, 'succeeded', at(3));
    const again = balanceLinesOf(later);
    for (const line of balanceLinesOf(first)) expect(again).toContainEqual(line);
    expect(new Set(again.map((l) => l._id)).size).toBe(again.length);
  });

  it('When the same payment id is applied in two organizations or two orders, then their lines are distinct', () => {
    const a = pay(order(), 'pay_shared', 100, at(1));
    const b = { ...a, organizationId: 'org_other' };
    const c = { ...a, _id: 'ord_test_other' };
    const ids = [a, b, c].map((o) => balanceTransactionId(o, 'payment', 'pay_shared'));
    expect(new Set(ids).size).toBe(3);
    expect(balanceTransactionId(a, 'payment', 'pay_shared')).not.toBe(balanceTransactionId(a, 'refund', 'pay_shared'));
  });

  it('When any sequence of payments and refunds is applied, then Σ lines = amounts.paid − amounts.refunded', () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant('pay' as const), amount: fc.integer({ min: 1, max: 500 }) }),
      fc.record({
        kind: fc.constant('refund' as const),
        amount: fc.integer({ min: 1, max: 300 }),
        outcome: fc.constantFrom('succeeded' as const, 'pending' as const, 'failed' as const),
      }),
      fc.record({
        kind: fc.constant('settle' as const),
        outcome: fc.constantFrom('succeeded' as const, 'failed' as const),
      }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 12 }), (steps) => {
        let current = order(100_000);
        steps.forEach((s, i) => {
          try {
            if (s.kind === 'pay') current = pay(current, `pay_test_${i}`, s.amount, at(i));
            else if (s.kind === 'refund') current = refund(current, `re_test_${i}`, s.amount, s.outcome, at(i));
            else {
              const pending = current.refunds?.find((r) => r.status === 'pending');
              const next = pending && settleRefund(current, { refundId: pending.id, outcome: s.outcome }, at(i)).next;
              if (next) current = next;
            }
          } catch {
            // A refund the rules refuse (more than refundable) changes nothing, as in the service.
          }
        });
        expect(sum(current)).toBe(current.amounts.paid - (current.amounts.refunded ?? 0));
      }),
    );
  });
});

describe('mayMoveMoney: the order events the ledger reads the order for (D52)', () => {
  // Every type orders produces has its answer here: a new type fails this test until it says whether it moves money.
  const MOVES_MONEY: Record<OrderEventType, boolean> = {
    'order.payment_applied': true,
    'order.refund_created': true,
    'order.refund_settled': true,
    'order.updated': false,
    'order.cancelled': false,
    'order.payments_closed': false,
  };

  it.each(ORDER_EVENT_TYPES.map((type) => [type, MOVES_MONEY[type]] as const))(
    'When the event is %s, then the order is read: %s',
    (type, moves) => {
      expect(mayMoveMoney(type)).toBe(moves);
    },
  );

  it('When the event is of a type this version does not know (a newer orders), then the order is read', () => {
    expect(mayMoveMoney('order.chargeback_created')).toBe(true);
  });
});
