import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { MongoClient } from '@checkout/mongo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@checkout/logger';
import { eventually } from '@checkout/testing';
import { startStack, type InProcessStack } from './support/stack';
import { Api } from './support/api';
import { buildSessionInput } from './support/factories';

// D48 with D42: a refund is money, so a retry after an unknown outcome must never refund twice, with or without an
// Idempotency-Key, and a key reused after its 24 hours must never be answered with the refund it made a day before.
// All four services on the real engines; the 5xx after orders committed comes from a second gateway whose sessions
// is unreachable (D46: the session's copy fails after orders' answer), or from a third whose orders answers only
// after the gateway's upstream timeout.

let stack: InProcessStack;
let test: Api;
let broken: { url: string; stop(): Promise<void> };
let late: { url: string; stop(): Promise<void> };
let slowOrders: { url: string; release(): void; close(): Promise<void> };

const HOP_BY_HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);
const endToEnd = (headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>) =>
  Object.fromEntries(Object.entries(headers).filter(([name, value]) => value !== undefined && !HOP_BY_HOP.has(name)));

/** Orders behind a proxy that holds every answer until released: orders commits, its caller times out first. */
async function holdingProxy(target: string): Promise<typeof slowOrders> {
  let release = (): void => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const server = createServer((req, res) => {
    res.on('error', () => {});
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const answer = await request(`${target}${req.url ?? ''}`, {
          method: (req.method ?? 'GET') as 'POST',
          headers: endToEnd(req.headers) as Record<string, string>,
          ...(chunks.length > 0 && { body: Buffer.concat(chunks) }),
        });
        const body = Buffer.from(await answer.body.arrayBuffer());
        await released;
        res.writeHead(answer.statusCode, endToEnd(answer.headers) as Record<string, string>);
        res.end(body);
      })().catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    release,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function extraGateway(env: Record<string, string>): Promise<{ url: string; stop(): Promise<void> }> {
  const gateway = (await import('@checkout/gateway')).buildApp(
    (await import('@checkout/gateway/config')).parseConfig({
      ...stack.env.gateway,
      PORT: '0',
      ADMIN_PORT: '0',
      ...env,
    }),
    createLogger('gateway', { level: 'silent' }),
  );
  return { url: (await gateway.start()).url, stop: () => gateway.stop() };
}

beforeAll(async () => {
  stack = await startStack({
    extraEnv: {
      gateway: {
        RATE_LIMIT_PER_WINDOW: '1000000',
        RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: '1000000000',
        CLIENT_RATE_LIMIT_PER_WINDOW: '1000000',
      },
    },
  });
  const org = await stack.admin.createOrganizationWithKeys(`Refund retries ${randomBytes(3).toString('hex')}`);
  test = new Api(stack.gatewayUrl, org.testKey);
  // The same databases and orders, but a sessions that refuses every connection (a closed port).
  broken = await extraGateway({ SESSIONS_URL: 'http://127.0.0.1:9', UPSTREAM_TIMEOUT_MS: '2000' });
  // The same orders, whose answers arrive only once the test releases them: after this gateway's 500 ms.
  slowOrders = await holdingProxy(stack.env.gateway.ORDERS_URL ?? '');
  late = await extraGateway({ ORDERS_URL: slowOrders.url, UPSTREAM_TIMEOUT_MS: '500' });
});

afterAll(async () => {
  slowOrders?.release();
  await late?.stop();
  await slowOrders?.close();
  await broken?.stop();
  await stack?.stop();
});

async function paidOrder(): Promise<{ sessionId: string; orderId: string }> {
  const session = (await test.post('/v0/checkout/sessions', buildSessionInput())).body.session;
  expect((await test.post(`/v0/test_helpers/checkout/sessions/${session.id}/pay`, {})).status).toBe(200);
  return { sessionId: session.id, orderId: session.order.id };
}

async function refundIds(orderId: string): Promise<string[]> {
  return ((await test.get(`/v0/orders/${orderId}/refunds?limit=100`)).body.refunds as { id: string }[]).map(
    (r) => r.id,
  );
}

describe('a refund committed behind a 5xx, retried without an Idempotency-Key', () => {
  it('When the first try is answered 503 after orders committed it, then the identical retry answers that refund and none is made twice; an identical refund after the answer is a new one', async () => {
    const { sessionId, orderId } = await paidOrder();
    const viaBroken = new Api(broken.url, test.key);
    const first = await viaBroken.post(`/v0/orders/${orderId}/refunds`, { amount: 100 });
    expect(first.status).toBe(503);
    const [committed] = await refundIds(orderId);
    expect(committed).toBeDefined();

    // The natural retry, through the same broken gateway (again 503) and then through a healthy one.
    expect((await viaBroken.post(`/v0/orders/${orderId}/refunds`, { amount: 100 })).status).toBe(503);
    const retried = await test.post(`/v0/orders/${orderId}/refunds`, { amount: 100 });
    expect(retried.status).toBe(201);
    expect(retried.body.refund.id).toBe(committed);
    expect(await refundIds(orderId)).toEqual([committed]);
    expect((await test.get(`/v0/checkout/sessions/${sessionId}`)).body.session.order.amounts.refunded).toBe(100);

    // That retry was answered: the same body again is a second refund, as without any failure.
    const next = await test.post(`/v0/orders/${orderId}/refunds`, { amount: 100 });
    expect(next.status).toBe(201);
    expect(next.body.refund.id).not.toBe(committed);
    expect(await refundIds(orderId)).toHaveLength(2);
  });

  it('When orders commits a keyless refund but answers after the upstream timeout (503), then the identical retry answers that refund', async () => {
    const { orderId } = await paidOrder();
    const first = await new Api(late.url, test.key).post(`/v0/orders/${orderId}/refunds`, { amount: 80 });
    expect(first.status).toBe(503);
    const committed = await eventually(async () => (await refundIds(orderId))[0], {
      description: 'the refund orders committed behind the timeout',
    });
    slowOrders.release();
    const retried = await test.post(`/v0/orders/${orderId}/refunds`, { amount: 80 });
    expect(retried.status).toBe(201);
    expect(retried.body.refund.id).toBe(committed);
    expect(await refundIds(orderId)).toEqual([committed]);
  });

  it('When a keyless refund fails with a 4xx, then nothing is kept: the same body after the order changes is judged afresh', async () => {
    const { orderId } = await paidOrder();
    const tooMuch = await test.post(`/v0/orders/${orderId}/refunds`, { amount: 1_000_000 });
    expect(tooMuch.body.code).toBe('REFUND_FAILED');
    const all = await test.post(`/v0/orders/${orderId}/refunds`, {});
    expect(all.status).toBe(201);
    expect((await test.post(`/v0/orders/${orderId}/refunds`, {})).body.code).toBe('REFUND_FAILED');
  });
});

describe('an Idempotency-Key reused after its 24 hours (D42)', () => {
  it('When the key’s record has expired, then the same request makes a new refund and is not answered with the old one', async () => {
    const { orderId } = await paidOrder();
    const key = { 'idempotency-key': `refund-${randomBytes(6).toString('hex')}` };
    const first = await test.post(`/v0/orders/${orderId}/refunds`, { amount: 50 }, key);
    expect(first.status).toBe(201);
    expect((await test.post(`/v0/orders/${orderId}/refunds`, { amount: 50 }, key)).body).toEqual(first.body);

    // A day later: the record is past its expiry (as the clock would make it), not yet swept.
    const client = new MongoClient(process.env.MONGODB_URL ?? '');
    try {
      const day = 24 * 3_600_000;
      const records = client.db(stack.env.gateway.MONGODB_DATABASE).collection('idempotency_keys');
      const past = (d: Date) => new Date(d.getTime() - day - 60_000);
      for (const doc of await records.find({ apiKeyId: { $exists: true } }).toArray())
        await records.updateOne(
          { _id: doc._id },
          { $set: { createdAt: past(doc.createdAt), expiresAt: past(doc.expiresAt) } },
        );
    } finally {
      await client.close();
    }

    const reused = await test.post(`/v0/orders/${orderId}/refunds`, { amount: 50 }, key);
    expect(reused.status).toBe(201);
    expect(reused.headers['idempotent-replayed']).toBeUndefined();
    expect(reused.body.refund.id).not.toBe(first.body.refund.id);
    expect(await refundIds(orderId)).toHaveLength(2);
    // And the new life of the key replays its own answer.
    expect((await test.post(`/v0/orders/${orderId}/refunds`, { amount: 50 }, key)).body).toEqual(reused.body);
  });

  it('When a keyed refund is answered 503 after orders committed it, then the retry with its key is the same refund', async () => {
    const { orderId } = await paidOrder();
    const key = { 'idempotency-key': `refund-${randomBytes(6).toString('hex')}` };
    expect(
      (await new Api(broken.url, test.key).post(`/v0/orders/${orderId}/refunds`, { amount: 70 }, key)).status,
    ).toBe(503);
    const [committed] = await refundIds(orderId);
    const retried = await test.post(`/v0/orders/${orderId}/refunds`, { amount: 70 }, key);
    expect(retried.status).toBe(201);
    expect(retried.body.refund.id).toBe(committed);
    expect(await refundIds(orderId)).toEqual([committed]);
  });
});
