import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Middleware } from 'koa';
import { createLogger } from '@checkout/logger';
import { createBaseApp, mountRouters, type InternalAnswer, type InternalClient } from '@checkout/http';
import { defaultCheckoutSettings } from '../store/organizations.store';
import { OrdersClient } from '../clients/orders.client';
import { SessionsClient } from '../clients/sessions.client';
import { WebhookDispatcherClient } from '../clients/webhook-dispatcher.client';
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

beforeAll(async () => {
  const { app } = createBaseApp({
    service: 'gateway',
    logger: createLogger('gateway', { level: 'silent' }),
    readiness: [],
  });
  const router = publicRouter({
    authenticate,
    idempotency: async (_ctx, next) => next(),
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
