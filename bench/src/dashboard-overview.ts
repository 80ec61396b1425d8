import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import type { Engines } from '@checkout/engines';
import { ensureIndexes, MongoClient, type Db } from '@checkout/mongo';
import { newId } from '@checkout/contracts';
import { ORDER_INDEXES } from '@checkout/orders/indexes';
import { WEBHOOK_INDEXES } from '@checkout/webhook-dispatcher/indexes';
import type { OverviewChildResult } from './dashboard-overview-child';

// npm run bench -- dashboard-overview [--records=N] [--concurrency=C]: the dashboard overview under a hostile
// merchant's volume (the second audit's memory item). The owners used to read every delivery of the last 24 hours
// (with its attempts) and every payment of the last 7 days into their memory to chart them, so a test-mode
// merchant with about 10⁶ deliveries or one-cent payments, opening the overview a few dozen times at once, could
// run the orders pods (which also apply live payments) out of memory. The charts are now summed in the database.
//
// Seeds N attempts (N/2 deliveries with two attempts each, in the last 24 hours, to 500 hosts) and N one-cent
// payments (100 per order, in the last 7 days), then computes the overview's two charts C times at once in a
// process of its own, twice: as the owners did before (the reads, and the sums in the process: the baseline,
// kept in dashboard-overview-child.ts) and as they do now (their stores' aggregations, imported from the services).
// Prints each process's RSS before and at its peak (sampled every 50 ms) and how long the C overviews took.
// Why not through the running services: on the local emulator one aggregation of 10⁵ documents takes tens of
// seconds, during which it answers no heartbeat, past the services' driver timeouts (libs/mongo: socket 20 s),
// so the services would answer 503 before the owners' memory could show anything; here the driver waits.
// Locally on mongo-java-server's memory backend with a 4 GiB heap (bench/src/main.ts: its aggregation holds what
// it matched, and its H2 backend takes about a minute per scan of 10⁵ documents on this machine); with
// MONGODB_URL, on that server.

const PAYMENTS_PER_ORDER = 100;
const HOSTS = 500;
const CHILD = fileURLToPath(new URL('./dashboard-overview-child.ts', import.meta.url));

type OverviewResults = Partial<Record<'before' | 'after', OverviewChildResult>>;

/** The two test databases the bench seeds and drops, each named by the time the bench started. */
interface OverviewDatabases {
  orders: string;
  dispatcher: string;
}

export async function runDashboardOverviewBench(
  engines: Engines,
  options: { records: number; concurrency: number },
): Promise<void> {
  const databases = { orders: `bench_overview_orders_${Date.now()}`, dispatcher: `bench_overview_wd_${Date.now()}` };
  const organizationId = 'org_bench_overview';
  const mongo = await MongoClient.connect(engines.mongoUrl, { connectTimeoutMS: 600_000, socketTimeoutMS: 0 });
  try {
    const ordersDb = mongo.db(databases.orders);
    const dispatcherDb = mongo.db(databases.dispatcher);
    await ensureIndexes(ordersDb, ORDER_INDEXES);
    await ensureIndexes(dispatcherDb, WEBHOOK_INDEXES);
    const now = Date.now();
    const seedStarted = Date.now();
    const deliveries = Math.ceil(options.records / 2);
    await seedDeliveries(dispatcherDb, organizationId, deliveries, now);
    const orders = Math.ceil(options.records / PAYMENTS_PER_ORDER);
    await seedPayments(ordersDb, organizationId, orders, now);
    process.stderr.write(
      `[bench] ${deliveries} deliveries (${2 * deliveries} attempts) and ${orders * PAYMENTS_PER_ORDER} payments written in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s\n`,
    );

    const results = await runOverviews(engines, options.concurrency, organizationId, databases);
    console.log(
      `\nDashboard overview under a hostile merchant's volume: ${2 * deliveries} attempts (${deliveries} deliveries) in 24 h to ${HOSTS} hosts and ${orders * PAYMENTS_PER_ORDER} one-cent payments in 7 days; ${options.concurrency} overviews (both charts each) at once in one process; engines: ${engines.description}`,
    );
    printOverviewTable(results);
  } finally {
    await mongo
      .db(databases.orders)
      .dropDatabase()
      .catch(() => {});
    await mongo
      .db(databases.dispatcher)
      .dropDatabase()
      .catch(() => {});
    await mongo.close();
  }
}

