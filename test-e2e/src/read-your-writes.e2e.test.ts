import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@checkout/logger';
import { CommandCounter } from '@checkout/mongo/testing';
import { AdminClient, inParallel, stackEnvironment } from '@checkout/testing';
import { buildApp as buildGateway, type GatewayApp } from '@checkout/gateway';
import { parseConfig as gatewayConfig } from '@checkout/gateway/config';
import { buildApp as buildOrders, type OrdersApp } from '@checkout/orders';
import { parseConfig as ordersConfig } from '@checkout/orders/config';
import { buildApp as buildSessions, type SessionsApp } from '@checkout/sessions';
import { parseConfig as sessionsConfig } from '@checkout/sessions/config';
import { Api } from './support/api';
import { buildOrderInput, buildSessionInput } from './support/factories';

// D46: a merchant's write that succeeded is visible in that merchant's next read of any resource it
// changed. Cancelling or editing a session's order changes the session (D25), which keeps a copy of its order.
// Sessions' order-events consumer does NOT run in this file: the at-least-once path is switched off, so every
// read below shows only what the synchronous path carried before the write was answered.

const suffix = randomBytes(4).toString('hex');
const ROUNDS = 200;
/** A refund round also pays the session first: fewer rounds, the same question. */
const REFUND_ROUNDS = 40;
const CONCURRENCY = 8;
const counters = { gateway: new CommandCounter(), orders: new CommandCounter(), sessions: new CommandCounter() };
let gateway: GatewayApp | undefined;
let orders: OrdersApp | undefined;
let sessions: SessionsApp | undefined;
let api: Api;
let gatewayEnv: Record<string, string>;

async function newSession(): Promise<{ id: string; orderId: string }> {
  const created = await api.post('/v0/checkout/sessions', buildSessionInput());
  expect(created.status).toBe(201);
  return { id: created.body.session.id as string, orderId: created.body.session.order.id as string };
}

/** Database commands of each service while `fn` runs (driver command monitoring). */
async function commandsDuring<T>(fn: () => Promise<T>): Promise<{
  result: T;
  gateway: Record<string, number>;
  orders: Record<string, number>;
  sessions: Record<string, number>;
}> {
  const g = await counters.gateway.during(() => counters.orders.during(() => counters.sessions.during(fn)));
  return {
    result: g.result.result.result,
    gateway: g.commands,
    orders: g.result.commands,
    sessions: g.result.result.commands,
  };
}

beforeAll(async () => {
  const mongoUrl = process.env.MONGODB_URL;
  const brokers = process.env.KAFKA_BROKERS;
  if (!mongoUrl || !brokers)
    throw new Error('KAFKA_BROKERS and MONGODB_URL must be set (the e2e global setup provides them)');
  const env = stackEnvironment({
    ports: { gateway: 0, orders: 0, sessions: 0, dispatcher: 0 },
    mongoUrl,
    kafkaBrokers: brokers.split(','),
    namePrefix: `e2e_ryw_${suffix}`,
    logLevel: 'silent',
    extraEnv: {
      // The counted tests compare a session's order with a plain order measured moments before, key cached for both
      // (AUTH_CACHE_MS at its cap); 2,000 requests in a few seconds are this file's load, not what the per-key and
      // per-client limits (D43) are about.
      gateway: {
        AUTH_CACHE_MS: '30000',
        IDEMPOTENCY_SWEEP_INTERVAL_MS: '3600000',
        RATE_LIMIT_PER_WINDOW: '1000000',
        RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: '1000000000',
        CLIENT_RATE_LIMIT_PER_WINDOW: '1000000',
      },
      // Orders' background work stays out of the measured windows: the relay's sweep, the ledger's consumer and
      // sweep (D52), the report runs' poll.
      orders: {
        OUTBOX_SWEEP_INTERVAL_MS: '3600000',
        CONSUMERS_ENABLED: 'false',
        BALANCE_SWEEP_INTERVAL_MS: '3600000',
        REPORT_POLL_INTERVAL_MS: '3600000',
      },
      sessions: {
        CONSUMERS_ENABLED: 'false',
        OUTBOX_SWEEP_INTERVAL_MS: '3600000',
        EXPIRY_SWEEP_INTERVAL_MS: '3600000',
      },
    },
  });
  const silent = (name: string) => createLogger(name, { level: 'silent' });
  const ordersApp = buildOrders(ordersConfig(env.orders), silent('orders'));
  orders = ordersApp;
  const ordersUrl = (await counters.orders.watch(() => ordersApp.start())).url;
  const sessionsApp = buildSessions(sessionsConfig({ ...env.sessions, ORDERS_URL: ordersUrl }), silent('sessions'));
  sessions = sessionsApp;
  const sessionsUrl = (await counters.sessions.watch(() => sessionsApp.start())).url;
  gatewayEnv = { ...env.gateway, ORDERS_URL: ordersUrl, SESSIONS_URL: sessionsUrl };
  const gatewayApp = buildGateway(gatewayConfig(gatewayEnv), silent('gateway'));
  gateway = gatewayApp;
  const { url: gatewayUrl, adminUrl } = await counters.gateway.watch(() => gatewayApp.start());
  const org = await new AdminClient(adminUrl, env.adminToken).createOrganizationWithKeys(`Read Your Writes ${suffix}`);
  api = new Api(gatewayUrl, org.testKey);
});

