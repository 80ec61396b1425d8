import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafka } from '@checkout/kafka';
import { readTopic } from '@checkout/kafka/testing';
import { request } from 'undici';
import { TOPICS, topicName } from '@checkout/contracts';
import { eventually } from '@checkout/testing';
import type { OrdersApp } from '../../src/app';
import { CALLER_TOKENS, internalCaller, startOrdersApp } from './support';

// The orders service alone, in-process on port 0, on the real engines: its internal API, its outbox event,
// and the at-most-once and race rules that sessions rely on (D25, D27, D28).

const suffix = randomBytes(4).toString('hex');
const scope = { 'x-organization-id': `org_${suffix}`, 'x-mode': 'test' };
let app: OrdersApp;
let baseUrl: string;
let probe: Awaited<ReturnType<typeof readTopic>>;
const cancelledEvents: string[] = [];

const call = internalCaller(() => baseUrl, scope);

/** A checkout session's order, made as sessions makes it: sessions pays and expires only such orders. */
async function newOrder(total = 1000): Promise<string> {
  const { status, body } = await call(
    'POST',
    '/internal/orders',
    { items: [{ name: 'Item', quantity: 1, unitPrice: total }] },
    { session: `cs_test_${randomBytes(12).toString('hex')}` },
  );
  expect(status).toBe(201);
  return body.order.id as string;
}

beforeAll(async () => {
  const { kafkaBrokers, prefix, ...started } = await startOrdersApp(`component-${suffix}`);
  ({ app, url: baseUrl } = started);
  probe = await readTopic({
    kafka: createKafka({ brokers: kafkaBrokers, clientId: 'orders-component-probe' }),
    topic: topicName(prefix, TOPICS.orderEvents),
    groupId: `${prefix}.test`,
    onMessage: (message) => {
      const event = JSON.parse(message.value || '{}') as { type: string; orderId: string };
      if (event.type === 'order.cancelled') cancelledEvents.push(event.orderId);
    },
  });
});

afterAll(async () => {
  await probe?.stop();
  await app?.stop();
});

