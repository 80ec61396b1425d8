import { MongoClient, type Db, type Document } from '@checkout/mongo';
import { Pool, request } from 'undici';
import type { Engines } from '@checkout/engines';
import { AdminClient, eventually, inParallel, startWebhookReceiver } from '@checkout/testing';
import { newId } from '@checkout/contracts';
import { startProcessStack } from '../../scripts/lib/process-stack';
import { benchStackBasics, UNLIMITED_GATEWAY } from './stack';

// npm run bench -- dashboard [--orders=N] [--events=N] [--samples=N]: D47's target, a dashboard page answers in
// ≤ 200 ms p95 with 10,000 orders and 10,000 events in the organization. The services run from their bundles as
// processes (as deployed). Orders are made through the API, the first 10,000 of them; beyond that (--orders=100000,
// to see how a list page's cost grows with an organization's size: docs/engines.md) the rest are copies of those,
// with ids, keys and creation times of their own, older than the first, written straight into orders' collection.
// Events (and a failed-then-succeeded delivery each) are copies of one real event written straight into the
// dispatcher's collections. Both because making them through the services would take the bench many minutes of the
// shared machine for no difference in what the pages read. Prints p50/p95 per page, and the merchants' API list
// (D20: a page and the total count) beside the dashboard's.

const TARGET_P95_MS = 200;
/** Orders made through the API; any more are copies (see above). */
const API_ORDERS = 10_000;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

type DashboardOptions = { orders: number; events: number; samples: number };

export async function runDashboardBench(engines: Engines, options: DashboardOptions): Promise<void> {
  const receiver = await startWebhookReceiver();
  const stack = await startDashboardStack(engines);
  const mongo = await MongoClient.connect(engines.mongoUrl);
  try {
    const admin = new AdminClient(stack.env.adminUrl, stack.env.adminToken);
    const org = await admin.createOrganizationWithKeys('Dashboard Bench Org');
    const api = new Pool(stack.env.gatewayUrl, { connections: 16 });
    const headers = { authorization: `Bearer ${org.testKey}`, 'content-type': 'application/json' };
    const firstOrderId = await seedOrders(api, headers, options.orders);
    if (options.orders > API_ORDERS) {
      const copied = await copyOrders(mongo.db(stack.env.orders.MONGODB_DATABASE), options.orders - API_ORDERS);
      process.stderr.write(`[bench] ${copied} more orders written as copies\n`);
    }
    const db = mongo.db(`${stack.env.dispatcher.MONGODB_DATABASE}`);
    const seed = await seedEvent(stack.env.gatewayUrl, headers, receiver.url('/bench'), db);
    const eventIds = await copyEvent(db, seed, options.events);

    // Log in as a browser would, then measure each page with one request at a time.
    const link = (await (
      await request(`${stack.env.gatewayUrl}/v0/dashboard/login_links`, {
        method: 'POST',
        headers: { authorization: headers.authorization },
      })
    ).body.json()) as { url: string };
    const cookie = await logIn(link.url);
    const pages = pagesToMeasure({
      apiHeaders: { authorization: headers.authorization },
      cookie,
      orderId: firstOrderId,
      sessionId: seed.sessionId,
      eventId: eventIds[Math.floor(eventIds.length / 2)] ?? '',
    });
    const client = new Pool(stack.env.gatewayUrl, { connections: 1 });
    const rows: string[] = [];
    for (const page of pages) rows.push(await measurePage(client, page, options.samples));
    console.log(
      `\nDashboard pages (D47) and the API's orders list, ${options.orders} orders and ${options.events} events in one organization; ${options.samples} sequential requests per page after 5 warm-up; engines: ${engines.description}`,
    );
    console.log(
      `  ${'page'.padEnd(30)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)}   target p95 ≤ ${TARGET_P95_MS} ms`,
    );
    for (const row of rows) console.log(row);
    await api.close();
    await client.close();
  } finally {
    await mongo.close();
    await stack.stop();
    await receiver.close();
  }
}

function startDashboardStack(engines: Engines): ReturnType<typeof startProcessStack> {
  return startProcessStack({
    ...benchStackBasics(engines, 'bench_dash'),
    extraEnv: {
      gateway: UNLIMITED_GATEWAY,
    },
  });
}

/**
 * Up to API_ORDERS orders through the API (every 10th with an externalId, so the filter has something to find):
 * the first one's id.
 */
