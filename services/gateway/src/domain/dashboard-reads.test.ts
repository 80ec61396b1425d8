import { describe, expect, it } from 'vitest';
import { DependencyUnavailableError } from '@checkout/errors';
import { INTERNAL_API_HEADERS, type OrderSnapshot, type Scope } from '@checkout/contracts';
import { orderView, refundOrder, refundableShown, type DashboardOwners } from './dashboard-reads';
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
