// npm run bench -- capacity [--rate=R] [--seconds=S] [--op-seconds=S]: a capacity plan from measured costs. The four
// services from their bundles (as the image runs them) on the engines, four merchants each with a webhook endpoint for
// every event type. It measures, from /proc (bench/src/cpu.ts), the CPU seconds of every process (gateway, orders,
// sessions, dispatcher, Kafka, the MongoDB-compatible engine): idle, then per operation of a merchant's day, each in
// a window of its own (net of idle), then the day's mix at R requests/s (open loop). Today's load is that mix at R
// (default 25 req/s: the rate at which a 2-core machine serves the mix with every process well under saturation);
// it prints the pods per service, brokers, partitions per topic and shards at 1×, 10× and 100× of it
// (bench/src/capacity-plan.ts: the headroom and every other assumption), beside Hyperswitch's published ratio.
// docs/operations.md, "Capacity", holds the table of a run; this prints the date and machine of each run.
import { cpus } from 'node:os';
import { readFileSync } from 'node:fs';
import { Pool } from 'undici';
import { TOPIC_KEYS, TOPICS, type PartitionSetting } from '@checkout/contracts';
import type { Engines } from '@checkout/engines';
import { AdminClient, startWebhookReceiver, type WebhookReceiver } from '@checkout/testing';
import {
  BROKER_VCPU,
  capacityPlan,
  HEADROOM,
  MIN_BROKERS,
  MIN_PODS,
  PARTITION_STEP,
  REPLICATION,
  SHARD_VCPU,
  type Measured,
  type PlannedService,
  type PlannedTopic,
} from './capacity-plan';
import { BENCH_PROCESS, sampleCpu, type CpuSample } from './cpu';
import { formatColumns, openLoop } from './load';
import { startBenchStack, UNLIMITED_GATEWAY } from './stack';

const MERCHANTS = 4;
/**
 * A merchant's day, per 20 requests: 5 checkout sessions (each with its order), 4 of them paid (a fifth abandoned
 * and left to expire), 1 order made through the API, a refund of one payment in five (1 in 20 requests is close to
 * it), and 9 reads (the order, the session, the orders list, the events list): what a merchant's back office and
 * success page read. Webhook deliveries follow: order.created, order.paid, checkout.session.completed, refund.*.
 */
const DAY: readonly Operation[] = [
  'session',
  'read',
  'pay',
  'read',
  'session',
  'pay',
  'read',
  'order',
  'session',
  'read',
  'pay',
  'read',
  'refund',
  'session',
  'read',
  'pay',
  'read',
  'session',
  'read',
  'read',
];
type Operation = 'session' | 'pay' | 'order' | 'refund' | 'read';
const LABELS: Record<Operation, string> = {
  session: 'create a checkout session (and its order)',
  pay: 'pay a session (test helper) + its webhooks',
  order: 'POST /v0/orders + its webhook',
  refund: 'refund part of a paid order + its webhooks',
  read: 'a read (order, session, orders list, events list)',
};
const ITEMS = [{ name: 'Latte', quantity: 2, unitPrice: 450 }];

