import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafka } from '@checkout/kafka';
import { readTopic } from '@checkout/kafka/testing';
import { TOPICS, signProcessorPayload, topicName } from '@checkout/contracts';
import { eventually, metricValue } from '@checkout/testing';
import {
  PROCESSOR_REFUND_SECRET,
  PROCESSOR_SECRET,
  collectSessionEvents,
  newTenant,
  startStack,
  uniqueName,
  type Stack,
} from './harness';

// Every write that records an event publishes it at once: the outbox relay's sweep is for what a crash or a
// Kafka outage left behind, never a path's way out (docs/engineering.md, messaging rules). Here both services'
// sweeps wait an hour, so an event reaches Kafka only if the write that recorded it published it. Every cause of
// every event orders and sessions write is made once: merchant edits and refunds (the gateway's calls), payments
// through the test helper and the processor's notification (sessions' internal call), partial payments, the
// processor's refund notification, and an expiry by the sweeper (which closes the order to payments).

const AN_HOUR = String(60 * 60 * 1000);

interface Seen {
  topic: 'internal' | 'public' | 'session';
  type: string;
  key: string;
  refundId?: string;
}

let stack: Stack;
let sessionEvents: Awaited<ReturnType<typeof collectSessionEvents>>;
const seen: Seen[] = [];
const probes: Array<{ stop(): Promise<void> }> = [];

beforeAll(async () => {
  stack = await startStack(
    'at-once',
    { OUTBOX_SWEEP_INTERVAL_MS: AN_HOUR },
    { ordersEnv: { OUTBOX_SWEEP_INTERVAL_MS: AN_HOUR } },
  );
  sessionEvents = await collectSessionEvents(stack);
  const kafka = createKafka({ clientId: uniqueName('probe'), brokers: stack.kafkaBrokers });
  for (const [topic, label] of [
    [TOPICS.orderEvents, 'internal'],
    [TOPICS.orderPublicEvents, 'public'],
  ] as const) {
    probes.push(
      await readTopic({
        kafka,
        topic: topicName(stack.topicPrefix, topic),
        groupId: uniqueName(`${stack.topicPrefix}.${label}`),
        onMessage: (message) => {
          const value = JSON.parse(message.value || '{}') as { type: string; orderId: string; body?: any };
          seen.push({ topic: label, type: value.type, key: value.orderId, refundId: value.body?.refund?.id });
        },
      }),
    );
  }
});

afterAll(async () => {
  for (const probe of probes) await probe.stop();
  await sessionEvents?.stop();
  await stack?.stop();
});

/** Resolves when every `expected` event (topic:type) of `key` is on Kafka; fails after the deadline naming the rest. */
async function published(key: string, expected: string[], refundId?: string): Promise<void> {
  const missing = () => {
    const present = new Set([
      ...seen
        .filter((s) => s.key === key && (refundId === undefined || s.topic === 'internal' || s.refundId === refundId))
        .map((s) => `${s.topic}:${s.type}`),
      ...sessionEvents.of(key).map((m) => `session:${(m.value as { type: string }).type}`),
    ]);
    return expected.filter((e) => !present.has(e));
  };
  await eventually(() => missing().length === 0, {
    deadlineMs: 10_000,
    description: `${expected.join(', ')} of ${key} published by their writes (still missing: ${missing().join(', ')})`,
  });
}

async function notify(path: string, body: Record<string, unknown>, baseUrl: string, secret = PROCESSOR_SECRET) {
  const raw = JSON.stringify(body);
  const signature = signProcessorPayload(secret, raw, Math.floor(Date.now() / 1000));
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-processor-signature': signature },
    body: raw,
  });
  expect(response.status).toBe(200);
  return (await response.json()) as any;
}

/** The live processor's notification that `sessionId` was paid in full (1223, the harness's session total). */
function processorPays(sessionId: string) {
  const payment = { paymentId: uniqueName('pi'), sessionId, amount: 1223, method: 'card' };
  return notify(
    '/internal/processor/notifications',
    { ...payment, capturedAt: new Date().toISOString() },
    stack.sessionsUrl,
  );
}

