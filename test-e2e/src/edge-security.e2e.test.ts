import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { createLogger } from '@checkout/logger';
import { CommandCounter } from '@checkout/mongo/testing';
import { checkWebhookSignature } from '@checkout/contracts';
import {
  AdminClient,
  eventually,
  stackEnvironment,
  startWebhookReceiver,
  type StackEnvironment,
  type WebhookReceiver,
} from '@checkout/testing';
import { buildApp as buildGateway, type GatewayApp } from '@checkout/gateway';
import { parseConfig as gatewayConfig } from '@checkout/gateway/config';
import { buildApp as buildOrders, type OrdersApp } from '@checkout/orders';
import { parseConfig as ordersConfig } from '@checkout/orders/config';
import { Api } from './support/api';
import { buildSessionInput } from './support/factories';
import { startStack, type InProcessStack } from './support/stack';

// What the edge refuses before and around authentication, which listener serves what, and who may call
// which internal route. Each test names the item of the issue it covers; each failed before its fix.

const suffix = randomBytes(4).toString('hex');
const silent = (name: string) => createLogger(name, { level: 'silent' });

async function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
  const response = await request(url, { headers });
  const text = await response.body.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.statusCode, body, headers: response.headers };
}

describe('the gateway alone, with its database commands counted', () => {
  const counter = new CommandCounter();
  let orders: OrdersApp;
  let gateways: GatewayApp[] = [];
  let env: StackEnvironment;
  let ordersUrl: string;
  let admin: AdminClient;
  let organizationId: string;

  /** A gateway replica on this file's databases, with settings of its own. */
  async function gateway(
    extra: Record<string, string> = {},
    counted = false,
  ): Promise<{ url: string; adminUrl: string }> {
    const app = buildGateway(
      gatewayConfig({ ...env.gateway, ORDERS_URL: ordersUrl, ADMIN_PORT: '0', ...extra }),
      silent('gateway'),
    );
    gateways.push(app);
    return counted ? counter.watch(() => app.start()) : app.start();
  }

  beforeAll(async () => {
    const mongoUrl = process.env.MONGODB_URL ?? '';
    env = stackEnvironment({
      ports: { gateway: 0, orders: 0, sessions: 0, dispatcher: 0 },
      mongoUrl,
      kafkaBrokers: (process.env.KAFKA_BROKERS ?? '').split(','),
      namePrefix: `e2e_edge_${suffix}`,
      logLevel: 'silent',
    });
    orders = buildOrders(ordersConfig(env.orders), silent('orders'));
    ordersUrl = (await orders.start()).url;
    const main = await gateway({ AUTH_CACHE_MS: '30000' });
    admin = new AdminClient(main.adminUrl, env.adminToken);
    organizationId = (await admin.createOrganizationWithKeys(`Edge ${suffix}`)).organizationId;
  });

  afterAll(async () => {
    for (const app of gateways.reverse()) await app.stop();
    gateways = [];
    await orders?.stop();
  });

  it("item 2: the public port serves neither the admin API, nor /internal, nor /metrics, and its /readyz says only ready or not; the operators' port serves them", async () => {
    const { url, adminUrl } = await gateway();
    const auth = { authorization: `Bearer ${env.adminToken}` };
    expect((await get(`${url}/admin/organizations`, auth)).status).toBe(404);
    expect((await get(`${url}/internal/checkout-settings`)).status).toBe(404);
    expect((await get(`${url}/metrics`)).status).toBe(404);
    expect(await get(`${url}/readyz`)).toMatchObject({ status: 200, body: { status: 'ready' } });
    expect(Object.keys((await get(`${url}/readyz`)).body)).toEqual(['status']);
    expect((await get(`${adminUrl}/admin/organizations`, auth)).status).toBe(200);
    expect((await get(`${adminUrl}/metrics`)).body).toContain('http_requests_total');
    expect((await get(`${adminUrl}/readyz`)).body).toMatchObject({ status: 'ready', checks: { mongodb: 'ok' } });
    // The public API is not on the operators' port either.
    expect((await get(`${adminUrl}/v0/orders`)).status).toBe(404);
  });

  it('item 5: the OpenAPI document names the configured public URL, whatever Host the first caller sends', async () => {
    const { url } = await gateway({ PUBLIC_BASE_URL: 'https://api.checkout.example' });
    const first = await get(`${url}/v0/openapi.json`, { host: 'attacker.example' });
    // `x-internal: false`: the public API, as the OWASP ruleset asks every server to say (docs/security.md).
    const servers = [{ url: 'https://api.checkout.example', 'x-internal': false }];
    expect(first.body.servers).toEqual(servers);
    expect((await get(`${url}/v0/openapi.json`)).body.servers).toEqual(servers);
  });

  it('item 4: guessing keys costs one database read per unknown key id, not one per guess, and an unknown key and a revoked one get the same answer', async () => {
    const { url } = await gateway({}, true);
    // Its start-up sweep is not what is measured here: one delete of expired Idempotency-Key records, then two of
    // expired dashboard login links and sessions (D47). Waiting for the first alone let the other two land in the
    // window.
    await eventually(async () => (counter.snapshot().delete ?? 0) >= 3, {
      deadlineMs: 10_000,
      description: 'the start-up sweep',
    });
    const unknown = `sk_test_${'Z'.repeat(12)}${randomBytes(16).toString('hex')}`;
    const guesses = await counter.during(() =>
      Promise.all(Array.from({ length: 20 }, () => new Api(url, unknown).get('/v0/orders'))),
    );
    expect(guesses.result.map((r) => r.status)).toEqual(Array.from({ length: 20 }, () => 401));
    expect(guesses.commands).toEqual({ find: 1 });
    const again = await counter.during(() => new Api(url, unknown).get('/v0/orders'));
    expect(again.total).toBe(0);

    const key = await admin.createKey(organizationId, 'test');
    await admin.call('POST', `/organizations/${organizationId}/keys/${key.id}/revoke`);
    const revoked = await new Api(url, key.secret).get('/v0/orders');
    expect(revoked.status).toBe(401);
    expect({ code: revoked.body.code, message: revoked.body.message }).toEqual({
      code: guesses.result[0]?.body.code,
      message: guesses.result[0]?.body.message,
    });
  });

  it('low: a key revoked through a replica stops working on that replica at once, with AUTH_CACHE_MS at its 30 s cap', async () => {
    const { url, adminUrl } = await gateway({ AUTH_CACHE_MS: '30000' });
    const replicaAdmin = new AdminClient(adminUrl, env.adminToken);
    const key = await replicaAdmin.createKey(organizationId, 'test');
    const merchant = new Api(url, key.secret);
    expect((await merchant.get('/v0/orders')).status).toBe(200);
    await replicaAdmin.call('POST', `/organizations/${organizationId}/keys/${key.id}/revoke`);
    expect((await merchant.get('/v0/orders')).status).toBe(401);
    expect(() => gatewayConfig({ ...env.gateway, AUTH_CACHE_MS: '30001' })).toThrow(/AUTH_CACHE_MS/);
  });

  it('item 4: every request is counted per client address before authentication; X-Forwarded-For counts only from a trusted proxy', async () => {
    const strict = await gateway({ CLIENT_RATE_LIMIT_PER_WINDOW: '5', RATE_LIMIT_WINDOW_MS: '60000' });
    const guess = new Api(strict.url, `sk_test_${'Q'.repeat(44)}`);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1)
      statuses.push((await guess.get('/v0/orders', { 'x-forwarded-for': `198.51.100.${i}` })).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    const refused = await guess.get('/v0/orders');
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('RATE_LIMITED');
    expect(refused.headers['retry-after']).toBeDefined();

    // Behind a trusted proxy (the loopback peer here), each forwarded client has a bucket of its own.
    const proxied = await gateway({
      CLIENT_RATE_LIMIT_PER_WINDOW: '5',
      RATE_LIMIT_WINDOW_MS: '60000',
      TRUSTED_PROXIES: '127.0.0.1/32,::1/128',
    });
    const behind = new Api(proxied.url, `sk_test_${'Q'.repeat(44)}`);
    for (let i = 0; i < 5; i += 1)
      expect((await behind.get('/v0/orders', { 'x-forwarded-for': '198.51.100.1' })).status).toBe(401);
    expect((await behind.get('/v0/orders', { 'x-forwarded-for': '198.51.100.1' })).status).toBe(429);
    expect((await behind.get('/v0/orders', { 'x-forwarded-for': '198.51.100.2' })).status).toBe(401);
  });

  it('item 4: the hosted page has a tighter budget per client address', async () => {
    const { url } = await gateway({
      CHECKOUT_RATE_LIMIT_PER_WINDOW: '3',
      RATE_LIMIT_WINDOW_MS: '60000',
      SESSIONS_URL: 'http://127.0.0.1:9',
    });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await get(`${url}/checkout/cs_test_${'a'.repeat(24)}`)).status);
    expect(statuses.slice(0, 3).every((s) => s !== 429)).toBe(true);
    expect(statuses[3]).toBe(429);
  });

  it('item 4: wrong operator tokens are limited per TCP peer, whatever X-Forwarded-For says; past the limit even the right one waits', async () => {
    // No peer is exempt by default, loopback included (a service mesh's sidecar connects from loopback): the
    // loopback peer stands for a pod reaching the operators' listener. Even with loopback a trusted proxy on the
    // public listener, the operators' listener reads no X-Forwarded-For: rotating it is no way around the limit.
    const { adminUrl } = await gateway({
      ADMIN_AUTH_FAILURES_PER_MINUTE: '3',
      TRUSTED_PROXIES: '127.0.0.1/32,::1/128',
    });
    for (let i = 0; i < 3; i += 1)
      expect(
        (
          await get(`${adminUrl}/admin/organizations`, {
            authorization: `Bearer wrong-${i}`,
            'x-forwarded-for': `198.51.100.${i}`,
          })
        ).status,
      ).toBe(401);
    const blocked = await get(`${adminUrl}/admin/organizations`, {
      authorization: `Bearer ${env.adminToken}`,
      'x-forwarded-for': '198.51.100.200',
    });
    expect(blocked.status).toBe(429);
    expect(blocked.headers['retry-after']).toBeDefined();
  });

  it('item 4: a peer the deployment exempts (the local cluster names its load balancer) is not locked out by wrong tokens', async () => {
    const { adminUrl } = await gateway({
      ADMIN_AUTH_FAILURES_PER_MINUTE: '3',
      ADMIN_AUTH_FAILURES_EXEMPT: '127.0.0.0/8,::1/128',
    });
    for (let i = 0; i < 10; i += 1)
      expect((await get(`${adminUrl}/admin/organizations`, { authorization: `Bearer wrong-${i}` })).status).toBe(401);
    expect((await get(`${adminUrl}/admin/organizations`, { authorization: `Bearer ${env.adminToken}` })).status).toBe(
      200,
    );
  });
});

