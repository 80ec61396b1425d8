import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { createKafka } from '@checkout/kafka';
import { readTopic } from '@checkout/kafka/testing';
import {
  OrderEventMessage,
  OrderPublicEventMessage,
  PROCESSOR_SIGNATURE_HEADER,
  TOPICS,
  signProcessorPayload,
  topicName,
} from '@checkout/contracts';
import { eventually, newSecret } from '@checkout/testing';
import type { OrdersApp } from '../../src/app';
import { CALLER_TOKENS, PROCESSOR_REFUND_WEBHOOK_SECRET, internalCaller, startOrdersApp } from './support';

// D48 in the orders service alone, in-process on port 0 on the real engines: refunds through the internal API
// (what the gateway forwards), the live processor's signed notifications, and the events each refund change
// writes with it (D49). The races and the path through the gateway are in test-e2e/src/refunds.e2e.test.ts.

const suffix = randomBytes(4).toString('hex');
const organization = `org_${suffix}`;
const test = internalCaller(() => baseUrl, { 'x-organization-id': organization, 'x-mode': 'test' });
const live = internalCaller(() => baseUrl, { 'x-organization-id': organization, 'x-mode': 'live' });
let app: OrdersApp;
let baseUrl: string;
const published: OrderPublicEventMessage[] = [];
const internal: OrderEventMessage[] = [];
const probes: Array<{ stop(): Promise<void> }> = [];

async function paidOrder(call: typeof test, paid = 1000): Promise<string> {
  // A session's order: only those take payments from sessions.
  const session = `cs_${call === live ? 'live' : 'test'}_${randomBytes(12).toString('hex')}`;
  const created = await call(
    'POST',
    '/internal/orders',
    { items: [{ name: 'Tea', quantity: 1, unitPrice: 1000 }] },
    { session },
  );
  expect(created.status).toBe(201);
  const id = created.body.order.id as string;
  const payment = await call('POST', `/internal/orders/${id}/payments`, {
    paymentId: `pay-${randomBytes(6).toString('hex')}`,
    amount: paid,
    method: 'card',
  });
  expect(payment.status).toBe(200);
  return id;
}

/** Sessions' payment-notification secret (D27), which signed refund notifications too before they had their own. */
const SESSIONS_PAYMENT_SECRET = newSecret();

async function notify(body: unknown, options: { secret?: string | string[]; at?: Date } = {}) {
  const raw = JSON.stringify(body);
  const t = Math.floor((options.at ?? new Date()).getTime() / 1000);
  const response = await request(`${baseUrl}/internal/processor/refund-notifications`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      [PROCESSOR_SIGNATURE_HEADER]: signProcessorPayload(options.secret ?? PROCESSOR_REFUND_WEBHOOK_SECRET, raw, t),
    },
    body: raw,
  });
  return { status: response.statusCode, body: (await response.body.json()) as any };
}

const publicOf = (refundId: string) => published.filter((m) => 'refund' in m.body && m.body.refund.id === refundId);

beforeAll(async () => {
  const { kafkaBrokers, prefix, ...started } = await startOrdersApp(`refunds-${suffix}`, {
    // As a stack mid-migration holds it: sessions' payment secret, still set, must settle no refund.
    PROCESSOR_WEBHOOK_SECRET: SESSIONS_PAYMENT_SECRET,
  });
  ({ app, url: baseUrl } = started);
  const kafka = createKafka({ brokers: kafkaBrokers, clientId: 'orders-refunds-probe' });
  probes.push(
    await readTopic({
      kafka,
      topic: topicName(prefix, TOPICS.orderPublicEvents),
      groupId: `${prefix}.public`,
      onMessage: (message) => void published.push(OrderPublicEventMessage.parse(JSON.parse(message.value || '{}'))),
    }),
    await readTopic({
      kafka,
      topic: topicName(prefix, TOPICS.orderEvents),
      groupId: `${prefix}.internal`,
      onMessage: (message) => void internal.push(OrderEventMessage.parse(JSON.parse(message.value || '{}'))),
    }),
  );
});

