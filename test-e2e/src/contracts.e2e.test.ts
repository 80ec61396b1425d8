// Contracts between services, checked without running both: today's callees and readers against what a
// release's callers sent and its writers stored, recorded by running that release
// (`npm run fixtures -- --contracts --from <release>`; libs/contracts/fixtures/{http,documents}). The four services
// run in this process (as their component tests start them), and each is the provider here:
// - every recorded internal request is sent again to today's callee, in the order it was recorded, with the ids
//   today's callee made in place of the recorded ones; the answer must have the recorded status and headers and
//   every field the recorded answer had, with its type (added fields are fine; a renamed or removed one is not);
// - every recorded document is stored again (with ids of its own) and today's code reads it through its owner's
//   API and, where the document can still change, writes over it; an old writer's outbox row is published.
// The callers' side (today's callers parse what a release's callees answered) is
// test-system/contracts/http-contracts.test.ts.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MigrationRunner, MongoClient } from '@checkout/mongo';
import { createLogger } from '@checkout/logger';
import { ORDER_MIGRATIONS } from '@checkout/orders';
import { request } from 'undici';
import {
  BalanceResponse,
  BalanceTransactionResponse,
  EventResponse,
  OrderResponse,
  RECOVER_MAX_AGE_MS,
  ReportResponse,
  SessionResponse,
  TenantUsageResponse,
  WebhookEndpointResponse,
} from '@checkout/contracts';
import {
  IdMap,
  eventually,
  idsIn,
  missingFromAnswer,
  readDocumentFixtures,
  readHttpFixtures,
  startWebhookReceiver,
  type DocumentFixture,
  type HttpFixture,
  type WebhookReceiver,
} from '@checkout/testing';
import { startStack, type InProcessStack } from './support/stack';

const httpFixtures = readHttpFixtures().map((f) => f.fixture);
const documentFixtures = readDocumentFixtures();
let stack: InProcessStack;
let mongo: MongoClient;
let receiver: WebhookReceiver;

beforeAll(async () => {
  // Sweeps often, so that an old writer's outbox row is published within the test's patience.
  stack = await startStack({ extraEnv: { orders: { OUTBOX_SWEEP_INTERVAL_MS: '1000' } } });
  mongo = new MongoClient(process.env.MONGODB_URL as string);
  receiver = await startWebhookReceiver();
});

afterAll(async () => {
  await mongo?.close();
  await receiver?.close();
  await stack?.stop();
});

type Service = HttpFixture['callee'];
const databaseOf = (service: Service) =>
  mongo.db((service === 'webhook-dispatcher' ? stack.env.dispatcher : stack.env[service]).MONGODB_DATABASE);
const urlOf = (service: Service): string =>
  service === 'gateway'
    ? stack.env.adminUrl
    : (stack.env.gateway[
        service === 'orders' ? 'ORDERS_URL' : service === 'sessions' ? 'SESSIONS_URL' : 'DISPATCHER_URL'
      ] as string);
const tokenOf = (caller: HttpFixture['caller']): string =>
  caller === 'webhook-dispatcher' ? stack.env.internalTokens.dispatcher : stack.env.internalTokens[caller];

/** How long a replayed read may take to answer as recorded: what the owner builds asynchronously (D52). */
const ASYNC_DEADLINE_MS = 15_000;
/** The kinds of id whose resources an owner lists only once built off the request path: D52's balance transactions. */
const BUILT_LATER = ['txn'];

