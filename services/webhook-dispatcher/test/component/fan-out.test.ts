import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER, eventually, type ReceivedRequest } from '@checkout/testing';
import type { EventResponse, Mode } from '@checkout/contracts';
import {
  HANGING_STAYS_OPEN,
  buildSessionEvent,
  createEndpoint,
  internalCall,
  sessionEventsTopic,
  startDispatcherFixture,
  type DispatcherFixture,
} from './support';

// D50: each event makes one delivery per enabled endpoint subscribed to its type, at its creation, each with its
// own delivery id, beside the session's callback URL (D30–D32 unchanged). An endpoint that hangs holds at most its
// own share of its host's slots, so the merchant's other endpoints on that host keep being delivered to.

let fixture: DispatcherFixture;
const org = `org_fan_${randomBytes(3).toString('hex')}`;
const TEST = { organizationId: org, mode: 'test' as Mode };
const OTHER = { organizationId: `${org}_other`, mode: 'test' as Mode };

const toEvent = (request: ReceivedRequest) => String(request.headers['x-service-event-id']);
const deliveredTo = (path: string, eventId: string) =>
  fixture.receiver.deliveries(path).filter((r) => toEvent(r) === eventId);

beforeAll(async () => {
  fixture = await startDispatcherFixture('fan_out', {
    ...HANGING_STAYS_OPEN,
    WEBHOOK_MAX_CONCURRENCY_PER_HOST: '4',
    WEBHOOK_MAX_CONCURRENCY_PER_ENDPOINT: '2',
  });
});

afterAll(async () => {
  // The receiver first: it lets the hanging attempts go, which the dispatcher's stop would otherwise wait out.
  await fixture?.receiver.close();
  await fixture?.stop();
});

