import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '@checkout/testing';
import { PROCESSOR_SIGNATURE_HEADER, signProcessorPayload, type Refund } from '@checkout/contracts';
import { startStack, type InProcessStack } from './support/stack';
import { Api, type ApiResponse } from './support/api';
import { buildOrderInput, buildSessionInput } from './support/factories';

// D48 (refunds) and D49 (their events) end to end through the gateway, all four services on the real engines:
// the API, its test helpers and the live processor's notifications, the session's copy of the order right after a
// refund (D46), the events recorded in the events API (and never sent to a session's callback URL), and the races
// of the issue: concurrent refunds of one order, a refund racing a late payment notification.

let stack: InProcessStack;
let test: Api;
let live: Api;
let other: Api;
let receiver: WebhookReceiver;

const TOTAL = 1125; // buildOrderInput: 2 × 350 + 425

beforeAll(async () => {
  stack = await startStack({
    extraEnv: {
      gateway: {
        RATE_LIMIT_PER_WINDOW: '1000000',
        RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: '1000000000',
        CLIENT_RATE_LIMIT_PER_WINDOW: '1000000',
      },
      // The sweep publishes order.paid (a payment's events are left to it, as before): every second here.
      orders: { OUTBOX_SWEEP_INTERVAL_MS: '1000' },
    },
  });
  const org = await stack.admin.createOrganizationWithKeys(`Refunds ${randomBytes(3).toString('hex')}`);
  test = new Api(stack.gatewayUrl, org.testKey);
  live = new Api(stack.gatewayUrl, org.liveKey);
  other = new Api(stack.gatewayUrl, (await stack.admin.createOrganizationWithKeys('Other refunds org')).testKey);
  receiver = await startWebhookReceiver();
});

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

async function paidSession(
  api: Api = test,
  extra: Record<string, unknown> = {},
): Promise<{ sessionId: string; orderId: string }> {
  const created = await api.post('/v0/checkout/sessions', buildSessionInput(extra));
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const session = created.body.session;
  const paid = await api.post(`/v0/test_helpers/checkout/sessions/${session.id}/pay`, {});
  expect(paid.body.session.status).toBe('completed');
  return { sessionId: session.id, orderId: session.order.id };
}

/** The live processor's signed notification, through the gateway as the processor sends it. */
async function processor(
  path: 'notifications' | 'refund_notifications',
  body: unknown,
  secret = path === 'notifications' ? stack.env.processorWebhookSecret : stack.env.processorRefundWebhookSecret,
): Promise<ApiResponse> {
  const raw = JSON.stringify(body);
  const t = Math.floor(Date.now() / 1000);
  return new Api(stack.gatewayUrl, undefined).send(
    'POST',
    `/v0/processor/${path}`,
    undefined,
    {
      'content-type': 'application/json',
      [PROCESSOR_SIGNATURE_HEADER]: signProcessorPayload(secret, raw, t),
    },
    raw,
  );
}

const payNotification = (sessionId: string, amount: number) => ({
  paymentId: `pay_live_${randomBytes(8).toString('hex')}`,
  sessionId,
  amount,
  method: 'card',
  capturedAt: new Date().toISOString(),
});

