import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startStack, type InProcessStack } from './support/stack';

// Roles (API, consumers, sweepers) are switched by the same three settings in every service, and a
// pod whose roles are all off still answers Kubernetes' probes and Prometheus' scrape; only its API is gone.

const NO_ROLES = { API_ENABLED: 'false', CONSUMERS_ENABLED: 'false', SWEEPERS_ENABLED: 'false' };
let stack: InProcessStack;

beforeAll(async () => {
  // One recipe serves all three (orders' consumer is its ledger, D52).
  stack = await startStack({ extraEnv: { orders: NO_ROLES, sessions: NO_ROLES, dispatcher: NO_ROLES } }, [
    'orders',
    'sessions',
    'webhook-dispatcher',
  ]);
});

afterAll(async () => {
  await stack?.stop();
});

const services = [
  { name: 'orders', port: () => stack.env.orders.PORT, apiPath: '/internal/orders' },
  { name: 'sessions', port: () => stack.env.sessions.PORT, apiPath: '/internal/sessions' },
  { name: 'webhook-dispatcher', port: () => stack.env.dispatcher.PORT, apiPath: '/internal/events' },
] as const;

describe('A pod with every role switched off', () => {
  it.each(services)('$name serves /healthz, /readyz and /metrics, and not its API', async ({ port, apiPath }) => {
    const base = `http://127.0.0.1:${port()}`;
    const get = async (path: string) => {
      const response = await request(`${base}${path}`, {
        headers: {
          'x-internal-token': stack.env.internalTokens.gateway,
          'x-organization-id': 'org_roles',
          'x-mode': 'test',
        },
      });
      return { status: response.statusCode, text: await response.body.text() };
    };
    expect((await get('/healthz')).status).toBe(200);
    const ready = await get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.text).toContain('mongodb');
    const metrics = await get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(/^# HELP /m);
    expect((await get(apiPath)).status).toBe(404);
  });
});
