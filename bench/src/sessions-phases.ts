// The sessions bench's stack and its measured phases (sessions.ts runs them in turn and prints their figures).
import { createKafka } from '@checkout/kafka';
import { readTopic } from '@checkout/kafka/testing';
import { Pool } from 'undici';
import type { Engines } from '@checkout/engines';
import { TOPICS, topicName } from '@checkout/contracts';
import { AdminClient, eventually, inParallel } from '@checkout/testing';
import { startBenchStack, UNLIMITED_GATEWAY, type BenchStack } from './stack';
import { cpuDuring, sampleCpu, type CpuWindow } from './cpu';
import { percentile, runLoad, type LoadResult } from './load';
import { memoryBreakdown, startBaseline, type MemoryBreakdown } from './orders';

export const SESSION = JSON.stringify({
  items: [
    { name: 'Espresso', quantity: 2, unitPrice: 350 },
    { name: 'Croissant', quantity: 1, unitPrice: 425 },
  ],
  taxes: [{ type: 'additive', amount: 90 }],
  successUrl: 'https://merchant.example/thanks?session={SESSION_ID}',
});
/** Payments run at a moderate, fixed concurrency: the figure of interest is latency, not saturation. */
export const PAY_CONCURRENCY = 8;

export interface SessionsBenchOptions {
  concurrency: number;
  durationMs: number;
  payments: number;
  replicas: number;
}

export const MEASURED_SERVICES = ['gateway', 'orders', 'sessions'] as const;
type MeasuredService = (typeof MEASURED_SERVICES)[number];

/** Each service's highest RSS so far (with replicas, the highest of them), and its memory when it peaked. */
export class PeakMemory {
  readonly rss: Record<MeasuredService, number> = { gateway: 0, orders: 0, sessions: 0 };
  readonly atPeak: Partial<Record<MeasuredService, MemoryBreakdown>> = {};

  constructor(private readonly stack: BenchStack) {}

  async sample(): Promise<void> {
    for (const service of MEASURED_SERVICES) {
      for (const url of this.stack.metricsUrls(service)) {
        const memory = await memoryBreakdown(url).catch(() => undefined);
        if (memory && memory.rss > this.rss[service]) {
          this.rss[service] = memory.rss;
          this.atPeak[service] = memory;
        }
      }
    }
  }
}

/** The services from their bundles with a merchant's test key, and the bare-insert baseline beside them. */
export interface SessionsRun {
  stack: BenchStack;
  /** To the gateway, as the merchant with `headers`. */
  pool: Pool;
  headers: Record<string, string>;
  baseline: Awaited<ReturnType<typeof startBaseline>>;
  baselinePool: Pool;
  memory: PeakMemory;
  kafka: ReturnType<typeof createKafka>;
}

