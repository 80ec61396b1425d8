import { randomBytes } from 'node:crypto';
import { Pool } from 'undici';
import type { Engines } from '@checkout/engines';
import { BSON, MongoClient, type Db, type Document } from '@checkout/mongo';
import { WEBHOOK_ENDPOINTS_MAX, newId } from '@checkout/contracts';
import { AdminClient, eventually, startWebhookReceiver, type WebhookReceiver } from '@checkout/testing';
import { clientOf } from './events';
import { startAbuser, type Tally } from './abuser';
import { paced, percentile } from './load';
import { startBenchStack, type BenchStack } from './stack';

// npm run bench -- abuse [--seconds=S] [--deliveries=N] [--rate=R] [--live-rate=L] [--seed-seconds=T]
//                         [--test-body-bytes=B]
// One free test key cannot wear down what all merchants share. Two phases of S seconds (60 by default) in one run:
//   1. baseline: a live merchant pays at a steady L/s (4) with one webhook endpoint: the processor's payment
//      notification → the first delivery attempt reaching its endpoint, p50/p99;
//   2. abuse: the same, beside one test key at its rate limit (R = 100 requests/s) creating and PATCHing orders with
//      the largest bodies the API allows (100 items of 250-character names, 50 metadata keys of 500 characters),
//      every event fanned out to 16 endpoints on a local receiver (D50), both in a process of their own
//      (bench/src/abuser.ts) as on another machine: the live p99 against (1) (target ≤ 1.5×),
//      in both phases split by the dispatcher's records (event made → batch handled → first attempt started),
//      the abuser's answers by status and code (429 RATE_LIMITED; QUOTA_EXCEEDED where a budget applies), and the
//      bytes each tenant stored in the dispatcher's events and deliveries (BSON sizes summed);
//   3. search: N deliveries (10⁶) of the abuser's, written straight into the dispatcher's collections in its store's
//      shapes (copies of one real delivery per endpoint, 16 per event, a failed one in a hundred; their events carry
//      the live merchant's event body, not the abuser's 50 kB ones, which would be gigabytes the search never reads),
//      then `GET /v0/events?deliveryStatus=…` and `?endpointId=…` over several pages: p50/p99 (target ≤ 200 ms), and
//      the answers stopped by the dispatcher's maxTimeMS (EVENT_SEARCH_MAX_TIME_MS: 503 SERVICE_UNAVAILABLE) apart from
//      those the gateway's upstream timeout ended. --seed-seconds=T stops the seeding after T seconds and searches
//      what is stored by then (the emulator writes a few hundred deliveries a second on a busy machine).

const TARGET_RATIO = 1.5;
const TARGET_SEARCH_P99_MS = 200;
/** Timed requests per page of each filtered list, after one that warms it. */
const SEARCH_SAMPLES = 3;
const SEARCH_PAGES = [1, 10, 100];
/** The gateway's UPSTREAM_TIMEOUT_MS (default): an answer later than this is not the dispatcher's. */
const UPSTREAM_TIMEOUT_MS = 10_000;
/** The events a payment causes (D30, D49): the first of them to arrive ends the payment's wait. */
const PAYMENT_EVENTS = new Set(['order.paid', 'checkout.session.completed']);

/**
 * The live merchant for `ms`: at `rate` a second, a session created and paid by the processor's notification; the
 * time from that notification to the first delivery naming the session reaching its endpoint (`/live`).
 */
