// Webhook dispatcher benchmark: npm run bench -- webhooks [--burst=N] [--seconds=S] [--expiry=N]
// (environment: CPU_PROFILE_DIR=<dir>, DISPATCHER_NODE_FLAGS="<node flags for the dispatcher>")
// The dispatcher runs in a child process of its own (webhook-dispatcher-process.ts), bundled and run by plain
// node as the image runs it. Prints each figure next to its target (✓/✗) and next to the issue's "before"
// figures; timing targets live here, never in tests. Scenarios:
//   1. burst throughput to fast local receivers, next to plain undici POSTs to the same receivers (same run),
//      and the dispatcher's database commands per delivery (driver command monitoring);
//   2. first-attempt latency at a steady 200 events/s, from produce-ack to arrival, all endpoints healthy;
//   2b. the same rate, half of it from one organization whose 32 endpoints all hang, 16 in test mode and 16 in
//      live mode, half from another organization's live mode to healthy endpoints: that live p99 vs (2) (fairness:
//      one share per organization, both modes together); run right
//      after (2), before anything else hangs, and drained before (3);
//   3. the same while half of the endpoints hang until the 5 s timeout: healthy endpoints' p99 vs (2);
//   4. 10,000 checkout.session.expired events at once (produced straight onto the session-events topic, as the
//      sessions sweeper would after expiring them, D21) to 1,000 distinct endpoints: all within 30 s, fair shares;
//   5. the dispatcher's peak RSS through all of it;
//   6. CPU per delivery of every process (bench/src/cpu.ts) in the burst, the reference and the expiry: the
//      burst ratio the machine's cores allow at those costs;
//   7. fan-out (D50): the same burst for one merchant with 1 webhook endpoint, then with 4 subscribed to everything
//      (4 deliveries an event): deliveries/s against the single endpoint's, database commands per delivery; then
//      the 4 paced, all healthy and with one of them hanging: the healthy three's first-attempt p99 against
//      all-healthy (no head-of-line blocking between a merchant's endpoints).
import { randomBytes } from 'node:crypto';
import { createEventProducer, createKafka } from '@checkout/kafka';
import { MongoClient } from '@checkout/mongo';
import { startEngines, type Engines } from '@checkout/engines';
import { internalCallers, newSecret, startWebhookReceiver } from '@checkout/testing';
import { TOPICS, topicName } from '@checkout/contracts';
import { cpuTable } from './cpu';
import { DispatcherGroup } from './webhooks-dispatcher';
import { measureFanoutBursts, measureFanoutPaced } from './webhooks-fanout';
import {
  DispatcherTally,
  measureBurst,
  measureExpiry,
  measureHalfHanging,
  measureMemory,
  measureOneOrganizationHanging,
  measureSteady,
  warmUp,
  type Row,
  type WebhookRun,
  type WebhookSettings,
} from './webhooks-phases';

export interface WebhookBenchOptions {
  /** Engines to use; otherwise KAFKA_BROKERS / MONGODB_URL, otherwise startEngines(). */
  engines?: BenchEngines;
  /** Events in the throughput burst. */
  burst?: number;
  /** Paced rate (events/s) and duration of the latency scenarios. */
  ratePerSecond?: number;
  paceSeconds?: number;
  receivers?: number;
  timeoutMs?: number;
  /** Sessions expiring at once, and the distinct endpoints they go to. */
  expiring?: number;
  expiryEndpoints?: number;
  /** Dispatcher processes in one consumer group: Kafka spreads the partitions, no load balancer needed. */
  replicas?: number;
}

interface BenchEngines {
  kafkaBrokers: string[];
  mongoUrl: string;
  description?: string;
}

export async function runWebhookBench(options: WebhookBenchOptions = {}): Promise<void> {
  const settings: WebhookSettings = {
    burst: options.burst ?? 2_000,
    rate: options.ratePerSecond ?? 200,
    paceSeconds: options.paceSeconds ?? 5,
    receiverCount: options.receivers ?? 8,
    timeoutMs: options.timeoutMs ?? 5_000,
    expiring: options.expiring ?? 10_000,
    expiryEndpoints: options.expiryEndpoints ?? 1_000,
    replicas: options.replicas ?? 1,
  };
  const { engines, owned } = await benchEngines(options.engines);
  const name = `bench_webhooks_${randomBytes(3).toString('hex')}`;
  const run = await startRun(engines, name, settings);
  try {
    await runScenarios(run);
  } finally {
    await stopRun(run, engines.mongoUrl, name);
    await owned?.stop();
  }
  printTable(settings, engines.description, run.rows);
  printCpu(run);
}

