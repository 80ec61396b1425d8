import { join } from 'node:path';
import { readdir, readFile } from 'node:fs/promises';
import { MongoClient, type Db } from '@checkout/mongo';
import { CONSUMER_GROUPS, topicName } from '@checkout/contracts';
import { createKafka, type KafkaClient } from '@checkout/kafka';
import type { ReceivedRequest, WebhookReceiver } from '@checkout/testing';
import { HAPROXY_REQUEST_LOG, type ClusterStack } from '../../scripts/lib/cluster-stack';
import { SERVICES } from '../../scripts/lib/process-stack';
import { planChaos, runChaos, type ClusterKill, type OutageWindow } from './chaos';
import { sweptEventRows, sweptEvents } from './swept-events';
import type { RecordingClient } from './client';
import { seeded, startSoak, type Held, type SoakOptions, type Started } from './start';
import { consumedTopics, consumerLag, drain, type ConsumedTopic } from './drain';
import { formatLedger, reconcile } from './ledger';
import { ORDER_EVENTS_LOST, REFUND_EVENTS_LOST, REFUNDS_DISAGREE } from './ledger-refunds';
import type { LedgerReport } from './ledger-types';
import { LedgerReader, readBooks, readStores } from './ledger-reads';
import { endpointRows } from './endpoint-deliveries';
import { mixedVersionRows } from './mixed-version-rows';
import { orderIdsIn, orderTrails } from './order-trail';
import { firstAttempts } from './first-attempts';
import { RECEIVER_KINDS, type Merchant, type ReceiverKind } from './journey-types';
import { runLoad, type LoadResult } from './load';
import {
  lastExitOf,
  rolloutPhases,
  rolloutRows,
  runRollout,
  watchGroups,
  type GroupSample,
  type RolloutStep,
} from './rollout';

export type { SoakOptions } from './start';

export interface SoakResult {
  report: LedgerReport;
  table: string;
  /** Each service's warnings and errors (the last few, outage noise left out), for a run that found violations. */
  serviceLogExcerpts: string;
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
 * warnings and errors, which CI does not keep), and returns the failed checks with the message to assert them
 * with (the violated rows first, then the table). A time (the first-attempt p99
 * ratio) is printed with the ledger but never a failed check here: a test asserts what must hold, never a time.
 */
export async function soakTier(
  title: string,
  tag: string,
  options: Omit<SoakOptions, 'log'>,
): Promise<{ report: LedgerReport; table: string; violated: string[]; message: string }> {
  const { report, table, serviceLogExcerpts } = await runSoak({
    ...options,
    log: (line) => process.stderr.write(`[${tag}] ${line}\n`),
  });
  console.log(`${title}:\n${table}`);
  // Each as `label: value`, so that a failed assertion's first line (all a run's closing summary keeps) names them.
  const violated = report.rows
    .filter((r) => r.check && !r.timing && r.value !== 0)
    .map((r) => `${r.label}: ${String(r.value)}`);
  if (violated.length > 0) console.log(`service logs:\n${serviceLogExcerpts}`);
  return { report, table, violated, message: `violated: ${violated.join('; ')}\n${table}` };
}

/** The checks whose examples name an order whose events the ledger traces (order-trail.ts). */
const TRAILED_CHECKS = [ORDER_EVENTS_LOST, REFUND_EVENTS_LOST, REFUNDS_DISAGREE];

/** What the load and the chaos (or the rollout) left to account for. */
interface Driven {
  startedAt: number;
  loadResult: LoadResult;
  windows: OutageWindow[];
  rolloutSteps: RolloutStep[];
  clusterKills: ClusterKill[];
  groupSamples: GroupSample[];
}

/**
 * `npm run soak`: engines and a process stack of its own, four loopback receivers, load and chaos at once, then
 * drain and reconcile. Everything started here is stopped here, whatever happens.
 */
export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const held: Held = { receivers: {} };
  try {
    const started = await startSoak(options, held);
    const driven = await drive(started, held);
    return await accountFor(started, driven, held);
  } finally {
    await held.watcher?.stop().catch(() => {});
    await held.traces?.close().catch(() => {});
    await held.mongo?.close().catch(() => {});
    await held.load?.close().catch(() => {});
    await held.reader?.close().catch(() => {});
    await held.stack?.stop().catch((err: unknown) => options.log(`stopping the stack: ${String(err)}`));
    for (const receiver of Object.values(held.receivers)) await receiver.close();
    await held.endpoints?.close();
    await held.engines?.stop().catch((err: unknown) => options.log(`stopping the engines: ${String(err)}`));
  }
}

/** The consumer groups whose time without an owner a rollout's steps report. */
function watchedGroups(namePrefix: string): { id: string; label: string }[] {
  return [
    { id: topicName(namePrefix, CONSUMER_GROUPS.sessionsOrderEvents), label: 'sessions.order-events' },
    { id: topicName(namePrefix, CONSUMER_GROUPS.dispatcherSessionEvents), label: 'dispatcher.session-events' },
    {
      id: topicName(namePrefix, CONSUMER_GROUPS.dispatcherOrderPublicEvents),
      label: 'dispatcher.order-public-events',
    },
    { id: topicName(namePrefix, CONSUMER_GROUPS.dispatcherRetries), label: 'dispatcher.retries' },
  ];
}

