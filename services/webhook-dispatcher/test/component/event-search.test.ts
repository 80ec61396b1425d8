import { randomBytes } from 'node:crypto';
import { MongoClient, MongoServerError, type Document } from '@checkout/mongo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER, eventually } from '@checkout/testing';
import { readQueryPlan } from '@checkout/engines';
import {
  DELIVERY_SEARCH_MAX,
  newId,
  type EventListResponse,
  type EventResponse,
  type Mode,
  type SessionEventV1,
  type WebhookEndpointWithSecret,
} from '@checkout/contracts';
import { COLLECTIONS, WEBHOOK_INDEXES } from '../../src/store/indexes';
import { DeliveriesStore } from '../../src/store/deliveries.store';
import {
  buildSessionEvent,
  createEndpoint,
  internalCall,
  internalHeaders,
  sessionEventsTopic,
  startDispatcherFixture,
  type DispatcherFixture,
} from './support';

// D51: GET /v0/events filtered by the state of the events' deliveries, by endpoint and by time, every filter
// served by an index declared for it (store/indexes.ts), shown with explain where the engine has it.

let fixture: DispatcherFixture;
const scope = { organizationId: `org_search_${randomBytes(3).toString('hex')}`, mode: 'test' as Mode };
let ok: WebhookEndpointWithSecret;
let bad: WebhookEndpointWithSecret;
let hangs: WebhookEndpointWithSecret;
let e1: SessionEventV1;
let e2: SessionEventV1;
let e3: SessionEventV1;
// Events created a minute from now, a second apart: after the endpoints (which get only what follows them).
const base = Date.now() + 60_000;
const t = (second: number) => new Date(base + second * 1_000).toISOString();

const list = async (query: string) => {
  const { status, body } = await internalCall(fixture.dispatcher, 'GET', `/internal/events?${query}`, scope);
  expect(status, JSON.stringify(body)).toBe(200);
  return body as unknown as EventListResponse;
};
const ids = async (query: string) => (await list(query)).events.map((e) => e.id);

beforeAll(async () => {
  fixture = await startDispatcherFixture('event_search', {
    // Failures end at once (two attempts, 50 ms apart); the hanging endpoint's delivery stays pending throughout.
    WEBHOOK_MAX_ATTEMPTS: '2',
    WEBHOOK_TIMEOUT_MS: '30000',
    WEBHOOK_CLAIM_TTL_MS: '60000',
  });
  const { receiver, dispatcher, producer } = fixture;
  receiver.answer('/bad', ANSWER.error);
  receiver.answer('/hangs', ANSWER.hang);
  ok = await createEndpoint(dispatcher, scope, { url: receiver.url('/ok'), enabledEvents: ['*'] });
  bad = await createEndpoint(dispatcher, scope, {
    url: receiver.url('/bad'),
    enabledEvents: ['checkout.session.completed'],
  });
  hangs = await createEndpoint(dispatcher, scope, {
    url: receiver.url('/hangs'),
    enabledEvents: ['checkout.session.expired'],
  });
  // e1: callback and `ok` succeed, `bad` fails; e2: `ok` succeeds, `hangs` stays pending; e3: `ok` succeeds, `bad`
  // fails.
  e1 = buildSessionEvent({ ...scope, callbackUrl: receiver.url('/callback'), createdAt: t(1) });
  e2 = buildSessionEvent({ ...scope, callbackUrl: null, createdAt: t(2), type: 'checkout.session.expired' });
  e3 = buildSessionEvent({ ...scope, callbackUrl: null, createdAt: t(3) });
  const foreign = buildSessionEvent({ organizationId: `${scope.organizationId}_b`, mode: 'test', callbackUrl: null });
  await producer.sendEvents(sessionEventsTopic(dispatcher.config), [e1, e2, e3, foreign]);
  const states = async (eventId: string) => {
    const { body } = await internalCall(dispatcher, 'GET', `/internal/events/${eventId}`, scope);
    return (body as unknown as EventResponse).deliveries.map((d) => `${d.endpointId ?? 'callback'}:${d.status}`).sort();
  };
  await eventually(
    async () =>
      JSON.stringify(await states(e1.eventId)) ===
        JSON.stringify([`${bad.id}:failed`, `${ok.id}:succeeded`, 'callback:succeeded'].sort()) &&
      JSON.stringify(await states(e2.eventId)) ===
        JSON.stringify([`${hangs.id}:pending`, `${ok.id}:succeeded`].sort()) &&
      JSON.stringify(await states(e3.eventId)) === JSON.stringify([`${bad.id}:failed`, `${ok.id}:succeeded`].sort()) &&
      receiver.deliveries('/hangs').length === 1,
    { deadlineMs: 30_000, description: 'every delivery in its state' },
  );
});

