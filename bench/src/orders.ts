import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import type { Engines } from '@checkout/engines';
import { AdminClient, metricValue, metricValues } from '@checkout/testing';
import { processCpuSeconds } from './cpu';
import { formatColumns, formatTable, mergeLoads, runLoad, type LoadResult } from './load';
import { formatRoundTripTable, mark, measureRoundTrips, startCountedStack, type RoundTripRow } from './round-trips';
import { startBenchStack } from './stack';

const BASELINE_SERVER = fileURLToPath(new URL('./baseline-server.ts', import.meta.url));
const ORDER = JSON.stringify({
  items: [
    { name: 'Espresso', quantity: 2, unitPrice: 350 },
    { name: 'Croissant', quantity: 1, unitPrice: 425 },
  ],
  taxes: [{ type: 'additive', amount: 90 }],
});

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

/**
 * `count` orders paid in full as merchants' customers pay them: a checkout session created through the gateway and
 * paid with the test helper (sessions makes the order and pays it; orders takes sessions' payments only on its
 * sessions' orders). What a refund needs, made outside the measured windows; the refund then brings the session's
 * copy up to date too (D46), as every real refund does.
 */
async function paidOrders(options: { gatewayUrl: string; key: string; count: number }): Promise<string[]> {
  const pool = new Pool(options.gatewayUrl, { connections: 8 });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${options.key}` };
  const ids: string[] = [];
  const make = async () => {
    const created = await pool.request({ method: 'POST', path: '/v0/checkout/sessions', headers, body: ORDER });
    const body = (await created.body.json()) as { session?: { id?: string; order?: { id?: string } } };
    const sessionId = body.session?.id;
    const orderId = body.session?.order?.id;
    if (created.statusCode !== 201 || !sessionId || !orderId)
      throw new Error(`POST /v0/checkout/sessions answered ${created.statusCode}`);
    const paid = await pool.request({
      method: 'POST',
      path: `/v0/test_helpers/checkout/sessions/${sessionId}/pay`,
      headers,
      body: '{}',
    });
    await paid.body.dump();
    if (paid.statusCode !== 200) throw new Error(`paying ${sessionId} answered ${paid.statusCode}`);
    ids.push(orderId);
  };
  try {
    for (let i = 0; i < options.count; i += 8)
      await Promise.all(Array.from({ length: Math.min(8, options.count - i) }, make));
  } finally {
    await pool.close();
  }
  return ids;
}

/**
 * D48's cost beside the order PATCH of the same run: `PATCH /v0/orders/:id` (a metadata edit of an open order) and
 * `POST /v0/orders/:id/refunds` (1 cent of a paid order) at the bench's concurrency, in interleaved slices. Both
 * are one conditional write of the order with its events, published before the answer. The refunds go round 500
 * paid orders, so concurrent refunds of one order (a lost race and a re-read) stay rare, as between merchants.
 */
async function loadWrites(input: {
  gatewayUrl: string;
  key: string;
  options: { concurrency: number; durationMs: number; rounds: number };
}): Promise<{ patch: LoadResult; refund: LoadResult }> {
  const { options } = input;
  const pool = new Pool(input.gatewayUrl, { connections: options.concurrency, pipelining: 1 });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${input.key}` };
  const create = async () => {
    const response = await pool.request({ method: 'POST', path: '/v0/orders', headers, body: ORDER });
    const body = (await response.body.json()) as { order?: { id?: string } };
    if (response.statusCode !== 201 || !body.order?.id)
      throw new Error(`POST /v0/orders answered ${response.statusCode}`);
    return body.order.id;
  };
  try {
    const open = await Promise.all(Array.from({ length: 200 }, create));
    const paid = await paidOrders({ gatewayUrl: input.gatewayUrl, key: input.key, count: 500 });
    const senders = {
      patch: async (n: number) => {
        const response = await pool.request({
          method: 'PATCH',
          path: `/v0/orders/${open[n % open.length] ?? ''}`,
          headers,
          body: JSON.stringify({ metadata: { n: String(n) } }),
        });
        await response.body.dump();
        return response.statusCode === 200;
      },
      refund: async (n: number) => {
        const response = await pool.request({
          method: 'POST',
          path: `/v0/orders/${paid[n % paid.length] ?? ''}/refunds`,
          headers,
          body: '{"amount":1}',
        });
        await response.body.dump();
        return response.statusCode === 201;
      },
    };
    const slices: Record<keyof typeof senders, LoadResult[]> = { patch: [], refund: [] };
    for (let round = 0; round < options.rounds; round++) {
      for (const name of ['patch', 'refund'] as const) {
        slices[name].push(
          await runLoad(
            name,
            {
              concurrency: options.concurrency,
              durationMs: options.durationMs / options.rounds,
              warmupMs: round === 0 ? 1_000 : 200,
            },
            senders[name],
          ),
        );
      }
    }
    return {
      patch: mergeLoads(`gateway+orders PATCH /v0/orders/:id`, slices.patch),
      refund: mergeLoads(`gateway+orders POST /v0/orders/:id/refunds`, slices.refund),
    };
  } finally {
    await pool.close();
  }
}