describe('POST /v0/orders/:orderId/refunds (D48)', () => {
  it("When a paid session's order is refunded in part, then 201 {refund} and the session's next read shows amounts.refunded and partially_refunded (D46)", async () => {
    const { sessionId, orderId } = await paidSession();
    const refunded = await test.post(`/v0/orders/${orderId}/refunds`, { amount: 125, reason: 'requested_by_customer' });
    expect(refunded.status).toBe(201);
    expect(Object.keys(refunded.body)).toEqual(['refund']);
    expect(refunded.body.refund).toMatchObject({
      orderId,
      amount: 125,
      currency: 'USD',
      status: 'succeeded',
      reason: 'requested_by_customer',
      metadata: {},
    });
    const session = (await test.get(`/v0/checkout/sessions/${sessionId}`)).body.session;
    expect(session.status).toBe('completed');
    expect(session.order).toMatchObject({
      status: 'completed',
      paymentStatus: 'partially_refunded',
      amounts: { paid: TOTAL, refunded: 125 },
    });
    expect(session.order).toEqual((await test.get(`/v0/orders/${orderId}`)).body.order);

    const rest = await test.post(`/v0/orders/${orderId}/refunds`);
    expect(rest.body.refund.amount).toBe(TOTAL - 125);
    const after = (await test.get(`/v0/checkout/sessions/${sessionId}`)).body.session.order;
    expect(after).toMatchObject({ status: 'completed', paymentStatus: 'refunded', amounts: { refunded: TOTAL } });
    const more = await test.post(`/v0/orders/${orderId}/refunds`, { amount: 1 });
    expect(more).toMatchObject({ status: 400, body: { code: 'REFUND_FAILED' } });
  });

  it('When refunds are listed and read, then newest first, paginated as orders, and another organization sees none of them (D4, D20)', async () => {
    const { orderId } = await paidSession();
    const made: Refund[] = [];
    for (const amount of [10, 20, 30])
      made.push((await test.post(`/v0/orders/${orderId}/refunds`, { amount })).body.refund);
    const page1 = await test.get(`/v0/orders/${orderId}/refunds?limit=2`);
    expect(page1.body.pagination).toEqual({ page: 1, limit: 2, total: 3, hasMore: true });
    expect(page1.body.refunds.map((r: Refund) => r.amount)).toEqual([30, 20]);
    const page2 = await test.get(`/v0/orders/${orderId}/refunds?limit=2&page=2`);
    expect(page2.body.refunds.map((r: Refund) => r.id)).toEqual([made[0]?.id]);
    expect((await test.get(`/v0/refunds/${made[1]?.id}`)).body).toEqual({ refund: made[1] });

    expect((await other.get(`/v0/refunds/${made[1]?.id}`)).body.code).toBe('REFUND_NOT_FOUND');
    expect((await other.get(`/v0/orders/${orderId}/refunds`)).body.code).toBe('ORDER_NOT_FOUND');
    expect((await live.get(`/v0/refunds/${made[1]?.id}`)).status).toBe(404);
    expect((await test.get('/v0/refunds/re_bad')).body.code).toBe('INVALID_REFUND_ID');
    expect((await test.get('/v0/refunds/ord_test_abc')).body.code).toBe('INVALID_REFUND_ID');
    expect((await test.get(`/v0/orders/${orderId}/refunds?limit=0`)).body.code).toBe('INVALID_REQUEST');
  });

  it('When an order received nothing (cancelled or unpaid), then 400 REFUND_FAILED; an overpaid order refunds what it received', async () => {
    const order = (await test.post('/v0/orders', buildOrderInput())).body.order;
    expect((await test.post(`/v0/orders/${order.id}/refunds`)).body.code).toBe('REFUND_FAILED');
    await test.post(`/v0/orders/${order.id}/cancel`);
    expect((await test.post(`/v0/orders/${order.id}/refunds`, { amount: 1 })).body.code).toBe('REFUND_FAILED');

    const session = (await test.post('/v0/checkout/sessions', buildSessionInput())).body.session;
    await test.post(`/v0/test_helpers/checkout/sessions/${session.id}/pay`, {
      method: 'stablecoin',
      amount: TOTAL + 500,
    });
    const excess = await test.post(`/v0/orders/${session.order.id}/refunds`, { amount: 500, reason: 'duplicate' });
    expect(excess.status).toBe(201);
    const refunded = (await test.get(`/v0/orders/${session.order.id}`)).body.order;
    expect(refunded).toMatchObject({
      paymentStatus: 'partially_refunded',
      amounts: { paid: TOTAL + 500, refunded: 500 },
    });
  });

  it('When a malformed body is sent, then 400 REFUND_FAILED with details (D7); not a JSON object, INVALID_REQUEST', async () => {
    const { orderId } = await paidSession();
    for (const body of [
      { amount: -5 },
      { amount: '5' },
      { reason: 'because' },
      { metadata: { k: 1 } },
      { refund: true },
    ]) {
      const refused = await test.post(`/v0/orders/${orderId}/refunds`, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.code).toBe('REFUND_FAILED');
      expect(refused.body.details.length).toBeGreaterThan(0);
    }
    const notObject = await test.send('POST', `/v0/orders/${orderId}/refunds`, undefined, {}, '[1]');
    expect(notObject.body.code).toBe('INVALID_REQUEST');
    expect((await test.post('/v0/orders/ord_nope/refunds', {})).body.code).toBe('INVALID_ORDER_ID');
  });

  it('When a refund is retried with its Idempotency-Key, then the first answer is replayed and one refund exists; another body with it is 409 (D42)', async () => {
    const { orderId } = await paidSession();
    const key = { 'idempotency-key': `refund-${randomBytes(6).toString('hex')}` };
    const first = await test.post(`/v0/orders/${orderId}/refunds`, { amount: 100 }, key);
    const again = await test.post(`/v0/orders/${orderId}/refunds`, { amount: 100 }, key);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await test.post(`/v0/orders/${orderId}/refunds`, { amount: 200 }, key)).body.code).toBe(
      'IDEMPOTENCY_KEY_REUSED',
    );
    expect((await test.get(`/v0/orders/${orderId}/refunds`)).body.pagination.total).toBe(1);
  });
});

