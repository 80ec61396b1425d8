import { randomBytes } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { eventually, type ReceivedRequest } from '@checkout/testing';
import type { Mode, WebhookEndpointSecretResponse } from '@checkout/contracts';
import { buildSessionEvent, createEndpoint, internalCall, sessionEventsTopic, useDispatcherFixture } from './support';

// D35, D50: deliveries to webhook endpoints are signed in the Standard Webhooks format, each with its endpoint's
// secret, checked here by the reference library of the standard (npm `standardwebhooks`), not by our own code;
// after a rotation both the old and the new secret verify for 24 hours.

const scope = { organizationId: `org_sw_${randomBytes(3).toString('hex')}`, mode: 'test' as Mode };

const fixture = useDispatcherFixture('standard_webhooks');

function headersOf(request: ReceivedRequest): Record<string, string> {
  return Object.fromEntries(
    Object.entries(request.headers).flatMap(([name, value]) => (typeof value === 'string' ? [[name, value]] : [])),
  );
}

async function deliveryOf(path: string, eventId: string): Promise<ReceivedRequest> {
  return eventually(() => fixture.receiver.deliveries(path).find((r) => r.headers['x-service-event-id'] === eventId), {
    deadlineMs: 20_000,
    description: `${eventId} at ${path}`,
  });
}

const verifies = (secret: string, request: ReceivedRequest) =>
  new Webhook(secret).verify(request.body, headersOf(request));

describe('Standard Webhooks signatures, checked by the standardwebhooks library (D35, D50)', () => {
  it('When two endpoints get one event, then each delivery verifies with its own endpoint secret and not with the other one; after a rotation, with the old and the new secret', async () => {
    const { receiver, dispatcher, producer } = fixture;
    const first = await createEndpoint(dispatcher, scope, { url: receiver.url('/first'), enabledEvents: ['*'] });
    const second = await createEndpoint(dispatcher, scope, { url: receiver.url('/second'), enabledEvents: ['*'] });
    expect(first.secret).not.toBe(second.secret);

    const event = buildSessionEvent({ ...scope, callbackUrl: null });
    await producer.sendEvents(sessionEventsTopic(dispatcher.config), [event]);
    const toFirst = await deliveryOf('/first', event.eventId);
    const toSecond = await deliveryOf('/second', event.eventId);

    expect(verifies(first.secret, toFirst)).toEqual(event.body);
    expect(verifies(second.secret, toSecond)).toEqual(event.body);
    expect(() => verifies(second.secret, toFirst)).toThrow(WebhookVerificationError);
    expect(() => verifies(first.secret, toSecond)).toThrow(WebhookVerificationError);
    // A body changed on the way does not verify.
    expect(() =>
      new Webhook(first.secret).verify(toFirst.body.replace('"completed"', '"expired"'), headersOf(toFirst)),
    ).toThrow(WebhookVerificationError);

    // The first endpoint's secret is rotated: for 24 hours its deliveries carry a signature for each secret.
    const rotation = await internalCall(
      dispatcher,
      'POST',
      `/internal/webhook-endpoints/${first.id}/rotate-secret`,
      scope,
    );
    const rotated = (rotation.body as unknown as WebhookEndpointSecretResponse).endpoint.secret;
    expect(rotated).not.toBe(first.secret);
    const later = buildSessionEvent({ ...scope, callbackUrl: null, type: 'checkout.session.expired' });
    await producer.sendEvents(sessionEventsTopic(dispatcher.config), [later]);
    const duringRotation = await deliveryOf('/first', later.eventId);
    expect(String(duringRotation.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifies(first.secret, duringRotation)).toEqual(later.body);
    expect(verifies(rotated, duringRotation)).toEqual(later.body);
    expect(() => verifies(second.secret, duringRotation)).toThrow(WebhookVerificationError);
    // The other endpoint is untouched: one signature, its own secret.
    const otherLater = await deliveryOf('/second', later.eventId);
    expect(String(otherLater.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifies(second.secret, otherLater)).toEqual(later.body);
    expect(() => verifies(rotated, otherLater)).toThrow(WebhookVerificationError);
  });
});
