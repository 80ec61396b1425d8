import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Checkout, isCheckoutApiError } from '@checkout/sdk';
import { eventually, startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from '@checkout/testing';
import { EVENT_TYPES } from '@checkout/contracts';
import { startStack, type InProcessStack } from './support/stack';
import { uniqueId } from './support/factories';

// D49-D51 through the gateway on the whole stack, with @checkout/sdk as a merchant's code would: endpoints registered
// once per organization and mode hear of paid sessions beside the session's callback URL, each delivery signed with
// the endpoint's secret; the events API finds deliveries by endpoint and state; a disabled endpoint misses events
// and a recovery by its endpointId brings them.

let stack: InProcessStack;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  stack = await startStack({
    extraEnv: { gateway: { RATE_LIMIT_PER_WINDOW: '1000000', RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: '1000000000' } },
  });
});

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

async function merchant() {
  const org = await stack.admin.createOrganizationWithKeys(uniqueId('Endpoints Org'));
  return {
    test: new Checkout(org.testKey, { baseUrl: stack.gatewayUrl }),
    live: new Checkout(org.liveKey, { baseUrl: stack.gatewayUrl }),
  };
}

const latte = { items: [{ name: 'Latte', quantity: 2, unitPrice: 450 }] };
// An endpoint subscribed to '*' also gets the session's order events (D49), which carry no session.
const ofSession = (path: string, sessionId: string) =>
  receiver
    .deliveries(path)
    .filter((r) => (JSON.parse(r.body) as { session?: { id: string } }).session?.id === sessionId);

async function paidSession(client: Checkout, callbackPath?: string) {
  const session = await client.checkoutSessions.create({
    ...latte,
    ...(callbackPath !== undefined && { callbackUrl: receiver.url(callbackPath) }),
  });
  await client.testHelpers.checkoutSessions.pay(session.id);
  return session;
}

