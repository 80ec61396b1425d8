import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ANSWER, eventually } from '@checkout/testing';
import type {
  EndpointDeliveriesResponse,
  EventResponse,
  Mode,
  WebhookEndpointResponse,
  WebhookEndpointWithSecret,
} from '@checkout/contracts';
import { buildSessionEvent, createEndpoint, internalCall, sessionEventsTopic, useDispatcherFixture } from './support';

// D50: an endpoint whose every attempt has failed for 3 days is disabled and says why; enabled again, a recovery
// with its endpointId sends it what it missed (its failed deliveries, and the events recorded while it was
// disabled), each once. Days pass on an injected clock; every attempt is a real POST to a real receiver.

const DAY = 24 * 3_600_000;
const T0 = Date.now();
/** How far the dispatcher's clock is ahead of the real one (which it follows, so timers and retries still run). */
let offsetMs = 0;
const clock = () => new Date(Date.now() + offsetMs);
/** Moves the clock to `ms` after T0 (never back) and says what time it is then. */
const at = (ms: number) => {
  offsetMs = Math.max(offsetMs, T0 + ms - Date.now());
  return clock().toISOString();
};

const fixture = useDispatcherFixture(
  'endpoint_disable',
  // Two attempts a delivery; attempts always read the endpoint as it is now.
  { WEBHOOK_MAX_ATTEMPTS: '2', WEBHOOK_ENDPOINT_CACHE_MS: '0' },
  { clock },
);

async function endpointNow(scope: { organizationId: string; mode: Mode }, id: string) {
  const { body } = await internalCall(fixture.dispatcher, 'GET', `/internal/webhook-endpoints/${id}`, scope);
  return (body as unknown as WebhookEndpointResponse).endpoint;
}

async function deliveryOf(scope: { organizationId: string; mode: Mode }, eventId: string, endpointId: string) {
  const { body } = await internalCall(fixture.dispatcher, 'GET', `/internal/events/${eventId}`, scope);
  return (body as unknown as EventResponse).deliveries.find((d) => d.endpointId === endpointId);
}

/** Produces an event created now (on the test clock) and waits for its delivery to the endpoint to end. */
async function failedDelivery(
  scope: { organizationId: string; mode: Mode },
  endpoint: WebhookEndpointWithSecret,
  createdAt: string,
) {
  const event = buildSessionEvent({ ...scope, callbackUrl: null, createdAt });
  await fixture.producer.sendEvents(sessionEventsTopic(fixture.dispatcher.config), [event]);
  const delivery = await eventually(
    async () => {
      const found = await deliveryOf(scope, event.eventId, endpoint.id);
      return found && found.status !== 'pending' ? found : undefined;
    },
    { deadlineMs: 20_000, description: `the delivery of ${event.eventId} to end` },
  );
  return { event, delivery };
}

