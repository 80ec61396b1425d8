import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readdir, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { MongoClient, type Db } from '@checkout/mongo';
import { startEngines, type Engines } from '@checkout/engines';
import {
  CONSUMER_GROUPS,
  TOPICS,
  topicName,
  type CheckoutSession,
  type Delivery,
  type WebhookEvent,
} from '@checkout/contracts';
import { consumerGroupLag, createKafka } from '@checkout/kafka';
import { ANSWER, AdminClient, eventually, startWebhookReceiver, type WebhookReceiver } from '@checkout/testing';
import { startClusterStack, type ClusterStack } from '../../scripts/lib/cluster-stack';
import { parseRequestLog } from '../../scripts/lib/haproxy';
import { ensureReleaseBundles, resolveRelease, type ServiceBuild } from '../../scripts/lib/releases';
import { SERVICES, startProcessStack, type ProcessStack, type ServiceName } from '../../scripts/lib/process-stack';
import { startTraceSink, type TraceSink } from '../../scripts/lib/trace-sink';
import { planChaos, runChaos, type ClusterKill, type OutageWindow } from './chaos';
import { sweptEventRows, sweptEvents } from './swept-events';
import { RecordingClient, sendWithRetries } from './client';
import { reportsBesideBalance } from './books-reports';
import {
  formatLedger,
  reconcile,
  ORDER_EVENTS_LOST,
  REFUND_EVENTS_LOST,
  REFUNDS_DISAGREE,
  type EventWithDeliveries,
  type LedgerReport,
  type BooksInput,
  type SessionWebhookEvent,
  type StoredBalance,
  type StoredBalanceLine,
  type StoredOrder,
} from './ledger';
import { orderIdsIn, orderTrails } from './order-trail';
import { RECEIVER_KINDS, runLoad, type Merchant, type ReceiverKind } from './load';
import {
  lastExitOf,
  rolloutPhases,
  rolloutRows,
  runRollout,
  watchGroups,
  type GroupSample,
  type RolloutOrder,
  type RolloutStep,
} from './rollout';
import { VersionTimeline, handoffRow, httpContractRows, type Handoff } from './versions';

