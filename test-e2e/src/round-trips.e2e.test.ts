import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MongoClient } from '@checkout/mongo';
import { CommandCounter } from '@checkout/mongo/testing';
import { createLogger } from '@checkout/logger';
import { INTERNAL_API_HEADERS, newId } from '@checkout/contracts';
import { SendCounter } from '@checkout/kafka/testing';
import { AdminClient, stackEnvironment } from '@checkout/testing';
import { buildApp as buildGateway, type GatewayApp } from '@checkout/gateway';
import { parseConfig as gatewayConfig } from '@checkout/gateway/config';
import { buildApp as buildOrders, type OrdersApp } from '@checkout/orders';
import { parseConfig as ordersConfig } from '@checkout/orders/config';
import { Api } from './support/api';
import { buildOrderInput } from './support/factories';

// What one public request costs across the gateway and orders, in database commands (the
// driver's command monitoring, one counter per service) and Kafka sends. Counts are deterministic, so they are
// asserted exactly; a change that adds a round trip has to change this file and say why. Here, not in a
// service's test/component, because the budget is a property of the two services together (the gateway's
// authentication, rate limit and D42 records, orders' writes and its outbox relay).
//
// "After warm-up": the API key is cached (AUTH_CACHE_MS at its cap, 30 s, and a new organization and key warmed
// before each test, so a refresh, 2 finds per key every AUTH_CACHE_MS, cannot fall inside a measured request) and
// background sweeps are kept out of the
// measured windows (they ran once at start).

const suffix = randomBytes(4).toString('hex');
const commands = { gateway: new CommandCounter(), orders: new CommandCounter() };
const kafka = new SendCounter();
let gateway: GatewayApp | undefined;
let orders: OrdersApp | undefined;
let api: Api;
let baseUrl: string;
let ordersDb: MongoClient;
let ordersDatabase: string;
let gatewayEnv: Record<string, string>;
let admin: AdminClient;
let organizationId: string;
let ordersUrl: string;
let sessionsToken: string;
/** Stands in for sessions (the gateway only forwards): records the checkout settings each request carried. */
let sessionsStub: Server;
const forwardedSettings: Array<{ defaultCallbackUrl: string | null }> = [];

interface Cost<T> {
  result: T;
  gateway: Record<string, number>;
  orders: Record<string, number>;
  /** Database commands of both services. */
  total: number;
  kafkaSends: number;
}

async function costOf<T>(fn: () => Promise<T>): Promise<Cost<T>> {
  const g = await commands.gateway.during(() => commands.orders.during(() => kafka.during(fn)));
  const o = g.result;
  const k = o.result;
  return { result: k.result, gateway: g.commands, orders: o.commands, total: g.total + o.total, kafkaSends: k.sends };
}

/** The order as stored, read with a client of its own (uncounted): is anything left for the relay to do? */
async function storedOutbox(id: string): Promise<{ outbox: unknown[]; outboxPending: boolean } | null> {
  return ordersDb
    .db(ordersDatabase)
    .collection<{ _id: string; outbox: unknown[]; outboxPending: boolean }>('orders')
    .findOne({ _id: id }, { projection: { outbox: 1, outboxPending: 1 } });
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
    namePrefix: `e2e_rt_${suffix}`,
    logLevel: 'silent',
    extraEnv: {
      gateway: { AUTH_CACHE_MS: '30000', IDEMPOTENCY_SWEEP_INTERVAL_MS: '3600000' },
      // Orders' background work stays out of the measured windows: the relay's sweep, the ledger's consumer and
      // sweep (D52), the report runs' poll.
      orders: {
        OUTBOX_SWEEP_INTERVAL_MS: '3600000',
        CONSUMERS_ENABLED: 'false',
        BALANCE_SWEEP_INTERVAL_MS: '3600000',
        REPORT_POLL_INTERVAL_MS: '3600000',
      },
    },
  });
  ordersDatabase = env.orders.MONGODB_DATABASE as string;
  ordersDb = await new MongoClient(mongoUrl).connect();
  const ordersApp = buildOrders(ordersConfig(env.orders), createLogger('orders', { level: 'silent' }));
  orders = ordersApp;
  ordersUrl = (await commands.orders.watch(() => kafka.watch(() => ordersApp.start()))).url;
  sessionsToken = env.internalTokens.sessions;
  sessionsStub = createServer((req, res) => {
    const header = req.headers[INTERNAL_API_HEADERS.checkoutSettings];
    if (typeof header === 'string')
      forwardedSettings.push(
        JSON.parse(Buffer.from(header, 'base64url').toString()) as { defaultCallbackUrl: string | null },
      );
    req.resume();
    res
      .writeHead(404, { 'content-type': 'application/json' })
      .end(JSON.stringify({ code: 'SESSION_NOT_FOUND', message: 'stub' }));
  });
  await new Promise<void>((resolve) => sessionsStub.listen(0, '127.0.0.1', resolve));
  gatewayEnv = {
    ...env.gateway,
    ORDERS_URL: ordersUrl,
    SESSIONS_URL: `http://127.0.0.1:${(sessionsStub.address() as AddressInfo).port}`,
  };
  const gatewayApp = buildGateway(gatewayConfig(gatewayEnv), createLogger('gateway', { level: 'silent' }));
  gateway = gatewayApp;
  const { url: gatewayUrl, adminUrl } = await commands.gateway.watch(() => gatewayApp.start());
  admin = new AdminClient(adminUrl, env.adminToken);
  baseUrl = gatewayUrl;
  // The first orders ever written pay for things a running service has already done (indexes warm, pools open).
  await warmKey();
});