describe('test helpers (D48, D29)', () => {
  it('When a pending refund is made and settled, then it moves only when settled; a live key gets 404 NOT_FOUND', async () => {
    const { sessionId, orderId } = await paidSession();
    const pending = await test.post(`/v0/test_helpers/orders/${orderId}/refunds`, { amount: 300, outcome: 'pending' });
    expect(pending.status).toBe(201);
    expect(Object.keys(pending.body)).toEqual(['refund']);
    expect(pending.body.refund.status).toBe('pending');
    const settled = await test.post(`/v0/test_helpers/refunds/${pending.body.refund.id}/settle`, {
      outcome: 'succeeded',
    });
    expect(settled.body.refund).toMatchObject({ status: 'succeeded', amount: 300 });
    expect((await test.get(`/v0/checkout/sessions/${sessionId}`)).body.session.order.amounts.refunded).toBe(300);
    const failed = await test.post(`/v0/test_helpers/orders/${orderId}/refunds`, { amount: 5, outcome: 'failed' });
    expect(failed.body.refund).toMatchObject({ status: 'failed', failureReason: 'declined' });

    const order = (await live.post('/v0/orders', buildOrderInput())).body.order;
    expect((await live.post(`/v0/test_helpers/orders/${order.id}/refunds`, {})).body.code).toBe('NOT_FOUND');
    expect(
      (await live.post(`/v0/test_helpers/refunds/${pending.body.refund.id}/settle`, { outcome: 'failed' })).body.code,
    ).toBe('NOT_FOUND');
    expect((await test.post(`/v0/test_helpers/refunds/${pending.body.refund.id}/settle`, {})).body.code).toBe(
      'REFUND_FAILED',
    );
  });
});