describe('webhook endpoints through the gateway (D50)', () => {
  it('When an endpoint is registered and a session paid, then the endpoint and the callback URL each get the event, the endpoint signed with its own secret', async () => {
    const { test } = await merchant();
    const path = `/endpoint/${uniqueId('a')}`;
    const callback = `/callback/${uniqueId('a')}`;
    // The session's event only: with '*' the endpoint would also get the order's events (D49), and this test
    // follows the one event both the endpoint and the callback URL receive.
    const endpoint = await test.webhookEndpoints.create({
      url: receiver.url(path),
      enabledEvents: ['checkout.session.completed'],
    });
    const session = await paidSession(test, callback);

    const [delivered] = await eventually(
      () => {
        const found = ofSession(path, session.id);
        return found.length > 0 ? found : undefined;
      },
      { deadlineMs: 20_000 },
    );
    const event = test.webhooks.verify(
      (delivered as ReceivedRequest).body,
      (delivered as ReceivedRequest).headers,
      endpoint.secret,
    );
    expect(event).toMatchObject({
      event: 'checkout.session.completed',
      session: { id: session.id, status: 'completed' },
    });
    await eventually(() => ofSession(callback, session.id).length === 1, { deadlineMs: 20_000 });

    const detail = await eventually(
      async () => {
        const found = await test.events.retrieve(event.id);
        return found.deliveries.every((d) => d.status === 'succeeded') && found.deliveries.length === 2
          ? found
          : undefined;
      },
      { deadlineMs: 20_000 },
    );
    expect(detail.deliveries.map((d) => d.endpointId ?? 'callback').sort()).toEqual([endpoint.id, 'callback'].sort());

    // D51: found by its endpoint and by the state of its deliveries.
    expect((await test.events.list({ endpointId: endpoint.id })).events.map((e) => e.id)).toEqual([event.id]);
    expect((await test.events.list({ deliveryStatus: 'succeeded' })).events.map((e) => e.id)).toEqual([event.id]);
    expect((await test.events.list({ deliveryStatus: 'failed' })).events).toEqual([]);
    expect((await test.events.list({ createdAfter: new Date(Date.parse(event.createdAt) + 1) })).pagination.total).toBe(
      0,
    );

    // A redelivery to the endpoint: a new delivery id, the same event, signed again.
    const redelivery = await test.events.redeliver(event.id, { endpointId: endpoint.id });
    expect(redelivery).toMatchObject({ endpointId: endpoint.id, url: receiver.url(path) });
    const again = await eventually(
      () => receiver.deliveries(path).find((r) => r.headers['x-service-delivery-id'] === redelivery.id),
      { deadlineMs: 20_000 },
    );
    expect(test.webhooks.verify(again.body, again.headers, endpoint.secret).id).toBe(event.id);
  });

  it('When an endpoint is created twice with one Idempotency-Key, then one endpoint exists and both answers show it with its secret (D42)', async () => {
    const { test } = await merchant();
    const key = uniqueId('create-endpoint');
    const first = await test.webhookEndpoints.create(
      { url: receiver.url('/idem'), enabledEvents: ['*'] },
      { idempotencyKey: key },
    );
    const replay = await test.webhookEndpoints.create(
      { url: receiver.url('/idem'), enabledEvents: ['*'] },
      { idempotencyKey: key },
    );
    expect(replay).toEqual(first);
    expect((await test.webhookEndpoints.list()).pagination.total).toBe(1);
  });

  it('When a live key registers http://169.254.169.254/latest/ (201 before) or any http URL, then 400 naming url; a test key is refused the address too, and may use http to a name', async () => {
    const { test, live } = await merchant();
    const refusal = async (client: Checkout, url: string) => {
      const err = await client.webhookEndpoints.create({ url, enabledEvents: ['*'] }).catch((e: unknown) => e);
      expect(isCheckoutApiError(err, 'WEBHOOK_ENDPOINT_CREATE_FAILED'), `${url}: ${String(err)}`).toBe(true);
      return err as { status: number; details?: Array<{ path: string }> };
    };
    for (const url of ['http://169.254.169.254/latest/', 'https://169.254.169.254/latest/', 'http://hooks.example/']) {
      const err = await refusal(live, url);
      expect(err.status).toBe(400);
      expect(err.details?.map((d) => d.path)).toEqual(['url']);
    }
    await refusal(test, 'http://169.254.169.254/latest/');
    expect((await test.webhookEndpoints.create({ url: 'http://hooks.example/', enabledEvents: ['*'] })).url).toBe(
      'http://hooks.example/',
    );
    expect((await live.webhookEndpoints.create({ url: 'https://hooks.example/', enabledEvents: ['*'] })).url).toBe(
      'https://hooks.example/',
    );
  });

  it('When the other mode asks for an endpoint, then it does not exist there (D3, D4)', async () => {
    const { test, live } = await merchant();
    const endpoint = await test.webhookEndpoints.create({ url: receiver.url('/modes'), enabledEvents: ['*'] });
    expect(endpoint.id).toMatch(/^we_test_/);
    const refused = await live.webhookEndpoints.retrieve(endpoint.id).catch((err: unknown) => err);
    expect(isCheckoutApiError(refused, 'WEBHOOK_ENDPOINT_NOT_FOUND')).toBe(true);
    expect((await live.webhookEndpoints.list()).endpoints).toEqual([]);
    const malformed = await test.webhookEndpoints.retrieve('we_nope').catch((err: unknown) => err);
    expect(isCheckoutApiError(malformed, 'INVALID_WEBHOOK_ENDPOINT_ID')).toBe(true);
  });

  it('When an endpoint is disabled, then a paid session does not reach it; enabled again, a recovery by its endpointId brings it, once', async () => {
    const { test } = await merchant();
    const path = `/disabled/${uniqueId('d')}`;
    const endpoint = await test.webhookEndpoints.create({
      url: receiver.url(path),
      enabledEvents: ['checkout.session.completed'],
    });
    const since = new Date(Date.now() - 60_000);
    const disabled = await test.webhookEndpoints.update(endpoint.id, { disabled: true });
    expect(disabled).toMatchObject({ disabled: true, disabledReason: { code: 'requested' } });
    const callback = `/while-disabled/${uniqueId('d')}`;
    const session = await paidSession(test, callback);
    await eventually(() => ofSession(callback, session.id).length === 1, { deadlineMs: 20_000 });
    expect(ofSession(path, session.id)).toHaveLength(0);

    await test.webhookEndpoints.update(endpoint.id, { disabled: false });
    expect(await test.events.recover({ since, endpointId: endpoint.id })).toEqual({ recovering: 1 });
    await eventually(() => ofSession(path, session.id).length === 1, { deadlineMs: 20_000 });
    expect(await test.events.recover({ since, endpointId: endpoint.id })).toEqual({ recovering: 0 });
  });

  it('When an endpoint is deleted or its secret rotated, then the answers say so; a deleted endpoint is gone', async () => {
    const { test } = await merchant();
    const endpoint = await test.webhookEndpoints.create({ url: receiver.url('/rotate'), enabledEvents: ['*'] });
    const rotated = await test.webhookEndpoints.rotateSecret(endpoint.id);
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect(await test.webhookEndpoints.del(endpoint.id)).toEqual({ id: endpoint.id, deleted: true });
    const gone = await test.webhookEndpoints.retrieve(endpoint.id).catch((err: unknown) => err);
    expect(isCheckoutApiError(gone, 'WEBHOOK_ENDPOINT_NOT_FOUND')).toBe(true);
  });
});

describe('GET /v0/event_types (D49)', () => {
  it('When the catalog is read, then every type has its description and body schema', async () => {
    const { test } = await merchant();
    const types = await test.eventTypes.list();
    expect(types.map((t) => t.type)).toEqual([...EVENT_TYPES]);
    expect(types.every((t) => t.schema.title === t.type)).toBe(true);
  });
});
