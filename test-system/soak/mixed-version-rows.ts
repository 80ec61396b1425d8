import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Db } from '@checkout/mongo';
import type { ClusterStack } from '../../scripts/lib/cluster-stack';
import { parseRequestLog } from '../../scripts/lib/haproxy';
import type { ServiceBuild } from '../../scripts/lib/releases';
import { SERVICES } from '../../scripts/lib/process-stack';
import type { TraceSink } from '../../scripts/lib/trace-sink';
import { UNMIGRATED_ORDER } from './drain';
import type { LedgerReport } from './ledger-types';
import type { EventDoc } from './ledger-reads';
import type { RolloutStep } from './rollout';
import { VersionTimeline, handoffRow, httpContractRows, type Handoff } from './versions';

type Rows = LedgerReport['rows'];
type Written = { createdAt: Date; updatedAt: Date };
type StoredDelivery = Written & { attempts: { at: Date }[] };

/**
 * The mixed-version rows: per contract, how much talk crossed versions (internal HTTP from the load balancer's log;
 * Kafka topics and stored documents from when each side acted), and the migration that ran under load.
 */
export async function mixedVersionRows(input: {
  cluster: ClusterStack;
  from: ServiceBuild;
  replicas: number;
  startedAt: number;
  steps: readonly RolloutStep[];
  requestLog: string;
  db: (name: string) => Db;
  orders: ReadonlyArray<Written & { revision?: number }>;
  sessions: readonly Written[];
  /** The dispatcher's stored events (readStores). */
  events: readonly EventDoc[];
  traces?: TraceSink;
}): Promise<Rows> {
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
  const logged = existsSync(input.requestLog) ? parseRequestLog(await readFile(input.requestLog, 'utf8')) : [];
  const deliveries = await db('webhooks')
    .collection<StoredDelivery>('deliveries')
    .find({}, { projection: { createdAt: 1, updatedAt: 1, attempts: 1 } })
    .toArray();
  return [
    {
      label: `contracts between an old (${from.version}) and a new (${cluster.current.version}) party`,
      value: `${input.steps.filter((s) => s.replacement).length} replicas replaced`,
      check: false,
    },
    ...httpContractRows(timeline, logged),
    ...topicRows(timeline, input.events, input.orders, deliveries),
    ...documentRows(timeline, input.orders, input.sessions, deliveries),
    ...(input.traces ? traceRows(input.traces) : []),
    ...(await migrationRows(cluster, db, input.startedAt)),
  ];
}

/** Each Kafka topic's handoffs: when its producer wrote and when its consumer acted, and which side each ran. */
function topicRows(
  timeline: VersionTimeline,
  events: readonly EventDoc[],
  orders: readonly Written[],
  deliveries: readonly StoredDelivery[],
): Rows {
  const retries: Handoff[] = deliveries.flatMap((d) =>
    d.attempts.slice(1).map((a, i) => ({
      producedAt: (d.attempts[i] as { at: Date }).at.getTime(),
      consumedAt: a.at.getTime(),
    })),
  );
  return [
    handoffRow(
      timeline,
      'checkout.session.events: sessions → webhook-dispatcher (event written → recorded)',
      'sessions',
      'webhook-dispatcher',
      events.flatMap((e) =>
        e.recordedAt ? [{ producedAt: e.createdAt.getTime(), consumedAt: e.recordedAt.getTime() }] : [],
      ),
    ),
    // Sessions' consumer leaves no trace of its own (orders' answers usually got there first): each order's last
    // event, by when orders wrote it and which side sessions ran then.
    handoffRow(
      timeline,
      "orders.events: orders → sessions (each order's last event, when written)",
      'orders',
      'sessions',
      orders
        .filter((o) => o.updatedAt.getTime() > o.createdAt.getTime())
        .map((o) => ({ producedAt: o.updatedAt.getTime(), consumedAt: o.updatedAt.getTime() })),
    ),
    handoffRow(
      timeline,
      'webhooks.retry.1–4: webhook-dispatcher → itself (attempt that failed → the retry)',
      'webhook-dispatcher',
      'webhook-dispatcher',
      retries,
    ),
  ];
}

/** Stored documents written by one version and rewritten by the other. */
function documentRows(
  timeline: VersionTimeline,
  orders: readonly Written[],
  sessions: readonly Written[],
  deliveries: readonly Written[],
): Rows {
  const rewritten = (docs: readonly Written[]): Handoff[] =>
    docs
      .filter((d) => d.updatedAt.getTime() > d.createdAt.getTime())
      .map((d) => ({ producedAt: d.createdAt.getTime(), consumedAt: d.updatedAt.getTime() }));
  return [
    handoffRow(timeline, 'orders documents (created → last rewritten)', 'orders', 'orders', rewritten(orders)),
    handoffRow(timeline, 'sessions documents (created → last rewritten)', 'sessions', 'sessions', rewritten(sessions)),
    handoffRow(
      timeline,
      'webhook deliveries (stored → last attempt recorded)',
      'webhook-dispatcher',
      'webhook-dispatcher',
      rewritten(deliveries),
    ),
  ];
}

/**
 * Every service ran the new code for a while, and the new code traces: each sent spans (a replica exports within
 * 2 s of a span's end, and before it stops).
 */
function traceRows(traces: TraceSink): Rows {
  const batches = traces.batches();
  return [
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
  ];
}

/** The orders migration that ran under load, and whether it left any order behind. */
async function migrationRows(cluster: ClusterStack, db: (name: string) => Db, startedAt: number): Promise<Rows> {
  const migration = await db('orders')
    .collection<{ _id: string; state: string; migrated: number; passes: number; startedAt: Date; doneAt?: Date }>(
      'migrations',
    )
    .findOne({ _id: 'orders.0001-revision-on-every-order' });
  const endsOnCurrent = cluster.buildOf('orders') === cluster.current;
  return [
    {
      label: 'migration orders.0001-revision-on-every-order, under load',
      value: migration
        ? `${migration.state}: ${migration.migrated} orders migrated in ${migration.passes} pass(es), started ${((migration.startedAt.getTime() - startedAt) / 1000).toFixed(0)} s into the run${migration.doneAt ? `, last done at ${((migration.doneAt.getTime() - startedAt) / 1000).toFixed(0)} s` : ''}`
        : 'never ran',
      check: false,
    },
    {
      label: `orders without a revision after the drain (orders.0001 not done${endsOnCurrent ? '' : '; not checked: orders ends on the release'})`,
      value: endsOnCurrent ? await db('orders').collection('orders').countDocuments(UNMIGRATED_ORDER) : 0,
      check: true,
    },
  ];
}