describe('Internal orders API', () => {
  it("When sessions asks for a merchant's own order (not a checkout session's), then it is not found, and sessions may not list orders", async () => {
    const { body } = await call('POST', '/internal/orders', { items: [{ name: 'Item', quantity: 1, unitPrice: 100 }] });
    const merchants = body.order.id as string;
    const asSessions = { as: 'sessions' as const };
    expect((await call('GET', '/internal/orders', undefined, asSessions)).status).toBe(403);
    const refused = [
      await call('GET', `/internal/orders/${merchants}`, undefined, asSessions),
      await call('PATCH', `/internal/orders/${merchants}`, { metadata: { a: 'b' } }, asSessions),
      await call('POST', `/internal/orders/${merchants}/cancel`, undefined, asSessions),
      await call('POST', `/internal/orders/${merchants}/payments`, { paymentId: `pay_${suffix}m`, method: 'card' }),
      await call('POST', `/internal/orders/${merchants}/close-payments`),
    ];
    expect(refused.map((r) => [r.status, r.body.code])).toEqual(Array(5).fill([404, 'ORDER_NOT_FOUND']));
    const untouched = await call('GET', `/internal/orders/${merchants}`);
    expect(untouched.body.order).toMatchObject({ status: 'open', amounts: { paid: 0 }, metadata: {} });
    // Its own sessions' orders, sessions reads, edits and cancels as before; the gateway lists them all.
    const own = await newOrder(100);
    expect((await call('GET', `/internal/orders/${own}`, undefined, asSessions)).status).toBe(200);
    expect((await call('POST', `/internal/orders/${own}/cancel`, undefined, asSessions)).body.order.status).toBe(
      'cancelled',
    );
    expect((await call('GET', '/internal/orders')).status).toBe(200);
  });

  it('When a call lacks the internal token, then 401 UNAUTHORIZED', async () => {
    const response = await request(`${baseUrl}/internal/orders`, { headers: scope });
    expect(response.statusCode).toBe(401);
    expect(((await response.body.json()) as { code: string }).code).toBe('UNAUTHORIZED');
  });

  it('When an order is cancelled, then order.cancelled reaches orders.events once, keyed by the order (D25)', async () => {
    const id = await newOrder();
    expect((await call('POST', `/internal/orders/${id}/cancel`)).body.order.status).toBe('cancelled');
    await call('POST', `/internal/orders/${id}/cancel`);
    await eventually(() => cancelledEvents.includes(id), {
      deadlineMs: 20_000,
      description: 'the order.cancelled event',
    });
    expect(cancelledEvents.filter((x) => x === id)).toHaveLength(1);
  });

  it('When the same payment id is applied twice, then it counts once; reaching the total completes the order with paidAt (D19, D27)', async () => {
    const id = await newOrder(1000);
    const partial = await call('POST', `/internal/orders/${id}/payments`, {
      paymentId: `pay_test_${suffix}a`,
      amount: 400,
      method: 'stablecoin',
    });
    expect(partial.body).toMatchObject({
      outcome: 'applied',
      order: { status: 'open', paymentStatus: 'partially_paid', amounts: { paid: 400 } },
    });
    const again = await call('POST', `/internal/orders/${id}/payments`, {
      paymentId: `pay_test_${suffix}a`,
      amount: 400,
      method: 'stablecoin',
    });
    expect(again.body).toMatchObject({ outcome: 'already_applied', order: { amounts: { paid: 400 } } });
    const rest = await call('POST', `/internal/orders/${id}/payments`, {
      paymentId: `pay_test_${suffix}b`,
      amount: 700,
      method: 'stablecoin',
    });
    expect(rest.body.order).toMatchObject({ status: 'completed', paymentStatus: 'overpaid', amounts: { paid: 1100 } });
    expect(rest.body.order.paidAt).toMatch(/Z$/);
    expect((await call('POST', `/internal/orders/${id}/cancel`)).body.code).toBe('ORDER_CANCEL_FAILED');
    expect((await call('PATCH', `/internal/orders/${id}`, { metadata: { a: 'b' } })).body.code).toBe(
      'ORDER_NOT_EDITABLE',
    );
  });

  it('When a payment races a cancel 25 times, then each order ends either completed and paid or cancelled and unpaid', async () => {
    for (let run = 0; run < 25; run++) {
      const id = await newOrder(500);
      const [pay, cancel] = await Promise.all([
        call('POST', `/internal/orders/${id}/payments`, {
          paymentId: `pay_test_race${suffix}${run}`,
          amount: 500,
          method: 'card',
        }),
        call('POST', `/internal/orders/${id}/cancel`),
      ]);
      const order = (await call('GET', `/internal/orders/${id}`)).body.order;
      if (order.status === 'completed') {
        expect(pay.status).toBe(200);
        expect(cancel.body.code).toBe('ORDER_CANCEL_FAILED');
        expect(order.amounts.paid).toBe(500);
      } else {
        expect(order).toMatchObject({ status: 'cancelled', paymentStatus: 'unpaid', amounts: { paid: 0 } });
        expect(cancel.status).toBe(200);
        expect(pay.body.code).toBe('ORDER_NOT_PAYABLE');
      }
    }
  });

  it('When 20 concurrent first orders use one new customer email, then all share one customer (D11)', async () => {
    const email = `race-${suffix}@example.com`;
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        call('POST', '/internal/orders', { items: [{ name: 'X', quantity: 1, unitPrice: 1 }], customer: { email } }),
      ),
    );
    expect(new Set(responses.map((r) => r.body.order.customer.id)).size).toBe(1);
  });
});