async function liveMerchant(
  stack: BenchStack,
  keys: { test: string; live: string },
  receiver: WebhookReceiver,
  rate: number,
  ms: number,
): Promise<{ latencies: number[]; refused: number }> {
  const { call, processor } = clientOf(stack, keys);
  const paidAt = new Map<string, number>();
  /** The session and its order, either of which the first event delivered names (order.paid, session.completed). */
  const sessionOf = new Map<string, string>();
  let refused = 0;
  await paced(rate, ms, async () => {
    try {
      const { session } = await call('live', 'POST', '/v0/checkout/sessions', {
        items: [{ name: 'Tea', quantity: 2, unitPrice: 600 }],
        successUrl: 'https://merchant.example/thanks',
      });
      sessionOf.set(session.id, session.id);
      sessionOf.set(session.order.id, session.id);
      const sent = Date.now();
      await processor('notifications', {
        paymentId: `pay_live_${randomBytes(8).toString('hex')}`,
        sessionId: session.id,
        amount: session.order.amounts.total,
        method: 'card',
        capturedAt: new Date().toISOString(),
      });
      paidAt.set(session.id, sent);
    } catch {
      // A session or a payment the stack refused (a 503 under load): counted, not timed, as is a payment whose
      // first delivery never arrived.
      refused += 1;
    }
  });
  const firstAt = new Map<string, number>();
  let scanned = 0;
  await eventually(
    () => {
      const arrived = receiver.deliveries('/live');
      for (const delivery of arrived.slice(scanned)) {
        // The payment's events only: the session's creation delivered order.created naming the order before.
        if (!PAYMENT_EVENTS.has(String((JSON.parse(delivery.body) as { event?: unknown }).event))) continue;
        for (const [, id] of delivery.body.matchAll(/"((?:cs|ord)_live_[0-9A-Za-z]+)"/g)) {
          const session = sessionOf.get(id ?? '');
          if (session && !firstAt.has(session)) firstAt.set(session, delivery.receivedAt.getTime());
        }
      }
      scanned = arrived.length;
      return firstAt.size === paidAt.size || undefined;
    },
    { deadlineMs: 300_000, intervalMs: 200, description: "every live payment's first delivery" },
  ).catch(() => undefined); // what never arrived is told apart below, not timed
  const latencies = [...paidAt]
    .flatMap(([id, at]) => {
      const first = firstAt.get(id);
      return first === undefined ? [] : [first - at];
    })
    .sort((a, b) => a - b);
  return { latencies, refused: refused + (paidAt.size - firstAt.size) };
}

/**
 * The live merchant's payment deliveries whose events were made in [from, to), split where the dispatcher's records
 * can: the event made → its batch handled by the dispatcher (Kafka and the consumer's waits), and handled → the
 * first attempt started (the inserts, the scheduler's queue).
 */
async function liveSegments(
  db: Db,
  organizationId: string,
  from: Date,
  to: Date,
): Promise<{ consumed: number[]; attempted: number[] }> {
  const consumed: number[] = [];
  const attempted: number[] = [];
  const deliveries = db
    .collection<{ eventType: string; eventCreatedAt?: Date; createdAt: Date; attempts: Array<{ at: Date }> }>(
      'deliveries',
    )
    .find({ organizationId, mode: 'live' });
  for await (const { eventType, eventCreatedAt, createdAt, attempts } of deliveries) {
    if (!PAYMENT_EVENTS.has(eventType) || eventCreatedAt === undefined) continue;
    if (eventCreatedAt < from || eventCreatedAt >= to) continue;
    consumed.push(createdAt.getTime() - eventCreatedAt.getTime());
    const first = attempts[0];
    if (first) attempted.push(first.at.getTime() - createdAt.getTime());
  }
  const ascending = (a: number, b: number) => a - b;
  return { consumed: consumed.sort(ascending), attempted: attempted.sort(ascending) };
}

/** What each tenant stored in the dispatcher's events and deliveries: BSON bytes and documents. */
async function storedPerTenant(db: Db, tenants: Record<string, string>): Promise<string[]> {
  const rows: string[] = [];
  for (const [label, organizationId] of Object.entries(tenants)) {
    const cells: string[] = [];
    for (const collection of ['events', 'deliveries']) {
      let bytes = 0;
      let count = 0;
      for await (const doc of db.collection(collection).find({ organizationId })) {
        bytes += BSON.calculateObjectSize(doc);
        count += 1;
      }
      cells.push(`${collection} ${count} docs ${(bytes / 1_048_576).toFixed(1)} MiB`);
    }
    rows.push(`  ${label.padEnd(16)} ${cells.join(', ')}`);
  }
  return rows;
}