/** `count` deliveries of two attempts each (a 500, then a 200), spread over the last 24 hours and `HOSTS` hosts. */
async function seedDeliveries(dispatcherDb: Db, organizationId: string, count: number, now: number): Promise<void> {
  for (let i = 0; i < count; i += 1_000) {
    const batch = Array.from({ length: Math.min(1_000, count - i) }, (_, j) => {
      const n = i + j;
      const at = new Date(now - (n % 1_440) * 60_000);
      return {
        _id: newId('dlv', 'test'),
        organizationId,
        mode: 'test',
        eventId: newId('evt', 'test'),
        eventType: 'checkout.session.completed',
        url: `http://h${n % HOSTS}.bench.example/hook`,
        status: 'succeeded',
        attempts: [
          { attempt: 1, at, statusCode: 500, durationMs: 20 + (n % 700), error: 'HTTP 500', responseSnippet: null },
          { attempt: 2, at, statusCode: 200, durationMs: 10 + (n % 90), error: null, responseSnippet: null },
        ],
        attemptCount: 2,
        nextAttemptAt: null,
        lockedUntil: at,
        lockOwner: null,
        deadLetterPending: false,
        createdAt: at,
        updatedAt: at,
      };
    });
    await dispatcherDb.collection('deliveries').insertMany(batch as never[]);
  }
}

/** `orders` orders made 8 days ago, each paid `PAYMENTS_PER_ORDER` one-cent payments over the last 7 days. */
async function seedPayments(ordersDb: Db, organizationId: string, orders: number, now: number): Promise<void> {
  for (let i = 0; i < orders; i += 100) {
    const batch = Array.from({ length: Math.min(100, orders - i) }, (_, j) => {
      const n = i + j;
      const createdAt = new Date(now - 8 * 24 * 3_600_000);
      return {
        _id: newId('ord', 'test'),
        organizationId,
        mode: 'test',
        uniqueKey: `bench-overview-${n}`,
        creationKey: `bench-overview-${n}`,
        status: 'open',
        paymentStatus: 'partially_paid',
        currency: 'USD',
        items: [{ name: 'Item', quantity: 1, unitPrice: 1_000_000 }],
        amounts: { subtotal: 1_000_000, tax: 0, discount: 0, total: 1_000_000, paid: PAYMENTS_PER_ORDER, due: 0 },
        metadata: [],
        createdAt,
        updatedAt: createdAt,
        revision: 1,
        payments: Array.from({ length: PAYMENTS_PER_ORDER }, (_, k) => ({
          paymentId: `pay_test_bench${n}x${k}`,
          amount: 1,
          method: 'card',
          appliedAt: new Date(now - ((n * PAYMENTS_PER_ORDER + k) % (7 * 24 * 60)) * 60_000),
        })),
      };
    });
    await ordersDb.collection('orders').insertMany(batch as never[]);
  }
}

/** Each variant's `concurrency` overviews in a child process of its own, one variant after the other. */
async function runOverviews(
  engines: Engines,
  concurrency: number,
  organizationId: string,
  databases: OverviewDatabases,
): Promise<OverviewResults> {
  const results: OverviewResults = {};
  for (const variant of ['before', 'after'] as const) {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', CHILD], {
      env: {
        ...process.env,
        OVERVIEW_VARIANT: variant,
        OVERVIEW_CONCURRENCY: String(concurrency),
        OVERVIEW_ORGANIZATION: organizationId,
        OVERVIEW_ORDERS_DB: databases.orders,
        OVERVIEW_DISPATCHER_DB: databases.dispatcher,
        MONGODB_URL: engines.mongoUrl,
      },
      maxBuffer: 16 * 1024 * 1024,
    });
    results[variant] = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as OverviewChildResult;
    process.stderr.write(`[bench] ${variant}: ${JSON.stringify(results[variant])}\n`);
  }
  return results;
}

function printOverviewTable(results: OverviewResults): void {
  console.log(
    `  ${''.padEnd(44)} ${'RSS before'.padStart(11)} ${'RSS peak'.padStart(9)} ${'growth'.padStart(9)} ${'heap peak'.padStart(10)} ${'took'.padStart(8)}`,
  );
  const row = (label: string, r: OverviewChildResult | undefined) =>
    r
      ? `  ${label.padEnd(44)} ${`${r.rssBeforeMiB} MiB`.padStart(11)} ${`${r.rssPeakMiB} MiB`.padStart(9)} ${`${r.rssPeakMiB - r.rssBeforeMiB} MiB`.padStart(9)} ${`${r.heapPeakMiB} MiB`.padStart(10)} ${`${r.seconds} s`.padStart(8)}`
      : `  ${label}: no result`;
  console.log(row('before: read everything, sum in the process', results.before));
  console.log(row("after: the stores' $match/$group aggregations", results.after));
  const growth = (r: OverviewChildResult | undefined) => (r ? r.rssPeakMiB - r.rssBeforeMiB : Number.NaN);
  console.log(
    `  growth after / before: ${(growth(results.after) / growth(results.before)).toFixed(3)}; the sums the two computed agree: ${results.before?.digest === results.after?.digest ? 'yes' : 'NO'}`,
  );
}
