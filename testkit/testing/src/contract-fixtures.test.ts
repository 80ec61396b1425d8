import { describe, expect, it } from 'vitest';
import { documentShape, IdMap } from './contract-fixtures';

const id = (kind: string, n: number) => `${kind}_test_${String(n).padStart(24, '0')}`;

describe("a replay's id map", () => {
  it('When a listed element has one twin whose other ids are the replay’s, then its id is learned (D52 lines)', () => {
    const ids = new IdMap();
    ids.set(id('ord', 1), id('ord', 2));
    ids.set(id('re', 1), id('re', 2));
    const recorded = [{ id: id('txn', 1), orderId: id('ord', 1), sourceId: id('re', 1), amount: -150 }];
    const actual = [
      { id: id('txn', 3), orderId: id('ord', 2), sourceId: id('pay', 9), amount: 900 },
      { id: id('txn', 2), orderId: id('ord', 2), sourceId: id('re', 2), amount: -150 },
    ];
    ids.learn({ balanceTransactions: recorded }, { balanceTransactions: actual });
    expect(ids.get(id('txn', 1))).toBe(id('txn', 2));
  });

  it('When a recorded element whose other ids the replay made is not listed yet, then unlisted names it until it is', () => {
    const ids = new IdMap();
    ids.set(id('ord', 1), id('ord', 2));
    ids.set(id('re', 1), id('re', 2));
    const recorded = {
      balanceTransactions: [
        { id: id('txn', 1), orderId: id('ord', 1), sourceId: id('re', 1) },
        // Another's parents (not made by the replay) promise nothing; nor does an element already learned.
        { id: id('txn', 4), orderId: id('ord', 8), sourceId: id('re', 8) },
      ],
    };
    const paymentOnly = { balanceTransactions: [{ id: id('txn', 3), orderId: id('ord', 2), sourceId: id('pay', 9) }] };
    expect(ids.unlisted(recorded, paymentOnly, ['txn'])).toEqual([id('txn', 1)]);
    expect(ids.unlisted(recorded, { balanceTransactions: [] }, ['txn'])).toEqual([id('txn', 1)]);
    const both = {
      balanceTransactions: [
        ...paymentOnly.balanceTransactions,
        { id: id('txn', 2), orderId: id('ord', 2), sourceId: id('re', 2) },
      ],
    };
    expect(ids.unlisted(recorded, both, ['txn'])).toEqual([]);
    expect(ids.unlisted(recorded, paymentOnly, ['dlv'])).toEqual([]);
    ids.learn(recorded, both);
    expect(ids.unlisted(recorded, paymentOnly, ['txn'])).toEqual([]);
  });

  it('When no element, or more than one, has the replay’s other ids, then nothing is learned from the list', () => {
    const ids = new IdMap();
    ids.set(id('ord', 1), id('ord', 2));
    const recorded = [{ id: id('txn', 1), orderId: id('ord', 1) }];
    ids.learn(recorded, [{ id: id('txn', 5), orderId: id('ord', 7) }]);
    expect(ids.get(id('txn', 1))).toBe(id('txn', 1));
    ids.learn(recorded, [
      { id: id('txn', 5), orderId: id('ord', 2) },
      { id: id('txn', 6), orderId: id('ord', 2) },
    ]);
    expect(ids.get(id('txn', 1))).toBe(id('txn', 1));
  });

  it('When a list element names no other id, or its twin is already another’s, then nothing is learned', () => {
    const ids = new IdMap();
    ids.learn([{ id: id('ord', 1), status: 'open' }], [{ id: id('ord', 2), status: 'open' }]);
    expect(ids.get(id('ord', 1))).toBe(id('ord', 1));
    ids.set(id('loc', 1), id('loc', 2));
    ids.set(id('ord', 8), id('ord', 9));
    ids.learn([{ id: id('ord', 1), locationId: id('loc', 1) }], [{ id: id('ord', 9), locationId: id('loc', 2) }]);
    expect(ids.get(id('ord', 1))).toBe(id('ord', 1));
  });
});

describe("a stored document's shape", () => {
  const balance = (days: Record<string, unknown>) =>
    documentShape({ service: 'orders', collection: 'balances', document: { _id: 'b', count: 1, days } });
  const day = { count: 1, payments: 450, refunds: 0 };

  it('When a map is keyed by UTC day (D52 balances), then any day is the same shape, and only its values tell', () => {
    expect(balance({ '2026-11-29': day })).toBe(balance({ '2026-12-01': day }));
    expect(balance({ '2026-11-29': day, '2026-11-30': day })).toBe(balance({ '2026-12-01': day }));
    expect(balance({ '2026-12-01': { ...day, fees: 3 } })).not.toBe(balance({ '2026-12-01': day }));
    expect(balance({ today: day })).not.toBe(balance({ '2026-12-01': day }));
  });
});
