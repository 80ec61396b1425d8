import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER, eventually, metricValue, startWebhookReceiver, type WebhookReceiver } from '@checkout/testing';
import { TOPICS, topicName, type EventResponse } from '@checkout/contracts';
import {
  INTERNAL_TOKEN,
  buildSessionEvent,
  collectTopic,
  internalHeaders,
  sessionEventsTopic,
  startDispatcherWithProducer,
  testKafka,
  type DispatcherWithProducer,
} from './support';

const SIGNED_ORG = 'org_signed';
/**
 * An organization whose settings the gateway stub cannot serve while `settingsDown` (an outage before its secret was
 * ever read).
 */
const UNREADABLE_ORG = 'org_settings_unavailable';
let settingsDown = true;
const SECRET_KEY = randomBytes(32);
const SECRET = `whsec_${SECRET_KEY.toString('base64')}`;
// Long enough that the hanging endpoint's attempts are still open while the fast endpoint is served, even on a
// busy machine; nothing else in this file waits for a timeout.
const TIMEOUT_MS = 10_000;

let receiver: WebhookReceiver;
let slowReceiver: WebhookReceiver;
let gateway: Server;
let gatewayCalls = 0;
let started: DispatcherWithProducer | undefined;
let dispatcher: DispatcherWithProducer['dispatcher'];
let producer: DispatcherWithProducer['producer'];
let deadLetters: Awaited<ReturnType<typeof collectTopic>>;
let topic: string;

/** A tiny stand-in for the gateway's internal checkout-settings endpoint (D35). */
async function startGatewayStub(): Promise<Server> {
  const server = createServer((req, res) => {
    gatewayCalls += 1;
    if (req.url !== '/internal/checkout-settings' || req.headers['x-internal-token'] !== INTERNAL_TOKEN) {
      res.writeHead(401).end();
      return;
    }
    if (req.headers['x-organization-id'] === UNREADABLE_ORG && settingsDown) {
      res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 'SERVICE_UNAVAILABLE' }));
      return;
    }
    const signed =
      req.headers['x-organization-id'] === SIGNED_ORG || req.headers['x-organization-id'] === UNREADABLE_ORG;
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        organizationName: 'Org',
        defaultCallbackUrl: null,
        enabledPaymentMethods: ['card'],
        webhookSigningSecret: signed ? SECRET : null,
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

async function getEvent(
  eventId: string,
  scope = { organizationId: 'org_test_dispatcher', mode: 'test' as const },
): Promise<{ status: number; body: EventResponse }> {
  const response = await fetch(`${dispatcher.url}/internal/events/${eventId}`, { headers: internalHeaders(scope) });
  return { status: response.status, body: (await response.json()) as EventResponse };
}

const path = (label: string) => `/${label}-${randomBytes(3).toString('hex')}`;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  slowReceiver = await startWebhookReceiver();
  gateway = await startGatewayStub();
  started = await startDispatcherWithProducer('delivery', {
    GATEWAY_URL: `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`,
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    WEBHOOK_CLAIM_TTL_MS: String(TIMEOUT_MS * 2),
  });
  ({ dispatcher, producer } = started);
  topic = sessionEventsTopic(dispatcher.config);
  const deadLetterTopic = topicName(dispatcher.config.TOPIC_PREFIX, TOPICS.webhookDeadLetter);
  deadLetters = await collectTopic(testKafka(), deadLetterTopic);
});

afterAll(async () => {
  await deadLetters?.stop();
  await started?.stop();
  await receiver?.close();
  await slowReceiver?.close();
  await new Promise((resolve) => gateway?.close(resolve));
});

