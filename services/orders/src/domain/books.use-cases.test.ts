import { describe, expect, it } from 'vitest';
import type { Scope } from '@checkout/mongo';
import type { OrderDocument } from '../store/order.document';
import { applyPayment, newOrder } from './order';
import { Books } from './books.use-cases';
import type { StoredBooks } from './ports';

// How the ledger's consumer counts (D52): one count step at a time per scope in a process, the payments arriving
// meanwhile counted by one more step. The store's steps are stand-ins here, resolved by the test; the counting
// protocol itself runs on the real engine in test/component/books-counting.component.test.ts.

const SCOPE: Scope = { organizationId: 'org_books', mode: 'test' };
const T0 = new Date('2026-03-01T10:00:00.000Z');

function paidOrder(id: string): OrderDocument {
  const created = {
    ...newOrder({ items: [{ name: 'Tea', quantity: 1, unitPrice: 100 }] }, { scope: SCOPE, now: T0 }),
    ...SCOPE,
    _id: id,
  } as OrderDocument;
  const { next } = applyPayment(created, { paymentId: `pay_${id}`, amount: 100, method: 'card' }, T0);
  if (!next) throw new Error('expected the payment to apply');
  return next;
}

/** Books whose store counts steps that each wait for the test to end them. */
function booksWithHeldSteps() {
  const steps: Array<() => void> = [];
  const store: Pick<StoredBooks, 'insertMissing' | 'countStep'> = {
    insertMissing: async () => 1,
    countStep: () => new Promise<number>((resolve) => steps.push(() => resolve(1))),
  };
  const books = new Books({
    orders: { getOrder: async (_scope, id) => paidOrder(id) },
    books: store as StoredBooks,
    clock: () => T0,
  });
  return { books, steps };
}

/** Lets every promise that can settle now settle. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('Books.recordOrder: the counting of a scope in one process', () => {
  it('When payments of one merchant arrive while a step runs, then one more step counts them all, and each caller returns once it has', async () => {
    const { books, steps } = booksWithHeldSteps();
    const first = books.recordOrder(SCOPE, 'ord_test_1');
    await settle();
    expect(steps).toHaveLength(1);
    let laterDone = 0;
    const later = ['ord_test_2', 'ord_test_3', 'ord_test_4'].map((id) =>
      books.recordOrder(SCOPE, id).then(() => (laterDone += 1)),
    );
    await settle();
    expect(steps).toHaveLength(1);
    steps[0]?.();
    await settle();
    // The step that read before their lines were inserted is not theirs: they wait for the next one.
    expect(steps).toHaveLength(2);
    expect(laterDone).toBe(0);
    await expect(first).resolves.toBe(1);
    steps[1]?.();
    await Promise.all(later);
    expect(laterDone).toBe(3);
    expect(steps).toHaveLength(2);
  });

  it('When a payment arrives after the last step ended, or in another currency, then it runs a step of its own', async () => {
    const { books, steps } = booksWithHeldSteps();
    const first = books.recordOrder(SCOPE, 'ord_test_1');
    await settle();
    steps[0]?.();
    await first;
    const second = books.recordOrder(SCOPE, 'ord_test_2');
    const otherMerchant = books.recordOrder({ ...SCOPE, organizationId: 'org_other' }, 'ord_test_3');
    await settle();
    expect(steps).toHaveLength(3);
    steps[1]?.();
    steps[2]?.();
    await expect(Promise.all([second, otherMerchant])).resolves.toEqual([1, 1]);
  });
});
