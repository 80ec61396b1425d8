import { randomBytes } from 'node:crypto';
import type { Engines } from '@checkout/engines';
import { BSON, MongoClient, type Db } from '@checkout/mongo';
import { WEBHOOK_ENDPOINTS_MAX } from '@checkout/contracts';
import { AdminClient, eventually, metricValues, startWebhookReceiver, type WebhookReceiver } from '@checkout/testing';
import { clientOf } from './events';
import { startAbuser } from './abuser';
import { paced, percentile } from './load';
import { startBenchStack, type BenchStack } from './stack';
import { searchPhase } from './abuse-search';

// npm run bench -- abuse [--seconds=S] [--deliveries=N] [--rate=R] [--live-rate=L] [--seed-seconds=T]
//                         [--test-body-bytes=B]
// One free test key cannot wear down what all merchants share. Two phases of S seconds (60 by default) in one run:
//   1. baseline: a live merchant pays at a steady L/s (4) with one webhook endpoint: the processor's payment
//      notification → the first delivery attempt reaching its endpoint, p50/p99;
//   2. abuse: the same, beside one test key at its rate limit (R = 100 requests/s) creating and PATCHing orders with
//      the largest bodies the API allows (100 items of 250-character names, 50 metadata keys of 500 characters),
//      every event fanned out to 16 endpoints on a local receiver (D50), both in a process of their own
//      (bench/src/abuser.ts) as on another machine: the live p99 against (1) (target ≤ 1.5×),
//      in both phases split per payment by its records (notified → event made → batch handled → first attempt
//      started → received) beside the dispatcher's event-loop delay, the abuser's answers by status and code
//      (429 RATE_LIMITED; QUOTA_EXCEEDED where a budget applies), and the bytes each tenant stored in the
//      dispatcher's events and deliveries (BSON sizes summed);
//   3. search: N deliveries (10⁶) of the abuser's, written straight into the dispatcher's collections in its store's
//      shapes (copies of one real delivery per endpoint, 16 per event, a failed one in a hundred; their events carry
//      the live merchant's event body, not the abuser's 50 kB ones, which would be gigabytes the search never reads),
//      then `GET /v0/events?deliveryStatus=…` and `?endpointId=…` over several pages: p50/p99 (target ≤ 200 ms), and
//      the answers stopped by the dispatcher's maxTimeMS (EVENT_SEARCH_MAX_TIME_MS: 503 SERVICE_UNAVAILABLE) apart from
//      those the gateway's upstream timeout ended. --seed-seconds=T stops the seeding after T seconds and searches
//      what is stored by then (the emulator writes a few hundred deliveries a second on a busy machine).

const TARGET_RATIO = 1.5;
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
): Promise<{ latencies: number[]; refused: number; firsts: FirstDelivery[] }> {
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
  const firstAt = new Map<string, { receivedAt: number; eventId: string }>();
  let scanned = 0;
  await eventually(
    () => {
      const arrived = receiver.deliveries('/live');
      for (const delivery of arrived.slice(scanned)) {
        // The payment's events only: the session's creation delivered order.created naming the order before.
        if (!PAYMENT_EVENTS.has(String((JSON.parse(delivery.body) as { event?: unknown }).event))) continue;
        for (const [, id] of delivery.body.matchAll(/"((?:cs|ord)_live_[0-9A-Za-z]+)"/g)) {
          const session = sessionOf.get(id ?? '');
          if (session && !firstAt.has(session))
            firstAt.set(session, {
              receivedAt: delivery.receivedAt.getTime(),
              eventId: String(delivery.headers['x-service-event-id']),
            });
        }
      }
      scanned = arrived.length;
      return firstAt.size === paidAt.size || undefined;
    },
    { deadlineMs: 300_000, intervalMs: 200, description: "every live payment's first delivery" },
  ).catch(() => undefined); // what never arrived is told apart below, not timed
  const firsts = [...paidAt].flatMap(([id, notifiedAt]) => {
    const first = firstAt.get(id);
    return first === undefined ? [] : [{ ...first, notifiedAt }];
  });
  const latencies = firsts.map((f) => f.receivedAt - f.notifiedAt).sort((a, b) => a - b);
  return { latencies, refused: refused + (paidAt.size - firstAt.size), firsts };
}