/** One internal call as `caller` makes it. */
async function call(
  caller: HttpFixture['caller'],
  callee: Service,
  req: { method: string; path: string; headers?: Record<string, string>; body?: unknown },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: unknown }> {
  const answer = await request(`${urlOf(callee)}${req.path}`, {
    method: req.method as 'GET',
    headers: {
      ...req.headers,
      'x-internal-token': tokenOf(caller),
      ...(req.body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(req.body !== undefined && { body: JSON.stringify(req.body) }),
  });
  const text = await answer.body.text();
  // A report's file is CSV (D52), recorded without its body: only JSON answers are compared field by field.
  const json = String(answer.headers['content-type'] ?? '').includes('json');
  return {
    status: answer.statusCode,
    headers: answer.headers,
    body: text && json ? (JSON.parse(text) as unknown) : undefined,
  };
}

/**
 * Stores documents of a recording in their owner's database, with `ids` applied, and the outbox rows it left
 * unpublished (orders leaves a payment's event to its sweep) addressed to this stack's topics.
 */
async function seed(fixtures: readonly DocumentFixture[], ids: IdMap): Promise<Array<Record<string, unknown>>> {
  const stored: Array<Record<string, unknown>> = [];
  for (const f of fixtures) {
    const document = ids.apply(f.document);
    if (Array.isArray(document.outbox))
      document.outbox = (document.outbox as Array<{ topic: string }>).map((entry) => ({
        ...entry,
        topic: entry.topic.replace(/^[^.]+\./, `${stack.env.orders.TOPIC_PREFIX as string}.`),
      }));
    // An _id that is no platform id (a key's lookup id, a token's hash) is made unique here.
    if (idsIn(f.document._id).size === 0)
      document._id = `${String(f.document._id).slice(0, 8)}${randomBytes(8).toString('hex')}`;
    await databaseOf(f.service).collection(f.collection).insertOne(document);
    stored.push(document);
  }
  return stored;
}

/**
 * A webhook endpoint's URL (D50) named the recording's receiver, gone since: today's dispatcher delivers to this
 * test's instead, so that the attempts a later read shows were answered as the recording's were.
 */
function atReceiver<T extends { body?: unknown }>(req: T): T {
  const body = req.body as { url?: unknown } | undefined;
  if (!body || typeof body.url !== 'string' || !body.url.startsWith('http://127.0.0.1:')) return req;
  return { ...req, body: { ...body, url: receiver.url(new URL(body.url).pathname) } };
}

/**
 * A recovery's `since` (D44) is absolute and may be at most RECOVER_MAX_AGE_MS old: a recording's ages past it and
 * would be refused for its date alone. Moved to just inside the window, the call stays what it was (a recovery the
 * callee accepts); what it finds may differ, which the replay does not compare.
 */
function withinRecoverWindow<T extends { body?: unknown }>(req: T): T {
  const body = req.body as { since?: unknown } | undefined;
  const oldest = Date.now() - RECOVER_MAX_AGE_MS + 24 * 60 * 60_000;
  if (!body || typeof body.since !== 'string' || Date.parse(body.since) >= oldest) return req;
  return { ...req, body: { ...body, since: new Date(oldest).toISOString() } };
}

const recordings = [...new Set(httpFixtures.map((f) => f.recordedFrom))];
const callees: Service[] = ['orders', 'sessions', 'webhook-dispatcher', 'gateway'];

describe("today's callees answer a release's callers as it did (libs/contracts/fixtures/http)", () => {
  it('has fixtures of every internal call: gateway → orders, sessions, dispatcher; sessions → orders; dispatcher → gateway', () => {
    const contracts = new Set(httpFixtures.map((f) => `${f.caller} → ${f.callee}`));
    expect([...contracts].sort()).toEqual([
      'gateway → orders',
      'gateway → sessions',
      'gateway → webhook-dispatcher',
      'sessions → orders',
      'webhook-dispatcher → gateway',
    ]);
  });

  for (const recordedFrom of recordings)
    for (const callee of callees) {
      // Sessions keeps a copy of orders' answers (D46): the gateway's calls to orders are its state too, so its
      // replay has them, while the calls sessions makes to orders are made for real by today's sessions.
      const calls = httpFixtures.filter(
        (f) =>
          f.recordedFrom === recordedFrom &&
          (f.callee === callee || (callee === 'sessions' && f.caller === 'gateway' && f.callee === 'orders')),
      );
      if (calls.length === 0) continue;
      it(`${callee}: the ${calls.length} calls of ${recordedFrom}`, async () => {
        const ids = new IdMap();
        const organization = calls.find((f) => f.request.headers['x-organization-id'])?.request.headers[
          'x-organization-id'
        ] as string;
        ids.set(organization, `org_${randomBytes(12).toString('hex')}`);
        // What the callee did not make through these calls comes from its documents: the events the dispatcher
        // recorded from Kafka, the organization and settings the gateway keeps.
        const made = documentFixtures
          .map((d) => d.fixture)
          .filter((d) => d.recordedFrom === recordedFrom && d.service === callee);
        if (callee === 'webhook-dispatcher')
          await seed(
            made.filter((d) => d.collection === 'events' || d.collection === 'deliveries'),
            ids,
          );
        if (callee === 'gateway')
          await seed(
            made.filter((d) => d.collection === 'organizations' || d.collection === 'checkout_settings'),
            ids,
          );
        const problems: string[] = [];
        for (const f of calls) {
          const sent = withinRecoverWindow(atReceiver(ids.apply(f.request)));
          const where = `${f.caller} → ${f.route} (#${f.seq})`;
          const differences = (answer: Awaited<ReturnType<typeof call>>) => [
            ...(answer.status === f.response.status
              ? []
              : [`${where}: ${answer.status}, recorded ${f.response.status}: ${JSON.stringify(answer.body)}`]),
            ...Object.keys(f.response.headers)
              .filter((header) => answer.headers[header] === undefined)
              .map((header) => `${where}: header ${header} gone`),
            ...missingFromAnswer(f.response.body, answer.body, 'body', ids).map((p) => `${where}: ${p}`),
            ...(sent.method === 'GET' ? ids.unlisted(f.response.body, answer.body, BUILT_LATER) : []).map(
              (id) => `${where}: ${id}'s twin not listed`,
            ),
          ];
          let answer = await call(f.caller, f.callee, sent);
          // What an owner builds off the request path comes within seconds, as it came while recording (D52: a
          // payment's balance transactions, a report run): a read, safe to repeat, is asked again until it answers
          // as recorded, or the deadline passes and its last answer's differences are the failure.
          if (sent.method === 'GET' && differences(answer).length > 0)
            await eventually(
              async () => {
                answer = await call(f.caller, f.callee, sent);
                return differences(answer).length === 0;
              },
              { deadlineMs: ASYNC_DEADLINE_MS, intervalMs: 100, description: `${where} to answer as recorded` },
            ).catch(() => undefined);
          problems.push(...differences(answer));
          ids.learn(f.response.body, answer.body);
          const session = f.response.headers['x-checkout-session-id'];
          if (session) ids.set(session, String(answer.headers['x-checkout-session-id']));
        }
        expect(problems).toEqual([]);
      });
    }
});

/**
 * How today's code reads (and, where the document can still change, writes) each kind of stored document: the
 * owner's API, as its callers use it. Every collection with fixtures must have one.
 */
type Reader = (
  doc: Record<string, unknown>,
  scope: Record<string, string>,
  /** The document as recorded, before it was stored again with ids of its own. */
  recorded: Record<string, unknown>,
) => Promise<void>;
const READERS: Record<string, Reader> = {
  'orders.orders': async (doc, scope) => {
    const read = await call('gateway', 'orders', {
      method: 'GET',
      path: `/internal/orders/${String(doc._id)}`,
      headers: scope,
    });
    expect(read.status).toBe(200);
    OrderResponse.parse(read.body);
    if (doc.status === 'open' && doc.paymentStatus === 'unpaid') {
      const edited = await call('gateway', 'orders', {
        method: 'PATCH',
        path: `/internal/orders/${String(doc._id)}`,
        headers: scope,
        body: { metadata: { readBy: 'today' } },
      });
      expect(edited.status, JSON.stringify(edited.body)).toBe(200);
      expect(OrderResponse.parse(edited.body).order.metadata).toEqual({ readBy: 'today' });
    }
  },
  // D52: a line is immutable; today's reader finds it by id, as stored.
  'orders.balance_transactions': async (doc, scope) => {
    const read = await call('gateway', 'orders', {
      method: 'GET',
      path: `/internal/balance-transactions/${String(doc._id)}`,
      headers: scope,
    });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(BalanceTransactionResponse.parse(read.body).balanceTransaction).toMatchObject({
      id: doc._id,
      amount: doc.amount,
      sourceId: doc.sourceId,
    });
  },
  // D52: the totals as stored are today's balance of that organization, mode and currency.
  'orders.balances': async (doc, scope) => {
    const read = await call('gateway', 'orders', {
      method: 'GET',
      path: `/internal/balance?currency=${String(doc.currency)}`,
      headers: scope,
    });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(BalanceResponse.parse(read.body).balance).toMatchObject({
      payments: doc.payments,
      refunds: doc.refunds,
      count: doc.count,
    });
  },
  // D52: a report run as stored is today's report, whatever state it was recorded in (its file is not recorded).
  'orders.reports': async (doc, scope) => {
    const read = await call('gateway', 'orders', {
      method: 'GET',
      path: `/internal/reports/${String(doc._id)}`,
      headers: scope,
    });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(ReportResponse.parse(read.body).report).toMatchObject({ id: doc._id, type: doc.type, status: doc.status });
  },
  'orders.customers': async (doc, scope) => {
    // Orders finds a customer by email when an order names one (D11): today's code meets the stored one.
    const created = await call('gateway', 'orders', {
      method: 'POST',
      path: '/internal/orders',
      headers: scope,
      body: { items: [{ name: 'Tea', quantity: 1, unitPrice: 300 }], customer: { email: doc.email } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(OrderResponse.parse(created.body).order.customer?.id).toBe(doc._id);
  },
  'orders.order_external_ids': async (doc, scope) => {
    // D37 by a reservation. One naming an order that is stored holds its externalId: today's creation with it is
    // refused. One naming an order never stored (its creator stopped between the two writes) is completed by
    // today's next creation with that externalId, under the id it names.
    const named = await call('gateway', 'orders', {
      method: 'GET',
      path: `/internal/orders/${String(doc.orderId)}`,
      headers: scope,
    });
    const created = await call('gateway', 'orders', {
      method: 'POST',
      path: '/internal/orders',
      headers: scope,
      body: { items: [{ name: 'Tea', quantity: 1, unitPrice: 300 }], externalId: doc.externalId },
    });
    if (named.status === 200) {
      expect(created.status, JSON.stringify(created.body)).toBe(409);
      expect((created.body as { code?: string }).code).toBe('DUPLICATE_EXTERNAL_ID');
      return;
    }
    expect(named.status).toBe(404);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(OrderResponse.parse(created.body).order.id).toBe(doc.orderId);
  },
  'orders.locations': async (doc, scope) => {
    const listed = await call('sessions', 'orders', {
      method: 'GET',
      path: '/internal/admin/locations',
      headers: scope,
    });
    expect(listed.status).toBe(200);
    expect((listed.body as { locations: { id: string }[] }).locations.map((l) => l.id)).toContain(doc._id);
  },
  'orders.payment_destinations': async (doc, scope) => {
    const found = await call('sessions', 'orders', {
      method: 'GET',
      path: `/internal/admin/payment-destinations?destination=${String(doc._id)}`,
      headers: scope,
    });
    expect(found.status).toBe(200);
    expect((found.body as { paymentDestinations: { id: string }[] }).paymentDestinations[0]?.id).toBe(doc._id);
  },
  'sessions.sessions': async (doc, scope) => {
    const read = await call('gateway', 'sessions', {
      method: 'GET',
      path: `/internal/sessions/${String(doc._id)}`,
      headers: scope,
    });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    SessionResponse.parse(read.body);
    const page = await request(`${urlOf('sessions')}/checkout/${String(doc._id)}`);
    await page.body.text();
    expect(page.statusCode).toBe(200);
    // An edit needs the session's order in orders: a recording that kept a session for its order copy's shape alone
    // (fd048f4's, D46/D48) has the session read above and no edit.
    const orderStored =
      typeof doc.orderId === 'string' &&
      (
        await call('gateway', 'orders', {
          method: 'GET',
          path: `/internal/orders/${doc.orderId}`,
          headers: scope,
        })
      ).status === 200;
    if (doc.status === 'pending' && orderStored) {
      const extended = await call('gateway', 'sessions', {
        method: 'PATCH',
        path: `/internal/sessions/${String(doc._id)}`,
        headers: scope,
        body: { sessionData: { readBy: 'today' } },
      });
      expect(extended.status, JSON.stringify(extended.body)).toBe(200);
      expect(SessionResponse.parse(extended.body).session.sessionData).toEqual({ readBy: 'today' });
    }
  },
  'webhook-dispatcher.events': async (doc, scope) => {
    const read = await call('gateway', 'webhook-dispatcher', {
      method: 'GET',
      path: `/internal/events/${String(doc._id)}`,
      headers: scope,
    });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    EventResponse.parse(read.body);
  },
  // D50: an endpoint as a release stored it is read and edited by today's dispatcher (the dashboard and the API).
  'webhook-dispatcher.webhook_endpoints': async (doc, scope) => {
    const path = `/internal/webhook-endpoints/${String(doc._id)}`;
    const read = await call('gateway', 'webhook-dispatcher', { method: 'GET', path, headers: scope });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    WebhookEndpointResponse.parse(read.body);
    const edited = await call('gateway', 'webhook-dispatcher', {
      method: 'PATCH',
      path,
      headers: scope,
      body: { description: 'read by today' },
    });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(WebhookEndpointResponse.parse(edited.body).endpoint.description).toBe('read by today');
  },
  'webhook-dispatcher.deliveries': async (doc, scope) => {
    const read = await call('gateway', 'webhook-dispatcher', {
      method: 'GET',
      path: `/internal/events/${String(doc.eventId)}`,
      headers: scope,
    });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(EventResponse.parse(read.body).deliveries.map((d) => d.id)).toContain(doc._id);
  },
  // The budgets' counts of one UTC day are read on that day only: the document as the release stored it is stored
  // again dated today, and today's dispatcher answers its counts.
  'webhook-dispatcher.tenant_usage': async (doc, scope) => {
    const day = new Date().toISOString().slice(0, 10);
    const _id = `${String(doc.organizationId)}|${String(doc.mode)}|${day}`;
    await databaseOf('webhook-dispatcher')
      .collection<{ _id: string }>('tenant_usage')
      .replaceOne({ _id }, { ...doc, _id, day }, { upsert: true });
    const read = await call('gateway', 'webhook-dispatcher', {
      method: 'GET',
      path: '/internal/usage',
      headers: scope,
    });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    const { budgets } = TenantUsageResponse.parse(read.body);
    expect([budgets.events.used, budgets.deliveries.used, budgets.bytes.used]).toEqual([
      doc.events,
      doc.deliveries,
      doc.bytes,
    ]);
  },
  // A step a release recorded done is done for today's runner: it settles it without writing the record again.
  // Run on a database of its own (nothing in the old shape there), with the recorded _id, which names the step.
  'orders.migrations': async (_doc, _scope, recorded) => {
    const db = mongo.db(`contracts_migrations_${randomBytes(4).toString('hex')}`);
    try {
      await db.collection<{ _id: string }>('migrations').insertOne({ ...recorded, _id: String(recorded._id) });
      const runner = new MigrationRunner({
        db,
        migrations: ORDER_MIGRATIONS,
        logger: createLogger('contracts', { level: 'silent' }),
        version: 'today',
      });
      await runner.settle();
      expect(runner.idle).toBe(true);
      const after = await db
        .collection<{ _id: string; by?: unknown }>('migrations')
        .findOne({ _id: String(recorded._id) });
      expect(after?.by, 'the step was recorded again: the old record was not read as done').toBe(recorded.by);
    } finally {
      await db.dropDatabase();
    }
  },
  'gateway.organizations': async (doc) => {
    await stack.admin.call('GET', `/organizations/${String(doc._id)}`);
  },
  'gateway.api_keys': async (doc) => {
    const { keys } = await stack.admin.call<{ keys: { id: string }[] }>(
      'GET',
      `/organizations/${String(doc.organizationId)}/keys`,
    );
    expect(keys.map((k) => k.id)).toContain(doc.keyId);
  },
  'gateway.checkout_settings': async (doc, scope) => {
    const settingsPath = `/organizations/${String(doc.organizationId)}/checkout-settings`;
    const { checkoutSettings } = await stack.admin.call<{ checkoutSettings: Record<string, unknown> }>(
      'GET',
      `${settingsPath}?mode=${String(doc.mode)}`,
    );
    // A document stored before the brand reads as no brand; a brand set over it is kept beside what it held.
    for (const field of ['displayName', 'brandColor', 'logoUrl', 'defaultLocale'])
      expect(checkoutSettings[field], field).toBe(doc[field] ?? null);
    const branded = await stack.admin.call<{ checkoutSettings: Record<string, unknown> }>('PATCH', settingsPath, {
      mode: doc.mode,
      displayName: 'Rewritten Co',
      defaultLocale: 'nl',
    });
    expect(branded.checkoutSettings).toMatchObject({
      displayName: 'Rewritten Co',
      defaultLocale: 'nl',
      enabledPaymentMethods: doc.enabledPaymentMethods,
    });
    const secrets = await call('webhook-dispatcher', 'gateway', {
      method: 'GET',
      path: '/internal/checkout-settings',
      headers: scope,
    });
    expect(secrets.status).toBe(200);
    expect((secrets.body as { webhookSigningSecrets: string[] }).webhookSigningSecrets.length).toBe(
      doc.webhookSigningSecret === null ? 0 : 1,
    );
  },
  // D42's records, D47's links and sessions: read by the gateway only for the request or browser holding their
  // secret, which a recording cannot keep. Today's gateway must at least take their stored form back: each is
  // found by its _id like the records it writes itself.
  'gateway.idempotency_keys': async (doc) => {
    expect(
      await databaseOf('gateway')
        .collection('idempotency_keys')
        .countDocuments({ _id: doc._id as never }),
    ).toBe(1);
  },
  'gateway.dashboard_login_links': async (doc) => {
    expect(
      await databaseOf('gateway')
        .collection('dashboard_login_links')
        .countDocuments({ _id: doc._id as never }),
    ).toBe(1);
  },
  'gateway.dashboard_sessions': async (doc) => {
    expect(
      await databaseOf('gateway')
        .collection('dashboard_sessions')
        .countDocuments({ _id: doc._id as never }),
    ).toBe(1);
  },
};

describe("today's readers read what a release's writers stored (libs/contracts/fixtures/documents)", () => {
  it('has a reader for every collection with fixtures', () => {
    const collections = new Set(documentFixtures.map((f) => f.dir));
    expect([...collections].filter((c) => !READERS[c])).toEqual([]);
  });

  for (const recordedFrom of [...new Set(documentFixtures.map((f) => f.fixture.recordedFrom))])
    it(`the ${documentFixtures.filter((f) => f.fixture.recordedFrom === recordedFrom).length} documents of ${recordedFrom}`, async () => {
      const fixtures = documentFixtures.filter((f) => f.fixture.recordedFrom === recordedFrom);
      const ids = new IdMap();
      for (const f of fixtures) ids.freshen(f.fixture.document);
      const stored = await seed(
        fixtures.map((f) => f.fixture),
        ids,
      );
      for (const [i, f] of fixtures.entries()) {
        const doc = stored[i] as Record<string, unknown>;
        const scope = {
          'x-organization-id': String(typeof doc.organizationId === 'string' ? doc.organizationId : doc._id),
          'x-mode': typeof doc.mode === 'string' ? doc.mode : 'test',
        };
        try {
          await (READERS[f.dir] as Reader)(doc, scope, f.fixture.document);
        } catch (err) {
          throw new Error(`${f.dir}/${f.name}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
        }
      }
    });

  it("publishes the outbox rows a release's writer left unpublished (today's relay reads rows it did not write)", async () => {
    // Orders leaves a payment's event to its relay's sweep (sessions made the call and has the answer): the
    // recording caught such rows, in 1.0.0's OutboxEntry form ({eventId, topic, key, value, createdAt}).
    const pending = documentFixtures.filter(
      (f) => f.dir === 'orders.orders' && f.fixture.document.outboxPending === true,
    );
    expect(pending.length, 'an order with an unpublished outbox row among the fixtures').toBeGreaterThan(0);
    const ids = new IdMap();
    for (const f of pending) ids.freshen(f.fixture.document);
    const stored = await seed(
      pending.map((f) => f.fixture),
      ids,
    );
    const orders = databaseOf('orders').collection<{ _id: string; outboxPending: boolean }>('orders');
    const published = () =>
      orders.countDocuments({ _id: { $in: stored.map((d) => String(d._id)) }, outboxPending: false });
    await eventually(async () => (await published()) === stored.length, {
      deadlineMs: 30_000,
      intervalMs: 250,
      description: "today's relay publishes the old rows and marks them sent",
    });
  });
});
