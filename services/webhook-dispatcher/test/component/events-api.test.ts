import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@checkout/testing';
import {
  newId,
  type EventListResponse,
  type EventResponse,
  type Mode,
  type RedeliverResponse,
  type SessionEventV1,
} from '@checkout/contracts';
import { buildSessionEvent, internalHeaders, sessionEventsTopic, useDispatcherFixture } from './support';

const orgA = `org_a_${randomBytes(3).toString('hex')}`;
const orgB = `org_b_${randomBytes(3).toString('hex')}`;
const A_TEST = { organizationId: orgA, mode: 'test' as Mode };
const A_LIVE = { organizationId: orgA, mode: 'live' as Mode };
const B_TEST = { organizationId: orgB, mode: 'test' as Mode };

let older: SessionEventV1;
let newer: SessionEventV1;
let expired: SessionEventV1;
let noCallback: SessionEventV1;
let live: SessionEventV1;
let otherOrg: SessionEventV1;

async function api(method: string, path: string, scope: { organizationId: string; mode: Mode }) {
  const response = await fetch(`${fixture.dispatcher.url}${path}`, { method, headers: internalHeaders(scope) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const fixture = useDispatcherFixture('events_api');

beforeAll(async () => {
  const { receiver, dispatcher, producer } = fixture;
  const at = (minutes: number) => new Date(Date.UTC(2026, 10, 21, 10, minutes)).toISOString();
  older = buildSessionEvent({ ...A_TEST, callbackUrl: receiver.url('/a'), createdAt: at(1) });
  newer = buildSessionEvent({ ...A_TEST, callbackUrl: receiver.url('/a'), createdAt: at(3) });
  expired = buildSessionEvent({
    ...A_TEST,
    callbackUrl: receiver.url('/a'),
    createdAt: at(2),
    type: 'checkout.session.expired',
  });
  noCallback = buildSessionEvent({ ...A_TEST, callbackUrl: null, createdAt: at(0) });
  live = buildSessionEvent({ ...A_LIVE, callbackUrl: receiver.url('/live'), createdAt: at(4) });
  otherOrg = buildSessionEvent({ ...B_TEST, callbackUrl: receiver.url('/b'), createdAt: at(5) });
  await producer.sendEvents(sessionEventsTopic(dispatcher.config), [older, newer, expired, noCallback, live, otherOrg]);
  await eventually(async () => (await api('GET', '/internal/events', A_TEST)).body.pagination, {
    deadlineMs: 20_000,
    description: 'events recorded',
  }).then(() =>
    eventually(
      async () => {
        const [a, l, b] = await Promise.all([
          api('GET', '/internal/events', A_TEST),
          api('GET', '/internal/events', A_LIVE),
          api('GET', '/internal/events', B_TEST),
        ]);
        const total = (r: { body: Record<string, unknown> }) =>
          (r.body as unknown as EventListResponse).pagination.total;
        return total(a) === 4 && total(l) === 1 && total(b) === 1;
      },
      { deadlineMs: 20_000, description: 'all six events recorded' },
    ),
  );
});

describe('GET /internal/events (D34)', () => {
  it('When listing, then only the caller organization and mode events come back, newest first', async () => {
    const { status, body } = await api('GET', '/internal/events', A_TEST);
    expect(status).toBe(200);
    const list = body as unknown as EventListResponse;
    expect(list.events.map((e) => e.id)).toEqual([newer.eventId, expired.eventId, older.eventId, noCallback.eventId]);
    expect(list.events[0]).toEqual(newer.body);
    expect(list.pagination).toEqual({ page: 1, limit: 20, total: 4, hasMore: false });
  });

  it('When filtering by type or session, then only matching events come back', async () => {
    const byType = (await api('GET', '/internal/events?type=checkout.session.expired', A_TEST))
      .body as unknown as EventListResponse;
    expect(byType.events.map((e) => e.id)).toEqual([expired.eventId]);
    const bySession = (await api('GET', `/internal/events?sessionId=${older.sessionId}`, A_TEST))
      .body as unknown as EventListResponse;
    expect(bySession.events.map((e) => e.id)).toEqual([older.eventId]);
    const foreignSession = (await api('GET', `/internal/events?sessionId=${otherOrg.sessionId}`, A_TEST))
      .body as unknown as EventListResponse;
    expect(foreignSession.pagination.total).toBe(0);
  });

  it('When paginating, then page and limit slice the list and hasMore tells whether more exist', async () => {
    const page2 = (await api('GET', '/internal/events?page=2&limit=3', A_TEST)).body as unknown as EventListResponse;
    expect(page2.events.map((e) => e.id)).toEqual([noCallback.eventId]);
    expect(page2.pagination).toEqual({ page: 2, limit: 3, total: 4, hasMore: false });
    const page1 = (await api('GET', '/internal/events?page=1&limit=3', A_TEST)).body as unknown as EventListResponse;
    expect(page1.pagination.hasMore).toBe(true);
  });

  it.each(['limit=0', 'limit=', 'limit=101', 'page=0', 'type=order.shipped', 'sessionId=nope', 'colour=red'])(
    'When the query has %s, then it is 400 INVALID_REQUEST with details',
    async (query) => {
      const { status, body } = await api('GET', `/internal/events?${query}`, A_TEST);
      expect(status).toBe(400);
      expect(body.code).toBe('INVALID_REQUEST');
      expect((body.details as unknown[]).length).toBeGreaterThan(0);
    },
  );

  it('When the internal token is missing, then it is 401', async () => {
    const response = await fetch(`${fixture.dispatcher.url}/internal/events`);
    expect(response.status).toBe(401);
  });
});

describe('GET /internal/events/:id (D34)', () => {
  it('When retrieving, then the event comes with its deliveries and their attempts', async () => {
    const detail = await eventually(async () => {
      const body = (await api('GET', `/internal/events/${older.eventId}`, A_TEST)).body as unknown as EventResponse;
      return body.deliveries[0]?.status === 'succeeded' ? body : undefined;
    });
    expect(detail.event).toEqual(older.body);
    expect(detail.deliveries).toEqual([
      {
        id: expect.stringMatching(/^dlv_test_/),
        url: fixture.receiver.url('/a'),
        status: 'succeeded',
        attempts: [
          { attempt: 1, at: expect.any(String), statusCode: 200, durationMs: expect.any(Number), error: null },
        ],
      },
    ]);
  });

  it.each(['evt_nope', 'ord_test_abc', 'evt_prod_abc'])(
    'When the id %s is malformed, then it is 400 INVALID_EVENT_ID',
    async (id) => {
      const { status, body } = await api('GET', `/internal/events/${id}`, A_TEST);
      expect(status).toBe(400);
      expect(body.code).toBe('INVALID_EVENT_ID');
    },
  );

  it('When the event belongs to another mode, another organization or nobody, then it is 404 EVENT_NOT_FOUND', async () => {
    for (const [id, scope] of [
      [older.eventId, A_LIVE],
      [older.eventId, B_TEST],
      [live.eventId, A_TEST],
      [newId('evt', 'test'), A_TEST],
    ] as const) {
      const { status, body } = await api('GET', `/internal/events/${id}`, scope);
      expect(status).toBe(404);
      expect(body.code).toBe('EVENT_NOT_FOUND');
    }
  });
});

describe('POST /internal/events/:id/redeliver (D34)', () => {
  it('When redelivering, then a new delivery of the same event is attempted at once: 202 with a new delivery id', async () => {
    await eventually(() =>
      fixture.receiver.deliveries('/a').some((r) => r.headers['x-service-event-id'] === newer.eventId),
    );
    const { status, body } = await api('POST', `/internal/events/${newer.eventId}/redeliver`, A_TEST);
    expect(status).toBe(202);
    const { delivery } = body as unknown as RedeliverResponse;
    expect(delivery).toEqual({
      id: expect.stringMatching(/^dlv_test_/),
      url: fixture.receiver.url('/a'),
      status: 'pending',
      attempts: [],
    });

    const redelivered = await eventually(() =>
      fixture.receiver.deliveries('/a').find((r) => r.headers['x-service-delivery-id'] === delivery.id),
    );
    expect(redelivered.headers['x-service-event-id']).toBe(newer.eventId);
    expect(redelivered.headers['idempotency-key']).toBe(newer.eventId);
    expect(JSON.parse(redelivered.body)).toEqual(newer.body);

    const detail = await eventually(async () => {
      const d = (await api('GET', `/internal/events/${newer.eventId}`, A_TEST)).body as unknown as EventResponse;
      return d.deliveries.length === 2 && d.deliveries.every((x) => x.status === 'succeeded') ? d : undefined;
    });
    expect(new Set(detail.deliveries.map((d) => d.id)).size).toBe(2);
  });

  it('When the event has no callback URL, then it is 400 INVALID_REQUEST (D32)', async () => {
    const { status, body } = await api('POST', `/internal/events/${noCallback.eventId}/redeliver`, A_TEST);
    expect(status).toBe(400);
    expect(body.code).toBe('INVALID_REQUEST');
  });

  it('When the event belongs to another organization or mode, then it is 404 and nothing is sent', async () => {
    const before = fixture.receiver.deliveries('/b').length;
    expect((await api('POST', `/internal/events/${otherOrg.eventId}/redeliver`, A_TEST)).status).toBe(404);
    expect((await api('POST', `/internal/events/${older.eventId}/redeliver`, A_LIVE)).status).toBe(404);
    expect((await api('POST', '/internal/events/evt_bad/redeliver', A_TEST)).body.code).toBe('INVALID_EVENT_ID');
    expect(fixture.receiver.deliveries('/b').length).toBe(before);
  });
});

describe('GET /internal/events/delivery-stats (D47: the dashboard chart)', () => {
  it("When the caller's deliveries have been attempted, then its host shows their attempts and successes; another organization's and the other mode's are apart", async () => {
    const host = new URL(fixture.receiver.url('/a')).host;
    const stats = await eventually(
      async () => {
        const { status, body } = await api('GET', '/internal/events/delivery-stats', A_TEST);
        expect(status).toBe(200);
        const entry = (
          body.hosts as { host: string; attempts: number; succeeded: number; p95DurationMs: number }[]
        ).find((h) => h.host === host);
        return entry && entry.succeeded >= 3 ? { body, entry } : undefined;
      },
      { deadlineMs: 20_000, description: "A's three deliveries to succeed" },
    );
    expect(stats.entry.attempts).toBeGreaterThanOrEqual(stats.entry.succeeded);
    expect(stats.entry.p95DurationMs).toBeGreaterThanOrEqual(0);
    expect(new Date(String(stats.body.from)).getTime()).toBeLessThan(Date.now() - 23 * 3_600_000);
    const other = await api('GET', '/internal/events/delivery-stats', B_TEST);
    const otherEntry = (other.body.hosts as { host: string; attempts: number }[]).find((h) => h.host === host);
    expect(otherEntry?.attempts ?? 0).toBeLessThanOrEqual(1);
    const liveEntry = (
      (await api('GET', '/internal/events/delivery-stats', A_LIVE)).body.hosts as { host: string; attempts: number }[]
    ).find((h) => h.host === host);
    expect(liveEntry?.attempts ?? 0).toBeLessThanOrEqual(1);
  });
});

describe('GET /internal/events without a total (D47: the dashboard pager)', () => {
  it('When asked without a total, then the page has hasMore and no total, and the same events as the counted list', async () => {
    const response = await fetch(`${fixture.dispatcher.url}/internal/events?limit=3`, {
      headers: { ...internalHeaders(A_TEST), 'x-list-without-total': '1' },
    });
    const body = (await response.json()) as { events: { id: string }[]; pagination: Record<string, unknown> };
    expect(body.pagination).toEqual({ page: 1, limit: 3, hasMore: true });
    const counted = (await api('GET', '/internal/events?limit=3', A_TEST)).body as unknown as EventListResponse;
    expect(body.events.map((e) => e.id)).toEqual(counted.events.map((e) => e.id));
    expect(counted.pagination).toEqual({ page: 1, limit: 3, total: 4, hasMore: true });
  });
});
