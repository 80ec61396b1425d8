import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type InProcessStack } from './support/stack';
import { Api } from './support/api';
import { buildOrderInput, buildSessionInput, uniqueId } from './support/factories';

// D42 through the gateway on the real engines: replays, reuse, concurrency, per-key scope, what is kept.

let stack: InProcessStack;

beforeAll(async () => {
  stack = await startStack(
    {
      extraEnv: { gateway: { RATE_LIMIT_PER_WINDOW: '1000000', RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: '1000000000' } },
    },
    ['orders', 'sessions', 'gateway'],
  );
});

afterAll(async () => {
  await stack?.stop();
});

async function newMerchant(): Promise<{ test: Api; live: Api }> {
  const org = await stack.admin.createOrganizationWithKeys(uniqueId('Idempotency Org'));
  return { test: new Api(stack.gatewayUrl, org.testKey), live: new Api(stack.gatewayUrl, org.liveKey) };
}

const withKey = (key: string) => ({ 'Idempotency-Key': key });
const orderCount = async (api: Api) => (await api.get('/v0/orders?limit=100')).body.pagination.total as number;

describe('POST /v0/orders with Idempotency-Key', () => {
  it('When the same key and body are sent again, then the first response is replayed with Idempotent-Replayed and no second order is made (D42)', async () => {
    const { test } = await newMerchant();
    const key = uniqueId('key');
    const first = await test.post('/v0/orders', buildOrderInput(), withKey(key));
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await test.post('/v0/orders', buildOrderInput(), withKey(key));
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await orderCount(test)).toBe(1);
  });

  it('When the same key comes with another body, then 409 IDEMPOTENCY_KEY_REUSED and nothing is created (D42)', async () => {
    const { test } = await newMerchant();
    const key = uniqueId('key');
    expect((await test.post('/v0/orders', buildOrderInput(), withKey(key))).status).toBe(201);
    const reused = await test.post('/v0/orders', buildOrderInput({ metadata: { other: 'body' } }), withKey(key));
    expect(reused.status).toBe(409);
    expect(reused.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await orderCount(test)).toBe(1);
  });

  it('When the key is longer than 255 characters, then 400 INVALID_REQUEST; 255 characters are accepted (D42)', async () => {
    const { test } = await newMerchant();
    const tooLong = await test.post('/v0/orders', buildOrderInput(), withKey('k'.repeat(256)));
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.code).toBe('INVALID_REQUEST');
    expect((await test.post('/v0/orders', buildOrderInput(), withKey('k'.repeat(255)))).status).toBe(201);
    expect(await orderCount(test)).toBe(1);
  });

  it('When the test and the live key use one key string, then each gets its own order: keys are kept per API key (D42)', async () => {
    const { test, live } = await newMerchant();
    const key = uniqueId('key');
    const a = await test.post('/v0/orders', buildOrderInput(), withKey(key));
    const b = await live.post('/v0/orders', buildOrderInput(), withKey(key));
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(a.body.order.id).not.toBe(b.body.order.id);
  });

  it('When a request with a key fails validation (4xx), then the same request replays that 400 (D42)', async () => {
    const { test } = await newMerchant();
    const key = uniqueId('key');
    const first = await test.post('/v0/orders', { items: [] }, withKey(key));
    expect(first.status).toBe(400);
    const again = await test.post('/v0/orders', { items: [] }, withKey(key));
    expect(again.status).toBe(400);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it('When a cancel is repeated with its key, then the replay carries the first answer (every public POST, D42)', async () => {
    const { test } = await newMerchant();
    const order = (await test.post('/v0/orders', buildOrderInput())).body.order;
    const key = uniqueId('key');
    const first = await test.post(`/v0/orders/${order.id}/cancel`, undefined, withKey(key));
    const again = await test.post(`/v0/orders/${order.id}/cancel`, undefined, withKey(key));
    expect(first.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
  });
});

describe('POST /v0/checkout/sessions with Idempotency-Key under concurrency', () => {
  it('When 10 identical requests with one key arrive at once, then exactly one session is created and every answer is that 201 or 409 IDEMPOTENCY_KEY_IN_USE (D42)', async () => {
    const { test } = await newMerchant();
    const key = uniqueId('key');
    const body = buildSessionInput();
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => test.post('/v0/checkout/sessions', body, withKey(key))),
    );
    const created = responses.filter((r) => r.status === 201);
    const inUse = responses.filter((r) => r.status === 409);
    expect(created.length + inUse.length).toBe(10);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const r of created) expect(r.body).toEqual(created[0]?.body);
    for (const r of inUse) {
      expect(r.body.code).toBe('IDEMPOTENCY_KEY_IN_USE');
      expect(r.headers['retry-after']).toBe('1');
    }
    expect(await orderCount(test)).toBe(1);
    const after = await test.post('/v0/checkout/sessions', body, withKey(key));
    expect(after.headers['idempotent-replayed']).toBe('true');
    expect(after.body.session.id).toBe(created[0]?.body.session.id);
  });

  it('When no key is sent, then two identical requests create two sessions, as before (D42)', async () => {
    const { test } = await newMerchant();
    const a = await test.post('/v0/checkout/sessions', buildSessionInput());
    const b = await test.post('/v0/checkout/sessions', buildSessionInput());
    expect(a.body.session.id).not.toBe(b.body.session.id);
    expect(await orderCount(test)).toBe(2);
  });
});

describe('Idempotency-Key and 5xx answers', () => {
  it('When the first request ends in 503, then the key is not kept and a retry with it creates the session (D42)', async () => {
    const partial = await startStack(
      {
        extraEnv: {
          gateway: {
            RATE_LIMIT_PER_WINDOW: '1000000',
            RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: '1000000000',
            UPSTREAM_TIMEOUT_MS: '2000',
          },
        },
      },
      ['orders', 'gateway'],
    );
    try {
      const org = await partial.admin.createOrganizationWithKeys(uniqueId('Outage Org'));
      const test = new Api(partial.gatewayUrl, org.testKey);
      const key = uniqueId('key');
      const down = await test.post('/v0/checkout/sessions', buildSessionInput(), withKey(key));
      expect(down.status).toBe(503);
      await partial.startService('sessions');
      const retried = await test.post('/v0/checkout/sessions', buildSessionInput(), withKey(key));
      expect(retried.status).toBe(201);
      expect(retried.headers['idempotent-replayed']).toBeUndefined();
    } finally {
      await partial.stop();
    }
  });
});