export interface SoakOptions {
  minutes: number;
  /** Customer journeys started per second (each 3–6 requests). */
  rate: number;
  seed: number;
  /** A service is SIGKILLed every this many ms (default 20 s, as the issue asks); shorter runs kill more often. */
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

export interface SoakResult {
  report: LedgerReport;
  table: string;
  /** Each service's warnings and errors (the last few, outage noise left out), for a run that found violations. */
  serviceLogExcerpts: string;
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
const DRAIN_DEADLINE_MS = 150_000;
const MERCHANTS = 3;

/** mulberry32: a seeded generator, so a run's mix and chaos targets can be replayed with --seed. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

async function inParallel<T, R>(items: readonly T[], concurrency: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}

/** Outage noise every run has plenty of: a request answered 503 while a dependency was down. */
const EXPECTED_DURING_OUTAGES = /"msg":"dependency unavailable"/;
const EXCERPT_LINES = 25;

/**
 * The last warnings and errors of each service's log (in logDir, one file per service), outage noise left out,
 * so a violation found where the logs are gone afterwards (CI) comes with the services' side of the story.
 */
async function serviceLogExcerpts(logDir: string): Promise<string> {
  const parts: string[] = [];
  // One file per service, or per replica (`gateway-3.log`) in a cluster.
  const files = (await readdir(logDir).catch(() => [] as string[])).filter((f) => f.endsWith('.log')).sort();
  for (const file of files) {
    const service = file.replace(/\.log$/, '');
    if (!SERVICES.some((s) => service === s || new RegExp(`^${s}-\\d+$`).test(service))) continue;
    const text = await readFile(join(logDir, file), 'utf8').catch(() => '');
    const lines = text
      .split('\n')
      .filter((line) => /"level":"(warn|error|fatal)"/.test(line) && !EXPECTED_DURING_OUTAGES.test(line));
    parts.push(
      `--- ${service}: ${lines.length} warnings and errors${lines.length > EXCERPT_LINES ? `, the last ${EXCERPT_LINES}` : ''}`,
    );
    for (const line of lines.slice(-EXCERPT_LINES)) parts.push(line.length > 600 ? `${line.slice(0, 600)}…` : line);
  }
  return parts.join('\n');
}

/**
 * A soak run as a test tier: runs it, prints its ledger under `title` (and, when a check failed, the services'
 * warnings and errors, which CI does not keep), and returns the failed checks. A time (the first-attempt p99
 * ratio) is printed with the ledger but never a failed check here: a test asserts what must hold, never a time.
 */
export async function soakTier(
  title: string,
  tag: string,
  options: Omit<SoakOptions, 'log'>,
): Promise<{ report: LedgerReport; table: string; violated: string[] }> {
  const { report, table, serviceLogExcerpts } = await runSoak({
    ...options,
    log: (line) => process.stderr.write(`[${tag}] ${line}\n`),
  });
  console.log(`${title}:\n${table}`);
  const violated = report.rows.filter((r) => r.check && !r.timing && r.value !== 0).map((r) => r.label);
  if (violated.length > 0) console.log(`service logs:\n${serviceLogExcerpts}`);
  return { report, table, violated };
}

/** The checks whose examples name an order whose events the ledger traces (order-trail.ts). */
const TRAILED_CHECKS = [ORDER_EVENTS_LOST, REFUND_EVENTS_LOST, REFUNDS_DISAGREE];

/**
 * `npm run soak`: engines and a process stack of its own, four loopback receivers, load and chaos at once, then
 * drain and reconcile. Everything started here is stopped here, whatever happens.
 */
export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const { log } = options;
  const random = seeded(options.seed);
  const runId = `${options.seed.toString(36)}${randomBytes(2).toString('hex')}`;
  const durationMs = Math.round(options.minutes * 60_000);
  const namePrefix = `soak_${runId}`;
  let engines: Engines | undefined;
  let stack:
    | (Pick<ProcessStack, 'env' | 'restart' | 'notReady' | 'stop'> & { kill(service: ServiceName): Promise<unknown> })
    | undefined;
  const receivers: Partial<Record<ReceiverKind, WebhookReceiver>> = {};
  let load: RecordingClient | undefined;
  let reader: RecordingClient | undefined;
  let mongo: MongoClient | undefined;
  let watcher: ReturnType<typeof watchGroups> | undefined;
  let traces: TraceSink | undefined;
  try {
    const replicas = options.replicas ?? 1;
    if (options.from !== undefined && !options.rollout) throw new Error('--from needs --rollout');
    const release = options.from === undefined ? undefined : resolveRelease(options.from);
    const from: ServiceBuild | undefined = release ? await ensureReleaseBundles(release, log) : undefined;
    const order = options.order ?? 'both';
    // The rollout restarts brokers one at a time: that needs the three-broker cluster (RF 3, min ISR 2).
    // A cluster (replicas or a rollout) runs on three brokers, so that one of them can go.
    engines = await startEngines({
      // A rollout never stops the database, so it may run on a given one (MONGODB_URL: MongoDB, FerretDB); the chaos
      // soak stops and SIGKILLs its database, which only an engine of its own allows. Kafka is always its own.
      env: options.rollout && process.env.MONGODB_URL ? { MONGODB_URL: process.env.MONGODB_URL } : {},
      docker: false,
      log: (line) => log(`engines: ${line}`),
      ...((options.rollout || replicas > 1) && { kafkaBrokers: 3 }),
    });
    log(`engines: ${engines.description}`);
    for (const kind of RECEIVER_KINDS) {
      const receiver = await startWebhookReceiver();
      receiver.answer(
        `/hooks/${kind}`,
        kind === 'healthy'
          ? ANSWER.ok
          : kind === 'slow'
            ? ANSWER.slow(1_500)
            : kind === 'flapping'
              ? ANSWER.flapping(2)
              : ANSWER.error,
      );
      receivers[kind] = receiver;
    }
    const logDir = join(tmpdir(), `checkout-soak-${runId}`);
    // From a release, the new code traces (every span, as shipped: parent-based, ratio 1) and the release's does
    // not: trace context then crosses versions in internal calls, Kafka headers and outbox rows, both ways round.
    if (from) traces = await startTraceSink();
    const stackOptions = {
      mongoUrl: engines.mongoUrl,
      kafkaBrokers: engines.kafkaBrokers,
      namePrefix,
      logDir,
      logLevel: 'warn',
      webhookRetryDelaysMs: options.rollout ? ROLLOUT_RETRY_DELAYS_MS : RETRY_DELAYS_MS,
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
          ...(from && { SIGNING_SECRET_CACHE_MS: '5000' }),
        },
      },
    };
    const cluster =
      replicas > 1 || options.rollout
        ? await startClusterStack({
            ...stackOptions,
            replicas,
            replicationFactor: engines.kafkaReplicationFactor,
            minInsyncReplicas: engines.kafkaCluster?.minInsyncReplicas ?? 1,
            // Bundles start in a fraction of tsx's time on 2 busy cores: a rollout starts 2 × 4 new processes.
            runtime: 'bundle',
            ...(from && { from, requestLog: true }),
            ...(traces && { currentEnv: { OTEL_EXPORTER_OTLP_ENDPOINT: traces.endpoint } }),
            log,
          })
        : undefined;
    stack = cluster ?? (await startProcessStack(stackOptions));
    const running = stack;
    log(`stack ready; service logs in ${logDir}`);
    const admin = new AdminClient(stack.env.adminUrl, stack.env.adminToken);
    const merchants: Merchant[] = [];
    for (let i = 0; i < MERCHANTS; i++) {
      const org = await admin.createOrganizationWithKeys(`Soak Merchant ${i + 1}`);
      merchants.push({ name: `Soak Merchant ${i + 1}`, ...org });
    }
    load = new RecordingClient(stack.env.gatewayUrl);
    reader = new RecordingClient(stack.env.gatewayUrl);

