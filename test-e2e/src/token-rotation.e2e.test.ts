import { afterAll, describe, expect, it } from 'vitest';
import { internalCallers, newSecret, startWebhookReceiver, type WebhookReceiver } from '@checkout/testing';
import { startStack, type InProcessStack } from './support/stack';
import { Api } from './support/api';
import { buildOrderInput, buildSessionInput } from './support/factories';

// Rotating a service's internal credential without errors (docs/operations.md): each caller has a token
// of its own, and each callee lists the SHA-256 of every token it accepts per caller (INTERNAL_CALLERS). While a
// caller's old and new pods coexist, its callees list both. Every internal path is crossed here by a caller in
// the middle of its rotation: gateway → orders, sessions and dispatcher; sessions → orders; dispatcher → gateway
// (checkout settings, before each delivery).

const OLD = { gateway: newSecret(), sessions: newSecret(), dispatcher: newSecret() };
const NEW = { gateway: newSecret(), sessions: newSecret(), dispatcher: newSecret() };
const both = (caller: keyof typeof OLD) => [OLD[caller], NEW[caller]];

const stacks: InProcessStack[] = [];
let receiver: WebhookReceiver | undefined;

afterAll(async () => {
  for (const stack of stacks) await stack.stop();
  await receiver?.close();
});

describe('internal credential rotation', () => {
  it('When every caller is mid-rotation (some send the new token, some the old) and every callee accepts both, then orders, sessions, payments, webhooks and the events API all work', async () => {
    receiver = await startWebhookReceiver();
    const stack = await startStack({
      extraEnv: {
        gateway: {
          INTERNAL_TOKEN: NEW.gateway,
          INTERNAL_CALLERS: internalCallers({ 'webhook-dispatcher': both('dispatcher') }),
        },
        orders: { INTERNAL_CALLERS: internalCallers({ gateway: both('gateway'), sessions: both('sessions') }) },
        sessions: { INTERNAL_TOKEN: OLD.sessions, INTERNAL_CALLERS: internalCallers({ gateway: both('gateway') }) },
        dispatcher: { INTERNAL_TOKEN: NEW.dispatcher, INTERNAL_CALLERS: internalCallers({ gateway: both('gateway') }) },
      },
    });
    stacks.push(stack);
    const org = await stack.admin.createOrganizationWithKeys('Rotation Org');
    const merchant = new Api(stack.gatewayUrl, org.testKey);
    // Signing on: the dispatcher reads the secret from the gateway's internal API before the delivery.
    await stack.admin.call('PATCH', `/organizations/${org.organizationId}/checkout-settings`, {
      mode: 'test',
      webhookSigning: true,
    });

    const order = await merchant.post('/v0/orders', buildOrderInput());
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    const session = await merchant.post(
      '/v0/checkout/sessions',
      buildSessionInput({ callbackUrl: receiver.url('/rotation') }),
    );
    expect(session.status, JSON.stringify(session.body)).toBe(201);
    const paid = await merchant.post(`/v0/test_helpers/checkout/sessions/${session.body.session.id}/pay`, {});
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const delivery = await receiver.nextDelivery({ path: '/rotation', timeoutMs: 30_000 });
    expect(delivery.headers['webhook-signature']).toBeDefined();
    const eventId = String(delivery.headers['x-service-event-id']);
    const event = await merchant.get(`/v0/events/${eventId}`);
    expect(event.status, JSON.stringify(event.body)).toBe(200);
    expect(event.body.deliveries[0].attempts[0]).toMatchObject({ attempt: 1, statusCode: 200 });
  }, 120_000);

  it('When a callee does not accept the token the gateway sends, then merchants get 503 SERVICE_UNAVAILABLE, not a 401 that blames their key', async () => {
    const stack = await startStack(
      { extraEnv: { orders: { INTERNAL_CALLERS: internalCallers({ gateway: OLD.gateway, sessions: OLD.sessions }) } } },
      ['orders', 'gateway'],
    );
    stacks.push(stack);
    const merchant = new Api(stack.gatewayUrl, (await stack.admin.createOrganizationWithKeys('Mismatch Org')).testKey);
    const response = await merchant.post('/v0/orders', buildOrderInput());
    expect(response.status, JSON.stringify(response.body)).toBe(503);
    expect(response.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  }, 60_000);
});