describe('live mode: pending until the processor says so (D48)', () => {
  it("When a live refund is made, then it is pending; the processor's signed notification settles it once, and the session's copy follows the order event", async () => {
    const session = (await live.post('/v0/checkout/sessions', buildSessionInput())).body.session;
    expect((await processor('notifications', payNotification(session.id, TOTAL))).status).toBe(200);
    const refund = (await live.post(`/v0/orders/${session.order.id}/refunds`, { amount: 400 })).body.refund;
    expect(refund).toMatchObject({ status: 'pending' });
    expect(refund.id).toMatch(/^re_live_/);
    expect((await live.get(`/v0/orders/${session.order.id}`)).body.order).toMatchObject({
      paymentStatus: 'paid',
      amounts: { refunded: 0 },
    });

    const note = { refundId: refund.id, outcome: 'succeeded', settledAt: new Date().toISOString() };
    // Refund notifications have their own secret: one signed with sessions' payment secret settles nothing.
    const forged = await processor('refund_notifications', note, stack.env.processorWebhookSecret);
    expect(forged.status).toBe(401);
    expect((await live.get(`/v0/refunds/${refund.id}`)).body.refund.status).toBe('pending');
    expect((await processor('refund_notifications', note)).body.refund.status).toBe('succeeded');
    expect((await processor('refund_notifications', note)).status).toBe(200);
    const order = (await live.get(`/v0/orders/${session.order.id}`)).body.order;
    expect(order).toMatchObject({ paymentStatus: 'partially_refunded', amounts: { refunded: 400 } });
    // Not a merchant's write: the session learns it from the order event (at least once, by revision).
    await eventually(
      async () => (await live.get(`/v0/checkout/sessions/${session.id}`)).body.session.order.amounts.refunded === 400,
      { deadlineMs: 20_000, description: "the session's copy of the settled refund" },
    );
  });
});

describe('races (D48: under any concurrency, the refunds that succeed never add up to more than paid)', () => {
  it('When 20 refunds of one order ask together for twice what was paid, then every answer is 201 or 400 REFUND_FAILED and the succeeded ones add up to at most paid', async () => {
    const { sessionId, orderId } = await paidSession();
    const share = Math.floor((2 * TOTAL) / 20);
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => test.post(`/v0/orders/${orderId}/refunds`, { amount: share })),
    );
    const elapsed = Date.now() - started;
    const statuses = answers.map((a) => `${a.status}${a.status === 400 ? ` ${a.body.code}` : ''}`);
    for (const status of statuses) expect(['201', '400 REFUND_FAILED']).toContain(status);
    const succeeded = answers.filter((a) => a.status === 201).map((a) => a.body.refund as Refund);
    const sum = succeeded.reduce((s, r) => s + r.amount, 0);
    expect(sum).toBeLessThanOrEqual(TOTAL);
    // Each refund is `share`: exactly as many as fit were admitted.
    expect(succeeded).toHaveLength(Math.floor(TOTAL / share));
    const order = (await test.get(`/v0/orders/${orderId}`)).body.order;
    expect(order.amounts.refunded).toBe(sum);
    expect((await test.get(`/v0/checkout/sessions/${sessionId}`)).body.session.order).toEqual(order);
    const listed = (await test.get(`/v0/orders/${orderId}/refunds?limit=100`)).body.refunds as Refund[];
    expect(listed.map((r) => r.id).sort()).toEqual(succeeded.map((r) => r.id).sort());
    process.stderr.write(
      `refund race: 20 concurrent refunds of ${share} on a paid ${TOTAL}: ${succeeded.length} × 201 (${sum}), ${20 - succeeded.length} × 400 REFUND_FAILED, 0 × 5xx, in ${elapsed} ms\n`,
    );
  });

  it('When a refund of all that is refundable races the late notification of the last payment (10 rounds), then what the refund took is what was paid at its instant, and the order ends paid and consistent', async () => {
    const outcomes: string[] = [];
    for (let round = 0; round < 10; round++) {
      const session = (await live.post('/v0/checkout/sessions', buildSessionInput())).body.session;
      const first = 400;
      expect((await processor('notifications', payNotification(session.id, first))).status).toBe(200);
      // The refund leaves 0–45 ms after the notification (a pacing offset, not a wait for anything), so that rounds
      // meet the payment's path (gateway, sessions, orders) at different points.
      const [late, refund] = await Promise.all([
        processor('notifications', payNotification(session.id, TOTAL - first)),
        new Promise((resolve) => setTimeout(resolve, round * 5)).then(() =>
          live.post(`/v0/orders/${session.order.id}/refunds`),
        ),
      ]);
      expect(refund.status).toBe(201);
      expect(late.status).toBe(200);
      const amount = refund.body.refund.amount as number;
      // The refund saw the order before the late payment (400) or after it (all of it): never more than was paid.
      expect([first, TOTAL]).toContain(amount);
      outcomes.push(amount === first ? 'before' : 'after');
      const note = { refundId: refund.body.refund.id, outcome: 'succeeded', settledAt: new Date().toISOString() };
      expect((await processor('refund_notifications', note)).status).toBe(200);
      const order = (await live.get(`/v0/orders/${session.order.id}`)).body.order;
      expect(order).toMatchObject({
        status: 'completed',
        paymentStatus: amount === TOTAL ? 'refunded' : 'partially_refunded',
        amounts: { paid: TOTAL, refunded: amount },
      });
      expect((await live.post(`/v0/orders/${session.order.id}/refunds`)).status).toBe(amount === TOTAL ? 400 : 201);
    }
    process.stderr.write(
      `refund racing a late payment, 10 rounds: the refund came ${outcomes.join(', ')} the payment\n`,
    );
  });
});

