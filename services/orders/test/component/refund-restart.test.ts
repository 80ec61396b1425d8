import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort, startEngines, type Engines } from '@checkout/engines';
import { createKafka } from '@checkout/kafka';
import { MongoClient } from '@checkout/mongo';
import { readTopic } from '@checkout/kafka/testing';
import { OrderEventMessage, OrderPublicEventMessage, TOPICS, topicName } from '@checkout/contracts';
import { eventually, kill9, startServiceProcess } from '@checkout/testing';
import { INTERNAL_CALLERS, PROCESSOR_REFUND_WEBHOOK_SECRET, internalCaller } from './support';

// D48 across a crash of orders (SIGKILL between the write and its events): a refund's write carries its events in
// the same document (the outbox), so a process that dies after the write and before publishing leaves them there,
// and the relay's sweep of the restarted process publishes them: they still come, once each (one event id per
// event). Orders runs as a real child process on a Kafka of its own (the shared MongoDB), so that the broker can be
// stalled (SIGSTOP) while the refund's publish is in flight without disturbing any other test file.

const suffix = randomBytes(4).toString('hex');
const organization = `org_${suffix}`;
const database = `orders_refund_restart_${suffix}`;
const prefix = `orders-refund-restart-${suffix}`;
let engines: Engines;
let mongo: MongoClient;
let env: Record<string, string>;
let baseUrl: string;
const children = new Set<ChildProcess>();
const call = internalCaller(() => baseUrl, { 'x-organization-id': organization, 'x-mode': 'test' });

function startOrders(): Promise<ChildProcess> {
  return startServiceProcess({ service: 'orders', env, readyUrl: `${baseUrl}/readyz`, children });
}

beforeAll(async () => {
  const { mongoUrl } = inject('engines');
  // A broker of its own, with the shared database.
  engines = await startEngines({ env: { MONGODB_URL: mongoUrl }, docker: false, log: () => {} });
  mongo = new MongoClient(mongoUrl);
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  env = {
    MONGODB_URL: mongoUrl,
    MONGODB_DATABASE: database,
    KAFKA_BROKERS: engines.kafkaBrokers.join(','),
    TOPIC_PREFIX: prefix,
    INTERNAL_CALLERS,
    PROCESSOR_REFUND_WEBHOOK_SECRET,
    PORT: String(port),
    HTTP_HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    OUTBOX_SWEEP_INTERVAL_MS: '500',
  };
}, 180_000);

afterAll(async () => {
  for (const child of children) await kill9(child);
  await mongo
    ?.db(database)
    .dropDatabase()
    .catch(() => {});
  await mongo?.close();
  await engines?.stop();
});

describe('a refund across a restart of orders (D48, D49)', () => {
  it('When orders is SIGKILLed after the refund is written and before its events are published, then after a restart each event comes, once; a retry meets the same refund', async () => {
    const child = await startOrders();
    // A session's order: only those take payments from sessions.
    const created = await call(
      'POST',
      '/internal/orders',
      { items: [{ name: 'Tea', quantity: 1, unitPrice: 900 }] },
      { session: `cs_test_${randomBytes(12).toString('hex')}` },
    );
    const orderId = created.body.order.id as string;
    await call('POST', `/internal/orders/${orderId}/payments`, { paymentId: `pay-${suffix}`, method: 'card' });

    // The broker stalls: the refund's write lands, its publish waits in an open connection.
    await engines.pauseKafka();
    const headers = { 'x-idempotency-record': `restart-${suffix}` };
    const refund = () => call('POST', `/internal/orders/${orderId}/refunds`, { amount: 400 }, { headers });
    const inFlight = refund().then(
      (response) => response.status,
      () => 'no answer' as const,
    );
    const orders = mongo
      .db(database)
      .collection<{ _id: string; refunds?: { id: string }[]; outbox: unknown[] }>('orders');
    const written = await eventually(
      async () => {
        const doc = await orders.findOne({ _id: orderId });
        return doc?.refunds?.length === 1 ? doc : undefined;
      },
      { deadlineMs: 20_000, intervalMs: 50, description: 'the refund written' },
    );
    const refundId = written.refunds?.[0]?.id as string;
    // Between the write and the event: both of its public events and its order event wait in the outbox.
    // On a failure the message shows what the document held (once in ~30 runs it held an empty outbox, not traced).
    expect(written.outbox.length, JSON.stringify(written)).toBeGreaterThanOrEqual(3);
    await kill9(child);
    expect(await inFlight).toBe('no answer');
    await engines.resumeKafka();

    await startOrders(); // stopped by afterAll, with every child
    const kafka = createKafka({ brokers: engines.kafkaBrokers, clientId: 'refund-restart-probe' });
    const published: OrderPublicEventMessage[] = [];
    const internal: OrderEventMessage[] = [];
    const probes = [
      await readTopic({
        kafka,
        topic: topicName(prefix, TOPICS.orderPublicEvents),
        groupId: `${prefix}.probe-public`,
        onMessage: (m) => void published.push(OrderPublicEventMessage.parse(JSON.parse(m.value))),
      }),
      await readTopic({
        kafka,
        topic: topicName(prefix, TOPICS.orderEvents),
        groupId: `${prefix}.probe-internal`,
        onMessage: (m) => void internal.push(OrderEventMessage.parse(JSON.parse(m.value))),
      }),
    ];
    try {
      const ofRefund = () => published.filter((m) => 'refund' in m.body && m.body.refund.id === refundId);
      // The restarted relay's sweep publishes what the dead process left, and then the outbox is empty for good.
      await eventually(
        async () =>
          ofRefund().some((m) => m.type === 'refund.created') &&
          ofRefund().some((m) => m.type === 'refund.succeeded') &&
          internal.some((m) => m.orderId === orderId && m.type === 'order.refund_created') &&
          (await orders.countDocuments({ _id: orderId, outboxPending: true })) === 0,
        { deadlineMs: 30_000, description: 'the refund events after the restart, and an empty outbox' },
      );
      const ids = (type: string) =>
        new Set(
          ofRefund()
            .filter((m) => m.type === type)
            .map((m) => m.eventId),
        );
      expect(ids('refund.created').size).toBe(1);
      expect(ids('refund.succeeded').size).toBe(1);
      expect(
        new Set(
          internal.filter((m) => m.orderId === orderId && m.type === 'order.refund_created').map((m) => m.revision),
        ).size,
      ).toBe(1);

      // The merchant never got an answer; the retry with the same Idempotency-Key meets the refund the first try made.
      const retried = await refund();
      expect(retried.status).toBe(201);
      expect(retried.body.refund).toMatchObject({ id: refundId, amount: 400 });
      const order = (await call('GET', `/internal/orders/${orderId}`)).body.order;
      expect(order).toMatchObject({ paymentStatus: 'partially_refunded', amounts: { paid: 900, refunded: 400 } });
      expect((await call('GET', `/internal/orders/${orderId}/refunds`)).body.refunds).toHaveLength(1);
    } finally {
      for (const probe of probes) await probe.stop();
    }
  }, 180_000);
});