    const plan = options.rollout ? [] : planChaos(durationMs, options.killEveryMs);
    log(
      `load: ${options.rate} journeys/s for ${options.minutes} min (seed ${options.seed}); ${
        options.rollout
          ? from
            ? `from release ${from.version} to ${(cluster as ClusterStack).current.version}: ${rolloutPhases(order)
                .map((p) => p.name)
                .join(', then ')}, ${replicas} replicas of each service one at a time`
            : `rolling deploy of ${replicas} replicas of each service, then of the 3 brokers`
          : `chaos: ${plan.map((p) => `${p.action.kind} at ${(p.atMs / 1000).toFixed(0)} s`).join(', ')}`
      }`,
    );
    const startedAt = Date.now();
    const callbackUrls = Object.fromEntries(
      RECEIVER_KINDS.map((kind) => [kind, (receivers[kind] as WebhookReceiver).url(`/hooks/${kind}`)]),
    ) as Record<ReceiverKind, string>;
    const chaosRandom = seeded(options.seed ^ 0x5eed);
    let chaosRunning = true;
    // In a rollout, each group's state is sampled throughout: the time its partitions had no owner, per step.
    const groupIds = [
      { id: topicName(namePrefix, CONSUMER_GROUPS.sessionsOrderEvents), label: 'sessions.order-events' },
      { id: topicName(namePrefix, CONSUMER_GROUPS.dispatcherSessionEvents), label: 'dispatcher.session-events' },
      {
        id: topicName(namePrefix, CONSUMER_GROUPS.dispatcherOrderPublicEvents),
        label: 'dispatcher.order-public-events',
      },
      { id: topicName(namePrefix, CONSUMER_GROUPS.dispatcherRetries), label: 'dispatcher.retries' },
    ];
    watcher = options.rollout
      ? watchGroups(
          createKafka({ brokers: engines.kafkaBrokers, clientId: 'soak-groups' }),
          groupIds.map((g) => g.id),
        )
      : undefined;
    let rolloutSteps: RolloutStep[] = [];
    const clusterKills: ClusterKill[] = [];
    const chaos = (
      cluster && options.rollout
        ? runRollout({
            stack: cluster,
            engines,
            steadyMs: Math.round(durationMs * 0.3),
            startedAt,
            ...(from && { mixed: { from, phases: rolloutPhases(order) } }),
            log,
          }).then((steps) => {
            rolloutSteps = steps;
            return [] as OutageWindow[];
          })
        : runChaos({
            stack: running,
            engines,
            plan,
            startedAt,
            random: chaosRandom,
            log,
            ...(cluster && { cluster: { onKill: (k: ClusterKill) => clusterKills.push(k) } }),
          })
    ).finally(() => {
      chaosRunning = false;
    });
    const [loadResult, windows] = await Promise.all([
      runLoad({
        client: load,
        merchants,
        callbackUrl: (kind) => callbackUrls[kind],
        processorSecret: stack.env.processorWebhookSecret,
        processorRefundSecret: stack.env.processorRefundWebhookSecret,
        runId,
        random,
        ratePerSecond: options.rate,
        durationMs,
        extendWhile: () => chaosRunning,
        // A mixed-version rollout replaces 24 replicas (each ready in 5-30 s on 2 busy cores): the load must last
        // as long, or the last phase (new callers meeting old callees) runs with nobody calling.
        ...(from && { maxExtraMs: 30 * 60_000 }),
        log,
      }),
      chaos,
      // The merchants' journeys read the events API only in the ledger, after the rollout: from a release, a
      // merchant also reads its latest events every 2 s meanwhile (the gateway's calls to the dispatcher cross
      // versions too). Its requests are the load's: each must be answered.
      from ? readEventsMeanwhile(load, merchants, () => chaosRunning) : Promise.resolve(),
    ]);
    log(
      `load done: ${loadResult.journeys.length} journeys, ${load.records.length} requests in ${((Date.now() - startedAt) / 1000).toFixed(0)} s`,
    );
    const groupSamples: GroupSample[] = (await watcher?.stop()) ?? [];

