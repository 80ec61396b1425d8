import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkout, CheckoutApiError, WebhookVerificationError, isCheckoutApiError, type Order } from '@checkout/sdk';
import { ANSWER, eventually, startWebhookReceiver, type WebhookReceiver } from '@checkout/testing';
import { startStack, type InProcessStack } from './support/stack';
import { uniqueId } from './support/factories';

// The happy paths of the whole API through @checkout/sdk against the full stack: what a merchant's code does.

let stack: InProcessStack;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  stack = await startStack({
    extraEnv: {
      gateway: { RATE_LIMIT_PER_WINDOW: '1000000', RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: '1000000000' },
      dispatcher: { SIGNING_SECRET_CACHE_MS: '1' },
    },
  });
});

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

async function newClient(options: ConstructorParameters<typeof Checkout>[1] = {}) {
  const org = await stack.admin.createOrganizationWithKeys(uniqueId('SDK Org'));
  return {
    organizationId: org.organizationId,
    client: new Checkout(org.testKey, { baseUrl: stack.gatewayUrl, ...options }),
    testKey: org.testKey,
  };
}

const latte = { items: [{ name: 'Latte', quantity: 2, unitPrice: 450 }] };

describe('@checkout/sdk orders', () => {
  it('When an order is created, retrieved, updated and cancelled, then each call returns the typed order', async () => {
    const { client } = await newClient();
    const created = await client.orders.create({ ...latte, metadata: { cart: 'c1' } });
    expect(created).toMatchObject({
      status: 'open',
      paymentStatus: 'unpaid',
      amounts: { total: 900 },
      metadata: { cart: 'c1' },
    });
    expect((await client.orders.retrieve(created.id)).id).toBe(created.id);
    const updated = await client.orders.update(created.id, { items: [{ name: 'Mocha', quantity: 1, unitPrice: 500 }] });
    expect(updated.amounts.total).toBe(500);
    expect((await client.orders.cancel(created.id)).status).toBe('cancelled');
  });

  it('When orders span several pages, then for await visits each once, newest first, with the filter applied', async () => {
    const { client } = await newClient();
    const made: Order[] = [];
    for (let i = 0; i < 5; i += 1)
      made.push(await client.orders.create({ items: [{ name: `Item ${i}`, quantity: 1, unitPrice: 100 + i }] }));
    await client.orders.cancel(made[0]?.id ?? '');
    const seen: string[] = [];
    for await (const order of client.orders.list({ status: 'open', limit: 2 })) seen.push(order.id);
    expect(seen).toEqual(
      made
        .slice(1)
        .reverse()
        .map((o) => o.id),
    );
    const firstPage = await client.orders.list({ limit: 2 });
    expect(firstPage.pagination).toEqual({ page: 1, limit: 2, total: 5, hasMore: true });
  });

  it('When the answer to a create is lost, then the SDK retries with the same Idempotency-Key and one order exists (D42)', async () => {
    let calls = 0;
    const lossy: typeof fetch = async (input, init) => {
      calls += 1;
      const response = await fetch(input, init);
      if (calls === 1) throw new TypeError('socket hang up (simulated after the server answered)');
      return response;
    };
    const { client: plain, testKey } = await newClient();
    const client = new Checkout(testKey, { baseUrl: stack.gatewayUrl, fetch: lossy, retryDelayMs: 10 });
    const order = await client.orders.create(latte);
    expect(calls).toBe(2);
    const all = await plain.orders.list().toArray();
    expect(all.map((o) => o.id)).toEqual([order.id]);
  });

  it('When the API refuses a call, then a CheckoutApiError carries code, details and requestId', async () => {
    const { client } = await newClient();
    const invalid = await client.orders.create({ items: [] }).catch((err: unknown) => err);
    expect(invalid).toBeInstanceOf(CheckoutApiError);
    expect(invalid).toMatchObject({
      status: 400,
      code: 'ORDER_CREATE_FAILED',
      details: [expect.objectContaining({ path: 'items' })],
    });
    expect((invalid as CheckoutApiError).requestId).toMatch(/.+/);
    const missing = await client.orders.retrieve('ord_test_000000000000000000000000').catch((err: unknown) => err);
    expect(isCheckoutApiError(missing, 'ORDER_NOT_FOUND')).toBe(true);
  });
});

