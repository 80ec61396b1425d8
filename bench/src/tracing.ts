// npm run bench -- tracing [--exporter=otlp|zipkin]: what tracing costs. Two stacks of the four services, from
// their bundles as the image runs them, on the same engines: one with every service tracing at 100 % sampling,
// one with tracing off (no OTEL_* set). The traced stack exports as production does by default: OTLP/HTTP protobuf
// to a collector, here a loopback sink that takes and drops every batch (scripts/lib/trace-sink.ts; the collector
// runs beside the service in a cluster, and its cost is not the service's). `--exporter=zipkin`: into a real Zipkin
// through OpenTelemetry's Zipkin exporter (JSON), the backend of `npm start -- --observability`, with Zipkin's
// own CPU printed apart. Load goes to both stacks in interleaved slices (ABBA), so the machine's load reaches both
// alike: POST /v0/orders, then payments (create a session, pay it with the test helper, its webhook to a local
// receiver). Printed: req/s and CPU milliseconds per request of the four services (from their /metrics), raw and
// net of each stack's idle CPU (IDLE_MS), both lines, their ratios, and the 10 % target. `--sampler=always_off`
// runs the traced side with nothing sampled, to split what tracing costs between its set-up and its spans;
// `--control` runs both stacks with tracing off, to show the bench's own spread between two identical stacks;
// `--traced-second` swaps the two stacks' places (start order, first slice of each ABBA pair), so that a cost seen
// both ways is tracing's, not a stack's position (docs/operations.md, "Traces").
import { Pool } from 'undici';
import type { Engines } from '@checkout/engines';
import { AdminClient, metricValue, startWebhookReceiver } from '@checkout/testing';
import { SERVICES } from '../../scripts/lib/process-stack';
import { startBackend, type TraceBackend } from './tracing-backend';
import { formatColumns, mergeLoads, runLoad, type LoadResult } from './load';
import { startBenchStack, UNLIMITED_GATEWAY, type BenchStack } from './stack';

const ORDER = JSON.stringify({
  items: [
    { name: 'Espresso', quantity: 2, unitPrice: 350 },
    { name: 'Croissant', quantity: 1, unitPrice: 425 },
  ],
});
/** The bar (docs/operations.md, "Traces"): with tracing on, throughput and CPU per payment each within 10 % of off. */
const TARGET = 0.1;
/**
 * How long each stack's CPU is read with no load before an operation's slices. A stack burns CPU with no request
 * at all (consumers' fetch loops, outbox and expiry sweeps, metrics); per request that share grows as throughput
 * falls, so the raw figure counts a throughput loss twice. Net of it, the CPU is what the requests themselves cost.
 */
const IDLE_MS = 4_000;

interface Side {
  label: string;
  stack: BenchStack;
  pool: Pool;
  headers: Record<string, string>;
}

