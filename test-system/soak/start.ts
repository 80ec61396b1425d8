import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MongoClient } from '@checkout/mongo';
import { startEngines, type Engines } from '@checkout/engines';
import { ORDER_PUBLIC_EVENT_TYPES } from '@checkout/contracts';
import { ANSWER, AdminClient, startWebhookReceiver, type WebhookReceiver } from '@checkout/testing';
import { startClusterStack, type ClusterStack } from '../../scripts/lib/cluster-stack';
import { ensureReleaseBundles, resolveRelease, type ServiceBuild } from '../../scripts/lib/releases';
import { startProcessStack, type ProcessStack, type ServiceName } from '../../scripts/lib/process-stack';
import { startTraceSink, type TraceSink } from '../../scripts/lib/trace-sink';
import { RECEIVER_KINDS, type Merchant, type ReceiverKind } from './journey-types';
import type { RolloutOrder, watchGroups } from './rollout';
import { RecordingClient } from './client';

// A soak's start: its options, engines, receivers, stack (a cluster when it has replicas or rolls out) and merchants.

export interface SoakOptions {
  minutes: number;
  /** Customer journeys started per second (each 3–6 requests). */
  rate: number;
  seed: number;
  /** A service is SIGKILLed every this many ms (default 20 s); shorter runs kill more often. */
  killEveryMs?: number;
  /** Processes of each service behind HAProxy; 1 (default): one process each, no load balancer. */
  replicas?: number;
  /**
   * Instead of chaos, a rolling deploy of every replica of every service, then a rolling restart of three brokers:
   * no outage windows, so every 5xx or unanswered request is a violation.
   */
  rollout?: boolean;
  /**
   * With `rollout`, the cluster starts on this release (a version, `previous` or a commit: releases.ts)
   * and is upgraded to the current code in `order`, under load; the ledger gains a row per contract.
   */
  from?: string;
  order?: RolloutOrder;
  log: (line: string) => void;
}

/**
 * D31's schedule shrunk through the dispatcher's env so the drain ends in about a minute, yet still longer in
 * all (~40 s) than an outage window (a broker restart or a dispatcher kill: ~20-30 s on 2 loaded cores), as the
 * real schedule is: a delivery whose every retry falls inside one outage would be dead-lettered by the soak's
 * clock, not by the receiver.
 */
const RETRY_DELAYS_MS = '1000,3000,10000,25000';
/**
 * A rollout has no outage to outlast (nothing is ever down; a broker's restart delays a retry, it does not fail it):
 * the schedule only has to let the flapping receiver recover on its third attempt, and the failing one's last
 * delivery is dead-lettered seconds after the load ends instead of 40 s later, which is what the drain waited for.
 */
const ROLLOUT_RETRY_DELAYS_MS = '500,1000,2000,4000';
const MERCHANTS = 3;

/** mulberry32: a seeded generator, so a run's mix and chaos targets can be replayed with --seed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** What a run started, stopped by runSoak whatever happens. */
export interface Held {
  engines?: Engines;
  stack?: Pick<ProcessStack, 'env' | 'restart' | 'notReady' | 'stop'> & {
    kill(service: ServiceName): Promise<unknown>;
  };
  receivers: Partial<Record<ReceiverKind, WebhookReceiver>>;
  endpoints?: WebhookReceiver;
  load?: RecordingClient;
  reader?: RecordingClient;
  mongo?: MongoClient;
  watcher?: ReturnType<typeof watchGroups>;
  traces?: TraceSink;
}

/** A started run: its names, engines, stack (a cluster when it has replicas or rolls out) and merchants. */
export interface Started {
  options: SoakOptions;
  runId: string;
  namePrefix: string;
  durationMs: number;
  random: () => number;
  replicas: number;
  from: ServiceBuild | undefined;
  order: RolloutOrder;
  engines: Engines;
  stack: NonNullable<Held['stack']>;
  cluster: ClusterStack | undefined;
  logDir: string;
  traces: TraceSink | undefined;
  receivers: Record<ReceiverKind, WebhookReceiver>;
  /** Each merchant's test-mode webhook endpoint (D50) for its order and refund events, at `/m<index>`. */
  endpoints: WebhookReceiver;
  merchants: Merchant[];
  load: RecordingClient;
  reader: RecordingClient;
}

