import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER, eventually, startWebhookReceiver, type WebhookReceiver } from '@checkout/testing';
import { startStack, type InProcessStack } from './support/stack';
import { Api } from './support/api';
import { buildSessionInput } from './support/factories';

// The whole stack: a session paid through the test helper is delivered to the merchant's callback URL on a
// real loopback receiver, retried on failure, and inspectable through the events API (D30–D34).

let stack: InProcessStack;
let receiver: WebhookReceiver;
let test: Api;
let live: Api;
let otherOrg: Api;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  stack = await startStack({
    webhookRetryDelaysMs: '200,400,800,1600',
    extraEnv: { gateway: { RATE_LIMIT_PER_WINDOW: '100000', RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: '1000000000' } },
  });
  const a = await stack.admin.createOrganizationWithKeys('Webhook Org');
  const b = await stack.admin.createOrganizationWithKeys('Another Org');
  test = new Api(stack.gatewayUrl, a.testKey);
  live = new Api(stack.gatewayUrl, a.liveKey);
  otherOrg = new Api(stack.gatewayUrl, b.testKey);
});

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

async function paidSession(path: string) {
  const created = await test.post(
    '/v0/checkout/sessions',
    buildSessionInput({ callbackUrl: receiver.url(`${path}/{SESSION_ID}`), externalId: `ext-${path}-${Date.now()}` }),
  );
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const session = created.body.session;
  const paid = await test.post(`/v0/test_helpers/checkout/sessions/${session.id}/pay`, {});
  expect(paid.body.session.status).toBe('completed');
  return session as { id: string; order: { id: string } };
}