describe('the whole stack: internal routes admit only their callers, and a rotated signing secret signs twice', () => {
  let stack: InProcessStack;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    stack = await startStack({ extraEnv: { dispatcher: { SIGNING_SECRET_CACHE_MS: '1' } } });
  });

  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
  });

  const call = async (url: string, method: 'GET' | 'POST', token: string) => {
    const response = await request(url, {
      method,
      headers: {
        'x-internal-token': token,
        'x-organization-id': 'org_edge',
        'x-mode': 'test',
        'content-type': 'application/json',
      },
      body: method === 'POST' ? '{}' : undefined,
    });
    return { status: response.statusCode, body: (await response.body.json()) as { code?: string } };
  };

  it("item 3: a service's credential opens only the routes its flows need (a compromised pod cannot act as another service)", async () => {
    const { internalTokens: tokens } = stack.env;
    const orders = `http://127.0.0.1:${stack.env.orders.PORT}`;
    const sessions = `http://127.0.0.1:${stack.env.sessions.PORT}`;
    const dispatcher = `http://127.0.0.1:${stack.env.dispatcher.PORT}`;
    // The gateway cannot apply a payment: only sessions may.
    expect(
      await call(`${orders}/internal/orders/ord_test_${'a'.repeat(24)}/payments`, 'POST', tokens.gateway),
    ).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
    // Sessions (customer-facing: the hosted page) cannot read signing secrets, nor the events API, nor call its own
    // API as the gateway does: where it is no caller at all its credential is unknown (401).
    expect((await call(`${stack.adminUrl}/internal/checkout-settings`, 'GET', tokens.sessions)).status).toBe(401);
    expect((await call(`${dispatcher}/internal/events`, 'GET', tokens.sessions)).status).toBe(401);
    expect((await call(`${sessions}/internal/sessions/cs_test_${'a'.repeat(24)}`, 'GET', tokens.sessions)).status).toBe(
      401,
    );
    // The dispatcher reads signing secrets, and nothing from orders.
    expect((await call(`${stack.adminUrl}/internal/checkout-settings`, 'GET', tokens.dispatcher)).status).toBe(200);
    expect((await call(`${orders}/internal/orders`, 'GET', tokens.dispatcher)).status).toBe(401);
    // The replay job may redeliver an event, and nothing else of the events API.
    expect((await call(`${dispatcher}/internal/events`, 'GET', tokens.deadLetterReplay)).status).toBe(403);
    // Case does not get around the check (routing ignores it): no token, no route.
    expect((await get(`${sessions}/INTERNAL/sessions/cs_test_${'a'.repeat(24)}`)).status).toBe(401);
  });

  it('low: rotating a signing secret signs each delivery with the new and the old secret for the overlap, so a receiver holding either verifies it (D35)', async () => {
    const org = await stack.admin.createOrganizationWithKeys(`Rotation ${suffix}`);
    const first = await stack.admin.call<{ webhookSigningSecret: string }>(
      'PATCH',
      `/organizations/${org.organizationId}/checkout-settings`,
      { mode: 'test', webhookSigning: true },
    );
    const rotated = await stack.admin.call<{
      webhookSigningSecret: string;
      checkoutSettings: { previousSecretSignsUntil?: string };
    }>('PATCH', `/organizations/${org.organizationId}/checkout-settings`, { mode: 'test', webhookSigning: true });
    expect(rotated.webhookSigningSecret).not.toBe(first.webhookSigningSecret);
    expect(Date.parse(rotated.checkoutSettings.previousSecretSignsUntil ?? '') - Date.now()).toBeGreaterThan(
      23 * 3_600_000,
    );

    const merchant = new Api(stack.gatewayUrl, org.testKey);
    const session = await merchant.post(
      '/v0/checkout/sessions',
      buildSessionInput({ callbackUrl: receiver.url('/rotated') }),
    );
    expect((await merchant.post(`/v0/test_helpers/checkout/sessions/${session.body.session.id}/pay`, {})).status).toBe(
      200,
    );
    const delivery = await receiver.nextDelivery({ path: '/rotated', timeoutMs: 30_000 });
    const signature = String(delivery.headers['webhook-signature']);
    expect(signature.split(' ')).toHaveLength(2);
    for (const secret of [rotated.webhookSigningSecret, first.webhookSigningSecret]) {
      const check = checkWebhookSignature({
        secret,
        body: delivery.body,
        id: String(delivery.headers['webhook-id']),
        timestamp: String(delivery.headers['webhook-timestamp']),
        signature,
        nowSeconds: Math.floor(Date.now() / 1000),
      });
      expect(check).toEqual({ ok: true });
    }

    // Turning signing off ends the overlap at once; on again, a new secret signs alone.
    await stack.admin.call('PATCH', `/organizations/${org.organizationId}/checkout-settings`, {
      mode: 'test',
      webhookSigning: false,
    });
    const fresh = await stack.admin.call<{ webhookSigningSecret: string }>(
      'PATCH',
      `/organizations/${org.organizationId}/checkout-settings`,
      { mode: 'test', webhookSigning: true },
    );
    const second = await merchant.post(
      '/v0/checkout/sessions',
      buildSessionInput({ callbackUrl: receiver.url('/fresh') }),
    );
    expect((await merchant.post(`/v0/test_helpers/checkout/sessions/${second.body.session.id}/pay`, {})).status).toBe(
      200,
    );
    const next = await receiver.nextDelivery({ path: '/fresh', timeoutMs: 30_000 });
    expect(String(next.headers['webhook-signature']).split(' ')).toHaveLength(1);
    const ok = checkWebhookSignature({
      secret: fresh.webhookSigningSecret,
      body: next.body,
      id: String(next.headers['webhook-id']),
      timestamp: String(next.headers['webhook-timestamp']),
      signature: String(next.headers['webhook-signature']),
      nowSeconds: Math.floor(Date.now() / 1000),
    });
    expect(ok).toEqual({ ok: true });
  }, 90_000);
});
