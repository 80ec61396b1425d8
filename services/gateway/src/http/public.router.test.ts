import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Middleware } from 'koa';
import { createLogger } from '@checkout/logger';
import { createBaseApp, mountRouters, type InternalAnswer, type InternalClient } from '@checkout/http';
import { defaultCheckoutSettings } from '../domain/checkout-settings';
import { OrdersClient } from '../clients/orders.client';
import { SessionsClient } from '../clients/sessions.client';
import { WebhookDispatcherClient } from '../clients/webhook-dispatcher.client';
import { DomainError } from '@checkout/errors';
import { publicRouter } from './public.router';

// The full `npm run fuzz` (Schemathesis ST204) found `GET /v0/events/recover` answered by
// `GET /v0/events/:eventId` with 400 INVALID_EVENT_ID ("recover" is not an event id), where the path is the recover
// route's and takes POST only: 405 with `Allow: POST, OPTIONS`. A parameter route never answers a literal route's path.

const forwarded: string[] = [];
const http = {
  async json(request: { method: string; path: string }): Promise<InternalAnswer> {
    forwarded.push(`${request.method} ${request.path}`);
    return { status: 200, headers: {}, body: { ok: true } };
  },
} as unknown as InternalClient;
const authenticate: Middleware = async (ctx, next) => {
  ctx.state.scope = { organizationId: 'org_1', mode: 'test' };
  await next();
};

let server: Server;
let base: string;
/** The POSTs that went through the Idempotency-Key middleware (D42). */
const keyed: string[] = [];
/** The budgets' checks made, and the refusal they answer while set. */
const budgetChecks: string[] = [];
let overBudget: DomainError | undefined;

beforeAll(async () => {
  const { app } = createBaseApp({
    service: 'gateway',
    logger: createLogger('gateway', { level: 'silent' }),
    readiness: [],
  });
  const router = publicRouter({
    authenticate,
    idempotency: async (ctx, next) => {
      keyed.push(`${ctx.method} ${ctx.path}`);
      await next();
    },
    keylessRetries: async (_ctx, next) => next(),
    budgets: {
      check: async (scope) => {
        budgetChecks.push(scope.organizationId);
        if (overBudget) throw overBudget;
      },
    },
    bodyLimitBytes: 4096,
    upstreams: {
      orders: new OrdersClient(http),
      sessions: new SessionsClient(http),
      dispatcher: new WebhookDispatcherClient(http),
    },
    checkoutSettings: async (_organizationId, mode) => defaultCheckoutSettings(mode),
  });
  mountRouters(app, [router]);
  const handle = app.callback();
  server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe("A literal route's path is never a parameter route's id (found by the fuzzer, ST204)", () => {
  it.each(['/v0/events/recover', '/v0/events/recover/', '/v0/EVENTS/Recover'])(
    'When GET %s, then 405 METHOD_NOT_ALLOWED with Allow: POST, OPTIONS, and nothing is forwarded',
    async (path) => {
      forwarded.length = 0;
      const response = await fetch(`${base}${path}`);
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST, OPTIONS');
      expect(((await response.json()) as { code: string }).code).toBe('METHOD_NOT_ALLOWED');
      expect(forwarded).toEqual([]);
    },
  );

  it('When OPTIONS /v0/events/recover, then 204 with Allow: POST, OPTIONS', async () => {
    const response = await fetch(`${base}/v0/events/recover`, { method: 'OPTIONS' });
    expect(response.status).toBe(204);
    expect(response.headers.get('allow')).toBe('POST, OPTIONS');
  });

  it('When GET an event id or POST recover, then each is forwarded to its own route', async () => {
    forwarded.length = 0;
    expect((await fetch(`${base}/v0/events/evt_test_abc123`)).status).toBe(200);
    const recover = await fetch(`${base}/v0/events/recover`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ since: '2026-11-20T00:00:00Z' }),
    });
    expect(recover.status).toBe(200);
    expect(forwarded).toEqual(['GET /internal/events/evt_test_abc123', 'POST /internal/events/recover']);
  });
});

