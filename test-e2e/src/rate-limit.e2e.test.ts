import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@checkout/testing';
import { startStack, type InProcessStack } from './support/stack';
import { Api } from './support/api';

// D7: throttled → 429 RATE_LIMITED with Retry-After. D43: the limit is per key and per window; each of the
// GATEWAY_REPLICAS replicas admits ceil(RATE_LIMIT_PER_WINDOW / GATEWAY_REPLICAS) from its own memory, so
// requests spread over the replicas get the limit, and a client that reaches one replica gets its share.

const LIMIT = 6;
const REPLICAS = 2;
const SHARE = LIMIT / REPLICAS;
const WINDOW_MS = 5_000;
/** Test mode's bytes of request bodies per key and window (docs/security.md): 10,000 per replica. */
const TEST_BODY_BYTES = 20_000;
let stack: InProcessStack;
let replicas: Api[];
let otherKey: Api;
/** A key of its own for the single-replica test: no request of another test can have spent its window. */
let singleReplicaClient: Api;

beforeAll(async () => {
  stack = await startStack(
    {
      extraEnv: {
        gateway: {
          RATE_LIMIT_PER_WINDOW: String(LIMIT),
          RATE_LIMIT_WINDOW_MS: String(WINDOW_MS),
          GATEWAY_REPLICAS: String(REPLICAS),
          RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: String(TEST_BODY_BYTES),
        },
      },
    },
    ['orders', 'gateway'],
  );
  const org = await stack.admin.createOrganizationWithKeys('Throttled Org');
  const secondUrl = await stack.addGatewayReplica();
  replicas = [new Api(stack.gatewayUrl, org.testKey), new Api(secondUrl, org.testKey)];
  otherKey = new Api(stack.gatewayUrl, org.liveKey);
  singleReplicaClient = new Api(
    secondUrl,
    (await stack.admin.createOrganizationWithKeys('Single Replica Org')).testKey,
  );
});

afterAll(async () => {
  await stack?.stop();
});

/** Waits for the beginning of a window, so a burst cannot straddle two. */
const windowStart = () =>
  eventually(() => Date.now() % WINDOW_MS < 100, { deadlineMs: WINDOW_MS + 1_000, intervalMs: 5 });

describe('Rate limiting (D7, D43)', () => {
  it(`When ${LIMIT * 3} requests of one key are spread over ${REPLICAS} gateway replicas within one window, then exactly ${LIMIT} pass and the rest are 429 with Retry-After`, async () => {
    await windowStart();
    const responses = await Promise.all(
      Array.from({ length: LIMIT * 3 }, (_, i) => (replicas[i % 2] as Api).get('/v0/orders?limit=1')),
    );
    const ok = responses.filter((r) => r.status === 200);
    const limited = responses.filter((r) => r.status === 429);
    expect(ok).toHaveLength(LIMIT);
    expect(limited).toHaveLength(LIMIT * 2);
    for (const r of limited) {
      expect(r.body.code).toBe('RATE_LIMITED');
      expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    // Another key has its own budget.
    expect((await otherKey.get('/v0/orders?limit=1')).status).toBe(200);
  });

  it(`When one client reaches a single replica, then that replica admits its share, ${SHARE} per window`, async () => {
    await windowStart();
    const responses = await Promise.all(
      Array.from({ length: LIMIT }, () => singleReplicaClient.get('/v0/orders?limit=1')),
    );
    expect(responses.filter((r) => r.status === 200)).toHaveLength(SHARE);
    expect(responses.filter((r) => r.status === 429).map((r) => r.body.code)).toEqual(
      Array.from({ length: LIMIT - SHARE }, () => 'RATE_LIMITED'),
    );
  });

  it('When a test key sends more request-body bytes than its share in one window, then the next request is 429 RATE_LIMITED; a live key sending the same is not', async () => {
    const org = await stack.admin.createOrganizationWithKeys('Large Bodies Org');
    // 12 kB of metadata: over the replica's 10,000 bytes at once, within its 3 requests per window.
    const large = { metadata: Object.fromEntries(Array.from({ length: 24 }, (_, i) => [`k${i}`, 'v'.repeat(500)])) };
    await windowStart();
    const testKey = new Api(stack.gatewayUrl, org.testKey);
    const first = await testKey.post('/v0/orders', large);
    const second = await testKey.post('/v0/orders', large);
    expect(first.status).toBe(400); // admitted, then refused by validation (no items): it was weighed all the same
    expect(second.status).toBe(429);
    expect(second.body.code).toBe('RATE_LIMITED');
    expect(second.body.message).toMatch(/test-mode API key sent more request-body bytes than test mode allows/);
    expect(Number(second.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const liveKey = new Api(stack.gatewayUrl, org.liveKey);
    const live = [await liveKey.post('/v0/orders', large), await liveKey.post('/v0/orders', large)];
    expect(live.map((r) => r.status)).toEqual([400, 400]);
  });

  it('When the window has passed, then the key is admitted again', async () => {
    await eventually(async () => (await (replicas[0] as Api).get('/v0/orders?limit=1')).status === 200, {
      deadlineMs: WINDOW_MS + 2_000,
      intervalMs: 200,
    });
  });
});