describe('fan-out to webhook endpoints (D50)', () => {
  it('When an event is recorded, then every enabled endpoint subscribed to its type gets one delivery of its own, and the callback URL its own as before', async () => {
    const { receiver, dispatcher, producer } = fixture;
    const all = await createEndpoint(dispatcher, TEST, { url: receiver.url('/all'), enabledEvents: ['*'] });
    const completedOnly = await createEndpoint(dispatcher, TEST, {
      url: receiver.url('/completed'),
      enabledEvents: ['checkout.session.completed'],
    });
    await createEndpoint(dispatcher, TEST, {
      url: receiver.url('/expired'),
      enabledEvents: ['checkout.session.expired'],
    });
    const disabled = await createEndpoint(dispatcher, TEST, { url: receiver.url('/disabled'), enabledEvents: ['*'] });
    await internalCall(dispatcher, 'PATCH', `/internal/webhook-endpoints/${disabled.id}`, TEST, { disabled: true });
    await createEndpoint(dispatcher, OTHER, { url: receiver.url('/other-org'), enabledEvents: ['*'] });

    const event = buildSessionEvent({ ...TEST, callbackUrl: receiver.url('/callback') });
    // Sent twice: a replayed message makes no second delivery anywhere.
    await producer.sendEvents(sessionEventsTopic(dispatcher.config), [event, event]);

    await eventually(
      () =>
        deliveredTo('/all', event.eventId).length === 1 &&
        deliveredTo('/completed', event.eventId).length === 1 &&
        deliveredTo('/callback', event.eventId).length === 1,
      { deadlineMs: 20_000, description: 'the callback URL and the two subscribed endpoints' },
    );
    const detail = await eventually(async () => {
      const { body } = await internalCall(dispatcher, 'GET', `/internal/events/${event.eventId}`, TEST);
      const found = body as unknown as EventResponse;
      return found.deliveries.length === 3 && found.deliveries.every((d) => d.status === 'succeeded') ? found : false;
    });
    expect(detail.deliveries.map((d) => d.endpointId ?? 'callback').sort()).toEqual(
      [all.id, completedOnly.id, 'callback'].sort(),
    );
    const ids = [
      ...deliveredTo('/all', event.eventId),
      ...deliveredTo('/completed', event.eventId),
      ...deliveredTo('/callback', event.eventId),
    ].map((r) => r.headers['x-service-delivery-id']);
    expect(new Set(ids).size).toBe(3);
    expect(new Set(detail.deliveries.map((d) => d.id))).toEqual(new Set(ids));
    for (const r of deliveredTo('/all', event.eventId)) {
      expect(JSON.parse(r.body)).toEqual(event.body);
      expect(r.headers['x-service-event-type']).toBe('checkout.session.completed');
      expect(r.headers['webhook-id']).toBe(event.eventId);
    }
    // Nothing for the endpoint of the other type, the disabled one, or another organization's.
    expect(receiver.deliveries('/expired')).toHaveLength(0);
    expect(receiver.deliveries('/disabled')).toHaveLength(0);
    expect(receiver.deliveries('/other-org')).toHaveLength(0);
    // A session's callback URL is not signed unless its organization signs (D35); endpoints always are.
    expect(deliveredTo('/callback', event.eventId)[0]?.headers['webhook-signature']).toBeUndefined();
  });

  it('When an event without a callback URL is recorded, then its endpoints still get it (D32 concerns the callback URL only)', async () => {
    const { receiver, dispatcher, producer } = fixture;
    const scope = { organizationId: `org_fan_nocb_${randomBytes(3).toString('hex')}`, mode: 'live' as Mode };
    await createEndpoint(dispatcher, scope, { url: receiver.url('/no-callback'), enabledEvents: ['*'] });
    const event = buildSessionEvent({ ...scope, callbackUrl: null, type: 'checkout.session.expired' });
    await producer.sendEvents(sessionEventsTopic(dispatcher.config), [event]);
    await eventually(() => deliveredTo('/no-callback', event.eventId).length === 1, { deadlineMs: 20_000 });
  });

  it('When an event happened before the endpoint existed, then the endpoint does not get it', async () => {
    const { receiver, dispatcher, producer } = fixture;
    const scope = { organizationId: `org_fan_late_${randomBytes(3).toString('hex')}`, mode: 'test' as Mode };
    const before = buildSessionEvent({ ...scope, callbackUrl: receiver.url('/late-callback') });
    await createEndpoint(dispatcher, scope, { url: receiver.url('/late'), enabledEvents: ['*'] });
    const after = buildSessionEvent({ ...scope, callbackUrl: null });
    await producer.sendEvents(sessionEventsTopic(dispatcher.config), [before, after]);
    await eventually(() => deliveredTo('/late', after.eventId).length === 1, { deadlineMs: 20_000 });
    await eventually(() => deliveredTo('/late-callback', before.eventId).length === 1);
    expect(deliveredTo('/late', before.eventId)).toHaveLength(0);
  });

  it('When one endpoint hangs, then another endpoint of the merchant on the same host gets every delivery meanwhile: the hanging one holds only its own share of the host', async () => {
    const { receiver, dispatcher, producer } = fixture;
    const scope = { organizationId: `org_fan_hang_${randomBytes(3).toString('hex')}`, mode: 'live' as Mode };
    receiver.answer('/hangs', ANSWER.hang);
    // The hanging endpoint is registered first, so its attempts are queued first for each event.
    await createEndpoint(dispatcher, scope, { url: receiver.url('/hangs'), enabledEvents: ['*'] });
    await createEndpoint(dispatcher, scope, { url: receiver.url('/healthy'), enabledEvents: ['*'] });
    const events = Array.from({ length: 12 }, () => buildSessionEvent({ ...scope, callbackUrl: null }));
    await producer.sendEvents(sessionEventsTopic(dispatcher.config), events);

    await eventually(() => receiver.deliveries('/healthy').length === events.length, {
      deadlineMs: 20_000,
      description: 'all 12 deliveries to the healthy endpoint',
    });
    // Each hanging attempt stays open for the whole test (30 s timeout): the hanging endpoint never had more than
    // its share (WEBHOOK_MAX_CONCURRENCY_PER_ENDPOINT=2) of the host's 4 slots.
    expect(receiver.deliveries('/hangs').length).toBe(2);
    expect(new Set(receiver.deliveries('/healthy').map(toEvent))).toEqual(new Set(events.map((e) => e.eventId)));
  });
});