describe('webhook endpoints and the event catalog through the gateway (D49, D50)', () => {
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${base}${path}`, {
      method,
      ...(body !== undefined && { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });

  it('When each operation is called, then it is forwarded to the dispatcher, DELETE included', async () => {
    forwarded.length = 0;
    const id = 'we_test_abc123';
    for (const [method, path, body] of [
      ['GET', '/v0/webhook_endpoints'],
      ['POST', '/v0/webhook_endpoints', { url: 'https://merchant.example/hooks', enabledEvents: ['*'] }],
      ['GET', `/v0/webhook_endpoints/${id}`],
      ['PATCH', `/v0/webhook_endpoints/${id}`, { disabled: true }],
      ['DELETE', `/v0/webhook_endpoints/${id}`],
      ['POST', `/v0/webhook_endpoints/${id}/rotate_secret`],
      ['GET', '/v0/event_types?limit=5'],
    ] as const) {
      expect((await call(method, path, body)).status, `${method} ${path}`).toBe(200);
    }
    expect(forwarded).toEqual([
      'GET /internal/webhook-endpoints',
      'POST /internal/webhook-endpoints',
      `GET /internal/webhook-endpoints/${id}`,
      `PATCH /internal/webhook-endpoints/${id}`,
      `DELETE /internal/webhook-endpoints/${id}`,
      `POST /internal/webhook-endpoints/${id}/rotate-secret`,
      'GET /internal/event-types?limit=5',
    ]);
  });

  it('When an endpoint is created, then Idempotency-Key applies (D42); a rotation goes without it, its answer being a secret', async () => {
    keyed.length = 0;
    await call('POST', '/v0/webhook_endpoints', { url: 'https://merchant.example/hooks', enabledEvents: ['*'] });
    await call('POST', '/v0/webhook_endpoints/we_test_abc123/rotate_secret');
    expect(keyed).toEqual(['POST /v0/webhook_endpoints']);
  });

  it.each(['GET', 'PATCH', 'DELETE'])(
    'When %s names a malformed endpoint id, then 400 INVALID_WEBHOOK_ENDPOINT_ID and nothing is forwarded (D4)',
    async (method) => {
      forwarded.length = 0;
      const response = await call(method, '/v0/webhook_endpoints/ord_test_abc', method === 'PATCH' ? {} : undefined);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { code: string }).code).toBe('INVALID_WEBHOOK_ENDPOINT_ID');
      expect(forwarded).toEqual([]);
    },
  );

  it('When a method the path does not take is used, then 405 with Allow', async () => {
    const response = await call('PUT', '/v0/webhook_endpoints/we_test_abc123');
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD, PATCH, DELETE, OPTIONS');
    expect((await call('DELETE', '/v0/webhook_endpoints')).status).toBe(405);
  });
});

describe('Daily budgets: only the writes that record events are checked, before the Idempotency-Key', () => {
  const resetsAt = '2026-11-30T00:00:00.000Z';
  const refusal = () =>
    new DomainError('QUOTA_EXCEEDED', 'used up', {
      quota: { budget: 'deliveries', limit: 5, resetsAt },
      retryAfterSeconds: 3600,
    });

  it('When the budget is used up, then POST /v0/orders is 429 QUOTA_EXCEEDED with quota and Retry-After, neither keyed nor forwarded', async () => {
    overBudget = refusal();
    forwarded.length = 0;
    keyed.length = 0;
    try {
      const response = await fetch(`${base}/v0/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(response.status).toBe(429);
      expect(response.headers.get('retry-after')).toBe('3600');
      expect(await response.json()).toMatchObject({
        code: 'QUOTA_EXCEEDED',
        quota: { budget: 'deliveries', limit: 5, resetsAt },
      });
      expect(forwarded).toEqual([]);
      expect(keyed).toEqual([]);
    } finally {
      overBudget = undefined;
    }
  });

  it('When the budget is used up, then reads and the test helpers that stand in for the customer are not checked', async () => {
    overBudget = refusal();
    budgetChecks.length = 0;
    try {
      expect((await fetch(`${base}/v0/orders`)).status).toBe(200);
      const pay = await fetch(`${base}/v0/test_helpers/checkout/sessions/cs_test_aaaaaaaaaaaaaaaaaaaaaaaa/pay`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(pay.status).toBe(200);
      expect(budgetChecks).toEqual([]);
    } finally {
      overBudget = undefined;
    }
  });

  it.each([
    ['POST', '/v0/orders'],
    ['PATCH', '/v0/orders/ord_test_aaaaaaaaaaaaaaaaaaaaaaaa'],
    ['POST', '/v0/orders/ord_test_aaaaaaaaaaaaaaaaaaaaaaaa/cancel'],
    ['POST', '/v0/orders/ord_test_aaaaaaaaaaaaaaaaaaaaaaaa/refunds'],
    ['POST', '/v0/checkout/sessions'],
    ['POST', '/v0/events/evt_test_aaaaaaaaaaaaaaaaaaaaaaaa/redeliver'],
    ['POST', '/v0/events/recover'],
    ['POST', '/v0/reports'],
  ])('When %s %s within the budget, then it is checked and forwarded', async (method, path) => {
    budgetChecks.length = 0;
    forwarded.length = 0;
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBeLessThan(300);
    expect(budgetChecks).toEqual(['org_1']);
    expect(forwarded).toHaveLength(1);
  });
});