/** A Deployment's CPU request in the production overlay: its resources patch, or the consumer pods' own manifest. */
function productionCpuRequest(deployment: string): number {
  const overlay = (file: string) =>
    readFileSync(new URL(`../../deploy/k8s/overlays/production/${file}`, import.meta.url), 'utf8');
  const document =
    deployment === 'webhook-dispatcher-consumer'
      ? overlay('webhook-dispatcher-consumer/deployment.yaml')
      : overlay('patches/resources.yaml')
          .split(/^---$/m)
          .find((part) => new RegExp(`^  name: ${deployment}$`, 'm').test(part));
  const match = /requests: \{cpu: (\d+)m/.exec(document ?? '');
  if (!match) throw new Error(`no CPU request for ${deployment} in deploy/k8s/overlays/production`);
  return Number(match[1]) / 1000;
}

/** What the plan sizes, and the process whose CPU stands for each (the dispatcher: its consumer pods). */
function plannedServices(): PlannedService[] {
  return [
    { name: 'gateway', process: 'gateway' },
    { name: 'orders', process: 'orders' },
    { name: 'sessions', process: 'sessions' },
    { name: 'webhook-dispatcher-consumer', process: 'webhook-dispatcher' },
  ].map((s) => ({ ...s, cpuRequest: productionCpuRequest(s.name) }));
}

/** The busy topics, the Deployments whose groups read them, and today's partitions (deploy/k8s topics-config). */
function plannedTopics(): PlannedTopic[] {
  const env = readFileSync(new URL('../../deploy/k8s/base/jobs/topics.env', import.meta.url), 'utf8');
  const today = (setting: PartitionSetting) => Number(new RegExp(`^${setting}=(\\d+)$`, 'm').exec(env)?.[1] ?? 0);
  const topic = (name: string, consumers: string[]) => ({
    topic: name,
    consumers,
    partitions: today(TOPIC_KEYS[name]?.partitions ?? 'ORDER_EVENTS_PARTITIONS'),
  });
  // The retry tiers are left out: each tier holds only failed attempts, and one group reads all four tiers' partitions.
  return [
    topic(TOPICS.sessionEvents, ['webhook-dispatcher-consumer']),
    topic(TOPICS.orderEvents, ['sessions', 'orders']),
    topic(TOPICS.orderPublicEvents, ['webhook-dispatcher-consumer']),
  ];
}

interface Merchant {
  headers: Record<string, string>;
  pending: string[];
  paid: string[];
  orders: string[];
}

/** Sends one operation of the mix for `merchant`; an operation whose input is missing reads instead. */
async function send(pool: Pool, merchant: Merchant, operation: Operation, n: number): Promise<boolean> {
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const response = await pool.request({
      method,
      path,
      headers: merchant.headers,
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await response.body.text();
    return { ok: response.statusCode < 300, body: text ? (JSON.parse(text) as Record<string, never>) : {} };
  };
  if (operation === 'session') {
    const created = await call('POST', '/v0/checkout/sessions', { items: ITEMS });
    const session = created.body['session'] as { id: string; order: { id: string } } | undefined;
    if (session) merchant.pending.push(session.id);
    if (session) merchant.orders.push(session.order.id);
    return created.ok;
  }
  if (operation === 'pay' && merchant.pending.length > 0) {
    const paid = await call('POST', `/v0/test_helpers/checkout/sessions/${merchant.pending.shift()}/pay`, {});
    const order = (paid.body['session'] as { order?: { id: string } } | undefined)?.order?.id;
    if (order) merchant.paid.push(order);
    return paid.ok;
  }
  if (operation === 'order') return (await call('POST', '/v0/orders', { items: ITEMS })).ok;
  if (operation === 'refund' && merchant.paid.length > 0)
    return (await call('POST', `/v0/orders/${merchant.paid.shift()}/refunds`, { amount: 100 })).ok;
  const order = merchant.orders[n % Math.max(1, merchant.orders.length)];
  const reads = [
    order ? `/v0/orders/${order}` : '/v0/orders?limit=10',
    '/v0/orders?limit=10',
    '/v0/events?limit=10',
    merchant.pending[0] ? `/v0/checkout/sessions/${merchant.pending[0]}` : '/v0/events?limit=10',
  ];
  return (await call('GET', reads[n % reads.length] ?? '/v0/orders?limit=10')).ok;
}

/** CPU cores per process between two samples `seconds` apart. */
function coresBetween(before: CpuSample, after: CpuSample, seconds: number): Map<string, number> {
  return new Map([...after].map(([name, s]) => [name, Math.max(0, s - (before.get(name) ?? 0)) / seconds]));
}

/** Waits until the receiver has seen no delivery for `quietMs` (at most 20 s): the webhooks a window owes are out. */
async function settled(receiver: WebhookReceiver, quietMs = 1_000): Promise<void> {
  const deadline = Date.now() + 20_000;
  let count = -1;
  while (Date.now() < deadline && receiver.deliveries().length !== count) {
    count = receiver.deliveries().length;
    await new Promise((resolve) => setTimeout(resolve, quietMs));
  }
}

interface Window {
  seconds: number;
  operations: number;
  errors: number;
  cores: Map<string, number>;
}

/** Runs `next()` at `rate` per second (open loop: a slow answer never holds back the next request) for `seconds`. */
async function measure(
  receiver: WebhookReceiver,
  rate: number,
  seconds: number,
  next: (n: number) => Promise<boolean>,
): Promise<Window> {
  const before = sampleCpu();
  const started = performance.now();
  let errors = 0;
  const total = Math.round(rate * seconds);
  await openLoop(rate, total, (n) =>
    next(n).then(
      (ok) => void (ok || errors++),
      () => void errors++,
    ),
  );
  await settled(receiver);
  const elapsed = (performance.now() - started) / 1000;
  return { seconds: elapsed, operations: total, errors, cores: coresBetween(before, sampleCpu(), elapsed) };
}

const PROCESSES = ['gateway', 'orders', 'sessions', 'webhook-dispatcher', 'kafka', 'mongo engine'];

export async function runCapacityBench(
  engines: Engines,
  options: { rate: number; seconds: number; opSeconds: number },
): Promise<void> {
  const log = (line: string) => process.stderr.write(`[capacity] ${line}\n`);
  const receiver = await startWebhookReceiver();
  const limits = UNLIMITED_GATEWAY;
  const stack = await startBenchStack(engines, {
    services: ['orders', 'sessions', 'webhook-dispatcher', 'gateway'],
    replicas: 1,
    extraEnv: { gateway: limits },
  });
  const pool = new Pool(stack.env.gatewayUrl, { connections: 32, pipelining: 1 });
  try {
    const admin = new AdminClient(stack.env.adminUrl, stack.env.adminToken);
    const merchants: Merchant[] = [];
    for (let i = 0; i < MERCHANTS; i++) {
      const org = await admin.createOrganizationWithKeys(`Capacity bench merchant ${i + 1}`);
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${org.testKey}` };
      const endpoint = await pool.request({
        method: 'POST',
        path: '/v0/webhook_endpoints',
        headers,
        body: JSON.stringify({ url: receiver.url(`/merchant-${i + 1}`), enabledEvents: ['*'] }),
      });
      await endpoint.body.dump();
      if (endpoint.statusCode !== 201) throw new Error(`webhook endpoint: HTTP ${endpoint.statusCode}`);
      merchants.push({ headers, pending: [], paid: [], orders: [] });
    }
    const merchantOf = (n: number) => merchants[n % MERCHANTS] as Merchant;
    log('warm-up');
    await measure(receiver, options.rate, 4, (n) => send(pool, merchantOf(n), DAY[n % DAY.length] ?? 'read', n));
    log('idle');
    const idleBefore = sampleCpu();
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const idle = coresBetween(idleBefore, sampleCpu(), 5);
    const perOperation: Array<[Operation, Window]> = [];
    for (const operation of ['session', 'pay', 'order', 'refund', 'read'] as const) {
      log(operation);
      // Sessions to pay and orders to refund are made before the window that uses them, outside it.
      if (operation === 'pay' || operation === 'refund')
        await measure(receiver, options.rate, options.opSeconds, (n) => send(pool, merchantOf(n), 'session', n));
      if (operation === 'refund')
        await measure(receiver, options.rate, options.opSeconds, (n) => send(pool, merchantOf(n), 'pay', n));
      perOperation.push([
        operation,
        await measure(receiver, options.rate, options.opSeconds, (n) => send(pool, merchantOf(n), operation, n)),
      ]);
    }
    log(`the day's mix at ${options.rate} req/s for ${options.seconds} s`);
    const deliveriesBefore = receiver.deliveries().length;
    const mix = await measure(receiver, options.rate, options.seconds, (n) =>
      send(pool, merchantOf(n), DAY[n % DAY.length] ?? 'read', n),
    );
    const deliveries = receiver.deliveries().length - deliveriesBefore;
    printReport({ options, idle, perOperation, mix, deliveries });
  } finally {
    await pool.close();
    await stack.stop();
    await receiver.close();
  }
}

function printReport(run: {
  options: { rate: number; seconds: number };
  idle: Map<string, number>;
  perOperation: Array<[Operation, Window]>;
  mix: Window;
  deliveries: number;
}): void {
  const { options, idle, perOperation, mix } = run;
  const netMs = (window: Window, name: string) =>
    (Math.max(0, (window.cores.get(name) ?? 0) - (idle.get(name) ?? 0)) * window.seconds * 1000) /
    Math.max(1, window.operations);
  const columns = [...PROCESSES, BENCH_PROCESS];
  const cpuRows = [
    ...perOperation.map(([operation, w]) => [
      LABELS[operation],
      String(w.operations),
      String(w.errors),
      ...columns.map((name) => netMs(w, name).toFixed(2)),
    ]),
    [
      "the day's mix (per request)",
      String(mix.operations),
      String(mix.errors),
      ...columns.map((n) => netMs(mix, n).toFixed(2)),
    ],
    ['idle (cores)', '', '', ...columns.map((name) => (idle.get(name) ?? 0).toFixed(3))],
  ];
  const measured: Measured = {
    requestsPerSecond: options.rate,
    loadedCores: mix.cores,
    idleCores: idle,
  };
  const plan = capacityPlan(measured, plannedServices(), plannedTopics(), { kafka: 'kafka', mongo: 'mongo engine' });
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  console.log(
    `\nCapacity bench, ${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores (${cpu}); ${MERCHANTS} merchants, ` +
      `each with an endpoint for every event type; the day's mix at ${options.rate} req/s for ${options.seconds} s ` +
      `(${run.deliveries} webhook deliveries, ${(run.deliveries / mix.seconds).toFixed(1)}/s)\n`,
  );
  console.log('CPU milliseconds per operation, net of idle, by process\n');
  console.log(formatColumns(['operation', 'ops', 'errors', ...columns], cpuRows));
  console.log(`\nCores used at today's load (${options.rate} req/s), by process\n`);
  console.log(
    formatColumns(
      ['', ...PROCESSES],
      [
        ['loaded', ...PROCESSES.map((n) => (mix.cores.get(n) ?? 0).toFixed(3))],
        ['idle', ...PROCESSES.map((n) => (idle.get(n) ?? 0).toFixed(3))],
      ],
    ),
  );
  console.log(
    `\nCapacity plan: pods at ${HEADROOM * 100} % of their CPU request, at least ${MIN_PODS}; brokers of ${BROKER_VCPU} ` +
      `vCPU at ${HEADROOM * 100} %, replication ${REPLICATION}, at least ${MIN_BROKERS}; shards of ${SHARD_VCPU} vCPU at ` +
      `${HEADROOM * 100} %; partitions in steps of ${PARTITION_STEP} (bench/src/capacity-plan.ts)\n`,
  );
  console.log(plan.text);
}