export async function runAbuseBench(
  engines: Engines,
  options: {
    seconds: number;
    deliveries: number;
    rate: number;
    liveRate: number;
    seedSeconds: number;
    /** The gateway's RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW; 0: its default. */
    testBodyBytes: number;
  },
): Promise<void> {
  const bodyBytes = options.testBodyBytes > 0 ? `${options.testBodyBytes}` : 'the default';
  console.log(
    `abuse benchmark: ${options.seconds} s per phase, abuser at ${options.rate} requests/s with ${WEBHOOK_ENDPOINTS_MAX} endpoints, ` +
      `live merchant at ${options.liveRate} payments/s, search at ${options.deliveries} deliveries, test-mode body bytes ` +
      `per key and second ${bodyBytes}; engines: ${engines.description}`,
  );
  const stack = await startBenchStack(engines, {
    services: ['orders', 'sessions', 'gateway', 'webhook-dispatcher'],
    replicas: 1,
    // Both merchants call from 127.0.0.1: only the per-key limit (100 requests/s, the default) is the abuser's.
    extraEnv: {
      gateway: {
        CLIENT_RATE_LIMIT_PER_WINDOW: '1000000',
        ...(options.testBodyBytes > 0 && { RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: String(options.testBodyBytes) }),
      },
    },
    budgets: 'dispatcher defaults',
  });
  // The abuser's victim and the live merchant's own endpoint are different hosts, as they would be: one host's
  // cap (and one address's) holds the abuser's attempts, not the live merchant's.
  const abuserProcess = await startAbuser();
  const liveReceiver = await startWebhookReceiver();
  const mongo = await MongoClient.connect(engines.mongoUrl);
  try {
    const admin = new AdminClient(stack.env.adminUrl, stack.env.adminToken);
    const abuser = await admin.createOrganizationWithKeys('Abuser');
    const merchant = await admin.createOrganizationWithKeys('Live merchant');
    const abuserCalls = clientOf(stack, { test: abuser.testKey, live: abuser.liveKey });
    const endpointIds: string[] = [];
    for (let i = 0; i < WEBHOOK_ENDPOINTS_MAX; i += 1) {
      const answer = await abuserCalls.call<{ endpoint: { id: string } }>('test', 'POST', '/v0/webhook_endpoints', {
        url: abuserProcess.victimUrl(`/abuse/${i}?${'q'.repeat(1_000)}`),
        enabledEvents: ['*'],
      });
      endpointIds.push(answer.endpoint.id);
    }
    const keys = { test: merchant.testKey, live: merchant.liveKey };
    await clientOf(stack, keys).call('live', 'POST', '/v0/webhook_endpoints', {
      url: liveReceiver.url('/live'),
      enabledEvents: ['*'],
    });
    const ms = options.seconds * 1000;
    await liveMerchant(stack, keys, liveReceiver, options.liveRate, 3_000); // warm-up
    const aloneFrom = new Date();
    const alone = await liveMerchant(stack, keys, liveReceiver, options.liveRate, ms);
    const besideFrom = new Date();
    const [beside, tally] = await Promise.all([
      liveMerchant(stack, keys, liveReceiver, options.liveRate, ms),
      abuserProcess.run({ gatewayUrl: stack.env.gatewayUrl, key: abuser.testKey, rate: options.rate, ms }),
    ]);
    const besideTo = new Date();
    const db = mongo.db(stack.env.dispatcher.MONGODB_DATABASE);
    const segments = {
      alone: await liveSegments(db, merchant.organizationId, aloneFrom, besideFrom),
      beside: await liveSegments(db, merchant.organizationId, besideFrom, besideTo),
    };
    const stored = await storedPerTenant(db, {
      abuser: abuser.organizationId,
      'live merchant': merchant.organizationId,
    });
    const delivered = await abuserProcess.delivered();

    const baseline = alone.latencies;
    const withAbuser = beside.latencies;
    const p = (sorted: number[], q: number) => percentile(sorted, q).toFixed(0);
    const ratio = percentile(withAbuser, 99) / Math.max(1, percentile(baseline, 99));
    console.log(`\nlive merchant: payment notification → first delivery attempt at its endpoint (ms)`);
    console.log(
      `  without the abuser  n=${baseline.length} p50 ${p(baseline, 50)} p99 ${p(baseline, 99)}, refused or never delivered ${alone.refused}`,
    );
    console.log(
      `  with the abuser     n=${withAbuser.length} p50 ${p(withAbuser, 50)} p99 ${p(withAbuser, 99)}, refused or never delivered ${beside.refused}`,
    );
    console.log(`  p99 ratio ${ratio.toFixed(2)}× ${ratio <= TARGET_RATIO ? '✓' : '✗'} ≤ ${TARGET_RATIO}×`);
    console.log(`  where it goes, from the dispatcher's records of the payments' deliveries (p50 / p99 ms):`);
    for (const [phase, rows] of Object.entries(segments)) {
      const cells = Object.entries(rows).map(([name, sorted]) => `${name} ${p(sorted, 50)} / ${p(sorted, 99)}`);
      console.log(`    ${phase.padEnd(7)} ${cells.join(', ')}`);
    }
    console.log(`\nabuser's answers by status and code (${options.rate} requests/s for ${options.seconds} s)`);
    for (const [label, count] of [...tally].sort()) console.log(`  ${label.padEnd(36)} ${count}`);
    console.log(`  deliveries reaching its 16 endpoints during the run: ${delivered}`);
    console.log(`\nstored per tenant in the dispatcher (BSON sizes summed, right after the abuse phase)`);
    for (const row of stored) console.log(row);

    await searchPhase(
      stack,
      db,
      { organizationId: abuser.organizationId, testKey: abuser.testKey, endpointIds },
      options.deliveries,
      options.seedSeconds,
    );
  } finally {
    await mongo.close();
    await abuserProcess.stop();
    await liveReceiver.close();
    await stack.stop();
  }
}