afterAll(async () => {
  for (const probe of probes) await probe.stop();
  await app?.stop();
});

describe('POST /internal/orders/:orderId/refunds (D48)', () => {
  it('When a paid order is refunded in test mode, then it succeeds at once: 201 with the refund and the order after it, its revision for the session copy (D46)', async () => {
    const id = await paidOrder(test);
    const { status, body } = await test('POST', `/internal/orders/${id}/refunds`, {
      amount: 250,
      reason: 'requested_by_customer',
      metadata: { ticket: 'T-1' },
    });
    expect(status).toBe(201);
    expect(body.refund).toMatchObject({
      orderId: id,
      amount: 250,
      currency: 'USD',
      status: 'succeeded',
      reason: 'requested_by_customer',
      metadata: { ticket: 'T-1' },
    });
    expect(body.refund.id).toMatch(/^re_test_[0-9A-Za-z]{24}$/);
    expect(body.order).toMatchObject({
      status: 'completed',
      paymentStatus: 'partially_refunded',
      amounts: { paid: 1000, refunded: 250 },
    });
    expect((await test('GET', `/internal/refunds/${body.refund.id as string}`)).body.refund).toEqual(body.refund);
  });

  it('When the order has received nothing, or more than is refundable is asked for, then 400 REFUND_FAILED; a malformed body is REFUND_FAILED with details (D7)', async () => {
    const unpaid = (await test('POST', '/internal/orders', { items: [{ name: 'Tea', quantity: 1, unitPrice: 500 }] }))
      .body.order.id as string;
    expect((await test('POST', `/internal/orders/${unpaid}/refunds`, {})).body.code).toBe('REFUND_FAILED');
    const id = await paidOrder(test, 600);
    const tooMuch = await test('POST', `/internal/orders/${id}/refunds`, { amount: 601 });
    expect(tooMuch).toMatchObject({ status: 400, body: { code: 'REFUND_FAILED' } });
    for (const bad of [
      { amount: 0 },
      { amount: 1.5 },
      { reason: 'changed_my_mind' },
      { extra: true },
      { amount: null },
    ]) {
      const refused = await test('POST', `/internal/orders/${id}/refunds`, bad);
      expect(refused.status, JSON.stringify(bad)).toBe(400);
      expect(refused.body.code).toBe('REFUND_FAILED');
      expect(refused.body.details.length).toBeGreaterThan(0);
    }
    // Nothing was written by any of them.
    expect((await test('GET', `/internal/orders/${id}/refunds`)).body.pagination.total).toBe(0);
  });

  it('When the same Idempotency-Key record comes twice, then one refund: the retry meets the first (D42, at most once by id)', async () => {
    const id = await paidOrder(test);
    const headers = { 'x-idempotency-record': `record-${suffix}` };
    const send = () => test('POST', `/internal/orders/${id}/refunds`, { amount: 400 }, { headers });
    const [first, second] = await Promise.all([send(), send()]);
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.refund).toEqual(first.body.refund);
    const list = await test('GET', `/internal/orders/${id}/refunds`);
    expect(list.body.refunds).toHaveLength(1);
    expect(list.body.refunds[0].amount).toBe(400);
  });

  it('When only sessions calls, then it may not refund (FORBIDDEN): refunds come from merchants, through the gateway', async () => {
    const id = await paidOrder(test);
    const response = await request(`${baseUrl}/internal/orders/${id}/refunds`, {
      method: 'POST',
      headers: {
        'x-organization-id': organization,
        'x-mode': 'test',
        'x-internal-token': CALLER_TOKENS.sessions,
        'content-type': 'application/json',
      },
      body: '{}',
    });
    expect(response.statusCode).toBe(403);
    await response.body.dump();
  });
});

