import { randomBytes } from 'node:crypto';
import { createKafka } from '@checkout/kafka';
import { readTopic } from '@checkout/kafka/testing';
import { Pool } from 'undici';
import type { Engines } from '@checkout/engines';
import { createLogger } from '@checkout/logger';
import { CommandCounter } from '@checkout/mongo/testing';
import { buildApp as buildOrdersApp } from '@checkout/orders';
import { parseConfig as parseOrdersConfig } from '@checkout/orders/config';
import { buildApp as buildSessionsApp } from '@checkout/sessions';
import { parseConfig as parseSessionsConfig } from '@checkout/sessions/config';
import { INTERNAL_API_HEADERS, TOPICS, topicName } from '@checkout/contracts';
import { AdminClient, eventually, inParallel, stackEnvironment } from '@checkout/testing';
import { startBenchStack } from './stack';
import { cpuBudgetLines, cpuDuring, cpuTable, sampleCpu, type CpuWindow } from './cpu';
import { hostedPageTable, loadHostedPages } from './hosted-page';
import { formatTable, percentile, runLoad, type LoadResult } from './load';
import { formatMemoryBreakdown, memoryBreakdown, startBaseline, type MemoryBreakdown } from './orders';

// The sessions targets (docs/engineering.md, "Performance targets"), checked against figures of this run, same engines.
const TARGETS = {
  createVsBareInsert: 0.35,
  eventP50Ms: 20,
  eventP99Ms: 100,
  rssMiB: 150,
  // CPU of the services per operation (gateway + orders + sessions; Kafka and the engine printed beside them).
  createCpuMs: 3.5,
  paymentCpuMs: 8,
  // orders' relay marks the payment's events sent before orders answers (order.paid is published at once).
  payCommands: 6,
  createCommands: 4,
};
// The figures before the storage rework of 2026-11 (clean clone, FerretDB 1.24, 2 cores), for comparison only.
const BEFORE = [
  'POST /v0/checkout/sessions, c=32: 68 req/s, p99 1,938 ms',
  'test-helper pay, c=8: 4 req/s, p50 2,086 ms',
  'pay → checkout.session.completed on Kafka: p50 1,560 ms, p99 3,704 ms',
  'test-helper payment: ~15 database round trips and two internal HTTP hops',
];
const mark = (ok: boolean) => (ok ? '✓' : '✗');

const SESSION = JSON.stringify({
  items: [
    { name: 'Espresso', quantity: 2, unitPrice: 350 },
    { name: 'Croissant', quantity: 1, unitPrice: 425 },
  ],
  taxes: [{ type: 'additive', amount: 90 }],
  successUrl: 'https://merchant.example/thanks?session={SESSION_ID}',
});
/** Payments run at a moderate, fixed concurrency: the figure of interest is latency, not saturation. */
const PAY_CONCURRENCY = 8;

const ms = (value: number) => value.toFixed(2);

/**
 * (a) `POST /v0/checkout/sessions` through the gateway at fixed concurrency; (b) time from a test-helper payment
 * request being sent to its `checkout.session.completed` event being seen on the topic, over `payments` sessions;
 * (c) those sessions' hosted pages opened before the payments (hosted-page.ts).
 */
