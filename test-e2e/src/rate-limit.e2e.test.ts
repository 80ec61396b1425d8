import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@checkout/testing';
import { startStack, type InProcessStack } from './support/stack';
import { Api } from './support/api';

// D7: throttled → 429 RATE_LIMITED with Retry-After; the limit is per key and holds across gateway replicas
// because the counters live in MongoDB, not in a replica's memory.

const LIMIT = 5;
const WINDOW_MS = 5_000;
let stack: InProcessStack;
let replicas: Api[];
let otherKey: Api;

beforeAll(async () => {
  stack = await startStack({ extraEnv: { gateway: { RATE_LIMIT_PER_WINDOW: String(LIMIT), RATE_LIMIT_WINDOW_MS: String(WINDOW_MS) } } }, ['orders', 'gateway']);
  const org = await stack.admin.createOrganizationWithKeys('Throttled Org');
  const secondUrl = await stack.addGatewayReplica();
  replicas = [new Api(stack.gatewayUrl, org.testKey), new Api(secondUrl, org.testKey)];
  otherKey = new Api(stack.gatewayUrl, org.liveKey);
});

afterAll(async () => {
  await stack?.stop();
});

describe('Rate limiting (D7)', () => {
  it(`When ${LIMIT * 3} requests of one key hit two gateway replicas within one window, then exactly ${LIMIT} pass and the rest are 429 with Retry-After`, async () => {
    // Start at the beginning of a window so the burst cannot straddle two windows.
    await eventually(() => Date.now() % WINDOW_MS < 100, { deadlineMs: WINDOW_MS + 1_000, intervalMs: 5 });
    const responses = await Promise.all(Array.from({ length: LIMIT * 3 }, (_, i) => (replicas[i % 2] as Api).get('/v0/orders?limit=1')));
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

  it('When the window has passed, then the key is admitted again', async () => {
    await eventually(async () => (await (replicas[0] as Api).get('/v0/orders?limit=1')).status === 200, { deadlineMs: WINDOW_MS + 2_000, intervalMs: 200 });
  });
});