describe('every cause of an event publishes it at once, never through the sweep', () => {
  it('When a session is paid in part, then in full, through the test helper, then order.created, order.updated, order.paid and checkout.session.completed are published by their writes', async () => {
    const tenant = newTenant();
    const session = await stack.createSession(tenant);
    const orderId = session.order.id as string;
    await published(orderId, ['public:order.created']);
    const part = { method: 'stablecoin', amount: 200 };
    expect((await stack.api('POST', `/internal/test-helpers/sessions/${session.id}/pay`, tenant, part)).status).toBe(
      200,
    );
    await published(orderId, ['internal:order.payment_applied', 'public:order.updated']);
    expect((await stack.api('POST', `/internal/test-helpers/sessions/${session.id}/pay`, tenant, {})).status).toBe(200);
    await published(orderId, ['public:order.paid']);
    await published(session.id as string, ['session:checkout.session.completed']);
  });

  it('When the processor notifies a live payment, then order.paid is published by the payment write', async () => {
    const tenant = newTenant({ mode: 'live' });
    const session = await stack.createSession(tenant);
    await processorPays(session.id as string);
    await published(session.order.id as string, ['internal:order.payment_applied', 'public:order.paid']);
    await published(session.id as string, ['session:checkout.session.completed']);
  });

  it('When the merchant edits and cancels an order (the gateway calls orders), then order.updated and order.cancelled are published', async () => {
    const tenant = newTenant();
    const session = await stack.createSession(tenant);
    const orderId = session.order.id as string;
    expect(
      (await stack.orders('PATCH', `/internal/orders/${orderId}`, tenant, { metadata: { note: 'gift' } })).status,
    ).toBe(200);
    await published(orderId, ['internal:order.updated', 'public:order.updated']);
    expect((await stack.orders('POST', `/internal/orders/${orderId}/cancel`, tenant)).status).toBe(200);
    await published(orderId, ['internal:order.cancelled', 'public:order.cancelled']);
  });

  it('When a paid order is refunded at once (test) and later settled by the processor (live), then each refund event is published by its write', async () => {
    const test = newTenant();
    const paidTest = await stack.createSession(test);
    await stack.api('POST', `/internal/test-helpers/sessions/${paidTest.id}/pay`, test, {});
    const refund = (await stack.orders('POST', `/internal/orders/${paidTest.order.id}/refunds`, test, { amount: 100 }))
      .body.refund;
    await published(
      paidTest.order.id as string,
      ['internal:order.refund_created', 'public:refund.created', 'public:refund.succeeded'],
      refund.id,
    );

    const live = newTenant({ mode: 'live' });
    const paidLive = await stack.createSession(live);
    await processorPays(paidLive.id as string);
    const pending = (await stack.orders('POST', `/internal/orders/${paidLive.order.id}/refunds`, live, { amount: 50 }))
      .body.refund;
    expect(pending.status).toBe('pending');
    await published(paidLive.order.id as string, ['public:refund.created'], pending.id);
    await notify(
      '/internal/processor/refund-notifications',
      { refundId: pending.id, outcome: 'succeeded', settledAt: new Date().toISOString() },
      stack.ordersUrl,
      PROCESSOR_REFUND_SECRET,
    );
    await published(
      paidLive.order.id as string,
      ['internal:order.refund_settled', 'public:refund.succeeded'],
      pending.id,
    );
  });

  it('When the expiry sweeper expires a session, then the order closed to payments and checkout.session.expired are published by their writes', async () => {
    const tenant = newTenant();
    const session = await stack.createSession(tenant, { expiresInMinutes: 15 });
    stack.clock.advance(new Date(session.expiresAt).getTime() + 1_000 - stack.clock.now().getTime());
    await published(session.id as string, ['session:checkout.session.expired']);
    await published(session.order.id as string, ['internal:order.payments_closed']);
  });

  it('When every cause above has run, then the relay of each service counts its events published by the fast path and none by the sweep', async () => {
    for (const url of [stack.ordersUrl, stack.sessionsUrl]) {
      const publishedBy = (path: string) => metricValue(url, 'outbox_publish_delay_seconds_count', { path });
      expect(await publishedBy('fast'), url).toBeGreaterThan(0);
      expect(await publishedBy('sweep'), url).toBe(0);
    }
  });
});