/**
 * A new organization and key, warmed: its first request reads the key (and its organization) into the cache,
 * then each kind of request once. Before every test, so the cache entry is seconds old, never near AUTH_CACHE_MS.
 */
async function warmKey(): Promise<void> {
  const org = await admin.createOrganizationWithKeys(`Round Trips ${suffix}`);
  organizationId = org.organizationId;
  api = new Api(baseUrl, org.testKey);
  const warm = await api.post('/v0/orders', buildOrderInput());
  expect(warm.status).toBe(201);
  expect((await api.get(`/v0/orders/${warm.body.order.id as string}`)).status).toBe(200);
}

beforeEach(warmKey);

afterAll(async () => {
  await new Promise((resolve) => sessionsStub?.close(resolve));
  await gateway?.stop();
  await orders?.stop();
  await ordersDb?.close();
});

describe('round trips per public orders operation, gateway + orders', () => {
  it("GET /v0/orders/:id: 1 command in all (orders' find); authentication and the rate limit cost 0 (D43)", async () => {
    const id = (await api.post('/v0/orders', buildOrderInput())).body.order.id as string;
    const cost = await costOf(() => api.get(`/v0/orders/${id}`));
    expect(cost.result.status).toBe(200);
    expect(cost.gateway).toEqual({});
    expect(cost.orders).toEqual({ find: 1 });
    expect(cost.total).toBe(1);
    expect(cost.kafkaSends).toBe(0);
  });

  it('a refused request (429 RATE_LIMITED) costs 0 commands too: the limit is counted in memory (D43)', async () => {
    // A second replica on the same database whose limit is 1 request per key and hour: its second request is refused.
    const counted = new CommandCounter();
    const limited = buildGateway(
      gatewayConfig({
        ...gatewayEnv,
        RATE_LIMIT_PER_WINDOW: '1',
        RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: '1000000000',
        RATE_LIMIT_WINDOW_MS: '3600000',
      }),
      createLogger('gateway', { level: 'silent' }),
    );
    try {
      const replica = new Api((await counted.watch(() => limited.start())).url, api.key);
      const unknownOrder = `/v0/orders/${newId('ord', 'test')}`;
      expect((await replica.get(unknownOrder)).status).toBe(404);
      const refused = await counted.during(() => replica.get(unknownOrder));
      expect(refused.result.status).toBe(429);
      expect(refused.result.body.code).toBe('RATE_LIMITED');
      expect(refused.result.headers['retry-after']).toBeDefined();
      expect(refused.total).toBe(0);
    } finally {
      await limited.stop();
    }
  });

  it('a key not yet cached costs 2 commands (its key, its organization), once for all its concurrent requests', async () => {
    const key = (await admin.createKey(organizationId, 'test')).secret;
    const fresh = new Api(api.baseUrl, key);
    const id = (await api.post('/v0/orders', buildOrderInput())).body.order.id as string;
    const burst = await costOf(() => Promise.all(Array.from({ length: 16 }, () => fresh.get(`/v0/orders/${id}`))));
    expect(burst.result.map((r) => r.status)).toEqual(Array.from({ length: 16 }, () => 200));
    expect(burst.gateway).toEqual({ find: 2 });
    expect(burst.orders).toEqual({ find: 16 });
  });

  it('POST /v0/orders: 2 commands (the insert, with order.created in its outbox, D49; the relay marking it sent), 1 Kafka send, nothing left for the relay; +2 with a new customer, +1 with a known one', async () => {
    const plain = await costOf(() => api.post('/v0/orders', buildOrderInput()));
    expect(plain.result.status).toBe(201);
    expect(plain.gateway).toEqual({});
    expect(plain.orders).toEqual({ insert: 1, update: 1 });
    expect(plain.kafkaSends).toBe(1);
    // The relay's work is part of the budget: the created order's event is published and marked sent before the answer.
    expect(await storedOutbox(plain.result.body.order.id as string)).toEqual(
      expect.objectContaining({ outbox: [], outboxPending: false }),
    );

    const email = `rt-${suffix}@example.com`;
    const newCustomer = await costOf(() => api.post('/v0/orders', buildOrderInput({ customer: { email } })));
    expect(newCustomer.result.status).toBe(201);
    // Looks the email up, inserts the customer, inserts the order, marks its event sent.
    expect(newCustomer.orders).toEqual({ find: 1, insert: 2, update: 1 });
    expect(newCustomer.total).toBe(4);

    const knownCustomer = await costOf(() => api.post('/v0/orders', buildOrderInput({ customer: { email } })));
    expect(knownCustomer.result.status).toBe(201);
    expect(knownCustomer.orders).toEqual({ find: 1, insert: 1, update: 1 });
    expect(knownCustomer.total).toBe(3);
  });

  it("POST /v0/orders/:id/refunds: 3 commands in orders, as a cancel (read, one conditional replace guarding refundable with its events, the relay marking them sent; no lease), 1 Kafka send, nothing left for the relay (D48), and the gateway's one read for an unanswered keyless try", async () => {
    // A session's order, made and paid as sessions makes and pays it (orders takes payments from sessions only for
    // its sessions' orders): orders' internal routes, with sessions' credential.
    const asSessions = {
      'x-internal-token': sessionsToken,
      'x-organization-id': organizationId,
      'x-mode': 'test',
    };
    const orders = new Api(ordersUrl, undefined);
    const created = await orders.post('/internal/orders', buildOrderInput(), {
      ...asSessions,
      [INTERNAL_API_HEADERS.checkoutSessionId]: `cs_test_${randomBytes(12).toString('hex')}`,
    });
    expect(created.status).toBe(201);
    const id = created.body.order.id as string;
    const paid = await orders.post(
      `/internal/orders/${id}/payments`,
      { paymentId: `pay-rt-${suffix}`, method: 'card' },
      asSessions,
    );
    expect(paid.status).toBe(200);
    const refund = await costOf(() => api.post(`/v0/orders/${id}/refunds`, { amount: 100 }));
    expect(refund.result.status).toBe(201);
    // A keyless refund: the gateway looks for a try of the same refund left without an answer (docs/refunds.md).
    expect(refund.gateway).toEqual({ find: 1 });
    expect(refund.orders).toEqual({ find: 1, update: 2 });
    expect(refund.kafkaSends).toBe(1);
    expect(await storedOutbox(id)).toEqual(expect.objectContaining({ outbox: [], outboxPending: false }));

    const read = await costOf(() => api.get(`/v0/refunds/${refund.result.body.refund.id as string}`));
    expect(read.result.status).toBe(200);
    expect(read.total).toBe(1);
    const list = await costOf(() => api.get(`/v0/orders/${id}/refunds`));
    expect(list.result.body.refunds).toHaveLength(1);
    expect(list.total).toBe(1);
  });

  it('POST /v0/orders with an Idempotency-Key: +2 in the gateway (D42: the insert that arbitrates, the update that keeps the answer); a replay costs 2 and never reaches orders', async () => {
    const key = `rt-${suffix}-idem`;
    const body = buildOrderInput();
    const first = await costOf(() => api.post('/v0/orders', body, { 'idempotency-key': key }));
    expect(first.result.status).toBe(201);
    expect(first.gateway).toEqual({ insert: 1, findAndModify: 1 });
    expect(first.orders).toEqual({ insert: 1, update: 1 });
    expect(first.total).toBe(4);

    const replay = await costOf(() => api.post('/v0/orders', body, { 'idempotency-key': key }));
    expect(replay.result.status).toBe(201);
    expect(replay.result.body).toEqual(first.result.body);
    // The insert loses to the record, which is then read and replayed.
    expect(replay.gateway).toEqual({ insert: 1, find: 1 });
    expect(replay.orders).toEqual({});
  });

  it("creating a session forwards the checkout settings (D22, D26) from the gateway's cache: 0 commands once warm; a PATCH through this replica applies at once; other session routes send none", async () => {
    // No Idempotency-Key: the gateway's D42 store is not touched, so the cost is the settings' alone.
    const create = () => api.post('/v0/checkout/sessions', {});
    await create();
    const warm = await costOf(create);
    expect(warm.result.status).toBe(404);
    expect(warm.gateway).toEqual({});

    const callbackUrl = `https://merchant.example/rt-${suffix}`;
    await admin.call('PATCH', `/organizations/${organizationId}/checkout-settings`, {
      mode: 'test',
      defaultCallbackUrl: callbackUrl,
    });
    const afterChange = await costOf(create);
    expect(afterChange.gateway).toEqual({ find: 1 });
    expect(forwardedSettings.at(-1)?.defaultCallbackUrl).toBe(callbackUrl);

    // Sessions reads the settings only when it creates a session (it snapshots them): a read does not send them.
    const forwarded = forwardedSettings.length;
    expect((await api.get(`/v0/checkout/sessions/${newId('cs', 'test')}`)).status).toBe(404);
    expect(forwardedSettings).toHaveLength(forwarded);
  });
});