/** Database commands and Kafka sends per public orders call, services in this process, counted. */
async function roundTrips(engines: Engines): Promise<RoundTripRow[]> {
  // Sessions too: a refund's order is a session's order (the only orders sessions pays), and the gateway brings the
  // session's copy up to date (D46) before it answers.
  const stack = await startCountedStack(engines, ['orders', 'sessions', 'gateway']);
  try {
    const org = await stack.admin().createOrganizationWithKeys('Bench Round Trips Org');
    const pool = new Pool(stack.urls.gateway ?? '', { connections: 1 });
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${org.testKey}` };
    const post = async (body: string, extra: Record<string, string> = {}) => {
      const response = await pool.request({
        method: 'POST',
        path: '/v0/orders',
        headers: { ...headers, ...extra },
        body,
      });
      const json = (await response.body.json()) as { order?: { id?: string } };
      if (response.statusCode !== 201) throw new Error(`POST /v0/orders answered ${response.statusCode}`);
      return json.order?.id ?? '';
    };
    const withCustomer = (email: string) => JSON.stringify({ ...(JSON.parse(ORDER) as object), customer: { email } });
    const id = await post(ORDER);
    const tag = Date.now().toString(36);
    const rows = [
      await measureRoundTrips(
        stack,
        'GET /v0/orders/:id',
        async () => {
          const response = await pool.request({ method: 'GET', path: `/v0/orders/${id}`, headers });
          await response.body.dump();
        },
        { budget: { commands: 1, source: '≤ 1' }, before: '2 (rate-limit slot insert + find)' },
      ),
      await measureRoundTrips(stack, 'POST /v0/orders', () => post(ORDER), {
        budget: { commands: 2, source: '≤ 2 incl. relay' },
        before: '2 (slot insert + insert)',
      }),
      await measureRoundTrips(
        stack,
        'POST /v0/orders, new customer',
        (i) => post(withCustomer(`bench-${tag}-${i}@example.com`)),
        // D49: every create writes order.created and the relay marks it sent, the "incl. relay" of the plain budget.
        { budget: { commands: 4, source: '≤ 2 incl. relay + 2 (find, insert)' }, before: '4' },
      ),
      await measureRoundTrips(
        stack,
        'POST /v0/orders, known customer',
        () => post(withCustomer(`bench-${tag}-known@example.com`)),
        { budget: { commands: 3, source: '≤ 2 incl. relay + 1 (find)' }, before: '3' },
      ),
      await measureRoundTrips(
        stack,
        'POST /v0/orders, Idempotency-Key (D42)',
        (i) => post(ORDER, { 'idempotency-key': `bench-${tag}-${i}` }),
        { before: '4' },
      ),
    ];
    // D48: a refund of a paid order (paid as sessions pays, through orders' internal API), one order per run.
    const paid = await paidOrders({ gatewayUrl: stack.urls.gateway ?? '', key: org.testKey, count: 21 });
    rows.push(
      await measureRoundTrips(
        stack,
        'POST /v0/orders/:id/refunds (D48)',
        async (i) => {
          const response = await pool.request({
            method: 'POST',
            path: `/v0/orders/${paid[i + 1] ?? ''}/refunds`,
            headers,
            body: JSON.stringify({ amount: 100 }),
          });
          await response.body.dump();
          if (response.statusCode !== 201) throw new Error(`POST refunds answered ${response.statusCode}`);
        },
        {
          budget: {
            commands: 3,
            service: 'orders',
            source:
              "orders as a cancel: read, replace, mark sent (sessions: the session's copy, D46, and its consumer)",
          },
        },
      ),
    );
    await pool.close();
    return rows;
  } finally {
    await stack.stop();
  }
}

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
      gateway: {
        RATE_LIMIT_PER_WINDOW: '1000000',
        RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: '1000000000',
        CLIENT_RATE_LIMIT_PER_WINDOW: '1000000',
      },
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
    const [mongoBaseline, bareBaseline] = baselines as [
      { url: string; child: ChildProcess },
      { url: string; child: ChildProcess },
    ];
    const targets: LoadTarget[] = [
      {
        label: 'gateway+orders',
        baseUrl: stack.env.gatewayUrl,
        key: org.testKey,
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
    const { result: figures, peakMiB } = await peakRss(rssUrls, () => loadInterleaved(targets, options));
    const [full, bareMongo] = figures as [TargetFigures, TargetFigures, TargetFigures];
    const rows = figures.flatMap((f) => [f.post, f.get]);
    console.log(
      `\nload, ${options.rounds} interleaved slices per scenario (the machine is shared: every target sees the same load):`,
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

    const targetLines: TargetLine[] = [];
    for (const [operation, row, base, before] of [
      ['POST /v0/orders', full.post, bareMongo.post, ISSUE_BEFORE.post],
      ['GET /v0/orders/:id', full.get, bareMongo.get, ISSUE_BEFORE.get],
    ] as const) {
      const ratio = row.throughput / base.throughput;
      targetLines.push({
        target: `${operation} ≥ ${TARGETS.throughputRatio}× bare Koa + driver`,
        figure: `${ratio.toFixed(2)}× (${row.throughput.toFixed(0)} vs ${base.throughput.toFixed(0)} req/s)`,
        ok: ratio >= TARGETS.throughputRatio,
        before,
      });
      targetLines.push({
        target: `${operation} p99 ≤ ${TARGETS.p99Ms} ms at c=${options.concurrency}`,
        figure: `${row.p99.toFixed(1)} ms`,
        ok: row.p99 <= TARGETS.p99Ms,
        before,
      });
    }
    targetLines.push({
      target: `POST /v0/orders, CPU of gateway + orders ≤ ${TARGETS.createCpuMs} ms a request`,
      figure: `${full.cpuMs.post.toFixed(2)} ms (bare Koa + driver ${bareMongo.cpuMs.post.toFixed(2)})`,
      ok: full.cpuMs.post <= TARGETS.createCpuMs,
      before: '',
    });
    for (const [service, mib] of Object.entries(peakMiB)) {
      targetLines.push({
        target: `RSS of ${service} under load ≤ ${TARGETS.rssMiB} MiB`,
        figure: `${mib.toFixed(0)} MiB (peak)`,
        ok: mib <= TARGETS.rssMiB,
        before: '',
      });
    }
    console.log('\ntargets (docs/engineering.md, "Performance targets"; same run, same engines):');
    console.log(
      formatColumns(
        ['target', 'figure', '', 'before'],
        targetLines.map((t) => [t.target, t.figure, mark(t.ok), t.before]),
      ),
    );
  } finally {
    for (const b of baselines) b.child.kill('SIGTERM');
    await stack.stop();
  }
}
