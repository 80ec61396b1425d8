import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver } from '@checkout/testing';
import { startStack, type InProcessStack } from './support/stack';
import { Api } from './support/api';
import { buildOrderInput, buildSessionInput } from './support/factories';

// Rotating INTERNAL_TOKEN without errors (docs/operations.md): while pods with the old and the new token
// coexist, each sends its own INTERNAL_TOKEN and also accepts the other through INTERNAL_TOKENS_ACCEPTED.
// Every internal path is crossed here by a sender of one token and a receiver of the other: gateway → orders,
// sessions and dispatcher; sessions → orders; dispatcher → gateway (checkout settings, before each delivery).

const OLD = `old-${randomBytes(16).toString('hex')}`;
const NEW = `new-${randomBytes(16).toString('hex')}`;
const sendsNew = { INTERNAL_TOKEN: NEW, INTERNAL_TOKENS_ACCEPTED: OLD };
const sendsOld = { INTERNAL_TOKEN: OLD, INTERNAL_TOKENS_ACCEPTED: NEW };

const stacks: InProcessStack[] = [];
let receiver: WebhookReceiver | undefined;

afterAll(async () => {
  for (const stack of stacks) await stack.stop();
  await receiver?.close();
});

describe('INTERNAL_TOKEN rotation', () => {
  it('When half the services send the new token and half the old, each accepting both, then orders, sessions, payments, webhooks and the events API all work', async () => {
    receiver = await startWebhookReceiver();
    const stack = await startStack({ extraEnv: { gateway: sendsNew, orders: sendsOld, sessions: sendsNew, dispatcher: sendsOld } });
    stacks.push(stack);
    const merchant = new Api(stack.gatewayUrl, (await stack.admin.createOrganizationWithKeys('Rotation Org')).testKey);

    const order = await merchant.post('/v0/orders', buildOrderInput());
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    const session = await merchant.post('/v0/checkout/sessions', buildSessionInput({ callbackUrl: receiver.url('/rotation') }));
    expect(session.status, JSON.stringify(session.body)).toBe(201);
    const paid = await merchant.post(`/v0/test_helpers/checkout/sessions/${session.body.session.id}/pay`, {});
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const delivery = await receiver.nextDelivery({ path: '/rotation', timeoutMs: 30_000 });
    const eventId = String(delivery.headers['x-service-event-id']);
    const event = await merchant.get(`/v0/events/${eventId}`);
    expect(event.status, JSON.stringify(event.body)).toBe(200);
    expect(event.body.deliveries[0].attempts[0]).toMatchObject({ attempt: 1, statusCode: 200 });
  }, 120_000);

  it('When a service does not accept the token the gateway sends, then merchants get 503 SERVICE_UNAVAILABLE, not a 401 that blames their key', async () => {
    const stack = await startStack({ extraEnv: { gateway: { INTERNAL_TOKEN: NEW }, orders: { INTERNAL_TOKEN: OLD } } }, ['orders', 'gateway']);
    stacks.push(stack);
    const merchant = new Api(stack.gatewayUrl, (await stack.admin.createOrganizationWithKeys('Mismatch Org')).testKey);
    const response = await merchant.post('/v0/orders', buildOrderInput());
    expect(response.status, JSON.stringify(response.body)).toBe(503);
    expect(response.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  }, 60_000);
});
