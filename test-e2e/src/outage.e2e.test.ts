import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startEngines, type Engines } from '@checkout/engines';
import {
  databaseOutageProxy,
  eventually,
  startWebhookReceiver,
  type DatabaseOutage,
  type WebhookReceiver,
} from '@checkout/testing';
import { startStack, type InProcessStack } from './support/stack';
import { Api, type ApiResponse } from './support/api';
import { buildOrderInput, buildSessionInput } from './support/factories';

// "A dependency outage gets a 503 and recovers by itself" (D7: a dependency outage is 503 SERVICE_UNAVAILABLE, never
// a hang). Stopping what every other test file uses would disturb them, so:
// - the database is the engine of this run (the local default, or the one MONGODB_URL names), reached through a
//   loopback proxy that this test stops and starts (testkit/testing database-outage.ts): the services see it go away
//   and come back on the same address as when it restarts;
// - the broker is one of its own, stopped and started again on the same address and data. It cannot be the run's
//   broker (every file's), and a proxy cannot stand in front of Kafka: clients reach each broker at the address it
//   advertises.
// Nothing in the stack is restarted; it has to notice the return by itself.

let database: DatabaseOutage;
let engines: Engines;
let stack: InProcessStack;
let receiver: WebhookReceiver;
let merchant: Api;
let unusedKey: Api;

beforeAll(async () => {
  database = await databaseOutageProxy(inject('engines').mongoUrl);
  engines = await startEngines({ env: { MONGODB_URL: database.mongoUrl }, docker: false, log: () => {} });
  const [broker, engine] = engines.description.split('; ');
  process.stderr.write(
    `outage test: the run's database, ${engine}, through a loopback proxy; a broker of its own, ${broker}\n`,
  );
  receiver = await startWebhookReceiver();
  stack = await startStack({ mongoUrl: database.mongoUrl, kafkaBrokers: engines.kafkaBrokers });
  merchant = new Api(stack.gatewayUrl, (await stack.admin.createOrganizationWithKeys('Outage Org')).testKey);
  // A key the gateway has never seen, so it has nothing cached for it when the database goes away.
  unusedKey = new Api(stack.gatewayUrl, (await stack.admin.createOrganizationWithKeys('Unused Key Org')).testKey);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
  await engines?.stop();
  await database?.close();
});

function expectUnavailable(response: ApiResponse, what: string): void {
  expect(response.status, `${what}: ${JSON.stringify(response.body)}`).toBe(503);
  expect(response.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE', requestId: expect.any(String) });
  expect(response.headers['retry-after'], what).toBe('1');
}

async function readiness(port: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`http://127.0.0.1:${port}/readyz`);
  return { status: response.status, body: await response.text() };
}

describe('A database outage (D7)', () => {
  it('When the database stops, then public calls answer 503 SERVICE_UNAVAILABLE with Retry-After (never 401 or a hang); when it returns, the same calls succeed and nothing is lost', async () => {
    const before = await merchant.post('/v0/orders', buildOrderInput({ externalId: 'outage-before' }));
    expect(before.status).toBe(201);

    await database.stop();
    try {
      // Each call returns within the driver's server-selection timeout (3 s); a hang would hit the test timeout.
      expectUnavailable(
        await merchant.post('/v0/orders', buildOrderInput({ externalId: 'outage-during' })),
        'create order',
      );
      expectUnavailable(await merchant.get(`/v0/orders/${before.body.order.id}`), 'read order');
      expectUnavailable(
        await merchant.post('/v0/checkout/sessions', buildSessionInput({ externalId: 'outage-session' })),
        'create session',
      );
      // A key must not look invalid because the store that knows it is down.
      expectUnavailable(await unusedKey.get('/v0/orders'), 'first use of a key');
      // The operators' listener says why; the public one only that it is not ready (no dependency errors
      // for the internet to read).
      const ready = await readiness(stack.env.gateway.ADMIN_PORT as string);
      expect(ready.status).toBe(503);
      expect(ready.body).toContain('mongodb');
      const publicReady = await readiness(stack.env.gateway.PORT as string);
      expect(publicReady.status).toBe(503);
      expect(JSON.parse(publicReady.body)).toEqual({ status: 'not_ready' });
    } finally {
      await database.start();
    }

    // Recovery on its own: the drivers reconnect, nothing is restarted.
    const retried = await eventually(
      async () => {
        const response = await merchant.post('/v0/orders', buildOrderInput({ externalId: 'outage-during' }));
        return response.status === 503 ? undefined : response;
      },
      { deadlineMs: 30_000, intervalMs: 250, description: 'the create succeeding after the database returned' },
    );
    // 201, not 409: the refused create left nothing half-written behind.
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    expect((await merchant.get(`/v0/orders/${before.body.order.id}`)).body.order).toEqual(before.body.order);
    expect((await unusedKey.get('/v0/orders')).status).toBe(200);
    const list = await merchant.get('/v0/orders?limit=100');
    expect(list.body.orders.map((o: { externalId?: string }) => o.externalId).sort()).toEqual([
      'outage-before',
      'outage-during',
    ]);
    await eventually(async () => (await readiness(stack.env.gateway.PORT as string)).status === 200, {
      deadlineMs: 30_000,
      intervalMs: 250,
    });
  }, 120_000);
});

describe('A broker outage (D7)', () => {
  it('When the broker stops, then sessions are still created and paid (the outbox keeps the event), readiness reports kafka; when it returns, the webhook is delivered', async () => {
    await engines.stopKafka();
    let sessionId: string;
    try {
      const created = await merchant.post(
        '/v0/checkout/sessions',
        buildSessionInput({ callbackUrl: receiver.url('/hooks/outage/{SESSION_ID}') }),
      );
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      sessionId = created.body.session.id;
      const paid = await merchant.post(`/v0/test_helpers/checkout/sessions/${sessionId}/pay`, {});
      expect(paid.status, JSON.stringify(paid.body)).toBe(200);
      expect(paid.body.session.status).toBe('completed');
      const ready = await eventually(
        async () => {
          const r = await readiness(stack.env.sessions.PORT as string);
          return r.status === 503 ? r : undefined;
        },
        { deadlineMs: 30_000, intervalMs: 250, description: 'sessions readiness reporting the broker down' },
      );
      expect(ready.body).toContain('kafka');
      expect(receiver.deliveries(`/hooks/outage/${sessionId}`)).toEqual([]);
    } finally {
      await engines.startKafka();
    }

    const delivery = await receiver.nextDelivery({ path: `/hooks/outage/${sessionId}`, timeoutMs: 90_000 });
    expect(JSON.parse(delivery.body)).toMatchObject({
      event: 'checkout.session.completed',
      session: { id: sessionId, status: 'completed' },
    });
    await eventually(async () => (await readiness(stack.env.sessions.PORT as string)).status === 200, {
      deadlineMs: 30_000,
      intervalMs: 250,
    });
  }, 180_000);
});