export async function runSessionsBench(
  engines: Engines,
  options: { concurrency: number; durationMs: number; payments: number; replicas: number },
): Promise<void> {
  console.log(
    `sessions benchmark: concurrency ${options.concurrency}, ${options.durationMs / 1000} s for create, ${options.payments} payments at concurrency ${PAY_CONCURRENCY}${options.replicas > 1 ? `, ${options.replicas} replicas of each service behind HAProxy` : ''}, engines: ${engines.description}`,
  );
  const stack = await startBenchStack(engines, {
    services: ['orders', 'sessions', 'gateway'],
    replicas: options.replicas,
    extraEnv: {
      gateway: {
        RATE_LIMIT_PER_WINDOW: '1000000',
        RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: '1000000000',
        CLIENT_RATE_LIMIT_PER_WINDOW: '1000000',
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
  const rss = { gateway: 0, orders: 0, sessions: 0 };
  /** Each service's memory when its RSS peaked. */
  const atPeak: Partial<Record<keyof typeof rss, MemoryBreakdown>> = {};
  const sampleRss = async () => {
    // With replicas, the highest of them.
    for (const service of ['gateway', 'orders', 'sessions'] as const) {
      for (const url of stack.metricsUrls(service)) {
        const memory = await memoryBreakdown(url).catch(() => undefined);
        if (memory && memory.rss > rss[service]) {
          rss[service] = memory.rss;
          atPeak[service] = memory;
        }
      }
    }
  };
  const kafka = createKafka({ clientId: `bench-sessions-${Date.now()}`, brokers: engines.kafkaBrokers });
  let probe: Awaited<ReturnType<typeof readTopic>> | undefined;
  try {
    const createSession = async (): Promise<string | undefined> => {
      const response = await pool.request({ method: 'POST', path: '/v0/checkout/sessions', headers, body: SESSION });
      const body = (await response.body.json()) as { session?: { id?: string } };
      return response.statusCode === 201 ? body.session?.id : undefined;
    };

    // CPU per operation of every process (services, engines, this one), by scenario: what the cores allow.
    const cpuWindows: CpuWindow[] = [];
    const sent = (load: LoadResult) => load.sent ?? load.requests;

    // (a) creation throughput and latency
    const { result: create, window: createCpu } = await cpuDuring(
      'session create',
      () =>
        runLoad(
          'gateway+sessions+orders POST /v0/checkout/sessions',
          options,
          async () => (await createSession()) !== undefined,
        ),
      sent,
    );
    // The bare insert baseline: a Koa handler with one insertOne through the same driver, same engine, same run.
    const { result: bareInsert, window: bareCpu } = await cpuDuring(
      'bare insert',
      () =>
        runLoad('bare koa + one insertOne (baseline)', options, async () => {
          const response = await baselinePool
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
    cpuWindows.push(createCpu, bareCpu);

    // (b) pay → completed event on the topic. Sessions first, so creation is not part of the figure.
    const sessionIds: string[] = [];
    let createErrors = 0;
    await inParallel(options.payments, PAY_CONCURRENCY, async () => {
      const id = await createSession().catch(() => undefined);
      if (id) sessionIds.push(id);
      else createErrors += 1;
    });
    if (createErrors > 0) console.log(`warning: ${createErrors} of ${options.payments} session creates failed`);
    // (c) the customers open those sessions' pages before paying.
    const hostedPage = await loadHostedPages(pool, sessionIds, {
      concurrency: PAY_CONCURRENCY,
      durationMs: options.durationMs,
    });

    const seenAt = new Map<string, number>();
    const topic = topicName(stack.env.sessions.TOPIC_PREFIX, TOPICS.sessionEvents);
    probe = await readTopic({
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
    await probe.joined; // the probe owns its partitions before the first payment is sent

    const sentAt = new Map<string, number>();
    const answeredAt = new Map<string, number>();
    const payLatencies: number[] = [];
    let payErrors = 0;
    const payStarted = performance.now();
    const payCpuBefore = sampleCpu();
    const sampler = setInterval(() => void sampleRss(), 500);
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
    const paySeconds = (performance.now() - payStarted) / 1000;
    clearInterval(sampler);
    await sampleRss();
    await eventually(() => sessionIds.every((id) => seenAt.has(id)), {
      deadlineMs: 60_000,
      intervalMs: 50,
      description: 'every completed event on the topic',
    }).catch((err: Error) =>
      console.log(`warning: ${err.message}; ${sessionIds.filter((id) => !seenAt.has(id)).length} events not seen`),
    );
    cpuWindows.push({
      label: 'payment (to its event)',
      operations: sessionIds.length,
      before: payCpuBefore,
      after: sampleCpu(),
    });

    const eventLatencies = sessionIds
      .filter((id) => seenAt.has(id))
      .map((id) => (seenAt.get(id) as number) - (sentAt.get(id) as number));
    eventLatencies.sort((a, b) => a - b);
    payLatencies.sort((a, b) => a - b);
    const payRow: LoadResult = {
      label: `POST /v0/test_helpers/.../pay (concurrency ${PAY_CONCURRENCY})`,
      requests: payLatencies.length,
      errors: payErrors,
      seconds: paySeconds,
      throughput: payLatencies.length / paySeconds,
      p50: percentile(payLatencies, 50),
      p99: percentile(payLatencies, 99),
    };
    console.log(`\n${formatTable([create, bareInsert, payRow])}`);
    console.log(`\n${hostedPageTable(hostedPage, PAY_CONCURRENCY)}`);
    console.log(`\npay request sent → checkout.session.completed seen on ${topic}:`);
    console.log(
      `  ${eventLatencies.length} of ${sessionIds.length} payments: p50 ${ms(percentile(eventLatencies, 50))} ms, p99 ${ms(percentile(eventLatencies, 99))} ms, max ${ms(eventLatencies.at(-1) ?? Number.NaN)} ms`,
    );
    console.log(
      `  pay request itself (for reference): p50 ${ms(payRow.p50)} ms, p99 ${ms(payRow.p99)} ms, ${payErrors} errors`,
    );
    const beforeAnswer = sessionIds.filter(
      (id) => (seenAt.get(id) ?? Infinity) <= (answeredAt.get(id) ?? -Infinity),
    ).length;
    console.log(
      `  events the probe saw before the pay request's answer arrived: ${beforeAnswer} of ${eventLatencies.length}`,
    );

    // What the cores allow: the time targets are judged against these.
    const cpu = cpuTable(cpuWindows);
    console.log(
      `\nCPU per operation, by process (/proc, user + system; "ceiling": operations a second were every core serving):\n${cpu.text}`,
    );
    const createShare =
      (cpu.servingMs.get('bare insert') ?? Number.NaN) / (cpu.servingMs.get('session create') ?? Number.NaN);
    const payCeiling = cpu.ceiling.get('payment (to its event)') ?? Number.NaN;
    console.log(
      `  a session create costs the serving processes ${(1 / createShare).toFixed(1)}× the CPU of a bare insert: with the cores saturated, the create ratio can reach about ${createShare.toFixed(2)}×`,
    );
    console.log(
      `  payments: at most ${payCeiling.toFixed(0)}/s on these cores, so at concurrency ${PAY_CONCURRENCY} a payment takes at least ${((PAY_CONCURRENCY / payCeiling) * 1000).toFixed(0)} ms on average (Little's law: concurrency / throughput)`,
    );

    const trips = await countRoundTrips(engines);
    console.log(
      '\ndatabase commands per operation after warm-up (in-process sessions + orders, driver command monitoring; the gateway adds 0 with D43):',
    );
    for (const row of trips)
      console.log(
        `  ${row.operation.padEnd(34)} sessions ${JSON.stringify(row.sessions)}, orders ${JSON.stringify(row.orders)}: ${row.total}`,
      );

    const ratio = create.throughput / bareInsert.throughput;
    const eventP50 = percentile(eventLatencies, 50);
    const eventP99 = percentile(eventLatencies, 99);
    const tripsOf = (operation: string) => trips.find((t) => t.operation === operation)?.total ?? Number.NaN;
    console.log(
      `\ntargets, this run${options.payments < 1000 ? ` (only ${options.payments} payments: use --payments=1000 for the target's sample)` : ''}:`,
    );
    console.log(
      `  ${mark(ratio >= TARGETS.createVsBareInsert)} POST /v0/checkout/sessions ≥ ${TARGETS.createVsBareInsert}× bare insert: ${ratio.toFixed(2)}× (${create.throughput.toFixed(0)} vs ${bareInsert.throughput.toFixed(0)} req/s)`,
    );
    console.log(
      `  ${mark(eventP50 <= TARGETS.eventP50Ms)} pay → completed on Kafka p50 ≤ ${TARGETS.eventP50Ms} ms: ${ms(eventP50)} ms`,
    );
    console.log(
      `  ${mark(eventP99 <= TARGETS.eventP99Ms)} pay → completed on Kafka p99 ≤ ${TARGETS.eventP99Ms} ms: ${ms(eventP99)} ms`,
    );
    for (const service of ['gateway', 'orders', 'sessions'] as const) {
      console.log(
        `  ${mark(rss[service] <= TARGETS.rssMiB)} RSS of ${service}${stack.replicas > 1 ? ' (highest replica)' : ''} under the payment load ≤ ${TARGETS.rssMiB} MiB: ${rss[service].toFixed(0)} MiB`,
      );
      const memory = atPeak[service];
      if (memory) console.log(`      at its peak: ${formatMemoryBreakdown(memory)}`);
    }
    const services = ['gateway', 'orders', 'sessions'];
    for (const line of cpuBudgetLines(cpuWindows, [
      { window: 'session create', processes: services, maxMs: TARGETS.createCpuMs },
      { window: 'payment (to its event)', processes: services, maxMs: TARGETS.paymentCpuMs },
    ]))
      console.log(`  ${mark(line.ok)} ${line.target}: ${line.figure}`);
    console.log(
      `  ${mark(tripsOf('test-helper pay (full)') <= TARGETS.payCommands)} test-helper payment ≤ ${TARGETS.payCommands} database commands: ${tripsOf('test-helper pay (full)')}`,
    );
    console.log(
      `  ${mark(tripsOf('POST /internal/sessions') <= TARGETS.createCommands)} POST /v0/checkout/sessions ≤ ${TARGETS.createCommands} database commands: ${tripsOf('POST /internal/sessions')}`,
    );
    console.log(
      `  ${mark(tripsOf('GET /internal/sessions/:id') <= 1)} GET session: 1 in sessions, 0 in orders: ${tripsOf('GET /internal/sessions/:id')}`,
    );
    console.log('\nbefore the storage rework (for comparison; not this run):');
    for (const line of BEFORE) console.log(`  ${line}`);
  } finally {
    await probe?.stop().catch(() => {});
    await pool.close();
    await baselinePool.close();
    baseline.child.kill('SIGTERM');
    await stack.stop();
  }
}

interface RoundTrips {
  operation: string;
  sessions: Record<string, number>;
  orders: Record<string, number>;
  total: number;
}

/**
 * Database commands per session operation, counted with the driver's command monitoring on an in-process
 * sessions + orders pair (the process stack's services cannot be instrumented from here). Background sweeps
 * are kept out of the windows; the counts are deterministic (services/sessions/test/component/round-trips.test.ts
 * asserts the same).
 */
async function countRoundTrips(engines: Engines): Promise<RoundTrips[]> {
  const id = `bench_trips_${randomBytes(4).toString('hex')}`;
  const quiet = '3600000';
  // Each service's own credentials and callers, as the stack gets them; this bench calls sessions as the gateway does.
  const stackEnv = stackEnvironment({
    ports: { gateway: 0, orders: 0, sessions: 0, dispatcher: 0 },
    mongoUrl: engines.mongoUrl,
    kafkaBrokers: engines.kafkaBrokers,
    namePrefix: id,
  });
  const token = stackEnv.internalTokens.gateway;
  const common = {
    MONGODB_URL: engines.mongoUrl,
    KAFKA_BROKERS: engines.kafkaBrokers.join(','),
    TOPIC_PREFIX: id,
    HTTP_HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    OUTBOX_SWEEP_INTERVAL_MS: quiet,
  };
  const logger = createLogger('bench', { level: 'silent' });
  const counters = { orders: new CommandCounter(), sessions: new CommandCounter() };
  // D52's ledger (its consumer group and sweep) and the report poll are off the request path: out of the windows,
  // as services/sessions/test/component/round-trips.test.ts keeps them, or their commands land in whichever window
  // is open when they run.
  const orders = buildOrdersApp(
    parseOrdersConfig({
      ...stackEnv.orders,
      ...common,
      MONGODB_DATABASE: `orders_${id}`,
      CONSUMERS_ENABLED: 'false',
      BALANCE_SWEEP_INTERVAL_MS: quiet,
      REPORT_POLL_INTERVAL_MS: quiet,
    }),
    logger,
  );
  const ordersUrl = (await counters.orders.watch(() => orders.start())).url;
  const sessions = buildSessionsApp(
    parseSessionsConfig({
      ...stackEnv.sessions,
      ...common,
      MONGODB_DATABASE: `sessions_${id}`,
      ORDERS_URL: ordersUrl,
      CHECKOUT_BASE_URL: 'http://127.0.0.1:8080/checkout',
      EXPIRY_SWEEP_INTERVAL_MS: quiet,
      // Its consumer of orders' events (the order copy, D46) reacts to the operation after it answered: not its path.
      CONSUMERS_ENABLED: 'false',
    }),
    logger,
  );
  const pool = new Pool((await counters.sessions.watch(() => sessions.start())).url);
  const headers = {
    'content-type': 'application/json',
    [INTERNAL_API_HEADERS.token]: token,
    [INTERNAL_API_HEADERS.organization]: `org_${id}`,
    [INTERNAL_API_HEADERS.mode]: 'test',
  };
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ session?: { id: string } }> => {
    const response = await pool.request({
      method,
      path,
      headers,
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return (await response.body.json()) as { session?: { id: string } };
  };
  const create = async () => (await call('POST', '/internal/sessions', JSON.parse(SESSION))).session?.id ?? '';
  const rows: RoundTrips[] = [];
  const measure = async (operation: string, fn: () => Promise<unknown>) => {
    let inOrders: Awaited<ReturnType<CommandCounter['during']>> | undefined;
    const inSessions = await counters.sessions.during(async () => {
      inOrders = await counters.orders.during(fn);
    });
    rows.push({
      operation,
      sessions: inSessions.commands,
      orders: inOrders?.commands ?? {},
      total: inSessions.total + (inOrders?.total ?? 0),
    });
  };
  try {
    const warm = await create();
    await call('GET', `/internal/sessions/${warm}`);
    await call('POST', `/internal/test-helpers/sessions/${warm}/pay`, {});
    await measure('POST /internal/sessions', create);
    const session = await create();
    await measure('GET /internal/sessions/:id', () => call('GET', `/internal/sessions/${session}`));
    await measure('test-helper pay (declined)', () =>
      call('POST', `/internal/test-helpers/sessions/${session}/pay`, { outcome: 'declined' }),
    );
    await measure('test-helper pay (partial)', () =>
      call('POST', `/internal/test-helpers/sessions/${session}/pay`, { method: 'stablecoin', amount: 100 }),
    );
    await measure('test-helper pay (full)', () => call('POST', `/internal/test-helpers/sessions/${session}/pay`, {}));
    return rows;
  } finally {
    await pool.close();
    await sessions.stop();
    await orders.stop();
  }
}
