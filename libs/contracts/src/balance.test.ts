import { describe, expect, it } from 'vitest';
import { zodIssuesToDetails } from './errors';
import {
  BALANCE_DAYS_MAX,
  BalanceDailyQuery,
  BalanceQuery,
  BalanceTransaction,
  ListBalanceTransactionsQuery,
} from './balance';
import { derivedId } from './ids';

// D52's shapes: the list's filters as the query string carries them, the balance's currency, the chart's window,
// and a line as orders answers it.

describe('ListBalanceTransactionsQuery (D52)', () => {
  it('When no filter is given, then it pages as every list (D20) and filters nothing', () => {
    expect(ListBalanceTransactionsQuery.parse({})).toEqual({ page: 1, limit: 20 });
  });

  it('When every filter is given as a query string carries it, then each is read', () => {
    const query = ListBalanceTransactionsQuery.parse({
      type: 'refund',
      orderId: 'ord_test_abc',
      createdAfter: '2026-11-01T00:00:00Z',
      createdBefore: '2026-11-30T00:00:00+01:00',
      page: '2',
      limit: '100',
    });
    expect(query).toMatchObject({ type: 'refund', orderId: 'ord_test_abc', page: 2, limit: 100 });
  });

  it.each([
    [{ type: 'payout' }, 'type'],
    [{ orderId: 'cs_test_abc' }, 'orderId'],
    [{ createdAfter: 'yesterday' }, 'createdAfter'],
    [{ createdBefore: '2026-11-30' }, 'createdBefore'],
    [{ limit: '101' }, 'limit'],
    [{ currency: 'USD' }, 'currency'],
  ])('When the query is %j, then it is refused with a detail naming %s', (query, path) => {
    const result = ListBalanceTransactionsQuery.safeParse(query);
    expect(result.success).toBe(false);
    if (!result.success) expect(zodIssuesToDetails(result.error).map((d) => d.path)).toContain(path);
  });
});

describe('BalanceQuery and BalanceDailyQuery (D52)', () => {
  it('When no currency is given, then the balance is in USD; a lower-case or longer code is refused', () => {
    expect(BalanceQuery.parse({})).toEqual({ currency: 'USD' });
    expect(BalanceQuery.safeParse({ currency: 'eur' }).success).toBe(false);
    expect(BalanceQuery.safeParse({ currency: 'EURO' }).success).toBe(false);
  });

  it(`When the chart asks for days, then 1 to ${BALANCE_DAYS_MAX} are taken and 30 is the default`, () => {
    expect(BalanceDailyQuery.parse({})).toEqual({ days: 30, currency: 'USD' });
    expect(BalanceDailyQuery.parse({ days: String(BALANCE_DAYS_MAX) }).days).toBe(BALANCE_DAYS_MAX);
    for (const days of ['0', String(BALANCE_DAYS_MAX + 1), '1.5', '-1'])
      expect(BalanceDailyQuery.safeParse({ days }).success).toBe(false);
  });
});

describe('BalanceTransaction (D52)', () => {
  it('When orders answers a line, then its id is a txn id of its mode and its amount is signed', () => {
    const line = {
      id: derivedId('txn', 'live', 'seed'),
      type: 'refund',
      orderId: 'ord_live_abc',
      sourceId: 're_live_abc',
      amount: -250,
      currency: 'USD',
      createdAt: '2026-11-29T10:00:00.000Z',
      recordedAt: '2026-11-29T10:00:01.000Z',
    };
    expect(BalanceTransaction.parse(line)).toEqual(line);
    expect(line.id).toMatch(/^txn_live_[0-9A-Za-z]{24}$/);
    expect(BalanceTransaction.safeParse({ ...line, id: 're_live_abc' }).success).toBe(false);
  });
});