    // Drain: every outbox empty, every terminal session's event recorded, no delivery pending, and every consumer
    // group caught up (a cancel reaches its session through sessions' consumer, and leaves no other trace).
    mongo = new MongoClient(engines.mongoUrl, { serverSelectionTimeoutMS: 10_000 });
    const db = (name: string) => (mongo as MongoClient).db(`${namePrefix}_${name}`);
    const ledgerRuns = cluster ? cluster.buildOf('orders') === cluster.current : from === undefined;
    const kafka = createKafka({ brokers: engines.kafkaBrokers, clientId: 'soak-ledger' });
    const consumed = [
      {
        groupId: topicName(namePrefix, CONSUMER_GROUPS.sessionsOrderEvents),
        topic: topicName(namePrefix, TOPICS.orderEvents),
      },
      {
        groupId: topicName(namePrefix, CONSUMER_GROUPS.dispatcherSessionEvents),
        topic: topicName(namePrefix, TOPICS.sessionEvents),
      },
      {
        groupId: topicName(namePrefix, CONSUMER_GROUPS.dispatcherOrderPublicEvents),
        topic: topicName(namePrefix, TOPICS.orderPublicEvents),
      },
      // D52: orders' ledger, when the orders that runs last has it (a rollout may end on an older release).
      ...(ledgerRuns
        ? [
            {
              groupId: topicName(namePrefix, CONSUMER_GROUPS.ordersBalanceLines),
              topic: topicName(namePrefix, TOPICS.orderEvents),
            },
          ]
        : []),
    ];
    const consumerLag = async () => {
      const lag = new Map<string, number>();
      for (const { groupId, topic } of consumed)
        lag.set(groupId, Number((await consumerGroupLag(kafka, groupId, [topic])).get(topic) ?? 0n));
      return lag;
    };
    const drainStarted = Date.now();
    // Settled means settled three polls in a row: an event can still be on its way through Kafka when one poll
    // happens to see every count right.
    let settledPolls = 0;
    // What the last poll saw, for the log line of a drain that gives up: which of its conditions held it.
    let lastPoll = '';
    const drained = await eventually(
      async () => {
        const [ordersOutbox, sessionsOutbox, terminal, events, pending] = await Promise.all([
          db('orders').collection('orders').countDocuments({ outboxPending: true }),
          db('sessions').collection('sessions').countDocuments({ outboxPending: true }),
          db('sessions')
            .collection('sessions')
            .countDocuments({ status: { $in: ['completed', 'expired'] } }),
          db('webhooks').collection('events').countDocuments({}),
          db('webhooks').collection('deliveries').countDocuments({ status: 'pending' }),
        ]);
        const lagging = [...(await consumerLag()).values()].some((lag) => lag > 0);
        // From a release, the new orders run their migration (orders.0001) last: the drain waits for it too.
        const unmigrated = from ? await db('orders').collection('orders').countDocuments(UNMIGRATED_ORDER) : 0;
        // D52: every line counted (a consumer killed between its insert and its count leaves them to the sweep),
        // and, from a release, the orders paid before the ledger backfilled (orders.0002).
        const uncounted = ledgerRuns ? await uncountedLedger(db('orders'), from !== undefined) : 0;
        lastPoll =
          `orders outbox ${ordersOutbox}, sessions outbox ${sessionsOutbox}, events ${events} of ${terminal} ` +
          `terminal sessions, deliveries pending ${pending}, consumers lagging ${lagging}, unmigrated ${unmigrated}, ` +
          `ledger uncounted ${uncounted}`;
        settledPolls =
          ordersOutbox === 0 &&
          sessionsOutbox === 0 &&
          events >= terminal &&
          pending === 0 &&
          !lagging &&
          unmigrated === 0 &&
          uncounted === 0
            ? settledPolls + 1
            : 0;
        return settledPolls >= 3;
      },
      {
        deadlineMs: DRAIN_DEADLINE_MS,
        intervalMs: 1_000,
        description: `the drain (outboxes empty, events recorded, no delivery pending, consumers caught up${from ? ', orders migrated' : ''})`,
      },
    ).then(
      () => true,
      () => false,
    );
    log(
      `drain ${drained ? 'finished' : `gave up (last poll: ${lastPoll})`} after ` +
        `${((Date.now() - drainStarted) / 1000).toFixed(0)} s`,
    );

