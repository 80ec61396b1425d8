import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openTestDatabase } from '@checkout/mongo/testing';
import type { Mode } from '@checkout/contracts';
import { OrdersStore } from '../../src/store/orders.store';
import type { OrderDocument } from '../../src/store/order.document';
import { paymentsChartStart, paymentsPerHour } from '../../src/domain/payments-per-hour';

// D47's payments chart is summed by the database (a merchant's 10⁶ one-cent payments are never read into the
// orders process's memory): this checks the aggregation's answers on the real engine. bench/src/dashboard.ts
// shows the memory.

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let store: OrdersStore;
const now = new Date('2026-11-24T10:30:00.000Z');
const scope = { organizationId: 'org_chart', mode: 'test' as Mode };

/** Only what the chart reads: the tenant and the embedded payments. */
function order(tenant: typeof scope, payments: { amount: number; appliedAt: string }[]): OrderDocument {
  return {
    _id: `ord_test_${randomBytes(8).toString('hex')}`,
    ...tenant,
    payments: payments.map((p, i) => ({
      paymentId: `pay_${i}`,
      method: 'card',
      ...p,
      appliedAt: new Date(p.appliedAt),
    })),
  } as unknown as OrderDocument;
}

beforeAll(async () => {
  database = await openTestDatabase(inject('engines').mongoUrl, `orders_chart_${randomBytes(4).toString('hex')}`);
  store = new OrdersStore(database.db);
});

afterAll(() => database?.stop());

describe('paymentsPerHourSince (D47: the payments chart, summed in the database)', () => {
  it('When payments were applied in several hours of the window and before it, then each hour has its count and exact amount, and other tenants are apart', async () => {
    await store.collection.insertMany([
      order(scope, [
        { amount: 100, appliedAt: '2026-11-24T10:05:00.000Z' },
        { amount: 999, appliedAt: '2026-11-17T10:59:59.999Z' },
      ]),
      order(scope, [
        { amount: 250, appliedAt: '2026-11-24T10:59:59.999Z' },
        { amount: 40, appliedAt: '2026-11-24T08:00:00.000Z' },
      ]),
      order(scope, [{ amount: 7, appliedAt: '2026-11-17T11:00:00.000Z' }]),
      order({ ...scope, mode: 'live' }, [{ amount: 5, appliedAt: '2026-11-24T10:05:00.000Z' }]),
      order({ ...scope, organizationId: 'org_other' }, [{ amount: 5, appliedAt: '2026-11-24T10:05:00.000Z' }]),
    ]);
    const totals = await store.paymentsPerHourSince(scope, paymentsChartStart(now));
    expect([...totals].sort((a, b) => a.hour - b.hour)).toEqual([
      { hour: 0, count: 1, amount: 7 },
      { hour: 165, count: 1, amount: 40 },
      { hour: 167, count: 2, amount: 350 },
    ]);
    const chart = paymentsPerHour(totals, now);
    expect(chart.hours.at(-1)).toEqual({ hour: new Date('2026-11-24T10:00:00.000Z'), count: 2, amount: 350 });
    expect(chart.hours[0]).toEqual({ hour: new Date('2026-11-17T11:00:00.000Z'), count: 1, amount: 7 });
  });
});