afterAll(async () => {
  // The receiver first: it lets the hanging attempt go, which the dispatcher's stop would otherwise wait out.
  await fixture?.receiver.close();
  await fixture?.stop();
});

describe('GET /internal/events filtered by deliveries (D51)', () => {
  it('When filtering by deliveryStatus, then the events with at least one delivery in that state come back, newest first', async () => {
    expect(await ids('deliveryStatus=succeeded')).toEqual([e3.eventId, e2.eventId, e1.eventId]);
    expect(await ids('deliveryStatus=failed')).toEqual([e3.eventId, e1.eventId]);
    expect(await ids('deliveryStatus=pending')).toEqual([e2.eventId]);
  });

  it('When filtering by endpointId, then the events delivered to that endpoint; with deliveryStatus, in that state there', async () => {
    expect(await ids(`endpointId=${ok.id}`)).toEqual([e3.eventId, e2.eventId, e1.eventId]);
    expect(await ids(`endpointId=${bad.id}`)).toEqual([e3.eventId, e1.eventId]);
    expect(await ids(`endpointId=${hangs.id}`)).toEqual([e2.eventId]);
    expect(await ids(`endpointId=${bad.id}&deliveryStatus=failed`)).toEqual([e3.eventId, e1.eventId]);
    expect(await ids(`endpointId=${bad.id}&deliveryStatus=succeeded`)).toEqual([]);
    expect(await ids(`endpointId=${ok.id}&deliveryStatus=failed`)).toEqual([]);
    // Another organization's endpoint, or one that never existed: nothing, not an error (D4's spirit).
    expect((await list(`endpointId=${newId('we', 'test')}`)).pagination.total).toBe(0);
  });

  it('When filtering by createdAfter and createdBefore, then the window [after, before) of event times, alone or with other filters', async () => {
    expect(await ids(`createdAfter=${t(2)}`)).toEqual([e3.eventId, e2.eventId]);
    expect(await ids(`createdBefore=${t(2)}`)).toEqual([e1.eventId]);
    expect(await ids(`createdAfter=${t(2)}&createdBefore=${t(3)}`)).toEqual([e2.eventId]);
    expect(await ids(`deliveryStatus=failed&createdAfter=${t(2)}`)).toEqual([e3.eventId]);
    expect(await ids(`deliveryStatus=failed&createdBefore=${t(2)}`)).toEqual([e1.eventId]);
    // An empty window is an empty list, not an error.
    expect(await ids(`createdAfter=${t(3)}&createdBefore=${t(1)}`)).toEqual([]);
  });

  it('When the delivery filters meet type or sessionId, then all of them apply', async () => {
    expect(await ids('type=checkout.session.completed&deliveryStatus=succeeded')).toEqual([e3.eventId, e1.eventId]);
    expect(await ids('type=checkout.session.expired&deliveryStatus=failed')).toEqual([]);
    expect(await ids(`sessionId=${e1.sessionId}&deliveryStatus=failed`)).toEqual([e1.eventId]);
    expect(await ids(`sessionId=${e2.sessionId}&deliveryStatus=failed`)).toEqual([]);
  });

  it('When a filtered list is paged, then events are counted once each and total and hasMore agree', async () => {
    const page1 = await list('deliveryStatus=succeeded&limit=2');
    expect(page1.events.map((e) => e.id)).toEqual([e3.eventId, e2.eventId]);
    expect(page1.pagination).toEqual({ page: 1, limit: 2, total: 3, hasMore: true });
    const page2 = await list('deliveryStatus=succeeded&limit=2&page=2');
    expect(page2.events.map((e) => e.id)).toEqual([e1.eventId]);
    expect(page2.pagination).toEqual({ page: 2, limit: 2, total: 3, hasMore: false });
    // e1 has two succeeded deliveries (its callback and `ok`): still one event.
    expect((await list(`deliveryStatus=succeeded&createdBefore=${t(2)}`)).pagination.total).toBe(1);
    expect(page1.events[0]).toEqual(e3.body);

    const response = await fetch(`${fixture.dispatcher.url}/internal/events?deliveryStatus=succeeded&limit=2`, {
      headers: { ...internalHeaders(scope), 'x-list-without-total': '1' },
    });
    const withoutTotal = (await response.json()) as { events: { id: string }[]; pagination: Record<string, unknown> };
    expect(withoutTotal.pagination).toEqual({ page: 1, limit: 2, hasMore: true });
    expect(withoutTotal.events.map((e) => e.id)).toEqual([e3.eventId, e2.eventId]);
  });

  it.each([
    'deliveryStatus=failed&page=1000000',
    `endpointId=${'we_test_x'}&page=101&limit=100`,
    'deliveryStatus=succeeded&page=10001&limit=1',
  ])(
    'When a delivery-filtered list asks past page × limit = DELIVERY_SEARCH_MAX (%s), then 400 INVALID_REQUEST naming page',
    async (query) => {
      const { status, body } = await internalCall(fixture.dispatcher, 'GET', `/internal/events?${query}`, scope);
      expect(status, JSON.stringify(body)).toBe(400);
      expect(body.code).toBe('INVALID_REQUEST');
      expect(body.details).toEqual([expect.objectContaining({ path: 'page' })]);
      // The message itself names the bound and the way on: the dashboard shows it beside its filters.
      expect(body.message).toContain(String(DELIVERY_SEARCH_MAX));
      expect(body.message).toContain('createdBefore');
    },
  );

  it('When a delivery-filtered list is paged up to the bound, then the answers are still right; lists on events alone keep their pages', async () => {
    const last = await list(`deliveryStatus=succeeded&limit=100&page=${DELIVERY_SEARCH_MAX / 100}`);
    expect(last.events).toEqual([]);
    expect(last.pagination).toEqual({ page: DELIVERY_SEARCH_MAX / 100, limit: 100, total: 3, hasMore: false });
    const one = await list(`endpointId=${bad.id}&limit=1&page=2`);
    expect(one.events.map((e) => e.id)).toEqual([e1.eventId]);
    expect(one.pagination).toEqual({ page: 2, limit: 1, total: 2, hasMore: false });
    // Not a walk of deliveries: the events' own index skips (D20's pages, unchanged).
    expect((await list('page=1000000')).events).toEqual([]);
  });

  it.each([
    'deliveryStatus=done',
    'deliveryStatus=',
    'endpointId=we_x',
    'endpointId=evt_test_abc',
    'createdAfter=yesterday',
    'createdBefore=2026-13-01T00:00:00Z',
    'createdAfter=',
  ])('When the query has %s, then it is 400 INVALID_REQUEST with details (D51)', async (query) => {
    const { status, body } = await internalCall(fixture.dispatcher, 'GET', `/internal/events?${query}`, scope);
    expect(status).toBe(400);
    expect(body.code).toBe('INVALID_REQUEST');
    expect((body.details as unknown[]).length).toBeGreaterThan(0);
  });
});