    // The ledger. Sessions and events come from the public API; payment ids only from the stores (no API shows them).
    const api = reader;
    // Each read retries for 30 s; once one has failed that way the stack is not answering, and the rest try once.
    let readDeadlineMs = 30_000;
    const getJson = async <T>(path: string, key: string): Promise<T> => {
      const reply = await sendWithRetries(() => api.send('GET', path, 'ledger', { key }), {
        deadlineMs: readDeadlineMs,
      });
      if (reply.outcome !== 200) {
        readDeadlineMs = 0;
        throw new Error(`ledger read ${path} → ${reply.outcome}: ${JSON.stringify(reply.body)}`);
      }
      return reply.body as T;
    };
    const keyOf = (merchant: number, mode: 'test' | 'live') =>
      mode === 'test' ? (merchants[merchant] as Merchant).testKey : (merchants[merchant] as Merchant).liveKey;
    const withSessions = loadResult.journeys.filter((j) => j.sessionId !== undefined);
    const sessions = new Map<string, CheckoutSession>();
    // A stack that has not recovered cannot answer every read: the ledger still prints, with what it could not read.
    const unreadable: string[] = [];
    await inParallel(withSessions, 8, async (j) => {
      try {
        const { session } = await getJson<{ session: CheckoutSession }>(
          `/v0/checkout/sessions/${j.sessionId}`,
          keyOf(j.merchant, j.mode),
        );
        sessions.set(session.id, session);
      } catch (err) {
        unreadable.push(err instanceof Error ? err.message : String(err));
      }
    });
    const events: EventWithDeliveries[] = [];
    const publicEvents: WebhookEvent[] = [];
    for (let m = 0; m < merchants.length; m++) {
      for (const mode of ['test', 'live'] as const) {
        const key = keyOf(m, mode);
        const listed: WebhookEvent[] = [];
        try {
          for (let page = 1; page <= 10_000; page++) {
            const body = await getJson<{ events: WebhookEvent[]; pagination: { hasMore: boolean } }>(
              `/v0/events?limit=100&page=${page}`,
              key,
            );
            listed.push(...body.events);
            if (!body.pagination.hasMore) break;
          }
        } catch (err) {
          unreadable.push(err instanceof Error ? err.message : String(err));
        }
        // A session's events with their deliveries (D30); orders' and refunds' (D49) have none to read.
        const ofSessions = listed.filter((e): e is SessionWebhookEvent => 'session' in e);
        publicEvents.push(...listed.filter((e) => !('session' in e)));
        const read = await inParallel(ofSessions, 8, (e) =>
          getJson<{ event: SessionWebhookEvent; deliveries: Delivery[] }>(`/v0/events/${e.id}`, key).catch(
            (err: unknown) => {
              unreadable.push(err instanceof Error ? err.message : String(err));
              return undefined;
            },
          ),
        );
        events.push(...read.filter((e): e is EventWithDeliveries => e !== undefined));
      }
    }
    const orderDocs = await db('orders')
      .collection<{
        _id: string;
        status: string;
        paymentStatus: string;
        revision?: number;
        externalId?: string;
        amounts: { paid: number; total: number; refunded?: number };
        payments: { paymentId: string; amount: number }[];
        refunds?: { id: string; amount: number; status: string }[];
        createdAt: Date;
        updatedAt: Date;
      }>('orders')
      .find({})
      .toArray();
    const orders: StoredOrder[] = orderDocs.map((o) => ({
      id: o._id,
      paid: o.amounts.paid,
      total: o.amounts.total,
      status: o.status,
      paymentStatus: o.paymentStatus,
      ...(o.amounts.refunded !== undefined && { refunded: o.amounts.refunded }),
      refunds: (o.refunds ?? []).map((r) => ({ id: r.id, amount: r.amount, status: r.status })),
      payments: o.payments.map((p) => ({ paymentId: p.paymentId, amount: p.amount })),
      ...(o.externalId !== undefined && { externalId: o.externalId }),
    }));
    const sessionDocs = await db('sessions')
      .collection<{
        _id: string;
        orderId: string;
        status: string;
        orderRevision?: number;
        orderJson?: string;
        createdAt: Date;
        updatedAt: Date;
      }>('sessions')
      .find({}, { projection: { orderId: 1, status: 1, orderRevision: 1, orderJson: 1, createdAt: 1, updatedAt: 1 } })
      .toArray();
    const sessionOrderIds = new Set(sessionDocs.map((d) => d.orderId));
    const orderStates = new Map(orderDocs.map((o) => [o._id, o]));
    const storedStateOf = (sessionId: string): string | undefined => {
      const doc = sessionDocs.find((d) => d._id === sessionId);
      if (!doc) return undefined;
      const copy = doc.orderJson === undefined ? 'none' : (JSON.parse(doc.orderJson) as { status?: string }).status;
      const order = orderStates.get(doc.orderId);
      return `stored ${doc.status}, its order copy ${copy} at revision ${doc.orderRevision ?? 'none'}; the order is ${order?.status ?? 'missing'} at revision ${order?.revision ?? 'none'}`;
    };
    const received = Object.fromEntries(
      RECEIVER_KINDS.map((kind) => [kind, (receivers[kind] as WebhookReceiver).deliveries()]),
    ) as Record<ReceiverKind, ReturnType<WebhookReceiver['deliveries']>>;