async function seedOrders(api: Pool, headers: Record<string, string>, orders: number): Promise<string> {
  const seedStarted = Date.now();
  let firstOrderId = '';
  const apiOrders = Math.min(orders, API_ORDERS);
  await inParallel(apiOrders, 16, async (i) => {
    const body = JSON.stringify({
      items: [{ name: `Item ${i}`, quantity: 1 + (i % 3), unitPrice: 100 + i }],
      ...(i % 10 === 0 && { externalId: `bench-${i}` }),
    });
    const response = await api.request({ method: 'POST', path: '/v0/orders', headers, body });
    const answer = (await response.body.json()) as { order?: { id: string } };
    if (response.statusCode !== 201) throw new Error(`order ${i}: ${response.statusCode}`);
    if (i === 0) firstOrderId = answer.order?.id ?? '';
  });
  process.stderr.write(`[bench] ${apiOrders} orders in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s\n`);
  return firstOrderId;
}

/** A real event and its succeeded delivery, as the dispatcher stored them, and the paid session they are of. */
interface SeedEvent {
  sessionId: string;
  event: Document;
  delivery: Document;
}

/** One real event with a delivery (a paid session calling the receiver at `callbackUrl`), once both are stored. */
async function seedEvent(
  gatewayUrl: string,
  headers: Record<string, string>,
  callbackUrl: string,
  db: Db,
): Promise<SeedEvent> {
  const created = await request(`${gatewayUrl}/v0/checkout/sessions`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      items: [{ name: 'Seed', quantity: 1, unitPrice: 500 }],
      callbackUrl,
    }),
  });
  const session = ((await created.body.json()) as { session: { id: string } }).session;
  await (
    await request(`${gatewayUrl}/v0/test_helpers/checkout/sessions/${session.id}/pay`, {
      method: 'POST',
      headers,
      body: '{}',
    })
  ).body.text();
  const event = await eventually(
    async () => (await db.collection('events').findOne({ sessionId: session.id })) ?? undefined,
    { deadlineMs: 30_000, description: 'the seed event' },
  );
  const delivery = await eventually(
    async () => (await db.collection('deliveries').findOne({ eventId: event._id, status: 'succeeded' })) ?? undefined,
    { deadlineMs: 30_000, description: 'the seed delivery' },
  );
  return { sessionId: session.id, event, delivery };
}

/**
 * `count` copies of the seed event, a minute apart back from now, each with a delivery that failed once and then
 * succeeded, written straight into the dispatcher's collections: the copies' ids, newest first.
 */
async function copyEvent(db: Db, seed: SeedEvent, count: number): Promise<string[]> {
  const { event: template, delivery } = seed;
  const now = Date.now();
  const events = [];
  const deliveries = [];
  for (let i = 0; i < count; i++) {
    const id = newId('evt', 'test');
    const createdAt = new Date(now - i * 60_000);
    const body = JSON.parse(String(template.body)) as Record<string, unknown>;
    body.id = id;
    body.createdAt = createdAt.toISOString();
    const deliveryId = newId('dlv', 'test');
    events.push({
      ...template,
      _id: id,
      createdAt,
      recordedAt: createdAt,
      body: JSON.stringify(body),
      initialDeliveryId: deliveryId,
    });
    const failedAttempt = {
      attempt: 1,
      at: createdAt,
      statusCode: 500,
      durationMs: 20 + (i % 50),
      error: 'HTTP 500',
      responseSnippet: null,
    };
    const okAttempt = {
      attempt: 2,
      at: new Date(createdAt.getTime() + 10_000),
      statusCode: 200,
      durationMs: 10 + (i % 30),
      error: null,
      responseSnippet: null,
    };
    deliveries.push({
      ...delivery,
      _id: deliveryId,
      eventId: id,
      attempts: [failedAttempt, okAttempt],
      attemptCount: 2,
      createdAt,
      updatedAt: okAttempt.at,
    });
  }
  for (let i = 0; i < events.length; i += 1_000) {
    await db.collection('events').insertMany(events.slice(i, i + 1_000) as never[]);
    await db.collection('deliveries').insertMany(deliveries.slice(i, i + 1_000) as never[]);
  }
  process.stderr.write(`[bench] ${count} events and deliveries written\n`);
  return events.map((e) => e._id);
}

interface Page {
  label: string;
  path: string;
  headers: Record<string, string>;
}