describe("The dashboard's reads (D47)", () => {
  const otherScope = { 'x-organization-id': `org_other_${suffix}`, 'x-mode': 'test' };
  const asGateway = async (path: string, headers: Record<string, string> = scope, token = CALLER_TOKENS.gateway) => {
    const response = await request(`${baseUrl}${path}`, { headers: { ...headers, 'x-internal-token': token } });
    return { status: response.statusCode, body: (await response.body.json()) as any };
  };

  it("When an order has payments, then the gateway reads them, oldest first; another organization's scope gets 404 and sessions may not read them", async () => {
    const id = await newOrder(1000);
    await call('POST', `/internal/orders/${id}/payments`, {
      paymentId: `pay_test_${suffix}d1`,
      amount: 300,
      method: 'stablecoin',
    });
    await call('POST', `/internal/orders/${id}/payments`, {
      paymentId: `pay_test_${suffix}d2`,
      amount: 700,
      method: 'card',
    });
    const read = await asGateway(`/internal/orders/${id}/payments`);
    expect(read.status).toBe(200);
    expect(
      read.body.payments.map((p: { id: string; amount: number; method: string }) => [p.id, p.amount, p.method]),
    ).toEqual([
      [`pay_test_${suffix}d1`, 300, 'stablecoin'],
      [`pay_test_${suffix}d2`, 700, 'card'],
    ]);
    expect(read.body.payments[0].appliedAt).toMatch(/Z$/);
    expect((await asGateway(`/internal/orders/${id}/payments`, otherScope)).body.code).toBe('ORDER_NOT_FOUND');
    expect((await asGateway(`/internal/orders/${id}/payments`, scope, CALLER_TOKENS.sessions)).status).toBe(403);
  });

  it('When payments were applied this hour, then payments per hour counts them in the last of 168 buckets, for this organization only', async () => {
    const before = await asGateway('/internal/orders/payments-per-hour');
    expect(before.status).toBe(200);
    expect(before.body.hours).toHaveLength(168);
    const id = await newOrder(500);
    await call('POST', `/internal/orders/${id}/payments`, {
      paymentId: `pay_test_${suffix}h1`,
      amount: 500,
      method: 'card',
    });
    const after = await asGateway('/internal/orders/payments-per-hour');
    const total = (body: { hours: { count: number }[] }) => body.hours.reduce((n, h) => n + h.count, 0);
    expect(total(after.body)).toBe(total(before.body) + 1);
    expect(after.body.hours.at(-1).count).toBeGreaterThanOrEqual(1);
    expect(total((await asGateway('/internal/orders/payments-per-hour', otherScope)).body)).toBe(0);
  });

  it('When orders are listed by externalId, then only that order is found, and not from another organization', async () => {
    const externalId = `dash-${suffix}`;
    const { body } = await call('POST', '/internal/orders', {
      externalId,
      items: [{ name: 'Item', quantity: 1, unitPrice: 100 }],
    });
    await newOrder();
    const found = await asGateway(`/internal/orders?externalId=${externalId}`);
    expect(found.body.orders.map((o: { id: string }) => o.id)).toEqual([body.order.id]);
    expect(found.body.pagination.total).toBe(1);
    expect((await asGateway(`/internal/orders?externalId=${externalId}`, otherScope)).body.orders).toEqual([]);
  });

  it('When the dashboard lists without a total, then the page has hasMore from one more order and no total; the API list still counts', async () => {
    const externalScope = { 'x-organization-id': `org_pages_${suffix}`, 'x-mode': 'test' };
    const make = async () => {
      const response = await request(`${baseUrl}/internal/orders`, {
        method: 'POST',
        headers: { ...externalScope, 'x-internal-token': CALLER_TOKENS.gateway, 'content-type': 'application/json' },
        body: JSON.stringify({ items: [{ name: 'Item', quantity: 1, unitPrice: 100 }] }),
      });
      return ((await response.body.json()) as { order: { id: string } }).order.id;
    };
    const ids = [await make(), await make(), await make()];
    const page = async (n: number) =>
      (await asGateway(`/internal/orders?limit=2&page=${n}`, { ...externalScope, 'x-list-without-total': '1' })).body;
    const first = await page(1);
    expect(first.orders.map((o: { id: string }) => o.id)).toEqual([ids[2], ids[1]]);
    expect(first.pagination).toEqual({ page: 1, limit: 2, hasMore: true });
    expect((await page(2)).pagination).toEqual({ page: 2, limit: 2, hasMore: false });
    expect((await asGateway('/internal/orders?limit=2', externalScope)).body.pagination).toEqual({
      page: 1,
      limit: 2,
      total: 3,
      hasMore: true,
    });
  });
});