describe('Webhook delivery (D2, D30, D31)', () => {
  it('When a session event arrives, then its webhook is POSTed at once with the exact body and headers (D2, D30)', async () => {
    const p = path('exact');
    const event = buildSessionEvent({ callbackUrl: receiver.url(p) });
    await producer.sendEvents(topic, [event]);

    const request = await receiver.nextDelivery({ path: p, timeoutMs: 15_000 });
    expect(request.method).toBe('POST');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['idempotency-key']).toBe(event.eventId);
    expect(request.headers['x-service-event-id']).toBe(event.eventId);
    expect(request.headers['x-service-event-type']).toBe('checkout.session.completed');
    expect(request.headers['user-agent']).toBe('Service-Webhooks/1.0');
    expect(request.headers['x-service-delivery-id']).toMatch(/^dlv_test_[0-9A-Za-z]{24}$/);
    expect(request.headers['webhook-signature']).toBeUndefined();
    const body = JSON.parse(request.body) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['id', 'event', 'createdAt', 'session']);
    expect(body).toEqual(event.body);

    const stored = await eventually(async () => {
      const { body: detail } = await getEvent(event.eventId);
      return detail.deliveries[0]?.status === 'succeeded' ? detail : undefined;
    });
    expect(stored.event).toEqual(event.body);
    expect(stored.deliveries).toHaveLength(1);
    expect(stored.deliveries[0]).toMatchObject({
      id: request.headers['x-service-delivery-id'],
      url: receiver.url(p),
      status: 'succeeded',
    });
    expect(stored.deliveries[0]?.attempts).toEqual([
      { attempt: 1, at: expect.any(String), statusCode: 200, durationMs: expect.any(Number), error: null },
    ]);
  });

  it('When the endpoint keeps answering 500, then there are exactly 5 attempts with one delivery id, increasing delays, and a dead letter (D31, D40)', async () => {
    const p = path('fail');
    receiver.answer(p, ANSWER.error);
    const event = buildSessionEvent({ callbackUrl: receiver.url(p) });
    await producer.sendEvents(topic, [event]);

    const detail = await eventually(
      async () => {
        const { body } = await getEvent(event.eventId);
        return body.deliveries[0]?.status === 'failed' ? body : undefined;
      },
      { deadlineMs: 20_000, description: 'the delivery to fail' },
    );
    const delivery = detail.deliveries[0];
    expect(delivery?.attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(delivery?.attempts.every((a) => a.statusCode === 500 && a.error === 'HTTP 500')).toBe(true);
    const requests = receiver.deliveries(p);
    expect(requests).toHaveLength(5);
    expect(new Set(requests.map((r) => r.headers['x-service-delivery-id']))).toEqual(new Set([delivery?.id]));
    expect(new Set(requests.map((r) => r.headers['idempotency-key']))).toEqual(new Set([event.eventId]));

    const delays = [50, 100, 150, 200];
    const times = (delivery?.attempts ?? []).map((a) => Date.parse(a.at));
    for (let i = 1; i < times.length; i += 1)
      expect((times[i] ?? 0) - (times[i - 1] ?? 0)).toBeGreaterThanOrEqual((delays[i - 1] ?? 0) * 0.9);

    const letter = await eventually(() => deadLetters.messages.find((m) => m.key === delivery?.id), {
      deadlineMs: 10_000,
      description: 'the dead letter',
    });
    expect(JSON.parse(letter.value)).toMatchObject({
      deliveryId: delivery?.id,
      eventId: event.eventId,
      attempts: 5,
      lastError: 'HTTP 500',
      url: receiver.url(p),
    });
  });

  it('When the endpoint answers 410, then that is a failed attempt and it is retried (D31)', async () => {
    const p = path('gone');
    receiver.answer(p, ANSWER.gone);
    const event = buildSessionEvent({ callbackUrl: receiver.url(p) });
    await producer.sendEvents(topic, [event]);
    await eventually(() => receiver.deliveries(p).length >= 2, { deadlineMs: 15_000 });
    const [first, second] = receiver.deliveries(p);
    expect(second?.headers['x-service-delivery-id']).toBe(first?.headers['x-service-delivery-id']);
  });

  it('When the endpoint redirects, then the redirect is not followed and the attempt fails (D31)', async () => {
    const p = path('redirect');
    const target = path('target');
    receiver.answer(p, ANSWER.redirect(receiver.url(target)));
    const event = buildSessionEvent({ callbackUrl: receiver.url(p) });
    await producer.sendEvents(topic, [event]);
    const attempt = await eventually(async () => (await getEvent(event.eventId)).body.deliveries[0]?.attempts[0], {
      deadlineMs: 15_000,
    });
    expect(attempt.statusCode).toBe(302);
    expect(attempt.error).toMatch(/redirect .*not followed/);
    expect(receiver.deliveries(target)).toHaveLength(0);
  });

  it('When a session has no callback URL, then the event is recorded and no delivery exists (D32)', async () => {
    const event = buildSessionEvent({ callbackUrl: null });
    await producer.sendEvents(topic, [event]);
    const detail = await eventually(
      async () => {
        const { status, body } = await getEvent(event.eventId);
        return status === 200 ? body : undefined;
      },
      { deadlineMs: 15_000 },
    );
    expect(detail.event).toEqual(event.body);
    expect(detail.deliveries).toEqual([]);
  });

  it('When the same event message arrives twice, then there is one event and one delivery', async () => {
    const p = path('dup');
    const event = buildSessionEvent({ callbackUrl: receiver.url(p) });
    // Same session, so same partition: the sentinel is handled after both copies.
    const sentinel = buildSessionEvent({ callbackUrl: receiver.url(p), sessionId: event.sessionId });
    await producer.sendEvents(topic, [event, event]);
    await receiver.nextDelivery({ path: p, timeoutMs: 15_000 });
    await producer.sendEvents(topic, [event, sentinel]);
    await eventually(() => receiver.deliveries(p).some((r) => r.headers['x-service-event-id'] === sentinel.eventId), {
      deadlineMs: 15_000,
    });

    expect(receiver.deliveries(p).filter((r) => r.headers['x-service-event-id'] === event.eventId)).toHaveLength(1);
    const { body } = await getEvent(event.eventId);
    expect(body.deliveries).toHaveLength(1);
    const list = await fetch(`${dispatcher.url}/internal/events?sessionId=${event.sessionId}`, {
      headers: internalHeaders({ organizationId: 'org_test_dispatcher', mode: 'test' }),
    });
    expect(((await list.json()) as { pagination: { total: number } }).pagination.total).toBe(2);
  });

  it('When the organization has a signing secret, then the webhook carries a Standard Webhooks signature that verifies (D35)', async () => {
    const p = path('signed');
    const event = buildSessionEvent({ callbackUrl: receiver.url(p), organizationId: SIGNED_ORG });
    await producer.sendEvents(topic, [event]);
    const request = await receiver.nextDelivery({ path: p, timeoutMs: 15_000 });

    const id = String(request.headers['webhook-id']);
    const timestamp = String(request.headers['webhook-timestamp']);
    expect(id).toBe(event.eventId);
    expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(60);
    // The README's verification recipe.
    const expected = createHmac('sha256', SECRET_KEY).update(`${id}.${timestamp}.${request.body}`).digest('base64');
    const signatures = String(request.headers['webhook-signature'])
      .split(' ')
      .map((s) => s.split(',')[1]);
    expect(signatures).toContain(expected);
    expect(gatewayCalls).toBeGreaterThan(0);
  });

  it('When the signing secret cannot be read and never was, then nothing is sent and no attempt is used up; once the gateway answers, the webhook goes out signed (D35)', async () => {
    const p = path('unsigned');
    const event = buildSessionEvent({ callbackUrl: receiver.url(p), organizationId: UNREADABLE_ORG });
    const scope = { organizationId: UNREADABLE_ORG, mode: 'test' as const };
    const deferred = () =>
      metricValue(dispatcher.url, 'webhook_attempts_deferred_total', { reason: 'signing_secret_unavailable' });
    const before = await deferred();
    await producer.sendEvents(topic, [event]);
    // Put off at least twice (the first attempt, then the recovery sweep's), never sent, no attempt recorded.
    await eventually(async () => (await deferred()) >= before + 2, {
      deadlineMs: 15_000,
      description: 'the attempt put off twice',
    });
    const pending = (await getEvent(event.eventId, scope)).body.deliveries[0];
    expect(pending).toMatchObject({ status: 'pending', attempts: [] });
    expect(receiver.deliveries(p)).toHaveLength(0);

    settingsDown = false;
    const request = await receiver.nextDelivery({ path: p, timeoutMs: 15_000 });
    expect(request.headers['webhook-signature']).toBeDefined();
    const delivered = await eventually(
      async () => {
        const delivery = (await getEvent(event.eventId, scope)).body.deliveries[0];
        return delivery?.status === 'succeeded' ? delivery : undefined;
      },
      { deadlineMs: 15_000, description: 'the delivery recorded as succeeded' },
    );
    expect(delivered.attempts).toHaveLength(1);
    expect(delivered.attempts[0]).toMatchObject({ attempt: 1, statusCode: 200, error: null });
  });

  it('When one endpoint hangs, then another endpoint still gets its webhooks at once (no head-of-line blocking)', async () => {
    slowReceiver.answer('/hang', ANSWER.hang);
    const slowEvents = Array.from({ length: 16 }, () => buildSessionEvent({ callbackUrl: slowReceiver.url('/hang') }));
    const fastPath = path('fast');
    const fastEvents = Array.from({ length: 16 }, () => buildSessionEvent({ callbackUrl: receiver.url(fastPath) }));
    await producer.sendEvents(topic, slowEvents);
    await eventually(() => slowReceiver.deliveries('/hang').length > 0, { deadlineMs: 15_000 });
    await producer.sendEvents(topic, fastEvents);

    await eventually(() => receiver.deliveries(fastPath).length === fastEvents.length, {
      deadlineMs: 15_000,
      description: 'all fast deliveries',
    });
    const firstSlow = Math.min(...slowReceiver.deliveries('/hang').map((r) => r.receivedAt.getTime()));
    const lastFast = Math.max(...receiver.deliveries(fastPath).map((r) => r.receivedAt.getTime()));
    // Every fast webhook arrived before the first hanging attempt could even time out.
    expect(lastFast).toBeLessThan(firstSlow + TIMEOUT_MS);
    // The hanging host never had more than its per-host limit in flight at once.
    expect(slowReceiver.deliveries('/hang').length).toBeLessThanOrEqual(8);
    // What waits behind it is stored within seconds, not first attempted: visible as pending, no attempt yet (D34).
    const waiting = slowEvents.find(
      (e) => !slowReceiver.deliveries('/hang').some((r) => r.headers['x-service-event-id'] === e.eventId),
    );
    const detail = await eventually(
      async () => {
        const { body } = await getEvent(waiting?.eventId ?? '');
        return body.deliveries?.length === 1 ? body : undefined;
      },
      { deadlineMs: 5_000, description: 'the queued delivery to be stored' },
    );
    expect(detail.deliveries[0]).toMatchObject({ status: 'pending', attempts: [] });
  });

  it('When a message is not a valid session event, then it is parked on the dead-letter topic and consumption goes on', async () => {
    const key = `poison-${randomBytes(3).toString('hex')}`;
    await producer.sendRaw(topic, key, JSON.stringify({ version: 1, hello: 'world' }));
    const letter = await eventually(() => deadLetters.messages.find((m) => m.key === key), { deadlineMs: 15_000 });
    expect(letter.headers['x-original-topic']).toBe(topic);
    const p = path('after-poison');
    await producer.sendEvents(topic, [buildSessionEvent({ callbackUrl: receiver.url(p) })]);
    await receiver.nextDelivery({ path: p, timeoutMs: 15_000 });
  });

  it('When metrics are scraped, then delivery counters, attempt durations and the in-flight gauge are there', async () => {
    const text = await (await fetch(`${dispatcher.url}/metrics`)).text();
    expect(text).toMatch(/webhook_deliveries_total\{.*outcome="succeeded".*\} \d+/);
    expect(text).toContain('webhook_attempt_duration_seconds_bucket');
    expect(text).toContain('webhook_attempts_in_flight');
  });
});