describe('ids and test helpers (D4, D29, D48)', () => {
  it('When a refund id is malformed, then 400 INVALID_REFUND_ID; well-formed but unknown or of the other mode, 404 REFUND_NOT_FOUND', async () => {
    expect((await test('GET', '/internal/refunds/re_nope')).body.code).toBe('INVALID_REFUND_ID');
    expect((await test('GET', '/internal/refunds/re_test_unknown0000000000000')).body.code).toBe('REFUND_NOT_FOUND');
    const id = await paidOrder(test);
    const refundId = (await test('POST', `/internal/orders/${id}/refunds`, { amount: 1 })).body.refund.id as string;
    expect((await live('GET', `/internal/refunds/${refundId}`)).status).toBe(404);
    expect((await test('GET', '/internal/orders/ord_bad/refunds')).body.code).toBe('INVALID_ORDER_ID');
  });

  it('When the test helper makes a pending refund and settles it failed, then its amount is refundable again; a settled refund is not settled again', async () => {
    const id = await paidOrder(test);
    const pending = await test('POST', `/internal/test-helpers/orders/${id}/refunds`, {
      amount: 700,
      outcome: 'pending',
    });
    expect(pending.status).toBe(201);
    expect(pending.body.refund.status).toBe('pending');
    expect(pending.body.order).toMatchObject({ paymentStatus: 'paid', amounts: { refunded: 0 } });
    // Pending refunds count against refundable.
    expect((await test('POST', `/internal/orders/${id}/refunds`, { amount: 301 })).body.code).toBe('REFUND_FAILED');

    const refundId = pending.body.refund.id as string;
    const failed = await test('POST', `/internal/test-helpers/refunds/${refundId}/settle`, { outcome: 'failed' });
    expect(failed.status).toBe(200);
    expect(failed.body.refund).toMatchObject({ status: 'failed', failureReason: 'declined' });
    expect(failed.body.order.amounts.refunded).toBe(0);
    const again = await test('POST', `/internal/test-helpers/refunds/${refundId}/settle`, { outcome: 'succeeded' });
    expect(again.body.code).toBe('REFUND_FAILED');
    expect((await test('POST', `/internal/orders/${id}/refunds`, {})).body.refund.amount).toBe(1000);
  });

  it('When a test helper is called in live mode, then 404 NOT_FOUND (D29)', async () => {
    const id = await paidOrder(live);
    expect((await live('POST', `/internal/test-helpers/orders/${id}/refunds`, {})).body.code).toBe('NOT_FOUND');
    expect(
      (await live('POST', '/internal/test-helpers/refunds/re_live_abc/settle', { outcome: 'succeeded' })).body.code,
    ).toBe('NOT_FOUND');
  });
});