describe('the bounded walk (D51)', () => {
  it('When a delivery-filtered page is read, then the find names a projection without _id and a maxTimeMS under the upstream timeout, and stops at what it needs', async () => {
    const client = new MongoClient(fixture.dispatcher.config.MONGODB_URL, { monitorCommands: true });
    const finds: Document[] = [];
    client.on('commandStarted', (event: { commandName: string; command: Document }) => {
      if (event.commandName === 'find') finds.push(event.command);
    });
    await client.connect();
    try {
      const store = new DeliveriesStore(client.db(fixture.dispatcher.config.MONGODB_DATABASE));
      const ids = await store.eventIdsWithDeliveries(scope, { status: 'succeeded' }, 2, 1_234);
      expect(ids).toEqual([e3.eventId, e2.eventId]);
      expect(finds).toHaveLength(1);
      expect(finds[0]).toMatchObject({ projection: { _id: 0, eventId: 1, eventCreatedAt: 1 }, maxTimeMS: 1_234 });
    } finally {
      await client.close();
    }
    // The service's own deadline: 5 s by default, under the gateway's 10 s upstream timeout.
    expect(fixture.dispatcher.config.EVENT_SEARCH_MAX_TIME_MS).toBe(5_000);
  });
});

describe('the indexes the D51 filters read through', () => {
  const D51_QUERIES: Array<{ index: string; collection: string; filter: Document; sort: Document }> = [
    {
      index: 'org_mode_status_eventCreatedAt_eventId',
      collection: COLLECTIONS.deliveries,
      filter: { status: 'failed' },
      sort: { eventCreatedAt: -1, eventId: -1 },
    },
    {
      index: 'org_mode_endpointId_eventCreatedAt_eventId',
      collection: COLLECTIONS.deliveries,
      filter: { endpointId: 'we_test_x' },
      sort: { eventCreatedAt: -1, eventId: -1 },
    },
    {
      index: 'org_mode_endpointId_status_eventCreatedAt_eventId',
      collection: COLLECTIONS.deliveries,
      filter: { endpointId: 'we_test_x', status: 'failed' },
      sort: { eventCreatedAt: -1, eventId: -1 },
    },
    {
      index: 'org_mode_createdAt_id',
      collection: COLLECTIONS.events,
      filter: { createdAt: { $gte: new Date(base), $lt: new Date(base + 10_000) } },
      sort: { createdAt: -1, _id: -1 },
    },
  ];

  it('When the D51 queries are planned, then each uses its declared index (explain), or, on an engine without explain, each index exists as declared', async () => {
    const client = new MongoClient(fixture.dispatcher.config.MONGODB_URL);
    await client.connect();
    try {
      const db = client.db(fixture.dispatcher.config.MONGODB_DATABASE);
      for (const query of D51_QUERIES) {
        const declared = WEBHOOK_INDEXES.find((i) => i.name === query.index && i.collection === query.collection);
        expect(declared, query.index).toBeDefined();
        const filter = { ...query.filter, organizationId: scope.organizationId, mode: scope.mode };
        const plan = await explainOrUnsupported(() =>
          db.collection(query.collection).find(filter).sort(query.sort).limit(21).explain('queryPlanner'),
        );
        if (plan === 'unsupported') {
          // mongo-java-server has no explain (docs/engines.md): the next best evidence is the index itself.
          expect(process.env.ENGINES_DESCRIPTION ?? '').not.toMatch(/MongoDB [5-9]|FerretDB/);
          const indexes = await db.collection(query.collection).listIndexes().toArray();
          expect(indexes.find((i) => i.name === query.index)?.key, query.index).toEqual(declared?.key);
          continue;
        }
        // MongoDB's stages or DocumentDB's PostgreSQL plan (docs/engines.md); never a pass on nothing found: a plan
        // in neither format, or with no step, is an engine this check cannot judge, and fails.
        const read = readQueryPlan(plan);
        if (read.format === 'unreadable') throw new Error(`${query.index}: unreadable plan ${JSON.stringify(plan)}`);
        expect(read.steps.length, query.index).toBeGreaterThan(0);
        expect(read.fullScans, query.index).toEqual([]);
        if (read.format === 'mongodb') {
          expect(read.indexes, query.index).toContain(query.index);
        } else {
          // DocumentDB picks among the organization's indexes by cost and serves no sort from an index
          // (docs/engines.md), so which one it reads is not this code's to decide: what can be judged there is that
          // the query reads through one of them, never the whole collection.
          const organizationIndexes = WEBHOOK_INDEXES.filter(
            (i) => i.collection === query.collection && Object.keys(i.key)[0] === 'organizationId',
          ).map((i) => i.name);
          expect(read.indexes.length, `${query.index}: ${JSON.stringify(read)}`).toBeGreaterThan(0);
          for (const index of read.indexes) expect(organizationIndexes, query.index).toContain(index);
        }
      }
    } finally {
      await client.close();
    }
  });
});

async function explainOrUnsupported(run: () => Promise<Document>): Promise<Document | 'unsupported'> {
  try {
    return await run();
  } catch (error) {
    // 59: CommandNotFound ("no such command: 'explain'").
    if (error instanceof MongoServerError && (error.code === 59 || /no such command/i.test(error.message)))
      return 'unsupported';
    throw error;
  }
}