export async function startSessionsRun(engines: Engines, options: SessionsBenchOptions): Promise<SessionsRun> {
  const stack = await startBenchStack(engines, {
    services: ['orders', 'sessions', 'gateway'],
    replicas: options.replicas,
    extraEnv: {
      gateway: {
        ...UNLIMITED_GATEWAY,
        // Every page comes from this one address: the per-address page limit would answer most of them 429.
        CHECKOUT_RATE_LIMIT_PER_WINDOW: '1000000',
      },
    },
  });
  const admin = new AdminClient(stack.env.adminUrl, stack.env.adminToken);
  const org = await admin.createOrganizationWithKeys('Bench Sessions Org');
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${org.testKey}` };
  const pool = new Pool(stack.env.gatewayUrl, {
    connections: Math.max(options.concurrency, PAY_CONCURRENCY),
    pipelining: 1,
  });
  const baseline = await startBaseline('mongo', engines.mongoUrl);
  const baselinePool = new Pool(baseline.url, { connections: options.concurrency, pipelining: 1 });
  const memory = new PeakMemory(stack);
  const kafka = createKafka({ clientId: `bench-sessions-${Date.now()}`, brokers: engines.kafkaBrokers });
  return { stack, pool, headers, baseline, baselinePool, memory, kafka };
}

export async function stopSessionsRun(
  run: SessionsRun,
  probe: CompletedEventProbe['probe'] | undefined,
): Promise<void> {
  await probe?.stop().catch(() => {});
  await run.pool.close();
  await run.baselinePool.close();
  run.baseline.child.kill('SIGTERM');
  await run.stack.stop();
}

async function createSession({ pool, headers }: SessionsRun): Promise<string | undefined> {
  const response = await pool.request({ method: 'POST', path: '/v0/checkout/sessions', headers, body: SESSION });
  const body = (await response.body.json()) as { session?: { id?: string } };
  return response.statusCode === 201 ? body.session?.id : undefined;
}

const sent = (load: LoadResult) => load.sent ?? load.requests;

/** (a) Creation throughput and latency, and the bare insert's beside it: both with their CPU per operation. */
export async function measureCreates(
  run: SessionsRun,
  options: SessionsBenchOptions,
): Promise<{ create: LoadResult; bareInsert: LoadResult; windows: CpuWindow[] }> {
  const { result: create, window: createCpu } = await cpuDuring(
    'session create',
    () =>
      runLoad(
        'gateway+sessions+orders POST /v0/checkout/sessions',
        options,
        async () => (await createSession(run)) !== undefined,
      ),
    sent,
  );
  // The bare insert baseline: a Koa handler with one insertOne through the same driver, same engine, same run.
  const { result: bareInsert, window: bareCpu } = await cpuDuring(
    'bare insert',
    () =>
      runLoad('bare koa + one insertOne (baseline)', options, async () => {
        const response = await run.baselinePool
          .request({
            method: 'POST',
            path: '/v0/orders',
            headers: { 'content-type': 'application/json' },
            body: SESSION,
          })
          .catch(() => undefined);
        await response?.body.dump();
        return response?.statusCode === 201;
      }),
    sent,
  );
  return { create, bareInsert, windows: [createCpu, bareCpu] };
}

/** The sessions to pay, created first so that creation is not part of the payment's figure. */
export async function createSessionsToPay(run: SessionsRun, payments: number): Promise<string[]> {
  const sessionIds: string[] = [];
  let createErrors = 0;
  await inParallel(payments, PAY_CONCURRENCY, async () => {
    const id = await createSession(run).catch(() => undefined);
    if (id) sessionIds.push(id);
    else createErrors += 1;
  });
  if (createErrors > 0) console.log(`warning: ${createErrors} of ${payments} session creates failed`);
  return sessionIds;
}

/** A consumer of the session events' topic noting when each session's completed event was first seen. */
export interface CompletedEventProbe {
  probe: Awaited<ReturnType<typeof readTopic>>;
  topic: string;
  seenAt: Map<string, number>;
}

/** Starts the probe; the caller awaits `probe.joined` before the first payment (and stops it in any case). */
export async function probeCompletedEvents({ stack, kafka }: SessionsRun): Promise<CompletedEventProbe> {
  const seenAt = new Map<string, number>();
  const topic = topicName(stack.env.sessions.TOPIC_PREFIX, TOPICS.sessionEvents);
  const probe = await readTopic({
    kafka,
    topic,
    groupId: `bench-sessions-probe-${Date.now()}`,
    onMessage: (message) => {
      const now = performance.now();
      const key = message.key;
      if (!key || seenAt.has(key)) return; // the relay publishes at least once: keep the first sighting
      const value = JSON.parse(message.value || 'null') as { type?: string } | null;
      if (value?.type === 'checkout.session.completed') seenAt.set(key, now);
    },
  });
  return { probe, topic, seenAt };
}

export interface Payments {
  /** The pay requests as a load row (its latencies: the successful requests'). */
  row: LoadResult;
  /** From each pay request sent to its completed event seen, sorted. */
  eventLatencies: number[];
  /** When each pay request's answer arrived, by session id. */
  answeredAt: Map<string, number>;
  window: CpuWindow;
}

/** (b) Pays every session at PAY_CONCURRENCY, sampling the services' RSS, until its completed event is seen. */
export async function measurePayments(
  run: SessionsRun,
  sessionIds: readonly string[],
  seenAt: ReadonlyMap<string, number>,
): Promise<Payments> {
  const payStarted = performance.now();
  const payCpuBefore = sampleCpu();
  const sampler = setInterval(() => void run.memory.sample(), 500);
  const { sentAt, answeredAt, payLatencies, payErrors } = await payAll(run, sessionIds);
  const paySeconds = (performance.now() - payStarted) / 1000;
  clearInterval(sampler);
  await run.memory.sample();
  await eventually(() => sessionIds.every((id) => seenAt.has(id)), {
    deadlineMs: 60_000,
    intervalMs: 50,
    description: 'every completed event on the topic',
  }).catch((err: Error) =>
    console.log(`warning: ${err.message}; ${sessionIds.filter((id) => !seenAt.has(id)).length} events not seen`),
  );
  const window = {
    label: 'payment (to its event)',
    operations: sessionIds.length,
    before: payCpuBefore,
    after: sampleCpu(),
  };

  const eventLatencies = sessionIds
    .filter((id) => seenAt.has(id))
    .map((id) => (seenAt.get(id) as number) - (sentAt.get(id) as number));
  eventLatencies.sort((a, b) => a - b);
  payLatencies.sort((a, b) => a - b);
  const row: LoadResult = {
    label: `POST /v0/test_helpers/.../pay (concurrency ${PAY_CONCURRENCY})`,
    requests: payLatencies.length,
    errors: payErrors,
    seconds: paySeconds,
    throughput: payLatencies.length / paySeconds,
    p50: percentile(payLatencies, 50),
    p99: percentile(payLatencies, 99),
  };
  return { row, eventLatencies, answeredAt, window };
}

/** The test-helper payment of each session: when each was sent and answered, and the successful ones' latencies. */
async function payAll({ pool, headers }: SessionsRun, sessionIds: readonly string[]) {
  const sentAt = new Map<string, number>();
  const answeredAt = new Map<string, number>();
  const payLatencies: number[] = [];
  let payErrors = 0;
  await inParallel(sessionIds.length, PAY_CONCURRENCY, async (i) => {
    const id = sessionIds[i] as string;
    const started = performance.now();
    sentAt.set(id, started);
    try {
      const response = await pool.request({
        method: 'POST',
        path: `/v0/test_helpers/checkout/sessions/${id}/pay`,
        headers,
        body: '{}',
      });
      const body = (await response.body.json()) as { session?: { status?: string } };
      answeredAt.set(id, performance.now());
      if (response.statusCode === 200 && body.session?.status === 'completed')
        payLatencies.push(performance.now() - started);
      else payErrors += 1;
    } catch {
      payErrors += 1;
    }
  });
  return { sentAt, answeredAt, payLatencies, payErrors };
}