    // D52: a report over the run's window beside the API's balance, per merchant and mode, where the gateway and
    // orders both serve reports (a release's gateway has no /v0/reports).
    const reportsRun = ledgerRuns && (cluster ? cluster.buildOf('gateway') === cluster.current : true);
    const booksReport = async () => {
      const day = 86_400_000;
      const window = {
        createdAfter: new Date(Date.now() - day).toISOString(),
        createdBefore: new Date(Date.now() + day).toISOString(),
      };
      const readers = merchants.flatMap((m, i) =>
        (['test', 'live'] as const).map((mode) => ({ merchant: `${m.name} ${mode}`, key: keyOf(i, mode) })),
      );
      try {
        return await reportsBesideBalance(api, readers, window);
      } catch (err) {
        unreadable.push(err instanceof Error ? err.message : String(err));
        return undefined;
      }
    };
    const report = reconcile({
      records: load.records,
      windows: windows satisfies OutageWindow[],
      journeys: loadResult.journeys,
      sessions,
      events,
      publicEvents,
      orders,
      sessionOrderIds,
      received,
      skippedJourneys: loadResult.skipped,
      unreadable,
      generatorErrors: loadResult.crashed,
      consumerLag: await consumerLag(),
      storedStateOf,
      ...(ledgerRuns && { books: await readBooks(db('orders'), reportsRun ? booksReport : undefined) }),
    });
    if (cluster && !options.rollout) {
      // In a cluster a SIGKILL is not an outage. What may fail is at most what the dead replica held.
      const failedRow = report.rows.find((r) => r.label === '5xx or no answer outside outage windows');
      const failed = typeof failedRow?.value === 'number' ? failedRow.value : 0;
      const held = clusterKills.reduce((sum, k) => sum + k.held, 0);
      if (failedRow && failed !== 0) {
        failedRow.check = false;
        report.violations -= 1;
      }
      const rows = [
        {
          label: 'SIGKILLs in the cluster (requests each killed replica held)',
          value: clusterKills.map((k) => `${k.what} ${k.held}`).join('; ') || 'none',
          check: false,
        },
        { label: 'requests failed beyond what killed replicas held', value: Math.max(0, failed - held), check: true },
      ];
      report.rows.push(...rows);
      report.violations += rows.filter((r) => r.check && r.value !== 0).length;
    }
    if (options.rollout) {
      const rows = rolloutRows({
        steps: rolloutSteps,
        samples: groupSamples,
        groups: groupIds,
        firstAttempts: firstAttempts(received),
      });
      report.rows.push(...rows);
      report.violations += rows.filter((r) => r.check && r.value !== 0).length;
    }
    // Late events: what waited for the outbox sweep, against the crashes and outages that could have left it behind.
    const swept = sweptEventRows(
      await sweptEvents(
        kafka,
        consumed.map((c) => c.topic),
        namePrefix,
      ),
      [
        ...windows,
        ...clusterKills.map((k) => ({ what: k.what, start: k.at, end: k.at })),
        ...rolloutSteps.filter((step) => step.replacement === undefined),
      ],
      from ? { checkedFrom: lastExitOf(from.version, rolloutSteps) } : {},
    );
    report.rows.push(...swept.rows);
    report.examples.push(...swept.examples);
    report.violations += swept.rows.filter((r) => r.check && r.value !== 0).length;
    if (from && cluster) {
      const rows = await mixedVersionRows({
        cluster,
        from,
        replicas,
        startedAt,
        steps: rolloutSteps,
        requestLog: join(logDir, 'haproxy-requests.log'),
        db,
        orders: orderDocs,
        sessions: sessionDocs,
        ...(traces && { traces }),
      });
      report.rows.push(...rows);
      report.violations += rows.filter((r) => r.check && r.value !== 0).length;
    }
    // Where the events of an order a violation names went (order-trail.ts): produced or not, consumed or not.
    const traced = report.examples.filter((e) => TRAILED_CHECKS.some((label) => e.startsWith(label)));
    const trails = await orderTrails({ kafka, namePrefix, db, orderIds: orderIdsIn(traced).slice(0, 5) }).catch(
      (err: unknown) => [`order trails unreadable: ${String(err)}`],
    );
    report.examples.push(...trails);
    return { report, table: formatLedger(report), serviceLogExcerpts: await serviceLogExcerpts(logDir) };
  } finally {
    await watcher?.stop().catch(() => {});
    await traces?.close().catch(() => {});
    await mongo?.close().catch(() => {});
    await load?.close().catch(() => {});
    await reader?.close().catch(() => {});
    await stack?.stop().catch((err: unknown) => log(`stopping the stack: ${String(err)}`));
    for (const receiver of Object.values(receivers)) await receiver.close();
    await engines?.stop().catch((err: unknown) => log(`stopping the engines: ${String(err)}`));
  }
}