/** Engines, receivers, the stack and the merchants; each noted in `held` as soon as it runs. */
export async function startSoak(options: SoakOptions, held: Held): Promise<Started> {
  const { log } = options;
  const runId = `${options.seed.toString(36)}${randomBytes(2).toString('hex')}`;
  const namePrefix = `soak_${runId}`;
  const replicas = options.replicas ?? 1;
  if (options.from !== undefined && !options.rollout) throw new Error('--from needs --rollout');
  const release = options.from === undefined ? undefined : resolveRelease(options.from);
  const from: ServiceBuild | undefined = release ? await ensureReleaseBundles(release, log) : undefined;
  const engines = await startSoakEngines(options, replicas);
  held.engines = engines;
  log(`engines: ${engines.description}`);
  const endpoints = await startReceivers(held);
  const logDir = join(tmpdir(), `checkout-soak-${runId}`);
  // From a release, the new code traces (every span, as shipped: parent-based, ratio 1) and the release's does
  // not: trace context then crosses versions in internal calls, Kafka headers and outbox rows, both ways round.
  const traces = from ? await startTraceSink() : undefined;
  held.traces = traces;
  const stackOptions = soakStackOptions({ engines, namePrefix, logDir, rollout: options.rollout === true, from });
  const cluster =
    replicas > 1 || options.rollout
      ? await startSoakCluster(stackOptions, { engines, replicas, from, traces, log })
      : undefined;
  const stack = cluster ?? (await startProcessStack(stackOptions));
  held.stack = stack;
  log(`stack ready; service logs in ${logDir}`);
  const merchants = await createMerchants(new AdminClient(stack.env.adminUrl, stack.env.adminToken));
  held.load = new RecordingClient(stack.env.gatewayUrl);
  held.reader = new RecordingClient(stack.env.gatewayUrl);
  for (const [index, merchant] of merchants.entries())
    await subscribeEndpoint(held.reader, merchant.testKey, endpoints.url(`/m${index}`));
  return {
    options,
    runId,
    namePrefix,
    durationMs: Math.round(options.minutes * 60_000),
    random: seeded(options.seed),
    replicas,
    from,
    order: options.order ?? 'both',
    engines,
    stack,
    cluster,
    logDir,
    traces,
    receivers: held.receivers as Record<ReceiverKind, WebhookReceiver>,
    endpoints,
    merchants,
    load: held.load,
    reader: held.reader,
  };
}

/** A cluster (replicas or a rollout) runs on three brokers, so that one of them can go (RF 3, min ISR 2). */
function startSoakEngines(options: SoakOptions, replicas: number): Promise<Engines> {
  return startEngines({
    // A rollout never stops the database, so it may run on a given one (MONGODB_URL: MongoDB, FerretDB); the chaos
    // soak stops and SIGKILLs its database, which only an engine of its own allows. Kafka is always its own.
    env: options.rollout && process.env.MONGODB_URL ? { MONGODB_URL: process.env.MONGODB_URL } : {},
    docker: false,
    log: (line) => options.log(`engines: ${line}`),
    ...((options.rollout || replicas > 1) && { kafkaBrokers: 3 }),
  });
}

/** The sessions' callback receivers, one per kind, and the merchants' endpoints' receiver it answers. */
async function startReceivers(held: Held): Promise<WebhookReceiver> {
  for (const kind of RECEIVER_KINDS) {
    const receiver = await startWebhookReceiver();
    receiver.answer(`/hooks/${kind}`, RECEIVER_ANSWERS[kind]);
    held.receivers[kind] = receiver;
  }
  const endpoints = await startWebhookReceiver();
  held.endpoints = endpoints;
  return endpoints;
}