describe('an endpoint failing for 3 days (D50)', () => {
  it('When every attempt fails for 3 days, then the endpoint is disabled with its reason; events meanwhile are not sent; enabled again, a recovery with its endpointId sends what it missed once', async () => {
    const { receiver, dispatcher } = fixture;
    const scope = { organizationId: `org_dis_${randomBytes(3).toString('hex')}`, mode: 'live' as Mode };
    receiver.answer('/down', ANSWER.error);
    const endpoint = await createEndpoint(dispatcher, scope, { url: receiver.url('/down'), enabledEvents: ['*'] });

    const first = await failedDelivery(scope, endpoint, at(1_000));
    expect(first.delivery.attempts.map((a) => a.statusCode)).toEqual([500, 500]);
    const second = await failedDelivery(scope, endpoint, at(2 * DAY));
    expect((await endpointNow(scope, endpoint.id)).disabled).toBe(false);

    // Three days after the first failure: this one disables it, and its retry is not sent.
    const third = await failedDelivery(scope, endpoint, at(3 * DAY + 60_000));
    const disabled = await endpointNow(scope, endpoint.id);
    expect(disabled).toMatchObject({
      disabled: true,
      disabledReason: { code: 'failing', message: expect.stringContaining('failed'), at: expect.any(String) },
    });
    expect(third.delivery.attempts.map((a) => [a.statusCode, a.error])).toEqual([
      [500, 'HTTP 500'],
      [null, 'not sent: the endpoint is disabled'],
    ]);

    // While disabled: recorded, not delivered to it (no delivery is made for it); a session's callback URL still
    // gets its own (D30), so the second event says when both were recorded.
    const whileDisabled = buildSessionEvent({ ...scope, callbackUrl: null, createdAt: at(3 * DAY + 120_000) });
    const withCallback = buildSessionEvent({
      ...scope,
      callbackUrl: receiver.url('/callback'),
      createdAt: at(3 * DAY + 121_000),
    });
    await fixture.producer.sendEvents(sessionEventsTopic(dispatcher.config), [whileDisabled, withCallback]);
    await eventually(() => receiver.deliveries('/callback').length === 1, { deadlineMs: 20_000 });
    expect(await deliveryOf(scope, whileDisabled.eventId, endpoint.id)).toBeUndefined();
    expect(await deliveryOf(scope, withCallback.eventId, endpoint.id)).toBeUndefined();

    // Recovering a disabled endpoint is refused: it must be enabled first.
    const refused = await internalCall(dispatcher, 'POST', '/internal/events/recover', scope, {
      since: new Date(T0).toISOString(),
      endpointId: endpoint.id,
    });
    expect([refused.status, refused.body.code]).toEqual([400, 'WEBHOOK_ENDPOINT_DISABLED']);

    receiver.answer('/down', ANSWER.ok);
    receiver.clear();
    await internalCall(dispatcher, 'PATCH', `/internal/webhook-endpoints/${endpoint.id}`, scope, { disabled: false });
    expect(await endpointNow(scope, endpoint.id)).not.toHaveProperty('disabledReason');
    const recovered = await internalCall(dispatcher, 'POST', '/internal/events/recover', scope, {
      since: new Date(T0).toISOString(),
      endpointId: endpoint.id,
    });
    // Its three failed deliveries, and the two events recorded while it was disabled.
    expect([recovered.status, recovered.body]).toEqual([202, { recovering: 5 }]);
    const expected = [first.event, second.event, third.event, whileDisabled, withCallback].map((e) => e.eventId).sort();
    await eventually(() => receiver.deliveries('/down').length === 5, { deadlineMs: 20_000 });
    expect(
      receiver
        .deliveries('/down')
        .map((r) => String(r.headers['x-service-event-id']))
        .sort(),
    ).toEqual(expected);

    // Once: a second recovery finds nothing left to send.
    const again = await internalCall(dispatcher, 'POST', '/internal/events/recover', scope, {
      since: new Date(T0).toISOString(),
      endpointId: endpoint.id,
    });
    expect(again.body).toEqual({ recovering: 0 });
    await eventually(async () => (await deliveryOf(scope, whileDisabled.eventId, endpoint.id))?.status === 'succeeded');
    expect(receiver.deliveries('/down')).toHaveLength(5);

    // The dashboard's page of the endpoint reads its deliveries, newest event first, with their attempts.
    const page = await internalCall(
      dispatcher,
      'GET',
      `/internal/webhook-endpoints/${endpoint.id}/deliveries?limit=2`,
      scope,
    );
    const { deliveries, pagination } = page.body as unknown as EndpointDeliveriesResponse;
    expect(pagination).toEqual({ page: 1, limit: 2, hasMore: true });
    expect(deliveries.map((d) => d.eventId)).toEqual([withCallback.eventId, whileDisabled.eventId]);
    expect(deliveries[0]).toMatchObject({ endpointId: endpoint.id, eventType: 'checkout.session.completed' });
  });

  it('When a success comes between failures, then the 3 days start again after it', async () => {
    const { receiver, dispatcher } = fixture;
    const scope = { organizationId: `org_flap_${randomBytes(3).toString('hex')}`, mode: 'test' as Mode };
    const base = clock().getTime() - T0;
    receiver.answer('/flaky', ANSWER.error);
    const endpoint = await createEndpoint(dispatcher, scope, { url: receiver.url('/flaky'), enabledEvents: ['*'] });
    await failedDelivery(scope, endpoint, at(base + 1_000));

    receiver.answer('/flaky', ANSWER.ok);
    const succeeded = await failedDelivery(scope, endpoint, at(base + DAY));
    expect(succeeded.delivery.status).toBe('succeeded');

    receiver.answer('/flaky', ANSWER.error);
    await failedDelivery(scope, endpoint, at(base + 3 * DAY + 60_000));
    expect((await endpointNow(scope, endpoint.id)).disabled).toBe(false);

    // Three days of failures after that run began: now it is disabled.
    await failedDelivery(scope, endpoint, at(base + 6 * DAY + 120_000));
    expect(await endpointNow(scope, endpoint.id)).toMatchObject({
      disabled: true,
      disabledReason: { code: 'failing' },
    });
  });
});

describe('POST /internal/events/recover with an endpointId (D50)', () => {
  it('When the endpoint is malformed, unknown or another organization’s, then it is 400 INVALID_REQUEST or 404 WEBHOOK_ENDPOINT_NOT_FOUND', async () => {
    const { dispatcher, receiver } = fixture;
    const scope = { organizationId: `org_rec_${randomBytes(3).toString('hex')}`, mode: 'test' as Mode };
    const since = clock().toISOString();
    const bad = await internalCall(dispatcher, 'POST', '/internal/events/recover', scope, {
      since,
      endpointId: 'we_x',
    });
    expect([bad.status, bad.body.code]).toEqual([400, 'INVALID_REQUEST']);
    const foreign = await createEndpoint(
      dispatcher,
      { ...scope, organizationId: `${scope.organizationId}_b` },
      {
        url: receiver.url('/foreign'),
        enabledEvents: ['*'],
      },
    );
    const notMine = await internalCall(dispatcher, 'POST', '/internal/events/recover', scope, {
      since,
      endpointId: foreign.id,
    });
    expect([notMine.status, notMine.body.code]).toEqual([404, 'WEBHOOK_ENDPOINT_NOT_FOUND']);
  });
});
