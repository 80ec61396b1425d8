import type { Engines } from '@checkout/engines';
import { cpuBudgetLines, cpuTable, type CpuWindow } from './cpu';
import { hostedPageTable, loadHostedPages, type HostedPageLoad } from './hosted-page';
import { formatTable, percentile, type LoadResult } from './load';
import { formatMemoryBreakdown } from './orders';
import {
  MEASURED_SERVICES,
  PAY_CONCURRENCY,
  createSessionsToPay,
  measureCreates,
  measurePayments,
  probeCompletedEvents,
  startSessionsRun,
  stopSessionsRun,
  type CompletedEventProbe,
  type Payments,
  type PeakMemory,
  type SessionsBenchOptions,
} from './sessions-phases';
import { countRoundTrips, type RoundTrips } from './sessions-round-trips';

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

const ms = (value: number) => value.toFixed(2);

/**
 * (a) `POST /v0/checkout/sessions` through the gateway at fixed concurrency; (b) time from a test-helper payment
 * request being sent to its `checkout.session.completed` event being seen on the topic, over `payments` sessions;
 * (c) those sessions' hosted pages opened before the payments (hosted-page.ts).
 */
export async function runSessionsBench(engines: Engines, options: SessionsBenchOptions): Promise<void> {
  console.log(
    `sessions benchmark: concurrency ${options.concurrency}, ${options.durationMs / 1000} s for create, ${options.payments} payments at concurrency ${PAY_CONCURRENCY}${options.replicas > 1 ? `, ${options.replicas} replicas of each service behind HAProxy` : ''}, engines: ${engines.description}`,
  );
  const run = await startSessionsRun(engines, options);
  let probe: CompletedEventProbe['probe'] | undefined;
  try {
    const { create, bareInsert, windows } = await measureCreates(run, options);
    // CPU per operation of every process (services, engines, this one), by scenario: what the cores allow.
    const cpuWindows: CpuWindow[] = [...windows];
    const sessionIds = await createSessionsToPay(run, options.payments);
    // (c) the customers open those sessions' pages before paying.
    const hostedPage = await loadHostedPages(run.pool, sessionIds, {
      concurrency: PAY_CONCURRENCY,
      durationMs: options.durationMs,
    });
    const completed = await probeCompletedEvents(run);
    probe = completed.probe;
    await probe.joined; // the probe owns its partitions before the first payment is sent
    const payments = await measurePayments(run, sessionIds, completed.seenAt);
    cpuWindows.push(payments.window);

    printLatencies({ create, bareInsert, payments, hostedPage, sessionIds, completed });
    printCpu(cpuWindows);
    const trips = await countRoundTrips(engines);
    printRoundTrips(trips);
    printTargets({
      options,
      create,
      bareInsert,
      payments,
      cpuWindows,
      trips,
      memory: run.memory,
      replicas: run.stack.replicas,
    });
    console.log('\nbefore the storage rework (for comparison; not this run):');
    for (const line of BEFORE) console.log(`  ${line}`);
  } finally {
    await stopSessionsRun(run, probe);
  }
}

function printLatencies(figures: {
  create: LoadResult;
  bareInsert: LoadResult;
  payments: Payments;
  hostedPage: HostedPageLoad;
  sessionIds: readonly string[];
  completed: CompletedEventProbe;
}): void {
  const { create, bareInsert, payments, hostedPage, sessionIds } = figures;
  const { topic, seenAt } = figures.completed;
  const { row: payRow, eventLatencies, answeredAt } = payments;
  console.log(`\n${formatTable([create, bareInsert, payRow])}`);
  console.log(`\n${hostedPageTable(hostedPage, PAY_CONCURRENCY)}`);
  console.log(`\npay request sent → checkout.session.completed seen on ${topic}:`);
  console.log(
    `  ${eventLatencies.length} of ${sessionIds.length} payments: p50 ${ms(percentile(eventLatencies, 50))} ms, p99 ${ms(percentile(eventLatencies, 99))} ms, max ${ms(eventLatencies.at(-1) ?? Number.NaN)} ms`,
  );
  console.log(
    `  pay request itself (for reference): p50 ${ms(payRow.p50)} ms, p99 ${ms(payRow.p99)} ms, ${payRow.errors} errors`,
  );
  const beforeAnswer = sessionIds.filter(
    (id) => (seenAt.get(id) ?? Infinity) <= (answeredAt.get(id) ?? -Infinity),
  ).length;
  console.log(
    `  events the probe saw before the pay request's answer arrived: ${beforeAnswer} of ${eventLatencies.length}`,
  );
}

/** What the cores allow: the time targets are judged against these. */
function printCpu(cpuWindows: readonly CpuWindow[]): void {
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
}

function printRoundTrips(trips: readonly RoundTrips[]): void {
  console.log(
    '\ndatabase commands per operation after warm-up (in-process sessions + orders, driver command monitoring; the gateway adds 0 with D43):',
  );
  for (const row of trips)
    console.log(
      `  ${row.operation.padEnd(34)} sessions ${JSON.stringify(row.sessions)}, orders ${JSON.stringify(row.orders)}: ${row.total}`,
    );
}

function printTargets(figures: {
  options: SessionsBenchOptions;
  create: LoadResult;
  bareInsert: LoadResult;
  payments: Payments;
  cpuWindows: readonly CpuWindow[];
  trips: readonly RoundTrips[];
  memory: PeakMemory;
  /** Service processes behind HAProxy, each; RSS is the highest one's. */
  replicas: number;
}): void {
  const { options, create, bareInsert, trips } = figures;
  const { eventLatencies } = figures.payments;
  const ratio = create.throughput / bareInsert.throughput;
  const eventP50 = percentile(eventLatencies, 50);
  const eventP99 = percentile(eventLatencies, 99);
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
  printMemoryTargets(figures.memory, figures.replicas > 1);
  const services = [...MEASURED_SERVICES];
  for (const line of cpuBudgetLines(figures.cpuWindows, [
    { window: 'session create', processes: services, maxMs: TARGETS.createCpuMs },
    { window: 'payment (to its event)', processes: services, maxMs: TARGETS.paymentCpuMs },
  ]))
    console.log(`  ${mark(line.ok)} ${line.target}: ${line.figure}`);
  const tripsOf = (operation: string) => trips.find((t) => t.operation === operation)?.total ?? Number.NaN;
  console.log(
    `  ${mark(tripsOf('test-helper pay (full)') <= TARGETS.payCommands)} test-helper payment ≤ ${TARGETS.payCommands} database commands: ${tripsOf('test-helper pay (full)')}`,
  );
  console.log(
    `  ${mark(tripsOf('POST /internal/sessions') <= TARGETS.createCommands)} POST /v0/checkout/sessions ≤ ${TARGETS.createCommands} database commands: ${tripsOf('POST /internal/sessions')}`,
  );
  console.log(
    `  ${mark(tripsOf('GET /internal/sessions/:id') <= 1)} GET session: 1 in sessions, 0 in orders: ${tripsOf('GET /internal/sessions/:id')}`,
  );
}

function printMemoryTargets({ rss, atPeak }: PeakMemory, replicated: boolean): void {
  for (const service of MEASURED_SERVICES) {
    console.log(
      `  ${mark(rss[service] <= TARGETS.rssMiB)} RSS of ${service}${replicated ? ' (highest replica)' : ''} under the payment load ≤ ${TARGETS.rssMiB} MiB: ${rss[service].toFixed(0)} MiB`,
    );
    const memory = atPeak[service];
    if (memory) console.log(`      at its peak: ${formatMemoryBreakdown(memory)}`);
  }
}