/** A live payment's first delivery: when the processor's notification was sent, and when its endpoint got it. */
interface FirstDelivery {
  eventId: string;
  notifiedAt: number;
  receivedAt: number;
}

/**
 * Each live payment's time from notification to its endpoint, split where the stores' records can: the
 * notification → the event made (the gateway, sessions and orders at work on it), made → the dispatcher's batch
 * handled (Kafka and the consumer's waits), handled → the first attempt started (the inserts, the scheduler's
 * queue), started → received (the POST and the receiver).
 */
async function liveSegments(
  db: Db,
  firsts: readonly FirstDelivery[],
): Promise<{ made: number[]; consumed: number[]; attempted: number[]; received: number[] }> {
  const segments = {
    made: [] as number[],
    consumed: [] as number[],
    attempted: [] as number[],
    received: [] as number[],
  };
  const deliveries = await db
    .collection<{ eventId: string; eventCreatedAt?: Date; createdAt: Date; attempts: Array<{ at: Date }> }>(
      'deliveries',
    )
    .find({ eventId: { $in: firsts.map((f) => f.eventId) }, mode: 'live' })
    .toArray();
  const byEvent = new Map(deliveries.map((d) => [d.eventId, d]));
  for (const { eventId, notifiedAt, receivedAt } of firsts) {
    const delivery = byEvent.get(eventId);
    const startedAt = delivery?.attempts[0]?.at.getTime();
    if (delivery?.eventCreatedAt === undefined || startedAt === undefined) continue;
    const madeAt = delivery.eventCreatedAt.getTime();
    segments.made.push(madeAt - notifiedAt);
    segments.consumed.push(delivery.createdAt.getTime() - madeAt);
    segments.attempted.push(startedAt - delivery.createdAt.getTime());
    segments.received.push(receivedAt - startedAt);
  }
  for (const values of Object.values(segments)) values.sort((a, b) => a - b);
  return segments;
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
    const loopDelay = () => dispatcherLoopDelay(stack);
    await loopDelay(); // each read starts the next window
    const alone = await liveMerchant(stack, keys, liveReceiver, options.liveRate, ms);
    const aloneLoop = await loopDelay();
    const [beside, tally] = await Promise.all([
      liveMerchant(stack, keys, liveReceiver, options.liveRate, ms),
      abuserProcess.run({ gatewayUrl: stack.env.gatewayUrl, key: abuser.testKey, rate: options.rate, ms }),
    ]);
    const besideLoop = await loopDelay();
    const db = mongo.db(stack.env.dispatcher.MONGODB_DATABASE);
    const segments = { alone: await liveSegments(db, alone.firsts), beside: await liveSegments(db, beside.firsts) };
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
    console.log(
      `  where it goes, per payment from its records (p50 / p99 ms): notified → event made → consumed → attempt started → received`,
    );
    for (const [phase, rows] of Object.entries(segments)) {
      const cells = Object.entries(rows).map(([name, sorted]) => `${name} ${p(sorted, 50)} / ${p(sorted, 99)}`);
      console.log(`    ${phase.padEnd(7)} ${cells.join(', ')}`);
    }
    console.log(`  the dispatcher's event-loop delay, p99 / max: alone ${aloneLoop}, beside ${besideLoop}`);
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

/**
 * The dispatcher's event-loop delay since the last read (p99 / max, ms): prom-client's figures from Node's
 * monitorEventLoopDelay, whose histogram it resets on every scrape, so each read covers the window since the one
 * before. A live attempt waits for whatever runs in the turn its event arrives in.
 */
async function dispatcherLoopDelay(stack: BenchStack): Promise<string> {
  const [url] = stack.metricsUrls('webhook-dispatcher');
  if (url === undefined) return 'n/a';
  const read = await metricValues(url, ['nodejs_eventloop_lag_p99_seconds', 'nodejs_eventloop_lag_max_seconds']);
  const ms = (seconds: number) => `${(seconds * 1000).toFixed(0)} ms`;
  return `${ms(read.nodejs_eventloop_lag_p99_seconds)} / ${ms(read.nodejs_eventloop_lag_max_seconds)}`;
}
