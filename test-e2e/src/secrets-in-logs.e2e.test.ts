import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { createHmac } from 'node:crypto';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '@checkout/testing';
import { startStack, type InProcessStack } from './support/stack';
import { Api } from './support/api';
import { buildSessionInput, uniqueId } from './support/factories';
import { cardNumbersIn, luhnValid, secretsIn } from './support/secrets';
import { payOnHostedPage } from './support/hosted-page';

// Secrets stay secret. The whole stack runs at log level trace with every service's log lines
// captured; the run exercises keys (valid, wrong, revoked), the admin API, signed webhooks, the hosted page with
// real test card numbers, a signed live processor notification and internal calls with a wrong token. Then the
// logs are scanned for every secret the run knows and for any Luhn-valid 13–19 digit run (a card number).

const lines: string[] = [];
let stack: InProcessStack;
let receiver: WebhookReceiver;
const secrets = new Map<string, string>();

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  stack = await startStack(
    {
      logLevel: 'trace',
      extraEnv: { gateway: { RATE_LIMIT_PER_WINDOW: '100000', RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: '1000000000' } },
    },
    undefined,
    {
      logSink: (line) => lines.push(line),
    },
  );
});

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

describe('Secrets in logs', () => {
  it('When a full run of payments, webhooks, keys and operator calls is logged at trace level, then no secret and no card number appears in any service log', async () => {
    const org = await stack.admin.createOrganizationWithKeys('Secret Keeping Org');
    const extra = await stack.admin.createKey(org.organizationId, 'test');
    secrets.set('test key', org.testKey).set('live key', org.liveKey).set('second test key', extra.secret);
    secrets.set('admin token', stack.env.adminToken);
    for (const [caller, token] of Object.entries(stack.env.internalTokens))
      secrets.set(`${caller} internal token`, token);
    secrets.set('ID derivation secret', stack.env.sessions.ID_DERIVATION_SECRET ?? '');
    secrets
      .set('processor HMAC secret', stack.env.processorWebhookSecret)
      .set('processor refund HMAC secret', stack.env.processorRefundWebhookSecret)
      .set('CSRF secret', stack.env.sessions.CSRF_SECRET ?? '');
    for (const mode of ['test', 'live'] as const) {
      const { webhookSigningSecret } = await stack.admin.call<{ webhookSigningSecret: string }>(
        'PATCH',
        `/organizations/${org.organizationId}/checkout-settings`,
        { mode, webhookSigning: true },
      );
      secrets.set(`${mode} signing secret`, webhookSigningSecret);
    }
    const test = new Api(stack.gatewayUrl, org.testKey);
    const live = new Api(stack.gatewayUrl, org.liveKey);
    // D50: a webhook endpoint's secret, shown when it is created and when it is rotated, and never logged.
    const endpoint = await test.post('/v0/webhook_endpoints', {
      url: receiver.url('/hooks/endpoint'),
      enabledEvents: ['*'],
    });
    expect(endpoint.status).toBe(201);
    secrets.set('endpoint secret', endpoint.body.endpoint.secret);
    const rotated = await test.post(`/v0/webhook_endpoints/${endpoint.body.endpoint.id}/rotate_secret`);
    expect(rotated.status).toBe(200);
    secrets.set('rotated endpoint secret', rotated.body.endpoint.secret);

    // Test mode: hosted page with a good, a declined and a non-test card; the test helper; signed webhooks.
    const cards = ['4242 4242 4242 4242', '4000000000000002', '5555555555554444'];
    for (const card of cards) {
      const created = await test.post(
        '/v0/checkout/sessions',
        buildSessionInput({
          externalId: uniqueId('secret'),
          callbackUrl: receiver.url('/hooks/secret'),
          customer: { email: 'payer@example.com', phone: '+1 415 555 0123' },
        }),
      );
      expect(created.status).toBe(201);
      expect(await payOnHostedPage(stack.checkoutBaseUrl, created.body.session.id, card)).toBe(303);
    }
    const helperPaid = await test.post(
      '/v0/checkout/sessions',
      buildSessionInput({ externalId: uniqueId('secret'), callbackUrl: receiver.url('/hooks/secret') }),
    );
    expect((await test.post(`/v0/test_helpers/checkout/sessions/${helperPaid.body.session.id}/pay`, {})).status).toBe(
      200,
    );

    // Live mode: the processor reports a captured payment, signed with the HMAC secret (D27).
    const liveSession = await live.post(
      '/v0/checkout/sessions',
      buildSessionInput({ externalId: uniqueId('secret'), callbackUrl: receiver.url('/hooks/secret') }),
    );
    expect(liveSession.status).toBe(201);
    const note = JSON.stringify({
      paymentId: `pay_live_${uniqueId('p').replace(/[^0-9A-Za-z]/g, '')}`,
      sessionId: liveSession.body.session.id,
      method: 'card',
      amount: liveSession.body.session.order.amounts.total,
      capturedAt: new Date().toISOString(),
    });
    const t = Math.floor(Date.now() / 1000);
    const signature = `t=${t},v1=${createHmac('sha256', stack.env.processorWebhookSecret).update(`${t}.${note}`).digest('hex')}`;
    const notified = await request(`http://127.0.0.1:${stack.env.sessions.PORT}/internal/processor/notifications`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-processor-signature': signature },
      body: note,
    });
    const notifiedBody = await notified.body.text();
    expect(notified.statusCode, notifiedBody).toBe(200);

    // Wrong, malformed and revoked credentials, and an internal call with a wrong token.
    expect((await test.withKey(`${org.testKey.slice(0, -4)}abcd`).get('/v0/orders')).status).toBe(401);
    expect((await test.withKey(`sk_test_${'9'.repeat(16)}`).get('/v0/orders')).status).toBe(401);
    await stack.admin.call('POST', `/organizations/${org.organizationId}/keys/${extra.id}/revoke`);
    await eventually(async () => (await test.withKey(extra.secret).get('/v0/orders')).status === 401, {
      deadlineMs: 15_000,
      description: 'revoked key refused',
    });
    const wrongAdmin = await request(`${stack.adminUrl}/admin/organizations`, {
      headers: { authorization: `Bearer ${stack.env.adminToken}x` },
    });
    await wrongAdmin.body.text();
    expect(wrongAdmin.statusCode).toBe(401);
    const wrongInternal = await request(`http://127.0.0.1:${stack.env.orders.PORT}/internal/orders`, {
      headers: { 'x-internal-token': `${stack.env.internalTokens.gateway}x` },
    });
    await wrongInternal.body.text();
    expect(wrongInternal.statusCode).toBe(401);

    // Let the webhooks land (signed), then redeliver one so the retry path logs too.
    await eventually(() => receiver.deliveries('/hooks/secret').length >= 3, {
      deadlineMs: 30_000,
      description: 'signed webhooks delivered',
    });
    expect(receiver.deliveries('/hooks/secret')[0]?.headers['webhook-signature']).toBeDefined();
    await eventually(() => receiver.deliveries('/hooks/endpoint').length >= 2, {
      deadlineMs: 30_000,
      description: "the endpoint's signed deliveries",
    });
    // A session's event: D49's order events are recorded too, and have no callback URL to redeliver to.
    const events = await test.get('/v0/events?type=checkout.session.completed');
    expect((await test.post(`/v0/events/${events.body.events[0].id}/redeliver`)).status).toBe(202);
    await eventually(() => receiver.deliveries('/hooks/secret').length >= 4, {
      deadlineMs: 30_000,
      description: 'redelivery',
    });

    // The scan: the run must have logged something from every service, and nothing secret.
    const services = new Set(lines.map((line) => (JSON.parse(line) as { service?: string }).service));
    expect([...services].sort()).toEqual(['gateway', 'orders', 'sessions', 'webhook-dispatcher']);
    const text = lines.join('');
    for (const [name, value] of secrets) expect(value.length, name).toBeGreaterThan(10);
    const hits = secretsIn(text, secrets);
    expect(hits).toEqual([]);
  });

  it('When the scanner is shown a card number or a key, then it finds it (the scan can fail)', () => {
    expect(cardNumbersIn('{"n":"4242 4242 4242 4242"}')).toHaveLength(1);
    expect(cardNumbersIn('{"n":4000000000000002}')).toHaveLength(1);
    expect(cardNumbersIn('{"id":"4242424242424241","short":"424242424242"}')).toEqual([]);
    // A member id whose digit groups pass Luhn, once in about 470 UUIDs: a CI run's logs held one.
    expect(cardNumbersIn('{"memberId":"webhook-dispatcher-aa1ef3d9-4e44-448d-8769-4579102985d3"}')).toEqual([]);
    expect(cardNumbersIn('{"id":"aa1ef3d9-4e44-448d-8769-4579102985d3","pan":"4242 4242 4242 4242"}')).toHaveLength(1);
    expect(luhnValid('5555555555554444')).toBe(true);
  });
});