/**
 * Each event's first attempt as its receiver saw it: the earliest request carrying its event id, against the
 * event's createdAt (in the signed body). Its latency is what the rollout ledger compares between steady state and
 * rollout.
 */
function firstAttempts(
  received: Record<ReceiverKind, ReturnType<WebhookReceiver['deliveries']>>,
): { createdAt: number; latencyMs: number }[] {
  const first = new Map<string, { createdAt: number; receivedAt: number }>();
  for (const requests of Object.values(received)) {
    for (const request of requests) {
      const header = request.headers['x-service-event-id'];
      const eventId = Array.isArray(header) ? header[0] : header;
      if (!eventId) continue;
      let createdAt: number;
      try {
        createdAt = Date.parse((JSON.parse(request.body) as { createdAt?: string }).createdAt ?? '');
      } catch {
        continue;
      }
      if (!Number.isFinite(createdAt)) continue;
      const at = request.receivedAt.getTime();
      const seen = first.get(eventId);
      if (!seen || at < seen.receivedAt) first.set(eventId, { createdAt, receivedAt: at });
    }
  }
  return [...first.values()].map((f) => ({ createdAt: f.createdAt, latencyMs: f.receivedAt - f.createdAt }));
}

/** GET /v0/events and the newest event, as a merchant's dashboard or integration does, every 2 s while `going`. */
async function readEventsMeanwhile(client: RecordingClient, merchants: readonly Merchant[], going: () => boolean) {
  for (let n = 0; going(); n++) {
    const merchant = merchants[n % merchants.length] as Merchant;
    const listed = await client.send('GET', '/v0/events?limit=3', 'GET /v0/events', { key: merchant.testKey });
    const newest = (listed.body as { events?: { id: string }[] } | undefined)?.events?.[0];
    if (newest)
      await client.send('GET', `/v0/events/${newest.id}`, 'GET /v0/events/:eventId', { key: merchant.testKey });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
}

/**
 * D52: what the ledger still owes: lines queued to be counted, batches pending, and (from a release) orders that
 * received money before the ledger and that migration orders.0002 has not backfilled yet.
 */
async function uncountedLedger(orders: Db, fromRelease: boolean): Promise<number> {
  const [lines, batches, unbackfilled] = await Promise.all([
    orders.collection('balance_queue').countDocuments({}),
    orders.collection('balances').countDocuments({ 'pending.batch': { $exists: true } }),
    fromRelease
      ? orders.collection('orders').countDocuments({ 'amounts.paid': { $gt: 0 }, balanceLines: { $exists: false } })
      : 0,
  ]);
  return lines + batches + unbackfilled;
}

/** D52: the lines and balances as orders stores them, and the reports beside the API when they run, for the rows. */
async function readBooks(orders: Db, reports?: () => Promise<BooksInput['reports'] | undefined>): Promise<BooksInput> {
  const reported = await reports?.();
  const lines = await orders
    .collection<Omit<StoredBalanceLine, 'id'> & { _id: string }>('balance_transactions')
    .find({})
    .toArray();
  const balances = await orders.collection<StoredBalance>('balances').find({}).toArray();
  return {
    lines: lines.map(({ _id, organizationId, mode, type, orderId, sourceId, amount, currency }) => ({
      id: _id,
      organizationId,
      mode,
      type,
      orderId,
      sourceId,
      amount,
      currency,
    })),
    balances: balances.map(({ organizationId, mode, currency, payments, refunds, count }) => ({
      organizationId,
      mode,
      currency,
      payments,
      refunds,
      count,
    })),
    ...(reported && { reports: reported }),
  };
}

/** Orders the orders.0001 migration has not reached (services/orders/src/store/migrations.ts). */
const UNMIGRATED_ORDER = { revision: { $exists: false } };

/**
 * The mixed-version rows: per contract, how much talk crossed versions (internal HTTP from the load balancer's log;
 * Kafka topics and stored documents from when each side acted), and the migration that ran under load.
 */
async function mixedVersionRows(input: {
  cluster: ClusterStack;
  from: ServiceBuild;
  replicas: number;
  startedAt: number;
  steps: readonly RolloutStep[];
  requestLog: string;
  db: (name: string) => ReturnType<MongoClient['db']>;
  orders: ReadonlyArray<{ createdAt: Date; updatedAt: Date; revision?: number }>;
  sessions: ReadonlyArray<{ createdAt: Date; updatedAt: Date }>;
  traces?: TraceSink;
}): Promise<LedgerReport['rows']> {
  const { cluster, from, db } = input;
  const timeline = new VersionTimeline(
    cluster.current.version,
    SERVICES.map((service) => ({
      service,
      version: from.version,
      replicas: input.replicas,
      at: input.startedAt - 3_600_000,
    })),
    input.steps.flatMap((s) => (s.replacement ? VersionTimeline.stepChanges(s.replacement) : [])),
  );
  const rows: LedgerReport['rows'] = [
    {
      label: `contracts between an old (${from.version}) and a new (${cluster.current.version}) party`,
      value: `${input.steps.filter((s) => s.replacement).length} replicas replaced`,
      check: false,
    },
  ];
  const logged = existsSync(input.requestLog) ? parseRequestLog(await readFile(input.requestLog, 'utf8')) : [];
  rows.push(...httpContractRows(timeline, logged));

  const events = await db('webhooks')
    .collection<{ createdAt: Date; recordedAt: Date }>('events')
    .find({}, { projection: { createdAt: 1, recordedAt: 1 } })
    .toArray();
  rows.push(
    handoffRow(
      timeline,
      'checkout.session.events: sessions → webhook-dispatcher (event written → recorded)',
      'sessions',
      'webhook-dispatcher',
      events.map((e) => ({ producedAt: e.createdAt.getTime(), consumedAt: e.recordedAt.getTime() })),
    ),
  );
  // Sessions' consumer leaves no trace of its own (orders' answers usually got there first): each order's last
  // event, by when orders wrote it and which side sessions ran then.
  rows.push(
    handoffRow(
      timeline,
      "orders.events: orders → sessions (each order's last event, when written)",
      'orders',
      'sessions',
      input.orders
        .filter((o) => o.updatedAt.getTime() > o.createdAt.getTime())
        .map((o) => ({ producedAt: o.updatedAt.getTime(), consumedAt: o.updatedAt.getTime() })),
    ),
  );
  const deliveries = await db('webhooks')
    .collection<{ createdAt: Date; updatedAt: Date; attempts: { at: Date }[] }>('deliveries')
    .find({}, { projection: { createdAt: 1, updatedAt: 1, attempts: 1 } })
    .toArray();
  const retries: Handoff[] = deliveries.flatMap((d) =>
    d.attempts.slice(1).map((a, i) => ({
      producedAt: (d.attempts[i] as { at: Date }).at.getTime(),
      consumedAt: a.at.getTime(),
    })),
  );
  rows.push(
    handoffRow(
      timeline,
      'webhooks.retry.1–4: webhook-dispatcher → itself (attempt that failed → the retry)',
      'webhook-dispatcher',
      'webhook-dispatcher',
      retries,
    ),
  );
  const rewritten = (docs: ReadonlyArray<{ createdAt: Date; updatedAt: Date }>): Handoff[] =>
    docs
      .filter((d) => d.updatedAt.getTime() > d.createdAt.getTime())
      .map((d) => ({ producedAt: d.createdAt.getTime(), consumedAt: d.updatedAt.getTime() }));
  rows.push(
    handoffRow(timeline, 'orders documents (created → last rewritten)', 'orders', 'orders', rewritten(input.orders)),
    handoffRow(
      timeline,
      'sessions documents (created → last rewritten)',
      'sessions',
      'sessions',
      rewritten(input.sessions),
    ),
    handoffRow(
      timeline,
      'webhook deliveries (stored → last attempt recorded)',
      'webhook-dispatcher',
      'webhook-dispatcher',
      rewritten(deliveries),
    ),
  );

  if (input.traces) {
    // Every service ran the new code for a while, and the new code traces: each sent spans (a replica exports
    // within 2 s of a span's end, and before it stops).
    const batches = input.traces.batches();
    rows.push(
      {
        label: '  trace batches the new code exported (the release is given no exporter)',
        value: SERVICES.map((s) => `${s} ${batches[s]}`).join(', '),
        check: false,
      },
      {
        label: 'services whose new code exported no spans',
        value: SERVICES.filter((s) => batches[s] === 0).length,
        check: true,
      },
    );
  }
  const migration = await db('orders')
    .collection<{ _id: string; state: string; migrated: number; passes: number; startedAt: Date; doneAt?: Date }>(
      'migrations',
    )
    .findOne({ _id: 'orders.0001-revision-on-every-order' });
  rows.push({
    label: 'migration orders.0001-revision-on-every-order, under load',
    value: migration
      ? `${migration.state}: ${migration.migrated} orders migrated in ${migration.passes} pass(es), started ${((migration.startedAt.getTime() - input.startedAt) / 1000).toFixed(0)} s into the run${migration.doneAt ? `, last done at ${((migration.doneAt.getTime() - input.startedAt) / 1000).toFixed(0)} s` : ''}`
      : 'never ran',
    check: false,
  });
  const endsOnCurrent = cluster.buildOf('orders') === cluster.current;
  rows.push({
    label: `orders without a revision after the drain (orders.0001 not done${endsOnCurrent ? '' : '; not checked: orders ends on the release'})`,
    value: endsOnCurrent ? await db('orders').collection('orders').countDocuments(UNMIGRATED_ORDER) : 0,
    check: true,
  });
  return rows;
}
