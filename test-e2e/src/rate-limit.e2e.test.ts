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

  it('When the window has passed, then the key is admitted again', async () => {
    await eventually(async () => (await (replicas[0] as Api).get('/v0/orders?limit=1')).status === 200, {
      deadlineMs: WINDOW_MS + 2_000,
      intervalMs: 200,
    });
  });
});