describe('@checkout/sdk checkout sessions, test helpers, events and webhooks', () => {
  it('When a session is created, extended, paid with a test helper, then its signed webhook verifies with webhooks.verify and the event is listed (D29, D35)', async () => {
    const { client, organizationId } = await newClient();
    const { webhookSigningSecret } = await stack.admin.call<{ webhookSigningSecret: string }>(
      'PATCH',
      `/organizations/${organizationId}/checkout-settings`,
      { mode: 'test', webhookSigning: true },
    );
    const path = `/hooks/${uniqueId('sdk')}`;
    receiver.answer(path, ANSWER.ok);

    const session = await client.checkoutSessions.create({
      ...latte,
      callbackUrl: receiver.url(path),
      expiresInMinutes: 30,
    });
    expect(session).toMatchObject({ status: 'pending', active: true, order: { amounts: { total: 900 } } });
    const extended = await client.checkoutSessions.update(session.id, {
      extendExpiry: 10,
      sessionData: { step: 'review' },
    });
    expect(Date.parse(extended.expiresAt) - Date.parse(session.expiresAt)).toBe(10 * 60_000);
    expect((await client.checkoutSessions.retrieve(session.id)).sessionData).toEqual({ step: 'review' });

    const paid = await client.testHelpers.checkoutSessions.pay(session.id);
    expect(paid.status).toBe('completed');

    const delivery = await receiver.nextDelivery({ path, timeoutMs: 20_000 });
    const event = client.webhooks.verify(delivery.body, delivery.headers, webhookSigningSecret);
    expect(event).toMatchObject({
      event: 'checkout.session.completed',
      session: { id: session.id, status: 'completed' },
    });
    expect(() =>
      client.webhooks.verify(delivery.body.replace('completed', 'expired'), delivery.headers, webhookSigningSecret),
    ).toThrow(WebhookVerificationError);

    const listed = await eventually(
      async () =>
        (await client.events.list({ type: 'checkout.session.completed' }).toArray()).find((e) => e.id === event.id),
      { deadlineMs: 20_000 },
    );
    expect(listed).toMatchObject({ event: 'checkout.session.completed', session: { id: session.id } });
    const detail = await eventually(
      async () => {
        const found = await client.events.retrieve(event.id);
        return found.deliveries[0]?.status === 'succeeded' ? found : undefined;
      },
      { deadlineMs: 20_000 },
    );
    const redelivery = await client.events.redeliver(event.id);
    expect(redelivery.id).not.toBe(detail.deliveries[0]?.id);
  });

  it('When a paid order is refunded, listed, read, and a pending test refund settled, then each call returns the typed refund (D48)', async () => {
    const { client } = await newClient();
    const session = await client.checkoutSessions.create(latte);
    await client.testHelpers.checkoutSessions.pay(session.id);
    const refund = await client.refunds.create(session.order.id, { amount: 300, reason: 'requested_by_customer' });
    expect(refund).toMatchObject({ orderId: session.order.id, amount: 300, status: 'succeeded' });
    const pending = await client.testHelpers.refunds.create(session.order.id, { amount: 100, outcome: 'pending' });
    expect(pending.status).toBe('pending');
    expect((await client.testHelpers.refunds.settle(pending.id, { outcome: 'succeeded' })).status).toBe('succeeded');
    expect(await client.refunds.retrieve(refund.id)).toEqual(refund);
    const listed = await client.refunds.list(session.order.id).toArray();
    expect(listed.map((r) => r.id)).toEqual([pending.id, refund.id]);
    expect((await client.orders.retrieve(session.order.id)).amounts.refunded).toBe(400);
    await expect(client.refunds.create(session.order.id, { amount: 501 })).rejects.toSatisfy((err: unknown) =>
      isCheckoutApiError(err, 'REFUND_FAILED'),
    );
  });

  it('When a pending session is expired with the test helper, then it is expired', async () => {
    const { client } = await newClient();
    const session = await client.checkoutSessions.create(latte);
    expect((await client.testHelpers.checkoutSessions.expire(session.id)).status).toBe('expired');
  });
});
