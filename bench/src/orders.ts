import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import type { Engines } from '@checkout/engines';
import { AdminClient, metricValue, metricValues } from '@checkout/testing';
import { processCpuSeconds } from './cpu';
import { formatColumns, formatTable, mergeLoads, runLoad, type LoadResult } from './load';
import { formatRoundTripTable, mark } from './round-trips';
import { startBenchStack, UNLIMITED_GATEWAY } from './stack';
import { ORDER, loadWrites } from './orders-writes';
import { roundTrips } from './orders-round-trips';

const BASELINE_SERVER = fileURLToPath(new URL('./baseline-server.ts', import.meta.url));

export async function startBaseline(
  kind: 'mongo' | 'none',
  mongoUrl: string,
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', BASELINE_SERVER], {
    env: { ...process.env, BASELINE: kind, MONGODB_URL: mongoUrl },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout?.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
    child.once('exit', (code) => reject(new Error(`baseline exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

async function rssMb(metricsUrl: string): Promise<number> {
  return (await metricValue(metricsUrl, 'process_resident_memory_bytes')) / 1024 / 1024;
}

/** A process's resident memory split the way its own /metrics can (prom-client's default metrics), MiB. */
export interface MemoryBreakdown {
  rss: number;
  /** V8's heap as reserved, and the part of it objects used when sampled (live ones and garbage not yet collected). */
  heapTotal: number;
  heapUsed: number;
}

export async function memoryBreakdown(metricsUrl: string): Promise<MemoryBreakdown> {
  const bytes = await metricValues(metricsUrl, [
    'process_resident_memory_bytes',
    'nodejs_heap_size_total_bytes',
    'nodejs_heap_size_used_bytes',
  ]);
  const MiB = 1024 * 1024;
  return {
    rss: bytes.process_resident_memory_bytes / MiB,
    heapTotal: bytes.nodejs_heap_size_total_bytes / MiB,
    heapUsed: bytes.nodejs_heap_size_used_bytes / MiB,
  };
}

/**
 * What holds a peak RSS: V8's heap (reserved, used) and the rest: the binary's code, thread stacks, Buffers' memory
 * as far as it was written, the allocator's own. /metrics splits the rest no further (its external-memory figure
 * counts what was reserved, not what is resident: js-bson reserves 17 MiB for serializing and writes a command's
 * length of it).
 */
export function formatMemoryBreakdown(m: MemoryBreakdown): string {
  return (
    `${m.rss.toFixed(0)} MiB = V8 heap ${m.heapTotal.toFixed(0)} (${m.heapUsed.toFixed(0)} used) + ` +
    `code, stacks, buffers and native ${(m.rss - m.heapTotal).toFixed(0)}`
  );
}

/** The highest RSS of each service while `during` runs, sampled every `intervalMs` from its /metrics. */
async function peakRss<T>(
  urls: Record<string, string>,
  during: () => Promise<T>,
  intervalMs = 500,
): Promise<{ result: T; peakMiB: Record<string, number> }> {
  const peakMiB: Record<string, number> = Object.fromEntries(Object.keys(urls).map((s) => [s, 0]));
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      for (const [service, url] of Object.entries(urls))
        peakMiB[service] = Math.max(peakMiB[service] ?? 0, await rssMb(url).catch(() => 0));
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  try {
    return { result: await during(), peakMiB };
  } finally {
    sampling = false;
    await sampler;
  }
}

/** CPU seconds a service has used, from its /metrics. */
function metricsCpuSeconds(url: string): Promise<number> {
  return metricValue(url, 'process_cpu_seconds_total');
}

interface LoadTarget {
  label: string;
  baseUrl: string;
  key?: string;
  /** CPU seconds used so far by the processes that serve this target. */
  cpuSeconds: () => Promise<number>;
}

interface TargetFigures {
  post: LoadResult;
  get: LoadResult;
  /** CPU milliseconds per request of the serving processes (engines excluded). */
  cpuMs: { post: number; get: number };
}

/**
 * POST then GET on every target, each in `rounds` slices taken in turn (A, B, C, A, B, C, …), so a change in
 * the machine's load (it is shared) reaches every target alike and the ratios stay meaningful.
 */
async function loadInterleaved(
  targets: readonly LoadTarget[],
  options: { concurrency: number; durationMs: number; rounds: number },
): Promise<TargetFigures[]> {
  const state = targets.map((t) => ({
    pool: new Pool(t.baseUrl, { connections: options.concurrency, pipelining: 1 }),
    headers: { 'content-type': 'application/json', ...(t.key && { authorization: `Bearer ${t.key}` }) },
    ids: [] as string[],
  }));
  const senders = {
    POST: (i: number) => async () => {
      const { pool, headers, ids } = state[i] as (typeof state)[number];
      const response = await pool.request({ method: 'POST', path: '/v0/orders', headers, body: ORDER });
      const body = (await response.body.json()) as { order?: { id?: string; _id?: string } };
      const id = body.order?.id ?? body.order?._id;
      if (id && ids.length < 5_000) ids.push(id);
      return response.statusCode === 201;
    },
    GET: (i: number) => async (n: number) => {
      const { pool, headers, ids } = state[i] as (typeof state)[number];
      const response = await pool.request({
        method: 'GET',
        path: `/v0/orders/${ids[n % ids.length] ?? 'none'}`,
        headers,
      });
      await response.body.dump();
      return response.statusCode === 200;
    },
  };
  const figures: Partial<TargetFigures>[] = targets.map(() => ({ cpuMs: { post: 0, get: 0 } }));
  try {
    for (const operation of ['POST', 'GET'] as const) {
      const slices: LoadResult[][] = targets.map(() => []);
      const cpu = targets.map(() => 0);
      for (let round = 0; round < options.rounds; round++) {
        for (const [i, target] of targets.entries()) {
          const before = await target.cpuSeconds();
          const slice = await runLoad(
            `${target.label} ${operation}`,
            {
              concurrency: options.concurrency,
              durationMs: options.durationMs / options.rounds,
              warmupMs: round === 0 ? 1_000 : 200,
            },
            senders[operation](i),
          );
          cpu[i] = (cpu[i] ?? 0) + (await target.cpuSeconds()) - before;
          slices[i]?.push(slice);
        }
      }
      for (const [i, target] of targets.entries()) {
        const merged = mergeLoads(
          `${target.label} ${operation} /v0/orders${operation === 'GET' ? '/:id' : ''}`,
          slices[i] ?? [],
        );
        const figure = figures[i] as Partial<TargetFigures> & { cpuMs: TargetFigures['cpuMs'] };
        figure[operation === 'POST' ? 'post' : 'get'] = merged;
        figure.cpuMs[operation === 'POST' ? 'post' : 'get'] = ((cpu[i] ?? 0) * 1000) / Math.max(1, merged.sent ?? 0);
      }
    }
  } finally {
    await Promise.all(state.map((s) => s.pool.close()));
  }
  return figures as TargetFigures[];
}

// The figures before the storage rework of 2026-11 (npm run bench on a clean clone, 2 cores), for comparison.
const ISSUE_BEFORE = {
  post: 'before the storage rework: 79 req/s, p50 207 ms, p99 1,691 ms, 0.09× of bare 910',
  get: 'before the storage rework: 58 req/s, p99 2,490 ms, bare findOne 130 req/s',
};
const TARGETS = { throughputRatio: 0.5, p99Ms: 50, rssMiB: 150, createCpuMs: 1.3 };

interface TargetLine {
  target: string;
  figure: string;
  ok: boolean;
  before: string;
}

export async function runOrdersBench(
  engines: Engines,
  options: { concurrency: number; durationMs: number; rounds: number; replicas: number },
): Promise<void> {
  const replicated = options.replicas > 1 ? `, ${options.replicas} replicas of each service behind HAProxy` : '';
  console.log(
    `orders benchmark: concurrency ${options.concurrency}, ${options.durationMs / 1000} s per scenario${replicated}, engines: ${engines.description}`,
  );
  // The load runs the services as the image does (node on their esbuild bundles), so CPU and RSS are the deployed ones.
  const roundTripRows = await roundTrips(engines);
  console.log(
    `\ndatabase commands (driver command monitoring) and Kafka sends per operation, after warm-up, mean of ${roundTripRows[0]?.runs ?? 0} runs:`,
  );
  console.log(formatRoundTripTable(roundTripRows));

  const stack = await startBenchStack(engines, {
    // Sessions for the refund line only: a refund's order is a session's order, whose copy the gateway brings up to
    // date (D46); the CPU figures stay the gateway's and orders'.
    services: ['orders', 'sessions', 'gateway'],
    replicas: options.replicas,
    extraEnv: {
      gateway: UNLIMITED_GATEWAY,
    },
  });
  // With replicas: every replica's CPU is summed, and each replica's RSS is a figure of its own.
  const servingMetrics = [...stack.metricsUrls('gateway'), ...stack.metricsUrls('orders')];
  const rssUrls = Object.fromEntries(
    (['gateway', 'orders'] as const).flatMap((service) =>
      stack.metricsUrls(service).map((url, i) => [stack.replicas > 1 ? `${service}#${i + 1}` : service, url]),
    ),
  );
  const baselines = [await startBaseline('mongo', engines.mongoUrl), await startBaseline('none', engines.mongoUrl)];
  try {
    const admin = new AdminClient(stack.env.adminUrl, stack.env.adminToken);
    const org = await admin.createOrganizationWithKeys('Bench Org');
    const targets = loadTargets(stack.env.gatewayUrl, org.testKey, servingMetrics, baselines);
    const { result: figures, peakMiB } = await peakRss(rssUrls, () => loadInterleaved(targets, options));
    printLoad(targets, figures, options.rounds);

    const writes = await loadWrites({
      gatewayUrl: stack.env.gatewayUrl,
      key: org.testKey,
      options,
    });
    console.log(
      `\nwrites of one order through the gateway, interleaved in ${options.rounds} slices each (D48: a refund beside the edit it costs like):`,
    );
    console.log(
      formatTable([writes.patch, writes.refund], (row) => (row === writes.refund ? writes.patch : undefined)),
    );

    const [full, bareMongo] = figures as [TargetFigures, TargetFigures, TargetFigures];
    console.log('\ntargets (docs/engineering.md, "Performance targets"; same run, same engines):');
    console.log(
      formatColumns(
        ['target', 'figure', '', 'before'],
        targetLines(full, bareMongo, peakMiB, options.concurrency).map((t) => [
          t.target,
          t.figure,
          mark(t.ok),
          t.before,
        ]),
      ),
    );
  } finally {
    for (const b of baselines) b.child.kill('SIGTERM');
    await stack.stop();
  }
}

type Baseline = Awaited<ReturnType<typeof startBaseline>>;

/** The gateway with orders behind it (`servingMetrics`: theirs), then the bare Koa baselines, with and without a db. */
function loadTargets(
  gatewayUrl: string,
  key: string,
  servingMetrics: readonly string[],
  baselines: readonly Baseline[],
): LoadTarget[] {
  const [mongoBaseline, bareBaseline] = baselines as [Baseline, Baseline];
  return [
    {
      label: 'gateway+orders',
      baseUrl: gatewayUrl,
      key,
      cpuSeconds: async () => (await Promise.all(servingMetrics.map(metricsCpuSeconds))).reduce((a, b) => a + b, 0),
    },
    {
      label: 'bare koa + mongo',
      baseUrl: mongoBaseline.url,
      cpuSeconds: async () => processCpuSeconds(mongoBaseline.child.pid),
    },
    {
      label: 'bare koa, no db',
      baseUrl: bareBaseline.url,
      cpuSeconds: async () => processCpuSeconds(bareBaseline.child.pid),
    },
  ];
}

/** Each target's POST and GET against the bare Koa + MongoDB baseline's, and their CPU per request. */
function printLoad(targets: readonly LoadTarget[], figures: readonly TargetFigures[], rounds: number): void {
  const rows = figures.flatMap((f) => [f.post, f.get]);
  console.log(
    `\nload, ${rounds} interleaved slices per scenario (the machine is shared: every target sees the same load):`,
  );
  console.log(
    formatTable(rows, (row) =>
      row.label.startsWith('gateway')
        ? rows.find((r) => r.label === row.label.replace('gateway+orders', 'bare koa + mongo'))
        : undefined,
    ),
  );
  console.log('\nCPU per request of the serving Node processes (engines excluded), ms:');
  console.log(
    formatColumns(
      ['target', 'POST', 'GET'],
      targets.map((t, i) => [
        t.label,
        (figures[i] as TargetFigures).cpuMs.post.toFixed(2),
        (figures[i] as TargetFigures).cpuMs.get.toFixed(2),
      ]),
    ),
  );
}

/** The targets (docs/engineering.md) against the gateway's figures, the bare Koa + MongoDB ones and the peak RSS. */
function targetLines(
  full: TargetFigures,
  bareMongo: TargetFigures,
  peakMiB: Record<string, number>,
  concurrency: number,
): TargetLine[] {
  const lines: TargetLine[] = [];
  for (const [operation, row, base, before] of [
    ['POST /v0/orders', full.post, bareMongo.post, ISSUE_BEFORE.post],
    ['GET /v0/orders/:id', full.get, bareMongo.get, ISSUE_BEFORE.get],
  ] as const) {
    const ratio = row.throughput / base.throughput;
    lines.push({
      target: `${operation} ≥ ${TARGETS.throughputRatio}× bare Koa + driver`,
      figure: `${ratio.toFixed(2)}× (${row.throughput.toFixed(0)} vs ${base.throughput.toFixed(0)} req/s)`,
      ok: ratio >= TARGETS.throughputRatio,
      before,
    });
    lines.push({
      target: `${operation} p99 ≤ ${TARGETS.p99Ms} ms at c=${concurrency}`,
      figure: `${row.p99.toFixed(1)} ms`,
      ok: row.p99 <= TARGETS.p99Ms,
      before,
    });
  }
  lines.push({
    target: `POST /v0/orders, CPU of gateway + orders ≤ ${TARGETS.createCpuMs} ms a request`,
    figure: `${full.cpuMs.post.toFixed(2)} ms (bare Koa + driver ${bareMongo.cpuMs.post.toFixed(2)})`,
    ok: full.cpuMs.post <= TARGETS.createCpuMs,
    before: '',
  });
  for (const [service, mib] of Object.entries(peakMiB)) {
    lines.push({
      target: `RSS of ${service} under load ≤ ${TARGETS.rssMiB} MiB`,
      figure: `${mib.toFixed(0)} MiB (peak)`,
      ok: mib <= TARGETS.rssMiB,
      before: '',
    });
  }
  return lines;
}