afterAll(async () => {
  await gateway?.stop();
  await sessions?.stop();
  await orders?.stop();
});

describe("read your writes across orders and sessions (D46, D25), with sessions' order-event consumer not running", () => {
  it(`When a session's order is cancelled, then the next read of the session shows it cancelled, ${ROUNDS} times in ${ROUNDS}`, async () => {
    const stale: string[] = [];
    await inParallel(ROUNDS, CONCURRENCY, async () => {
      const session = await newSession();
      const cancelled = await api.post(`/v0/orders/${session.orderId}/cancel`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.order.status).toBe('cancelled');
      const read = await api.get(`/v0/checkout/sessions/${session.id}`);
      expect(read.status).toBe(200);
      if (
        read.body.session.status !== 'cancelled' ||
        read.body.session.active !== false ||
        read.body.session.order.status !== 'cancelled'
      )
        stale.push(session.id);
    });
    expect(stale).toEqual([]);
  });

  it(`When a session's order is edited, then the next read of the session shows the edited order, ${ROUNDS} times in ${ROUNDS}`, async () => {
    const stale: string[] = [];
    await inParallel(ROUNDS, CONCURRENCY, async (i) => {
      const session = await newSession();
      const edited = await api.patch(`/v0/orders/${session.orderId}`, {
        items: [{ name: `Edited ${i}`, quantity: 2, unitPrice: 700 + i }],
      });
      expect(edited.status).toBe(200);
      const read = await api.get(`/v0/checkout/sessions/${session.id}`);
      expect(read.status).toBe(200);
      if (JSON.stringify(read.body.session.order) !== JSON.stringify(edited.body.order)) stale.push(session.id);
    });
    expect(stale).toEqual([]);
  });

  it(`When a session's paid order is refunded (API and test helpers), then the next read of the session shows the refund's amounts and paymentStatus, ${REFUND_ROUNDS} times in ${REFUND_ROUNDS} (D48)`, async () => {
    const stale: string[] = [];
    await inParallel(REFUND_ROUNDS, CONCURRENCY, async (i) => {
      const session = await newSession();
      const paid = await api.post(`/v0/test_helpers/checkout/sessions/${session.id}/pay`, {});
      expect(paid.body.session.status).toBe('completed');
      const refunded =
        i % 2 === 0
          ? await api.post(`/v0/orders/${session.orderId}/refunds`, { amount: 100 + i })
          : await api.post(`/v0/test_helpers/orders/${session.orderId}/refunds`, { outcome: 'pending' });
      expect(refunded.status).toBe(201);
      if (i % 2 === 1) {
        const settled = await api.post(`/v0/test_helpers/refunds/${refunded.body.refund.id}/settle`, {
          outcome: 'succeeded',
        });
        expect(settled.status).toBe(200);
      }
      const read = await api.get(`/v0/checkout/sessions/${session.id}`);
      const order = (await api.get(`/v0/orders/${session.orderId}`)).body.order;
      if (JSON.stringify(read.body.session.order) !== JSON.stringify(order) || order.amounts.refunded === 0)
        stale.push(session.id);
    });
    expect(stale).toEqual([]);
  });

  it("When a session's order is refunded, then it costs one internal call to sessions: one read and one write there, as a cancel", async () => {
    const session = await newSession();
    await api.post(`/v0/test_helpers/checkout/sessions/${session.id}/pay`, {});
    const refund = await commandsDuring(() => api.post(`/v0/orders/${session.orderId}/refunds`, { amount: 10 }));
    expect(refund.result.status).toBe(201);
    expect(refund.orders).toEqual({ find: 1, update: 2 });
    // The session by id, then its named write taking the newer order copy, one findOneAndUpdate.
    expect(refund.sessions).toEqual({ find: 1, findAndModify: 1 });
  });

  it("When a session's order is cancelled, then it costs one internal call to sessions: one read and one write there, nothing more in orders or the gateway than a plain order's cancel", async () => {
    const plain = (await api.post('/v0/orders', buildOrderInput())).body.order.id as string;
    const plainCancel = await commandsDuring(() => api.post(`/v0/orders/${plain}/cancel`));
    expect(plainCancel.result.status).toBe(200);
    expect(plainCancel.sessions).toEqual({});

    const session = await newSession();
    const cancel = await commandsDuring(() => api.post(`/v0/orders/${session.orderId}/cancel`));
    expect(cancel.result.status).toBe(200);
    expect(cancel.gateway).toEqual(plainCancel.gateway);
    expect(cancel.orders).toEqual(plainCancel.orders);
    // The session by id, then its named write `cancel`, one findOneAndUpdate (no event: D25 sends no webhook).
    expect(cancel.sessions).toEqual({ find: 1, findAndModify: 1 });

    // A repeated cancel changes nothing: orders answers the same revision, and sessions finds nothing newer.
    const again = await commandsDuring(() => api.post(`/v0/orders/${session.orderId}/cancel`));
    expect(again.result.status).toBe(200);
    expect(again.sessions).toEqual({ find: 1 });
  });

  it("When a session's order is edited, then it costs one internal call to sessions: one read and one write there", async () => {
    const session = await newSession();
    const edit = await commandsDuring(() =>
      api.patch(`/v0/orders/${session.orderId}`, { metadata: { note: 'edited' } }),
    );
    expect(edit.result.status).toBe(200);
    // The session by id, then its named write `takeOrderCopy`, one findOneAndUpdate.
    expect(edit.sessions).toEqual({ find: 1, findAndModify: 1 });
  });

  it('When sessions cannot take the change, then the merchant gets 503 SERVICE_UNAVAILABLE, not a success its next read contradicts; a retry completes it', async () => {
    const session = await newSession();
    // A gateway replica whose sessions are unreachable: orders writes the cancel, the copy cannot be made.
    const cut = buildGateway(
      gatewayConfig({ ...gatewayEnv, SESSIONS_URL: 'http://127.0.0.1:9' }),
      createLogger('gateway', { level: 'silent' }),
    );
    try {
      const cutApi = new Api((await cut.start()).url, api.key);
      const refused = await cutApi.post(`/v0/orders/${session.orderId}/cancel`);
      expect(refused.status).toBe(503);
      expect(refused.body.code).toBe('SERVICE_UNAVAILABLE');
    } finally {
      await cut.stop();
    }
    const retried = await api.post(`/v0/orders/${session.orderId}/cancel`);
    expect(retried.status).toBe(200);
    const read = await api.get(`/v0/checkout/sessions/${session.id}`);
    expect(read.body.session.status).toBe('cancelled');
  });
});
