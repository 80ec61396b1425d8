import type { Engines } from '@checkout/engines';
import { BSON, MongoClient, type Db } from '@checkout/mongo';
import { WEBHOOK_ENDPOINTS_MAX } from '@checkout/contracts';
import {
  AdminClient,
  eventually,
  metricValues,
  startWebhookReceiver,
  type DemoOrganization,
  type WebhookReceiver,
} from '@checkout/testing';
import { clientOf } from './events';
import { startAbuser, type Abuser, type Tally } from './abuser';
import {
  interleavedSlices,
  liveMerchant,
  liveSegments,
  probeRoundTrips,
  type LoopDelay,
  type Side,
} from './abuse-live';
import { sampleCpu } from './cpu';
import { percentile } from './load';
import { startBenchStack, type BenchStack } from './stack';
import { searchPhase } from './abuse-search';

// npm run bench -- abuse [--seconds=S] [--slices=K] [--control] [--deliveries=N] [--rate=R] [--live-rate=L]
//                         [--seed-seconds=T] [--test-body-bytes=B]
// One free test key cannot wear down what all merchants share. In one run:
//   1–2. a live merchant pays at a steady L/s (4) with one webhook endpoint, S seconds (60) alone and S seconds beside
//      one test key at its rate limit (R = 100 requests/s) creating and PATCHing orders with the largest bodies the
//      API allows (100 items of 250-character names, 50 metadata keys of 500 characters), every event fanned out to
//      16 endpoints on a local receiver (D50), both in a process of their own (bench/src/abuser.ts) as on another
//      machine. The two sides run in K slices each (6), interleaved ABBA (bench/src/abuse-live.ts), each slice
//      beside the abuser followed by a wait until its deliveries are done. The processor's payment notification →
//      the first delivery attempt reaching the live endpoint, p50/p99 of each side pooled, and their p99 ratio
//      (target ≤ 1.5×); split per payment by its records (notified → event made → batch handled → first attempt
//      started → received) beside the dispatcher's event-loop delay and two round trips timed through the slices
//      (the engine's ping, the gateway's /healthz: what any command or request waits for); the abuser's answers by
//      status and code (429 RATE_LIMITED; QUOTA_EXCEEDED where a budget applies), and the bytes each tenant stored
//      in the dispatcher's events and deliveries (BSON sizes summed). --control runs the same slices with no abuser
//      in either side: the ratio the bench's own spread gives;
//   3. search: N deliveries (10⁶) of the abuser's, written straight into the dispatcher's collections in its store's
//      shapes (copies of one real delivery per endpoint, 16 per event, a failed one in a hundred; their events carry
//      the live merchant's event body, not the abuser's 50 kB ones, which would be gigabytes the search never reads),
//      then `GET /v0/events?deliveryStatus=…` and `?endpointId=…` over several pages: p50/p99 (target ≤ 200 ms), and
//      the answers stopped by the dispatcher's maxTimeMS (EVENT_SEARCH_MAX_TIME_MS: 503 SERVICE_UNAVAILABLE) apart from
//      those the gateway's upstream timeout ended. --seed-seconds=T stops the seeding after T seconds and searches
//      what is stored by then (the emulator writes a few hundred deliveries a second on a busy machine).

const TARGET_RATIO = 1.5;
/** How often each probe times a round trip: a p99 per side from ~600, for ~3 % of a core in the bench (8 % at 25). */
const PROBE_EVERY_MS = 100;
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

interface AbuseBenchOptions {
  seconds: number;
  deliveries: number;
  rate: number;
  liveRate: number;
  seedSeconds: number;
  /** Slices per side, interleaved ABBA. */
  slices: number;
  /** No abuser in the `beside` slices: the bench's own spread (an A/A control). */
  control: boolean;
  /** The gateway's RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW; 0: its default. */
  testBodyBytes: number;
}

/** The services, the abuser's process, the live merchant's endpoint, and the engine the dispatcher stores in. */
interface AbuseRun {
  stack: BenchStack;
  abuserProcess: Abuser;
  liveReceiver: WebhookReceiver;
  mongo: MongoClient;
}

/** The two tenants, and the abuser's endpoints (the search filters by one). */
interface AbuseTenants {
  abuser: DemoOrganization;
  merchant: DemoOrganization;
  /** The live merchant's keys, as clientOf takes them. */
  merchantKeys: { test: string; live: string };
  endpointIds: string[];
}

async function startAbuseRun(engines: Engines, options: AbuseBenchOptions): Promise<AbuseRun> {
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
  return { stack, abuserProcess, liveReceiver, mongo };
}