describe('Webhook delivery through the whole stack', () => {
  it('When a session is paid, then checkout.session.completed reaches its callback URL with the spec headers and body (D2, D30)', async () => {
    const session = await paidSession('/hooks/ok');
    const delivery = await receiver.nextDelivery({ path: `/hooks/ok/${session.id}`, timeoutMs: 20_000 });
    const body = JSON.parse(delivery.body);
    expect(Object.keys(body)).toEqual(['id', 'event', 'createdAt', 'session']);
    expect(body).toMatchObject({
      event: 'checkout.session.completed',
      session: { id: session.id, status: 'completed', order: { status: 'completed', paymentStatus: 'paid' } },
    });
    expect(body.id).toMatch(/^evt_test_/);
    expect(delivery.headers).toMatchObject({
      'content-type': 'application/json',
      'idempotency-key': body.id,
      'x-service-event-id': body.id,
      'x-service-event-type': 'checkout.session.completed',
      'user-agent': 'Service-Webhooks/1.0',
    });
    expect(delivery.headers['x-service-delivery-id']).toMatch(/^dlv_test_/);
    expect(delivery.headers['webhook-signature']).toBeUndefined(); // unsigned by default (spec, D35)
  });

  it('When the endpoint fails twice, then the same delivery id is retried until it succeeds, and the events API shows every attempt (D31, D34)', async () => {
    receiver.answer('/hooks/flaky', ANSWER.error);
    const created = await test.post(
      '/v0/checkout/sessions',
      buildSessionInput({ callbackUrl: receiver.url('/hooks/flaky') }),
    );
    const sessionId: string = created.body.session.id;
    await test.post(`/v0/test_helpers/checkout/sessions/${sessionId}/pay`, {});
    await eventually(() => receiver.deliveries('/hooks/flaky').length >= 2, {
      deadlineMs: 20_000,
      description: 'two failed attempts',
    });
    receiver.answer('/hooks/flaky', ANSWER.ok);
    await eventually(() => receiver.deliveries('/hooks/flaky').length >= 3, {
      deadlineMs: 20_000,
      description: 'the succeeding attempt',
    });
    const attempts = receiver.deliveries('/hooks/flaky');
    expect(new Set(attempts.map((a) => a.headers['x-service-delivery-id'])).size).toBe(1);
    const eventId = String(attempts[0]?.headers['x-service-event-id']);

    const list = await test.get(`/v0/events?sessionId=${sessionId}`);
    expect(list.status).toBe(200);
    expect(list.body.events.map((e: { id: string }) => e.id)).toEqual([eventId]);
    expect(list.body.pagination).toMatchObject({ page: 1, total: 1, hasMore: false });

    const detail = await eventually(
      async () => {
        const response = await test.get(`/v0/events/${eventId}`);
        return response.body.deliveries?.[0]?.status === 'succeeded' ? response : undefined;
      },
      { deadlineMs: 10_000, description: 'the delivery to be recorded as succeeded' },
    );
    expect(detail.body.event).toMatchObject({
      id: eventId,
      event: 'checkout.session.completed',
      session: { id: sessionId },
    });
    const [delivery] = detail.body.deliveries;
    expect(delivery.url).toBe(receiver.url('/hooks/flaky'));
    expect(delivery.attempts.map((a: { statusCode: number | null }) => a.statusCode)).toEqual([500, 500, 200]);
    expect(delivery.attempts[2].error).toBeNull();
    expect(delivery.attempts[0].error).toEqual(expect.any(String));
  });

  it('When an event is redelivered, then a new delivery with a new id carries the same event id (D34)', async () => {
    const session = await paidSession('/hooks/redeliver');
    const first = await receiver.nextDelivery({ path: `/hooks/redeliver/${session.id}`, timeoutMs: 20_000 });
    const eventId = String(first.headers['x-service-event-id']);
    const response = await test.post(`/v0/events/${eventId}/redeliver`);
    expect(response.status).toBe(202);
    expect(response.body.delivery.id).toMatch(/^dlv_test_/);
    expect(response.body.delivery.id).not.toBe(first.headers['x-service-delivery-id']);
    const second = await receiver.nextDelivery({ path: `/hooks/redeliver/${session.id}`, timeoutMs: 20_000 });
    expect(second.headers['x-service-event-id']).toBe(eventId);
    expect(second.headers['x-service-delivery-id']).toBe(response.body.delivery.id);
  });

  it('When the events are read with another mode or organization, or a malformed id, then they are not found (D4, D34)', async () => {
    const session = await paidSession('/hooks/isolation');
    const delivered = await receiver.nextDelivery({ path: `/hooks/isolation/${session.id}`, timeoutMs: 20_000 });
    const eventId = String(delivered.headers['x-service-event-id']);
    expect((await test.get(`/v0/events/${eventId}`)).status).toBe(200);
    for (const api of [live, otherOrg]) {
      expect((await api.get(`/v0/events/${eventId}`)).body.code).toBe('EVENT_NOT_FOUND');
      expect((await api.post(`/v0/events/${eventId}/redeliver`)).body.code).toBe('EVENT_NOT_FOUND');
      expect((await api.get(`/v0/events?sessionId=${session.id}`)).body.events).toEqual([]);
    }
    expect((await test.get('/v0/events/evt_nope')).body.code).toBe('INVALID_EVENT_ID');
    expect((await test.get('/v0/events?type=checkout.session.completed&limit=1')).body.events).toHaveLength(1);
  });

  it('When a session expires, then checkout.session.expired is delivered; a cancelled one sends nothing (D25, D30)', async () => {
    const expiring = (
      await test.post('/v0/checkout/sessions', buildSessionInput({ callbackUrl: receiver.url('/hooks/expired') }))
    ).body.session;
    const cancelled = (
      await test.post('/v0/checkout/sessions', buildSessionInput({ callbackUrl: receiver.url('/hooks/expired') }))
    ).body.session;
    await test.post(`/v0/orders/${cancelled.order.id}/cancel`);
    await test.post(`/v0/test_helpers/checkout/sessions/${expiring.id}/expire`);
    const delivery = await receiver.nextDelivery({ path: '/hooks/expired', timeoutMs: 20_000 });
    expect(JSON.parse(delivery.body)).toMatchObject({
      event: 'checkout.session.expired',
      session: { id: expiring.id, status: 'expired', active: false },
    });
    const events = await test.get(`/v0/events?sessionId=${cancelled.id}`);
    expect(events.body.events).toEqual([]);
  });
});