/** Seeds the abuser's deliveries up to `deliveries`, then times the delivery-filtered lists over several pages. */
async function searchPhase(
  stack: BenchStack,
  db: Db,
  abuser: { organizationId: string; testKey: string; endpointIds: string[] },
  deliveries: number,
  seedSeconds: number,
): Promise<void> {
  const seeded = Date.now();
  const deadline = seedSeconds > 0 ? Date.now() + seedSeconds * 1000 : Number.POSITIVE_INFINITY;
  // What the abuser stored before plus what was written: a count over the collection at this size exhausts the
  // emulator's heap (it counts by loading every document).
  const total = await seedDeliveries(db, abuser.organizationId, abuser.endpointIds, deliveries, deadline);
  process.stderr.write(`[bench] ${total} deliveries stored after ${((Date.now() - seeded) / 1000).toFixed(0)} s\n`);
  const pool = new Pool(stack.env.gatewayUrl, { connections: 1 });
  const headers = { authorization: `Bearer ${abuser.testKey}` };
  const endpoint = abuser.endpointIds[3] ?? '';
  const queries = [
    'deliveryStatus=failed',
    'deliveryStatus=succeeded',
    `endpointId=${endpoint}`,
    `endpointId=${endpoint}&deliveryStatus=failed`,
  ];
  const all: number[] = [];
  const answers: Tally = new Map();
  const rows: string[] = [];
  for (const query of queries) {
    const times: number[] = [];
    for (const page of SEARCH_PAGES) {
      for (let i = 0; i <= SEARCH_SAMPLES; i += 1) {
        const { status, code, ms } = await searchOnce(pool, `/v0/events?${query}&limit=100&page=${page}`, headers);
        process.stderr.write(`[bench] ?${query} page ${page}: ${status} in ${ms.toFixed(0)} ms\n`);
        if (i === 0) continue; // each page's first request warms it
        times.push(ms);
        all.push(ms);
        // Past the gateway's upstream timeout the answer is the gateway's 503, not the dispatcher's maxTimeMS one.
        const label = `${status}${code ? ` ${code}` : ''}${ms > UPSTREAM_TIMEOUT_MS ? ' (past the upstream timeout)' : ''}`;
        answers.set(label, (answers.get(label) ?? 0) + 1);
      }
    }
    times.sort((a, b) => a - b);
    rows.push(
      `  ?${query.replace(endpoint, 'we_…').padEnd(44)} p50 ${percentile(times, 50).toFixed(0).padStart(6)} p99 ${percentile(times, 99).toFixed(0).padStart(6)}`,
    );
  }
  await pool.close();
  all.sort((a, b) => a - b);
  const p99 = percentile(all, 99);
  console.log(
    `\ndelivery-filtered search, ${total} stored deliveries of the abuser, pages ${SEARCH_PAGES.join(', ')} of 100, ${SEARCH_SAMPLES} timed requests each (ms)`,
  );
  for (const row of rows) console.log(row);
  console.log(
    `  all: p50 ${percentile(all, 50).toFixed(0)} p99 ${p99.toFixed(0)} ${p99 <= TARGET_SEARCH_P99_MS ? '✓' : '✗'} ≤ ${TARGET_SEARCH_P99_MS} ms`,
  );
  console.log(
    `  answers: ${[...answers].map(([s, n]) => `${s} × ${n}`).join(', ')}; stopped by maxTimeMS (503): ${answers.get('503') ?? 0}`,
  );
}

