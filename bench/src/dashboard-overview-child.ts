// One process computing the dashboard overview's two charts OVERVIEW_CONCURRENCY times at once, as an owner
// does (bench/src/dashboard-overview.ts): `after` with the stores' aggregations, `before` with the reads they
// replaced (the baseline, kept here: every delivery of 24 hours with its attempts and every order with a payment
// in 7 days read into memory, then summed in the process). Prints one JSON line: its RSS before and at its peak,
// its heap's peak, the time, and a digest of the sums (both variants must agree).
import { createHash } from 'node:crypto';
import { MongoClient, type Db } from '@checkout/mongo';
import type { Mode } from '@checkout/contracts';
import { OrdersStore, paymentsChartStart, paymentsPerHour } from '@checkout/orders/testing';
import {
  DeliveriesStore,
  DELIVERY_STATS_HOSTS,
  DELIVERY_STATS_WINDOW_MS,
  deliveryStats,
} from '@checkout/webhook-dispatcher/testing';

export interface OverviewChildResult {
  rssBeforeMiB: number;
  rssPeakMiB: number;
  heapPeakMiB: number;
  seconds: number;
  digest: string;
}

const MiB = 1024 * 1024;
const HOUR_MS = 3_600_000;

async function after(orders: Db, dispatcher: Db, scope: { organizationId: string; mode: Mode }, now: Date) {
  const payments = paymentsPerHour(
    await new OrdersStore(orders).paymentsPerHourSince(scope, paymentsChartStart(now)),
    now,
  );
  const from = new Date(now.getTime() - DELIVERY_STATS_WINDOW_MS);
  const hosts = deliveryStats(
    await new DeliveriesStore(dispatcher).deliveryStatsSince(scope, from, DELIVERY_STATS_HOSTS),
  );
  return { payments, hosts };
}

/** The code the aggregations replaced, as it was: read it all, then count in the process. */
async function before(orders: Db, dispatcher: Db, scope: { organizationId: string; mode: Mode }, now: Date) {
  const start = paymentsChartStart(now);
  const docs = await orders
    .collection('orders')
    .find({ ...scope, 'payments.appliedAt': { $gte: start } }, { projection: { payments: 1 } })
    .toArray();
  const totals = new Map<number, { hour: number; count: number; amount: number }>();
  for (const doc of docs)
    for (const p of doc.payments as { amount: number; appliedAt: Date }[]) {
      if (p.appliedAt < start) continue;
      const hour = Math.floor((p.appliedAt.getTime() - start.getTime()) / HOUR_MS);
      const t = totals.get(hour) ?? { hour, count: 0, amount: 0 };
      t.count += 1;
      t.amount += p.amount;
      totals.set(hour, t);
    }
  const payments = paymentsPerHour([...totals.values()], now);
  const from = new Date(now.getTime() - DELIVERY_STATS_WINDOW_MS);
  const deliveries = await dispatcher
    .collection('deliveries')
    .find({ ...scope, updatedAt: { $gte: from } }, { projection: { url: 1, attempts: 1 } })
    .toArray();
  const byHost = new Map<string, { durations: number[]; succeeded: number }>();
  for (const d of deliveries)
    for (const a of d.attempts as { at: Date; statusCode: number | null; durationMs: number; error: string | null }[]) {
      if (a.at < from) continue;
      const host = new URL(String(d.url)).host;
      const entry = byHost.get(host) ?? { durations: [], succeeded: 0 };
      entry.durations.push(a.durationMs);
      if (a.error === null && a.statusCode !== null && a.statusCode >= 200 && a.statusCode < 300) entry.succeeded += 1;
      byHost.set(host, entry);
    }
  const hosts = [...byHost]
    .sort((a, b) => b[1].durations.length - a[1].durations.length || (a[0] < b[0] ? -1 : 1))
    .slice(0, DELIVERY_STATS_HOSTS)
    .map(([host, e]) => ({ host, attempts: e.durations.length, succeeded: e.succeeded }));
  return { payments, hosts };
}

const variant = process.env.OVERVIEW_VARIANT === 'before' ? before : after;
const client = await MongoClient.connect(String(process.env.MONGODB_URL), {
  connectTimeoutMS: 600_000,
  socketTimeoutMS: 0,
  serverSelectionTimeoutMS: 600_000,
});
const scope = { organizationId: String(process.env.OVERVIEW_ORGANIZATION), mode: 'test' as Mode };
const orders = client.db(String(process.env.OVERVIEW_ORDERS_DB));
const dispatcher = client.db(String(process.env.OVERVIEW_DISPATCHER_DB));
const now = new Date();
await orders.command({ ping: 1 });
const rssBefore = process.memoryUsage().rss;
let rssPeak = rssBefore;
let heapPeak = process.memoryUsage().heapUsed;
const sampler = setInterval(() => {
  const m = process.memoryUsage();
  rssPeak = Math.max(rssPeak, m.rss);
  heapPeak = Math.max(heapPeak, m.heapUsed);
}, 50);
const started = performance.now();
const answers = await Promise.all(
  Array.from({ length: Number(process.env.OVERVIEW_CONCURRENCY ?? 8) }, () => variant(orders, dispatcher, scope, now)),
);
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);
const m = process.memoryUsage();
rssPeak = Math.max(rssPeak, m.rss);
heapPeak = Math.max(heapPeak, m.heapUsed);
const first = answers[0];
// What both must agree on: the payments per hour, and each host's attempts and successes (the p95 differs by design:
// the aggregation reads it from duration buckets).
const digest = createHash('sha256')
  .update(
    JSON.stringify({
      payments: first?.payments.hours.map((h) => [h.count, h.amount]),
      hosts: first?.hosts.map((h) => [h.host, h.attempts, h.succeeded]).sort(),
    }),
  )
  .digest('hex')
  .slice(0, 12);
const result: OverviewChildResult = {
  rssBeforeMiB: Math.round(rssBefore / MiB),
  rssPeakMiB: Math.round(rssPeak / MiB),
  heapPeakMiB: Math.round(heapPeak / MiB),
  seconds: Math.round(seconds * 10) / 10,
  digest,
};
await client.close();
console.log(JSON.stringify(result));
process.exit(0);