describe('live mode: the processor settles a refund (D48)', () => {
  it('When a live refund is made, then it stays pending until the signed notification; a replay changes nothing; the other outcome is refused', async () => {
    const id = await paidOrder(live);
    const created = await live('POST', `/internal/orders/${id}/refunds`, { amount: 600 });
    expect(created.status).toBe(201);
    expect(created.body.refund).toMatchObject({ status: 'pending' });
    expect(created.body.order).toMatchObject({ paymentStatus: 'paid', amounts: { refunded: 0 } });
    const refundId = created.body.refund.id as string;
    expect(refundId).toMatch(/^re_live_/);

    const note = { refundId, outcome: 'succeeded', settledAt: new Date().toISOString() };
    const settled = await notify(note);
    expect(settled.status).toBe(200);
    expect(settled.body.refund).toMatchObject({ id: refundId, status: 'succeeded' });
    const order = (await live('GET', `/internal/orders/${id}`)).body.order;
    expect(order).toMatchObject({ paymentStatus: 'partially_refunded', amounts: { refunded: 600 } });

    const replay = await notify(note);
    expect(replay.status).toBe(200);
    expect((await live('GET', `/internal/orders/${id}`)).body.order).toEqual(order);
    expect((await notify({ ...note, outcome: 'failed' })).body.code).toBe('REFUND_FAILED');
  });

  it('When a notification is unsigned, signed with another secret or too old, then 401 and nothing changes; malformed → 400; unknown refund → 404', async () => {
    const id = await paidOrder(live);
    const refundId = (await live('POST', `/internal/orders/${id}/refunds`, {})).body.refund.id as string;
    const note = {
      refundId,
      outcome: 'failed',
      failureReason: 'lost_or_stolen_card',
      settledAt: new Date().toISOString(),
    };
    expect((await notify(note, { secret: 'another-secret-of-32-characters-xx' })).status).toBe(401);
    expect((await notify(note, { at: new Date(Date.now() - 10 * 60_000) })).status).toBe(401);
    const unsigned = await request(`${baseUrl}/internal/processor/refund-notifications`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(note),
    });
    expect(unsigned.statusCode).toBe(401);
    await unsigned.body.dump();
    expect((await live('GET', `/internal/refunds/${refundId}`)).body.refund.status).toBe('pending');

    expect((await notify({ ...note, outcome: 'maybe' })).status).toBe(400);
    expect((await notify({ ...note, refundId: 're_live_unknown00000000000000' })).body.code).toBe('REFUND_NOT_FOUND');
    const failed = await notify(note);
    expect(failed.body.refund).toMatchObject({ status: 'failed', failureReason: 'lost_or_stolen_card' });
    expect((await live('GET', `/internal/orders/${id}`)).body.order.amounts.refunded).toBe(0);
  });

  it("When a notification is signed with sessions' payment secret (a leak of it), then the refund route refuses it; signed with both, as a processor moving to the refunds' own secret signs, it settles", async () => {
    const id = await paidOrder(live);
    const refundId = (await live('POST', `/internal/orders/${id}/refunds`, {})).body.refund.id as string;
    const note = { refundId, outcome: 'succeeded', settledAt: new Date().toISOString() };
    const forged = await notify(note, { secret: SESSIONS_PAYMENT_SECRET });
    expect(forged).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED' } });
    expect((await live('GET', `/internal/refunds/${refundId}`)).body.refund.status).toBe('pending');
    const both = await notify(note, { secret: [SESSIONS_PAYMENT_SECRET, PROCESSOR_REFUND_WEBHOOK_SECRET] });
    expect(both.body.refund.status).toBe('succeeded');
  });
});

describe('events written with each refund change (D49)', () => {
  it('When a refund succeeds at once, then refund.created and refund.succeeded reach orders.public-events with the refund and the order, and the order event reaches orders.events', async () => {
    const id = await paidOrder(test);
    const refund = (await test('POST', `/internal/orders/${id}/refunds`, { amount: 100 })).body.refund;
    await eventually(() => publicOf(refund.id).length >= 2, { deadlineMs: 20_000, description: 'the refund events' });
    expect(publicOf(refund.id).map((m) => m.type)).toEqual(['refund.created', 'refund.succeeded']);
    for (const message of publicOf(refund.id)) {
      expect(message).toMatchObject({ organizationId: organization, mode: 'test', orderId: id });
      expect(message.body).toMatchObject({
        refund: { id: refund.id, amount: 100 },
        order: { id, amounts: { refunded: 100 }, paymentStatus: 'partially_refunded' },
      });
    }
    await eventually(() => internal.some((m) => m.orderId === id && m.type === 'order.refund_created'), {
      deadlineMs: 20_000,
      description: 'the internal order event',
    });
    // And the order's own: created, then paid (its payment completed it).
    await eventually(
      () => ['order.created', 'order.paid'].every((t) => published.some((m) => m.orderId === id && m.type === t)),
      { deadlineMs: 20_000, description: 'order.created and order.paid' },
    );
  });

  it('When a live refund is created and then settled by the processor, then refund.created, later refund.failed alone', async () => {
    const id = await paidOrder(live);
    const refundId = (await live('POST', `/internal/orders/${id}/refunds`, { amount: 10 })).body.refund.id as string;
    await eventually(() => publicOf(refundId).length === 1, { deadlineMs: 20_000, description: 'refund.created' });
    await notify({ refundId, outcome: 'failed', settledAt: new Date().toISOString() });
    await eventually(() => publicOf(refundId).length === 2, { deadlineMs: 20_000, description: 'refund.failed' });
    expect(publicOf(refundId).map((m) => m.type)).toEqual(['refund.created', 'refund.failed']);
    expect(publicOf(refundId)[1]?.body).toMatchObject({ refund: { status: 'failed', failureReason: 'unknown' } });
  });
});