/**
 * One timed search. A 429 is waited out as its Retry-After says and asked again, untimed: the abuser's last writes can
 * still hold its key's window when the search starts, and a refusal in a millisecond is not the search's time.
 */
async function searchOnce(
  pool: Pool,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; code: string | undefined; ms: number }> {
  for (;;) {
    const started = performance.now();
    const response = await pool.request({ method: 'GET', path, headers });
    const { code } = (await response.body.json().catch(() => ({}))) as { code?: string };
    const ms = performance.now() - started;
    if (response.statusCode !== 429) return { status: response.statusCode, code, ms };
    const retryAfter = Number(response.headers['retry-after'] ?? 1);
    process.stderr.write(`[bench] ${path}: 429 ${code ?? ''}, asked again after ${retryAfter} s\n`);
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
  }
}

/**
 * Writes deliveries of the abuser's until it has `target` (or `deadline` passes), and returns how many it has: 16 per
 * event (one per endpoint), newest first below the real ones, a failed one in a hundred, none pending (the recovery
 * sweep would send them). Copies of one real delivery and of the live merchant's smallest event, in batches.
 */
async function seedDeliveries(
  db: Db,
  organizationId: string,
  endpointIds: string[],
  target: number,
  deadline: number,
): Promise<number> {
  const deliveries = db.collection<Document & { _id: string }>('deliveries');
  const events = db.collection<Document & { _id: string }>('events');
  const have = await deliveries.countDocuments({ organizationId });
  const template = await deliveries.findOne({ organizationId, status: 'succeeded' });
  const event = await events.findOne({ organizationId, mode: 'test' });
  const small = await events.find({ mode: 'live' }).sort({ createdAt: 1 }).limit(1).next();
  if (!template || !event || !small) throw new Error('no delivery and event of the abuser to copy');
  const oldest = await events.find({ organizationId }).sort({ createdAt: 1 }).limit(1).next();
  const before = (oldest?.createdAt as Date | undefined)?.getTime() ?? Date.now();
  const perEvent = endpointIds.length;
  let written = 0;
  for (let e = 0; have + written < target && Date.now() < deadline; e += 1) {
    const batchEvents: Document[] = [];
    const batch: Document[] = [];
    for (let j = 0; j < 64 && have + written + batch.length < target; j += 1) {
      const createdAt = new Date(before - (e * 64 + j + 1) * 1_000);
      const eventId = newId('evt', 'test');
      batchEvents.push({ ...event, _id: eventId, body: String(small.body), createdAt, recordedAt: createdAt });
      for (const [k, endpointId] of endpointIds.entries()) {
        const failed = (e * 64 + j) % 100 === 0 && k % 2 === 0;
        batch.push({
          ...template,
          _id: newId('dlv', 'test'),
          eventId,
          endpointId,
          eventCreatedAt: createdAt,
          status: failed ? 'failed' : 'succeeded',
          deadLetterPending: false,
          createdAt,
          updatedAt: createdAt,
        });
      }
    }
    await events.insertMany(batchEvents as never[]);
    await deliveries.insertMany(batch as never[]);
    written += batch.length;
    if (e % 50 === 0)
      process.stderr.write(`[bench] seeded ${have + written} of ${target} deliveries (${perEvent} per event)\n`);
  }
  return have + written;
}