function startSoakCluster(
  stackOptions: ReturnType<typeof soakStackOptions>,
  cluster: {
    engines: Engines;
    replicas: number;
    from: ServiceBuild | undefined;
    traces: TraceSink | undefined;
    log: (line: string) => void;
  },
): Promise<ClusterStack> {
  const { engines, from, traces } = cluster;
  return startClusterStack({
    ...stackOptions,
    replicas: cluster.replicas,
    replicationFactor: engines.kafkaReplicationFactor,
    minInsyncReplicas: engines.kafkaCluster?.minInsyncReplicas ?? 1,
    // Bundles start in a fraction of tsx's time on 2 busy cores: a rollout starts 2 × 4 new processes.
    runtime: 'bundle',
    // The request log says which versions talked (a mixed-version rollout), and which replica answered what, for
    // reading a miss of the chaos soak's kills (README, "A SIGKILL in the cluster": not every failure has a line).
    requestLog: true,
    ...(from && { from }),
    ...(traces && { currentEnv: { OTEL_EXPORTER_OTLP_ENDPOINT: traces.endpoint } }),
    log: cluster.log,
  });
}

async function createMerchants(admin: AdminClient): Promise<Merchant[]> {
  const merchants: Merchant[] = [];
  for (let i = 0; i < MERCHANTS; i++) {
    const org = await admin.createOrganizationWithKeys(`Soak Merchant ${i + 1}`);
    merchants.push({ name: `Soak Merchant ${i + 1}`, ...org });
  }
  return merchants;
}

/**
 * A merchant's back office listening to its order and refund events (D49, D50) beside the sessions' callback URLs:
 * money moves through them too, and they are most of a run's events, so the rollout's first-attempt p99 is over a
 * few hundred events rather than its slowest of sixty. Test mode only (a live endpoint must be https). Not
 * `checkout.session.*`: a session's event then has one delivery, to its callback URL, as the ledger's checks expect.
 */
async function subscribeEndpoint(api: RecordingClient, key: string, url: string): Promise<void> {
  const body = { url, enabledEvents: [...ORDER_PUBLIC_EVENT_TYPES] };
  const reply = await api.send('POST', '/v0/webhook_endpoints', 'setup', { key, body });
  if (reply.outcome !== 201) throw new Error(`webhook endpoint not created: ${JSON.stringify(reply)}`);
}

const RECEIVER_ANSWERS: Record<ReceiverKind, Parameters<WebhookReceiver['answer']>[1]> = {
  healthy: ANSWER.ok,
  slow: ANSWER.slow(1_500),
  flapping: ANSWER.flapping(2),
  failing: ANSWER.error,
};

/** The stack's settings for a soak: its names, retry schedule and the limits the soak is not about. */
function soakStackOptions(input: {
  engines: Engines;
  namePrefix: string;
  logDir: string;
  rollout: boolean;
  from: ServiceBuild | undefined;
}) {
  return {
    mongoUrl: input.engines.mongoUrl,
    kafkaBrokers: input.engines.kafkaBrokers,
    namePrefix: input.namePrefix,
    logDir: input.logDir,
    logLevel: 'warn',
    webhookRetryDelaysMs: input.rollout ? ROLLOUT_RETRY_DELAYS_MS : RETRY_DELAYS_MS,
    extraEnv: {
      // The soak measures correctness under failure, not the per-key limit (D43).
      gateway: { RATE_LIMIT_PER_WINDOW: '100000', RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: '1000000000' },
      // A killed dispatcher's claimed deliveries come back after the claim TTL; short, so the drain is short.
      dispatcher: {
        // Nor the daily budgets (docs/webhooks.md): its test-mode merchants get live's.
        BUDGET_TEST_EVENTS_PER_DAY: '5000000',
        BUDGET_TEST_DELIVERIES_PER_DAY: '40000000',
        BUDGET_TEST_BYTES_PER_DAY: String(32 * 1024 ** 3),
        WEBHOOK_CLAIM_TTL_MS: '10000',
        WEBHOOK_RECOVERY_INTERVAL_MS: '2000',
        // From a release: the dispatcher asks the gateway for signing secrets every 5 s, not 30, so that the
        // contract between them is crossed in each short window where the two run different versions.
        ...(input.from && { SIGNING_SECRET_CACHE_MS: '5000' }),
      },
    },
  };
}