async function cpuSeconds(stack: BenchStack): Promise<number> {
  let total = 0;
  for (const service of SERVICES)
    for (const url of stack.metricsUrls(service)) total += await metricValue(url, 'process_cpu_seconds_total');
  return total;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** A stack's CPU seconds per second of wall time while no request is sent to it (IDLE_MS). */
async function idleCpuRate(stack: BenchStack): Promise<number> {
  const before = await cpuSeconds(stack);
  const startedAt = Date.now();
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  return ((await cpuSeconds(stack)) - before) / ((Date.now() - startedAt) / 1000);
}

/** CPU milliseconds per request of `usedSeconds` used over `seconds`, less what the stack burns idle at `idleRate`. */
function netCpuMsPerRequest(usedSeconds: number, idleRate: number, seconds: number, requests: number): number {
  return (Math.max(0, usedSeconds - idleRate * seconds) * 1000) / Math.max(1, requests);
}

export interface TracingBenchOptions {
  concurrency: number;
  durationMs: number;
  rounds: number;
  exporter: 'otlp' | 'zipkin';
  /**
   * What the first stack runs. `always_on`: tracing at 100 %. `always_off`: everything tracing sets up
   * (provider, context manager, propagation, a non-recording span per operation), nothing recorded or exported:
   * against `always_on`, what recording and exporting spans cost. `control`: tracing off on both stacks, an A/A
   * run: any ratio away from 1 is the bench's own difference between its two stacks, not tracing's.
   */
  traced: 'always_on' | 'always_off' | 'control';
  /**
   * Start the stack with tracing off first, and give it the first slice of each ABBA pair: a difference that
   * follows the place rather than tracing shows as a ratio that flips (docs/operations.md, "Traces").
   */
  tracedSecond: boolean;
}

/** Where the two stacks are in `sides`: the traced one (the control's first one), and the one with tracing off. */
interface Places {
  traced: number;
  off: number;
}

type Sender = (side: Side) => () => Promise<boolean>;

export async function runTracingBench(engines: Engines, options: TracingBenchOptions): Promise<void> {
  const log = (line: string) => process.stderr.write(`[tracing] ${line}\n`);
  const backend = await startBackend(options.exporter, log);
  const receiver = await startWebhookReceiver();
  const sides: Side[] = [];
  try {
    const traced = options.tracedSecond ? 1 : 0;
    const places: Places = { traced, off: 1 - traced };
    await startSides(engines, options, backend, sides);
    const lines: string[][] = [];
    const verdicts: string[] = [];
    for (const [operation, sender] of Object.entries(operationsOf(receiver.url('/bench/tracing')))) {
      const measured = await measureOperation(operation, sender, { sides, places, backend, options });
      lines.push(...measured.lines);
      verdicts.push(measured.verdict);
    }
    printResults(options, backend, lines, verdicts);
  } finally {
    for (const side of sides) {
      await side.pool.close();
      await side.stack.stop();
    }
    await receiver.close();
    await backend.stop();
  }
}

/**
 * Starts the two stacks in their places, each added to `sides` as soon as it runs (so that the caller stops what
 * started, whatever fails after).
 */
async function startSides(
  engines: Engines,
  options: TracingBenchOptions,
  backend: TraceBackend,
  sides: Side[],
): Promise<void> {
  const first = {
    always_on: { label: 'tracing on (100 %)', env: { ...backend.env, OTEL_TRACES_SAMPLER: 'always_on' } },
    always_off: {
      label: 'tracing on, sampler always_off',
      env: { ...backend.env, OTEL_TRACES_SAMPLER: 'always_off' },
    },
    control: { label: 'tracing off (control)', env: {} },
  }[options.traced];
  const off = { label: 'tracing off', env: {} };
  for (const { label, env: otel } of options.tracedSecond ? [off, first] : [first, off]) {
    const stack = await startBenchStack(engines, {
      services: SERVICES,
      replicas: 1,
      // The gateway's per-key limits off: the bench measures tracing, not the limiter (which, past 100 req/s,
      // answered one side with 429s and made its throughput line meaningless).
      extraEnv: {
        gateway: {
          ...otel,
          ...UNLIMITED_GATEWAY,
        },
        orders: otel,
        sessions: otel,
        dispatcher: otel,
      },
    });
    const org = await new AdminClient(stack.env.adminUrl, stack.env.adminToken).createOrganizationWithKeys(
      `Tracing bench (${label})`,
    );
    sides.push({
      label,
      stack,
      pool: new Pool(stack.env.gatewayUrl, { connections: options.concurrency, pipelining: 1 }),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${org.testKey}` },
    });
  }
}

/** The operations measured, each a request (or requests) to one side that says whether it succeeded. */
function operationsOf(callbackUrl: string): Record<string, Sender> {
  return {
    'POST /v0/orders': (side: Side) => async () => {
      const response = await side.pool.request({
        method: 'POST',
        path: '/v0/orders',
        headers: side.headers,
        body: ORDER,
      });
      await response.body.dump();
      return response.statusCode === 201;
    },
    'payment (create session, pay, webhook)': (side: Side) => async () => {
      const created = await side.pool.request({
        method: 'POST',
        path: '/v0/checkout/sessions',
        headers: side.headers,
        body: JSON.stringify({ items: [{ name: 'Latte', quantity: 1, unitPrice: 450 }], callbackUrl }),
      });
      const session = (await created.body.json()) as { session?: { id?: string } };
      if (created.statusCode !== 201 || !session.session?.id) return false;
      const paid = await side.pool.request({
        method: 'POST',
        path: `/v0/test_helpers/checkout/sessions/${session.session.id}/pay`,
        headers: side.headers,
        body: '{}',
      });
      await paid.body.dump();
      return paid.statusCode === 200;
    },
  };
}

interface Bench {
  sides: readonly Side[];
  places: Places;
  backend: TraceBackend;
  options: TracingBenchOptions;
}

/** One side's throughput and net CPU per request in one round. */
interface RoundFigures {
  throughput: number;
  netCpuMs: number;
}

/** What one side's slices of an operation added up to. */
interface SideTotals {
  slices: LoadResult[];
  /** The services' CPU seconds over the slices, and the wall time the slices (with their settling) took. */
  cpuSeconds: number;
  loadedSeconds: number;
  /**
   * Per round: the two slices of a round run back to back, so their ratio sees the same machine (the pooled
   * figures also carry what changed between rounds).
   */
  perRound: RoundFigures[];
}

/** An operation's rows of the table (each side, then their ratios) and its line against the target. */
async function measureOperation(
  operation: string,
  sender: Sender,
  bench: Bench,
): Promise<{ lines: string[][]; verdict: string }> {
  // Each stack's CPU seconds per second with no load.
  const idleRates: number[] = [];
  for (const side of bench.sides) idleRates.push(await idleCpuRate(side.stack));
  const { totals, backendCpu } = await runRounds(operation, sender, idleRates, bench);
  return summarize(operation, { totals, backendCpu, idleRates }, bench);
}

async function runRounds(
  operation: string,
  sender: Sender,
  idleRates: readonly number[],
  { sides, places, backend, options }: Bench,
): Promise<{ totals: SideTotals[]; backendCpu: number }> {
  const totals = sides.map((): SideTotals => ({ slices: [], cpuSeconds: 0, loadedSeconds: 0, perRound: [] }));
  let backendCpu = 0;
  for (let round = 0; round < options.rounds; round++) {
    // ABBA: the side that goes first alternates, so neither always follows the other's leftovers.
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const i of order) {
      const side = sides[i]!;
      const total = totals[i]!;
      const before = await cpuSeconds(side.stack);
      const startedAt = Date.now();
      const backendBefore = i === places.traced ? backend.cpuSeconds() : 0;
      const slice = await runLoad(
        `${side.label} ${operation}`,
        {
          concurrency: options.concurrency,
          durationMs: options.durationMs / options.rounds,
          warmupMs: round === 0 ? 1_000 : 200,
        },
        sender(side),
      );
      // Webhooks and the spans of the slice's last requests settle after it: a moment, then read the CPU.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const sliceCpu = (await cpuSeconds(side.stack)) - before;
      const sliceSeconds = (Date.now() - startedAt) / 1000;
      total.cpuSeconds += sliceCpu;
      total.loadedSeconds += sliceSeconds;
      total.perRound.push({
        throughput: slice.throughput,
        netCpuMs: netCpuMsPerRequest(sliceCpu, idleRates[i] ?? 0, sliceSeconds, slice.sent ?? 0),
      });
      if (i === places.traced) backendCpu += backend.cpuSeconds() - backendBefore;
      total.slices.push(slice);
    }
  }
  return { totals, backendCpu };
}

function summarize(
  operation: string,
  measured: { totals: readonly SideTotals[]; backendCpu: number; idleRates: readonly number[] },
  { sides, places, options }: Bench,
): { lines: string[][]; verdict: string } {
  const { totals, backendCpu, idleRates } = measured;
  const { traced: t, off: o } = places;
  const merged = sides.map((side, i) => mergeLoads(`${side.label}`, totals[i]!.slices));
  const cpuMs = merged.map((m, i) => ((totals[i]?.cpuSeconds ?? 0) * 1000) / Math.max(1, m.sent ?? 0));
  const netCpuMs = merged.map((m, i) =>
    netCpuMsPerRequest(totals[i]?.cpuSeconds ?? 0, idleRates[i] ?? 0, totals[i]?.loadedSeconds ?? 0, m.sent ?? 0),
  );
  const lines = merged.map((m, i) => [
    operation,
    m.label,
    m.throughput.toFixed(1),
    m.p50.toFixed(1),
    m.p99.toFixed(1),
    String(m.errors),
    (cpuMs[i] ?? 0).toFixed(2),
    `${(netCpuMs[i] ?? 0).toFixed(2)} (idle ${((idleRates[i] ?? 0) * 1000).toFixed(0)} ms/s)`,
    i === t && options.exporter === 'zipkin' ? ((backendCpu * 1000) / Math.max(1, m.sent ?? 0)).toFixed(2) : '',
  ]);
  const throughputRatio = merged[t]!.throughput / merged[o]!.throughput;
  const cpuRatio = (cpuMs[t] ?? 0) / (cpuMs[o] ?? 1);
  const netCpuRatio = (netCpuMs[t] ?? 0) / (netCpuMs[o] ?? 1);
  const pairedRatios = (of: (r: RoundFigures) => number) =>
    median(totals[t]!.perRound.map((on, round) => of(on) / Math.max(1e-9, of(totals[o]!.perRound[round]!))));
  const medianThroughputRatio = pairedRatios((r) => r.throughput);
  const medianNetCpuRatio = pairedRatios((r) => r.netCpuMs);
  const ok = (good: boolean) => (good ? '✓' : '✗');
  lines.push([
    operation,
    'on / off',
    `${throughputRatio.toFixed(3)}×`,
    '',
    '',
    '',
    `${cpuRatio.toFixed(3)}×`,
    `${netCpuRatio.toFixed(3)}×`,
    '',
  ]);
  const verdict = `${operation}: throughput on/off ${medianThroughputRatio.toFixed(3)}× ${ok(medianThroughputRatio >= 1 - TARGET)} (≥ ${1 - TARGET}), CPU per request net of idle on/off ${medianNetCpuRatio.toFixed(3)}× ${ok(medianNetCpuRatio <= 1 + TARGET)} (≤ ${1 + TARGET}): medians of ${options.rounds} paired rounds; pooled ${throughputRatio.toFixed(3)}× and ${netCpuRatio.toFixed(3)}× (raw CPU ${cpuRatio.toFixed(3)}×)`;
  return { lines, verdict };
}

function printResults(
  options: TracingBenchOptions,
  backend: TraceBackend,
  lines: readonly string[][],
  verdicts: readonly string[],
): void {
  console.log(
    `\nTracing cost: the four services from their bundles, ${{ always_on: 'tracing at 100 %', always_off: 'tracing set up with its sampler always_off (nothing recorded)', control: 'tracing off (an A/A control run)' }[options.traced]} into ${backend.description} vs off; ${options.rounds} interleaved slices of ${(options.durationMs / options.rounds / 1000).toFixed(1)} s each, concurrency ${options.concurrency}\n`,
  );
  console.log(
    formatColumns(
      [
        'operation',
        'run',
        'req/s',
        'p50 ms',
        'p99 ms',
        'errors',
        'CPU ms/request (4 services)',
        'net of idle CPU',
        'Zipkin CPU ms/request',
      ],
      lines,
    ),
  );
  console.log(`\n${verdicts.join('\n')}`);
}