describe('events (D49)', () => {
  it("When an order is paid and refunded, then order.created, order.paid, refund.created and refund.succeeded are in the events API, and the session's callback URL receives only checkout.session.completed", async () => {
    const path = `/hooks-${randomBytes(3).toString('hex')}`;
    const { sessionId, orderId } = await paidSession(test, { callbackUrl: receiver.url(path) });
    const refund = (await test.post(`/v0/orders/${orderId}/refunds`, { amount: 25 })).body.refund as Refund;
    const typesOf = async () => {
      const listed = (await test.get('/v0/events?limit=100')).body.events as Array<Record<string, any>>;
      return listed.filter((e) => e.order?.id === orderId || e.session?.order.id === orderId);
    };
    const events = await eventually(
      async () => {
        const found = await typesOf();
        const types = found.map((e) => e.event as string);
        return [
          'order.created',
          'order.paid',
          'refund.created',
          'refund.succeeded',
          'checkout.session.completed',
        ].every((t) => types.includes(t))
          ? found
          : undefined;
      },
      { deadlineMs: 30_000, description: 'the order and refund events recorded' },
    );
    expect(events.map((e) => e.event).sort()).toEqual(
      ['checkout.session.completed', 'order.created', 'order.paid', 'refund.created', 'refund.succeeded'].sort(),
    );
    const succeeded = events.find((e) => e.event === 'refund.succeeded') as Record<string, any>;
    expect(Object.keys(succeeded)).toEqual(['id', 'event', 'createdAt', 'refund', 'order']);
    expect(succeeded.refund).toEqual(refund);
    expect(succeeded.order).toMatchObject({ id: orderId, amounts: { refunded: 25 } });

    const byType = (await test.get('/v0/events?type=refund.succeeded&limit=100')).body.events as Array<{
      refund: Refund;
    }>;
    expect(byType.filter((e) => e.refund.id === refund.id)).toHaveLength(1);
    const detail = (await test.get(`/v0/events/${succeeded.id}`)).body;
    expect(detail).toEqual({ event: succeeded, deliveries: [] });

    await eventually(() => receiver.deliveries(path).length > 0, { deadlineMs: 20_000, description: 'the delivery' });
    const delivered = receiver.deliveries(path);
    const mine = delivered.filter((r) => JSON.parse(r.body).session?.id === sessionId);
    expect(mine.map((r) => r.headers['x-service-event-type'])).toEqual(['checkout.session.completed']);
    expect(delivered.every((r) => String(r.headers['x-service-event-type']).startsWith('checkout.session.'))).toBe(
      true,
    );
  });
});