export async function runAbuseBench(engines: Engines, options: AbuseBenchOptions): Promise<void> {
  const bodyBytes = options.testBodyBytes > 0 ? `${options.testBodyBytes}` : 'the default';
  console.log(
    `abuse benchmark: ${options.seconds} s per side in ${options.slices} slices each, ` +
      `${options.control ? 'A/A control (no abuser in either side)' : 'abuser'} at ${options.rate} requests/s with ${WEBHOOK_ENDPOINTS_MAX} endpoints, ` +
      `live merchant at ${options.liveRate} payments/s, search at ${options.deliveries} deliveries, test-mode body bytes ` +
      `per key and second ${bodyBytes}; engines: ${engines.description}`,
  );
  const run = await startAbuseRun(engines, options);
  const { stack, abuserProcess, liveReceiver, mongo } = run;
  try {
    const tenants = await enrolTenants(run);
    const { abuser, merchant } = tenants;
    const db = mongo.db(stack.env.dispatcher.MONGODB_DATABASE);
    const { alone, beside, tally } = await runSlices(run, tenants, db, options);
    const segments = { alone: await liveSegments(db, alone.firsts), beside: await liveSegments(db, beside.firsts) };
    const stored = await storedPerTenant(db, {
      abuser: abuser.organizationId,
      'live merchant': merchant.organizationId,
    });
    const delivered = await abuserProcess.delivered();

    printLiveMerchant(alone, beside, segments, options.control);
    console.log(`\nabuser's answers by status and code (${options.rate} requests/s for ${options.seconds} s)`);
    for (const [label, count] of [...tally].sort()) console.log(`  ${label.padEnd(36)} ${count}`);
    console.log(`  deliveries reaching its 16 endpoints during the run: ${delivered}`);
    console.log(`\nstored per tenant in the dispatcher (BSON sizes summed, right after the abuse phase)`);
    for (const row of stored) console.log(row);

    if (options.control) console.log('\nthe search is not timed in the control: the abuser stored nothing to copy');
    else
      await searchPhase(
        stack,
        db,
        { organizationId: abuser.organizationId, testKey: abuser.testKey, endpointIds: tenants.endpointIds },
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

/** The abuser with every endpoint it may have, at its own process's victim; the live merchant with one. */
async function enrolTenants({ stack, abuserProcess, liveReceiver }: AbuseRun): Promise<AbuseTenants> {
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
  const merchantKeys = { test: merchant.testKey, live: merchant.liveKey };
  await clientOf(stack, merchantKeys).call('live', 'POST', '/v0/webhook_endpoints', {
    url: liveReceiver.url('/live'),
    enabledEvents: ['*'],
  });
  return { abuser, merchant, merchantKeys, endpointIds };
}

/** The live merchant warmed up, then its slices alone and beside the abuser (or the control's), interleaved. */
async function runSlices(
  { stack, abuserProcess, liveReceiver, mongo }: AbuseRun,
  { abuser, merchantKeys: keys }: AbuseTenants,
  db: Db,
  options: AbuseBenchOptions,
): Promise<{ alone: Side; beside: Side; tally: Tally }> {
  const sliceMs = (options.seconds * 1000) / options.slices;
  const live = () => liveMerchant(stack, keys, liveReceiver, options.liveRate, sliceMs);
  await liveMerchant(stack, keys, liveReceiver, options.liveRate, 3_000); // warm-up
  return interleavedSlices({
    pairs: options.slices,
    live,
    abuse: options.control
      ? undefined
      : () =>
          abuserProcess.run({
            gatewayUrl: stack.env.gatewayUrl,
            key: abuser.testKey,
            rate: options.rate,
            ms: sliceMs,
          }),
    drain: () => abuserDrained(db, abuser.organizationId),
    loopDelay: () => dispatcherLoopDelay(stack),
    cpu: sampleCpu,
    probes: () => stackProbes(stack, mongo, sliceMs),
  });
}

/** The live merchant's latencies on each side, their p99 ratio against the target, and where the time went. */
function printLiveMerchant(
  alone: Side,
  beside: Side,
  segments: Record<'alone' | 'beside', Record<string, number[]>>,
  control: boolean,
): void {
  const baseline = alone.latencies;
  const withAbuser = beside.latencies;
  const p = (sorted: number[], q: number) => percentile(sorted, q).toFixed(0);
  const ratio = percentile(withAbuser, 99) / Math.max(1, percentile(baseline, 99));
  console.log(`\nlive merchant: payment notification → first delivery attempt at its endpoint (ms)`);
  console.log(
    `  without the abuser  n=${baseline.length} p50 ${p(baseline, 50)} p99 ${p(baseline, 99)}, refused or never delivered ${alone.refused}`,
  );
  console.log(
    `  ${control ? 'the control side ' : 'with the abuser  '}   n=${withAbuser.length} p50 ${p(withAbuser, 50)} p99 ${p(withAbuser, 99)}, refused or never delivered ${beside.refused}`,
  );
  console.log(`  p99 ratio ${ratio.toFixed(2)}× ${ratio <= TARGET_RATIO ? '✓' : '✗'} ≤ ${TARGET_RATIO}×`);
  console.log(
    `  where it goes, per payment from its records (p50 / p99 ms): notified → event made → consumed → attempt started → received`,
  );
  for (const [phase, rows] of Object.entries(segments)) {
    const cells = Object.entries(rows).map(([name, sorted]) => `${name} ${p(sorted, 50)} / ${p(sorted, 99)}`);
    console.log(`    ${phase.padEnd(7)} ${cells.join(', ')}`);
  }
  const loop = (side: LoopDelay) => `${side.p99.toFixed(0)} / ${side.max.toFixed(0)} ms`;
  console.log(
    `  the dispatcher's event-loop delay, the worst slice's p99 / max: alone ${loop(alone.loop)}, beside ${loop(beside.loop)}`,
  );
  for (const line of probeLines(alone, beside)) console.log(`  ${line}`);
  console.log(`  CPU by process, % of one core over each side's slices (the drains after the abuser's included):`);
  for (const line of cpuBySide(alone, beside)) console.log(`    ${line}`);
}

/**
 * Round trips timed through each slice: the engine runs one command at a time (docs/engines.md), so its ping waits
 * for whatever command runs; the gateway's /healthz touches no store, so it waits only for the gateway's event loop
 * and a core.
 */
async function stackProbes(stack: BenchStack, mongo: MongoClient, sliceMs: number): Promise<Map<string, number[]>> {
  const [engine, gateway] = await Promise.all([
    probeRoundTrips(() => mongo.db('admin').command({ ping: 1 }), sliceMs, PROBE_EVERY_MS),
    probeRoundTrips(
      () => fetch(`${stack.env.gatewayUrl}/healthz`).then((r) => r.arrayBuffer()),
      sliceMs,
      PROBE_EVERY_MS,
    ),
  ]);
  return new Map([
    ['engine ping', engine],
    ['gateway /healthz', gateway],
  ]);
}

/** Each probe's p50 / p99 / max alone → beside. */
function probeLines(alone: Side, beside: Side): string[] {
  const figures = (sorted: number[] = []) =>
    [percentile(sorted, 50), percentile(sorted, 99), sorted.at(-1) ?? 0].map((v) => v.toFixed(0)).join(' / ');
  return [
    `round trips timed every ${PROBE_EVERY_MS} ms through the slices, p50 / p99 / max ms, alone → beside:`,
    ...[...alone.probes.keys()].map(
      (name) => `  ${name.padEnd(18)} ${figures(alone.probes.get(name))} → ${figures(beside.probes.get(name))}`,
    ),
  ];
}

/**
 * The dispatcher's event-loop delay since the last read (p99 / max, ms): prom-client's figures from Node's
 * monitorEventLoopDelay, whose histogram it resets on every scrape, so each read covers the window since the one
 * before. A live attempt waits for whatever runs in the turn its event arrives in.
 */
async function dispatcherLoopDelay(stack: BenchStack): Promise<LoopDelay> {
  const [url] = stack.metricsUrls('webhook-dispatcher');
  if (url === undefined) return { p99: 0, max: 0 };
  const read = await metricValues(url, ['nodejs_eventloop_lag_p99_seconds', 'nodejs_eventloop_lag_max_seconds']);
  return { p99: read.nodejs_eventloop_lag_p99_seconds * 1000, max: read.nodejs_eventloop_lag_max_seconds * 1000 };
}

/** Each process's CPU as a share of one core over each side's wall time, the largest difference first, and the sum. */
function cpuBySide(alone: Side, beside: Side): string[] {
  const share = (side: Side, name?: string) => {
    const seconds = name === undefined ? [...side.cpu.values()].reduce((a, b) => a + b, 0) : (side.cpu.get(name) ?? 0);
    return (100 * seconds * 1000) / Math.max(1, side.wallMs);
  };
  const names = [...new Set([...alone.cpu.keys(), ...beside.cpu.keys()])].sort(
    (a, b) => share(beside, b) - share(alone, b) - (share(beside, a) - share(alone, a)),
  );
  const row = (label: string, name?: string) =>
    `${label.padEnd(26)} ${share(alone, name).toFixed(1).padStart(6)} % → ${share(beside, name).toFixed(1).padStart(6)} %`;
  return [...names.map((name) => row(name, name)), row('all of them')];
}

/** Waits until none of the abuser's deliveries is still pending (its attempts in flight or scheduled). */
async function abuserDrained(db: Db, organizationId: string): Promise<void> {
  await eventually(
    async () =>
      (await db.collection('deliveries').countDocuments({ organizationId, status: 'pending' })) === 0 || undefined,
    { deadlineMs: 120_000, intervalMs: 100, description: "the abuser's deliveries done" },
  );
}