/** The load, and beside it the chaos plan or the rollout, until both are done. */
async function drive(started: Started, held: Held): Promise<Driven> {
  const { options, engines, cluster, from } = started;
  const { log } = options;
  const plan = options.rollout ? [] : planChaos(started.durationMs, options.killEveryMs);
  log(describePlan(started, plan));
  const startedAt = Date.now();
  let chaosRunning = true;
  // In a rollout, each group's state is sampled throughout: the time its partitions had no owner, per step.
  held.watcher = options.rollout
    ? watchGroups(
        createKafka({ brokers: engines.kafkaBrokers, clientId: 'soak-groups' }),
        watchedGroups(started.namePrefix).map((g) => g.id),
      )
    : undefined;
  let rolloutSteps: RolloutStep[] = [];
  const clusterKills: ClusterKill[] = [];
  const chaos = (
    cluster && options.rollout
      ? runRollout({
          stack: cluster,
          engines,
          steadyMs: Math.round(started.durationMs * 0.3),
          startedAt,
          ...(from && { mixed: { from, phases: rolloutPhases(started.order) } }),
          log,
        }).then((steps) => {
          rolloutSteps = steps;
          return [] as OutageWindow[];
        })
      : runChaos({
          stack: started.stack,
          engines,
          plan,
          startedAt,
          random: seeded(options.seed ^ 0x5eed),
          log,
          ...(cluster && { cluster: { onKill: (k: ClusterKill) => clusterKills.push(k) } }),
        })
  ).finally(() => {
    chaosRunning = false;
  });
  const [loadResult, windows] = await Promise.all([
    runLoad({
      client: started.load,
      merchants: started.merchants,
      callbackUrl: (kind) => started.receivers[kind].url(`/hooks/${kind}`),
      processorSecret: started.stack.env.processorWebhookSecret,
      processorRefundSecret: started.stack.env.processorRefundWebhookSecret,
      runId: started.runId,
      random: started.random,
      ratePerSecond: options.rate,
      durationMs: started.durationMs,
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
    from ? readEventsMeanwhile(started.load, started.merchants, () => chaosRunning) : Promise.resolve(),
  ]);
  log(
    `load done: ${loadResult.journeys.length} journeys, ${started.load.records.length} requests in ${((Date.now() - startedAt) / 1000).toFixed(0)} s`,
  );
  const groupSamples: GroupSample[] = (await held.watcher?.stop()) ?? [];
  return { startedAt, loadResult, windows, rolloutSteps, clusterKills, groupSamples };
}

/** The run's first log line after the start: the load, and the chaos plan or the rollout's phases. */
function describePlan(started: Started, plan: ReturnType<typeof planChaos>): string {
  const { options, from, cluster } = started;
  const what = !options.rollout
    ? `chaos: ${plan.map((p) => `${p.action.kind} at ${(p.atMs / 1000).toFixed(0)} s`).join(', ')}`
    : from
      ? `from release ${from.version} to ${(cluster as ClusterStack).current.version}: ${rolloutPhases(started.order)
          .map((p) => p.name)
          .join(', then ')}, ${started.replicas} replicas of each service one at a time`
      : `rolling deploy of ${started.replicas} replicas of each service, then of the 3 brokers`;
  return `load: ${options.rate} journeys/s for ${options.minutes} min (seed ${options.seed}); ${what}`;
}

/** The drain, then the ledger: what the load did against what the stores, the API and the receivers hold. */
async function accountFor(started: Started, driven: Driven, held: Held): Promise<SoakResult> {
  const { options, engines, cluster, from, namePrefix } = started;
  const mongo = new MongoClient(engines.mongoUrl, { serverSelectionTimeoutMS: 10_000 });
  held.mongo = mongo;
  const db = (name: string) => mongo.db(`${namePrefix}_${name}`);
  const ledgerRuns = cluster ? cluster.buildOf('orders') === cluster.current : from === undefined;
  const kafka = createKafka({ brokers: engines.kafkaBrokers, clientId: 'soak-ledger' });
  const consumed = consumedTopics(namePrefix, ledgerRuns);
  const lag = () => consumerLag(kafka, consumed);
  await drain({ db, lag, fromRelease: from !== undefined, ledgerRuns, log: options.log });

  const reader = new LedgerReader(started.reader, started.merchants);
  const sessions = await reader.sessions(driven.loadResult.journeys);
  const { events, publicEvents, owedToEndpoints } = await reader.events();
  const stored = await readStores(db);
  const received = Object.fromEntries(
    RECEIVER_KINDS.map((kind) => [kind, started.receivers[kind].deliveries()]),
  ) as Record<ReceiverKind, ReturnType<WebhookReceiver['deliveries']>>;
  // D52: a report beside the API's balance where the gateway and orders both serve reports (a release's gateway
  // has no /v0/reports).
  const reportsRun = ledgerRuns && (cluster ? cluster.buildOf('gateway') === cluster.current : true);
  const report = reconcile({
    records: started.load.records,
    windows: driven.windows,
    journeys: driven.loadResult.journeys,
    sessions,
    events,
    publicEvents,
    orders: stored.orders,
    sessionOrderIds: stored.sessionOrderIds,
    received,
    skippedJourneys: driven.loadResult.skipped,
    unreadable: reader.unreadable,
    generatorErrors: driven.loadResult.crashed,
    consumerLag: await lag(),
    storedStateOf: stored.storedStateOf,
    ...(ledgerRuns && {
      books: await readBooks(db('orders'), reportsRun ? () => reader.booksReport() : undefined),
    }),
  });
  const endpointDeliveries = started.endpoints.deliveries();
  const toEndpoints = endpointRows(owedToEndpoints, endpointDeliveries);
  addRows(report, toEndpoints.rows);
  report.examples.push(...toEndpoints.examples);
  await addRunRows(report, {
    started,
    driven,
    received: [...Object.values(received).flat(), ...endpointDeliveries],
    kafka,
    consumed,
    db,
    stored,
  });
  // Where the events of an order a violation names went (order-trail.ts): produced or not, consumed or not.
  const traced = report.examples.filter((e) => TRAILED_CHECKS.some((label) => e.startsWith(label)));
  const trails = await orderTrails({ kafka, namePrefix, db, orderIds: orderIdsIn(traced).slice(0, 5) }).catch(
    (err: unknown) => [`order trails unreadable: ${String(err)}`],
  );
  report.examples.push(...trails);
  return { report, table: formatLedger(report), serviceLogExcerpts: await serviceLogExcerpts(started.logDir) };
}

/** The rows of what this run did beside the load: cluster kills, the rollout's steps, late events, versions. */
async function addRunRows(
  report: LedgerReport,
  input: {
    started: Started;
    driven: Driven;
    /** Every webhook request the run's receivers and endpoints saw. */
    received: readonly ReceivedRequest[];
    kafka: KafkaClient;
    consumed: readonly ConsumedTopic[];
    db: (name: string) => Db;
    stored: Awaited<ReturnType<typeof readStores>>;
  },
): Promise<void> {
  const { started, driven, received, kafka, consumed, db, stored } = input;
  const { options, cluster, from, namePrefix } = started;
  if (cluster && !options.rollout) clusterKillRows(report, driven.clusterKills);
  if (options.rollout)
    addRows(
      report,
      rolloutRows({
        steps: driven.rolloutSteps,
        samples: driven.groupSamples,
        groups: watchedGroups(namePrefix),
        firstAttempts: firstAttempts(received, stored.recordedAt),
        loadStartedAt: driven.startedAt,
      }),
    );
  // Late events: what waited for the outbox sweep, against the crashes and outages that could have left it behind.
  const swept = sweptEventRows(
    await sweptEvents(
      kafka,
      consumed.map((c) => c.topic),
      namePrefix,
    ),
    [
      ...driven.windows,
      ...driven.clusterKills.map((k) => ({ what: k.what, start: k.at, end: k.at })),
      ...driven.rolloutSteps.filter((step) => step.replacement === undefined),
    ],
    from ? { checkedFrom: lastExitOf(from.version, driven.rolloutSteps) } : {},
  );
  addRows(report, swept.rows);
  report.examples.push(...swept.examples);
  if (from && cluster)
    addRows(
      report,
      await mixedVersionRows({
        cluster,
        from,
        replicas: started.replicas,
        startedAt: driven.startedAt,
        steps: driven.rolloutSteps,
        requestLog: join(started.logDir, HAPROXY_REQUEST_LOG),
        db,
        orders: stored.orderDocs,
        sessions: stored.sessionDocs,
        events: stored.eventDocs,
        ...(started.traces && { traces: started.traces }),
      }),
    );
}

/** Appends `rows` to the report, each failed check a violation. */
function addRows(report: LedgerReport, rows: LedgerReport['rows']): void {
  report.rows.push(...rows);
  report.violations += rows.filter((r) => r.check && r.value !== 0).length;
}

/** In a cluster a SIGKILL is not an outage: what may fail is at most what the dead replica held. */
function clusterKillRows(report: LedgerReport, clusterKills: readonly ClusterKill[]): void {
  const failedRow = report.rows.find((r) => r.label === '5xx or no answer outside outage windows');
  const failed = typeof failedRow?.value === 'number' ? failedRow.value : 0;
  const held = clusterKills.reduce((sum, k) => sum + k.held, 0);
  if (failedRow && failed !== 0) {
    failedRow.check = false;
    report.violations -= 1;
  }
  addRows(report, [
    {
      label: 'SIGKILLs in the cluster (requests each killed replica held)',
      value: clusterKills.map((k) => `${k.what} ${k.held}`).join('; ') || 'none',
      check: false,
    },
    { label: 'requests failed beyond what killed replicas held', value: Math.max(0, failed - held), check: true },
  ]);
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