/** The engines given, or KAFKA_BROKERS / MONGODB_URL, or engines of its own (`owned`, stopped at the end). */
async function benchEngines(given: BenchEngines | undefined): Promise<{ engines: BenchEngines; owned?: Engines }> {
  if (given) return { engines: given };
  if (process.env.KAFKA_BROKERS && process.env.MONGODB_URL)
    return { engines: { kafkaBrokers: process.env.KAFKA_BROKERS.split(','), mongoUrl: process.env.MONGODB_URL } };
  const owned = await startEngines({ log: (line) => process.stderr.write(`[engines] ${line}\n`) });
  return { engines: owned, owned };
}

/** The receivers, the dispatcher on a database and topics of `name`'s, and a producer of session events. */
async function startRun(engines: BenchEngines, name: string, settings: WebhookSettings): Promise<WebhookRun> {
  const gatewayToken = newSecret();
  const receivers = await Promise.all(Array.from({ length: settings.receiverCount }, () => startWebhookReceiver()));
  const env = {
    MONGODB_URL: engines.mongoUrl,
    MONGODB_DATABASE: name,
    KAFKA_BROKERS: engines.kafkaBrokers.join(','),
    TOPIC_PREFIX: name,
    INTERNAL_TOKEN: newSecret(),
    INTERNAL_CALLERS: internalCallers({ gateway: gatewayToken }),
    HTTP_HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'error',
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32',
    WEBHOOK_TIMEOUT_MS: String(settings.timeoutMs),
    WEBHOOK_RETRY_DELAYS_MS: '60000,120000,180000,240000',
  };
  const dispatcher = await DispatcherGroup.start(env, settings.replicas);
  const producer = createEventProducer(createKafka({ clientId: 'bench', brokers: engines.kafkaBrokers }));
  await producer.connect();
  return {
    settings,
    dispatcher,
    producer,
    topic: topicName(name, TOPICS.sessionEvents),
    gatewayToken,
    receivers,
    endpoints: [],
    rows: [],
    cpuWindows: [],
    tally: new DispatcherTally(dispatcher),
  };
}

/** The scenarios in the order whose drains keep each clear of the one before (webhooks-phases.ts). */
async function runScenarios(run: WebhookRun): Promise<void> {
  await warmUp(run);
  await measureBurst(run);
  const fanoutMerchant = await measureFanoutBursts(run);
  const healthyP99 = await measureSteady(run);
  await measureOneOrganizationHanging(run, healthyP99);
  await measureFanoutPaced(run, fanoutMerchant);
  await measureHalfHanging(run, healthyP99);
  await measureExpiry(run);
  await measureMemory(run);
}

async function stopRun(run: WebhookRun, mongoUrl: string, name: string): Promise<void> {
  await run.producer.disconnect().catch(() => {});
  await run.dispatcher.stop();
  for (const r of [...run.receivers, ...run.endpoints]) await r.close();
  const client = new MongoClient(mongoUrl);
  await client
    .connect()
    .then(() => client.db(name).dropDatabase())
    .catch(() => {});
  await client.close();
}

function printTable(settings: WebhookSettings, description: string | undefined, rows: readonly Row[]): void {
  const { replicas, receiverCount, timeoutMs, rate, paceSeconds } = settings;
  console.log(
    `\nwebhook dispatcher benchmark (${replicas > 1 ? `${replicas} dispatcher replicas in one consumer group, ` : ''}${receiverCount} receivers on 127.0.0.1, timeout ${timeoutMs} ms, paced ${rate}/s for ${paceSeconds} s; shared 2-core machine: noisy)`,
  );
  if (description) console.log(`engines: ${description}`);
  const header: Row = ['figure', 'now', 'target', 'before'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const fmt = (cells: readonly string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ');
  for (const line of [fmt(header), widths.map((w) => '-'.repeat(w)).join('-|-'), ...rows.map(fmt)])
    console.log(`  ${line}`);
}

/**
 * What the cores allow. The reference's work all happens in this process (client and receivers); a webhook's also
 * takes the dispatcher, both engines and the producer. On a machine with every core busy, the burst ratio can reach
 * about the reference's CPU per POST over a webhook's.
 */
function printCpu({ cpuWindows }: WebhookRun): void {
  const cpu = cpuTable(cpuWindows);
  console.log(
    `\nCPU per delivery, by process (/proc, user + system; "ceiling": deliveries a second were every core serving):\n${cpu.text}`,
  );
  const reachable =
    (cpu.allMs.get('plain undici POST') ?? Number.NaN) / (cpu.allMs.get('burst delivery') ?? Number.NaN);
  console.log(
    `  a webhook in the burst costs ${(1 / reachable).toFixed(1)}× the CPU of a plain undici POST, all processes together: with the cores saturated, the burst ratio can reach about ${reachable.toFixed(2)}×`,
  );
}