/** The API's orders list (with the key), then every dashboard page (with the session cookie), by what they show. */
function pagesToMeasure(of: {
  apiHeaders: Record<string, string>;
  cookie: string;
  orderId: string;
  sessionId: string;
  eventId: string;
}): Page[] {
  const dashboardPages: [string, string][] = [
    ['overview (charts)', '/dashboard'],
    ['orders, page 1', '/dashboard/orders'],
    ['orders, page 200', '/dashboard/orders?page=200'],
    ['orders ?paymentStatus=unpaid', '/dashboard/orders?paymentStatus=unpaid'],
    ['orders ?externalId=', '/dashboard/orders?externalId=bench-5000'],
    ['order', `/dashboard/orders/${of.orderId}`],
    ['sessions', '/dashboard/sessions'],
    ['session', `/dashboard/sessions/${of.sessionId}`],
    ['events, page 1', '/dashboard/events'],
    ['events, page 200', '/dashboard/events?page=200'],
    ['event with attempts', `/dashboard/events/${of.eventId}`],
  ];
  const apiPages: [string, string][] = [
    ['API GET /v0/orders (D20)', '/v0/orders'],
    ['API GET /v0/orders?page=200', '/v0/orders?page=200'],
  ];
  return [
    ...apiPages.map(([label, path]) => ({ label, path, headers: of.apiHeaders })),
    ...dashboardPages.map(([label, path]) => ({ label, path, headers: { cookie: of.cookie } })),
  ];
}

/** `samples` requests of the page one at a time after 5 unmeasured: its row of the table. */
async function measurePage(client: Pool, { label, path, headers }: Page, samples: number): Promise<string> {
  const latencies: number[] = [];
  // A page that is not answered 200 (a 503 when the database takes too long) counts against it, with its time.
  const failures = new Map<number, number>();
  for (let i = 0; i < samples + 5; i++) {
    const started = performance.now();
    const response = await client.request({ method: 'GET', path, headers });
    await response.body.text();
    if (i < 5) continue;
    latencies.push(performance.now() - started);
    if (response.statusCode !== 200) failures.set(response.statusCode, (failures.get(response.statusCode) ?? 0) + 1);
  }
  latencies.sort((a, b) => a - b);
  const p50 = percentile(latencies, 50);
  const p95 = percentile(latencies, 95);
  const failed = [...failures].map(([status, count]) => `${count} of ${samples} answered ${status}`);
  process.stderr.write(`[bench] ${label}: p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms ${failed.join(', ')}\n`);
  return `  ${label.padEnd(30)} ${p50.toFixed(1).padStart(8)} ${p95.toFixed(1).padStart(8)}   ${p95 <= TARGET_P95_MS && failed.length === 0 ? '✓' : '✗'} ${failed.join(', ')}`;
}

/** What a browser does with a login link (D47): opens its page, then presses its button; returns the session cookie. */
async function logIn(url: string): Promise<string> {
  const page = await request(url);
  const html = await page.body.text();
  const nonce = String(page.headers['set-cookie']).split(';')[0] ?? '';
  const proof = /name="proof" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const pressed = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: nonce },
    body: `proof=${encodeURIComponent(proof)}`,
  });
  await pressed.body.text();
  if (pressed.statusCode !== 303) throw new Error(`logging in: ${pressed.statusCode}`);
  const setCookie = pressed.headers['set-cookie'];
  const session = (Array.isArray(setCookie) ? setCookie : [String(setCookie)]).find((c) =>
    c.startsWith('checkout_dashboard='),
  );
  return session?.split(';')[0] ?? '';
}

/**
 * Writes `count` more orders into the organization's orders collection, copies of the ones made through the API
 * (taken in turn), each with an id, keys and creation time of its own, older than every API-made one; no outbox
 * entries (their events were never owed).
 */
async function copyOrders(db: Db, count: number): Promise<number> {
  const orders = db.collection<Document & { _id: string }>('orders');
  const templates = await orders.find({}).sort({ createdAt: 1 }).limit(1_000).toArray();
  const oldest = (templates[0]?.createdAt as Date | undefined)?.getTime() ?? Date.now();
  if (templates.length === 0) throw new Error('no order made through the API to copy');
  for (let done = 0; done < count;) {
    const batch = Array.from({ length: Math.min(1_000, count - done) }, (_, j) => {
      const i = done + j;
      const { externalId: _externalId, ...template } = templates[i % templates.length] as Document;
      const id = newId('ord', 'test');
      const createdAt = new Date(oldest - (i + 1) * 1_000);
      return {
        ...template,
        _id: id,
        uniqueKey: `id:${id}`,
        creationKey: `id:${id}`,
        createdAt,
        updatedAt: createdAt,
        outbox: [],
        outboxPending: false,
      };
    });
    await orders.insertMany(batch);
    done += batch.length;
  }
  return count;
}
