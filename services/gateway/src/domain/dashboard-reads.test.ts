import { describe, expect, it } from 'vitest';
import { DependencyUnavailableError } from '@checkout/errors';
import { INTERNAL_API_HEADERS, type OrderSnapshot, type Scope } from '@checkout/contracts';
import {
  BALANCE_CHART_DAYS,
  balanceView,
  orderView,
  refundOrder,
  refundableShown,
  type DashboardOwners,
} from './dashboard-reads';
import type { OwnerAnswer } from './owners';

const scope: Scope = { organizationId: 'org_1', mode: 'test' };

describe("the order page's Refund form (D48)", () => {
  it('When an order has refunds, then it offers what was paid less the refunds not failed', () => {
    expect(
      refundableShown(10_000, [
        { amount: 2_500, status: 'succeeded' },
        { amount: 1_000, status: 'pending' },
        { amount: 4_000, status: 'failed' },
      ]),
    ).toBe(6_500);
  });

  it('When the order page is read, then its order, payments and refunds come together with what is refundable', async () => {
    const orders = {
      getOrder: async () => ({ order: { id: 'ord_1', amounts: { paid: 5_000 } } }),
      orderPayments: async () => ({ payments: [{ id: 'pay_1' }] }),
      orderRefunds: async () => ({ refunds: [{ amount: 2_000, status: 'succeeded' }] }),
    } as unknown as DashboardOwners['orders'];
    const view = await orderView({ orders }, scope, 'req_1', 'ord_1');
    expect(view).toMatchObject({ order: { id: 'ord_1' }, payments: [{ id: 'pay_1' }], refundable: 3_000 });
  });
});

describe('a refund from the dashboard reaches the checkout session before the page answers (D46, D48)', () => {
  const refunded = (headers: OwnerAnswer['headers']) => {
    const copies: { sessionId: string; snapshot: OrderSnapshot }[] = [];
    const owners = {
      orders: {
        createRefund: async () => ({ status: 201, headers, body: { order: { id: 'ord_1' } } }),
      } as unknown as DashboardOwners['orders'],
      sessions: {
        copyOrder: async (_scope: Scope, _requestId: string, sessionId: string, snapshot: OrderSnapshot) => {
          copies.push({ sessionId, snapshot });
        },
      } as unknown as DashboardOwners['sessions'],
    };
    return { owners, copies };
  };

  it("When orders' answer names a session, then the session gets the order at orders' revision", async () => {
    const { owners, copies } = refunded({
      [INTERNAL_API_HEADERS.checkoutSessionId]: 'cs_1',
      [INTERNAL_API_HEADERS.orderRevision]: '7',
    });
    await refundOrder(owners, scope, 'req_1', 'ord_1', { body: { amount: 100 }, formKey: 'k'.repeat(16) });
    expect(copies).toEqual([{ sessionId: 'cs_1', snapshot: { order: { id: 'ord_1' }, revision: 7 } }]);
  });

  it('When no session shows the order, then nothing is copied; without a revision, then 503 (the page must not say done)', async () => {
    const none = refunded({});
    await refundOrder(none.owners, scope, 'req_1', 'ord_1', { body: {}, formKey: 'k'.repeat(16) });
    expect(none.copies).toEqual([]);
    const unrevised = refunded({ [INTERNAL_API_HEADERS.checkoutSessionId]: 'cs_1' });
    await expect(
      refundOrder(unrevised.owners, scope, 'req_1', 'ord_1', { body: {}, formKey: 'k'.repeat(16) }),
    ).rejects.toBeInstanceOf(DependencyUnavailableError);
    expect(unrevised.copies).toEqual([]);
  });
});

describe('the Balance page reads (D52)', () => {
  const owners = (asked: string[]) => ({
    orders: {
      balance: async () => {
        asked.push('balance');
        return { balance: { currency: 'USD', payments: 10, refunds: 0, net: 10, count: 1, asOf: 't' } };
      },
      balanceDaily: async (_s: Scope, _r: string, days: number) => {
        asked.push(`daily ${days}`);
        return { days: [{ day: '2026-11-28', payments: 10, refunds: 0, net: 10 }] };
      },
      listBalanceTransactions: async (_s: Scope, _r: string, query: Record<string, string | undefined>) => {
        asked.push(`list ${JSON.stringify(query)}`);
        return { balanceTransactions: [], pagination: { page: 2, limit: 25, hasMore: false } };
      },
      getReport: async (_s: Scope, _r: string, id: string) => {
        asked.push(`report ${id}`);
        return { report: { id, status: 'pending' } };
      },
    } as unknown as DashboardOwners['orders'],
  });

  it("When the page is read, then totals, the chart's days, one page of 25 lines with the filters, and the report only when one is asked about", async () => {
    const asked: string[] = [];
    const view = await balanceView(owners(asked), scope, 'req_1', {
      query: { type: 'refund', orderId: undefined },
      page: '2',
    });
    expect(view).toMatchObject({ balance: { net: 10 }, days: [{ day: '2026-11-28' }], report: undefined });
    expect(asked).toEqual(['balance', `daily ${BALANCE_CHART_DAYS}`, 'list {"type":"refund","page":"2","limit":"25"}']);
    const withReport: string[] = [];
    const shown = await balanceView(owners(withReport), scope, 'req_1', {
      query: {},
      page: undefined,
      reportId: 'rpt_test_1',
    });
    expect(shown.report).toEqual({ id: 'rpt_test_1', status: 'pending' });
    expect(withReport).toContain('report rpt_test_1');
  });
});
