import { readFile, writeFile } from 'node:fs/promises';
import { Pool } from 'undici';
import { MongoClient, type Db } from '@checkout/mongo';
import type { Engines } from '@checkout/engines';
import { AdminClient, eventually } from '@checkout/testing';
import { derivedId, newId, type Report } from '@checkout/contracts';
import { startProcessStack } from '../../scripts/lib/process-stack';
import { benchStackBasics, UNLIMITED_GATEWAY } from './stack';

// npm run bench -- reports [--lines=100000,1000000] [--samples=200]: D52's targets. Seeds balance transactions
// straight into orders' balance_transactions (as the ledger's consumer writes them; making 10⁶ payments through the
// services would take the shared machine hours for no difference in what a report reads), runs a balance
// transactions report of each size through the API, and prints the time from POST /v0/reports to `succeeded`, the
// download of its file through the gateway, and the peak RSS growth of the orders process that built it (its
// VmHWM, reset before the run, less its RSS before; target ≤ 64 MiB at 10⁶ lines: the CSV is streamed from a cursor
// into GridFS, never held). Then `GET /v0/balance` p50/p95/p99 at the largest size (target p95 ≤ 50 ms), when the
// orders under test serve it. Locally on mongo-java-server's memory backend with a 4 GiB heap (bench/src/main.ts).
// ORDERS_NODE_OPTIONS="…": node/V8 flags for the orders process (e.g. a smaller young generation against its RSS).

const TARGET_RSS_GROWTH_MIB = 64;
/** A 10⁶-line report takes about 30 s here; ten times that is a runner that stopped, not a slow one. */
const REPORT_DEADLINE_MS = 300_000;
const TARGET_BALANCE_P95_MS = 50;
const SEED_BATCH = 5_000;
const WINDOW_DAYS = 360;
const DAY_MS = 86_400_000;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/** A process's resident set and its high-water mark, from /proc (Linux), in MiB. */
async function memoryOf(pid: number): Promise<{ rssMiB: number; peakMiB: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rssMiB: kib('VmRSS') / 1024, peakMiB: kib('VmHWM') / 1024 };
}

/**
 * The orders service's own process: the stack starts each service under a guard script (testkit/engines process.ts),
 * so the process it names is the guard's, and the service is a descendant of it.
 */
async function serviceProcess(pid: number, bundle: string): Promise<number> {
  const argv = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0');
  // The guard's command line names the bundle too, as its argument: the service is the node process running it.
  if (argv[0]?.endsWith('node') && argv.some((arg) => arg.endsWith(bundle))) return pid;
  const children = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
  for (const child of children.trim().split(/\s+/).filter(Boolean)) {
    const found = await serviceProcess(Number(child), bundle).catch(() => undefined);
    if (found !== undefined) return found;
  }
  throw new Error(`no process running ${bundle} under ${pid}`);
}

/** Lines `from`..`to`-1 of one organization, spread over the window, as the ledger's consumer stores them. */
async function seed(db: Db, organizationId: string, from: number, to: number, windowStart: number): Promise<void> {
  const lines = db.collection('balance_transactions');
  const recordedAt = new Date(Date.now() - 60_000);
  for (let start = from; start < to; start += SEED_BATCH) {
    const batch = Array.from({ length: Math.min(SEED_BATCH, to - start) }, (_, k) => {
      const i = start + k;
      const refund = i % 5 === 4;
      const sourceId = refund ? `re_test_bench${i}` : `pay_test_bench${i}`;
      return {
        _id: derivedId('txn', 'test', sourceId),
        organizationId,
        mode: 'test',
        type: refund ? 'refund' : 'payment',
        orderId: `ord_test_bench${Math.floor(i / 2)}`,
        sourceId,
        amount: refund ? -(100 + (i % 900)) : 500 + (i % 9_500),
        currency: 'USD',
        createdAt: new Date(windowStart + Math.floor((i * 7_919) % (WINDOW_DAYS * DAY_MS))),
        recordedAt,
        counted: true,
      };
    });
    await lines.insertMany(batch as never[], { ordered: false });
  }
}

interface ReportFigures {
  lines: number;
  rows: number;
  runSeconds: number;
  rssBeforeMiB: number;
  rssGrowthMiB: number;
  downloadSeconds: number;
  bytes: number;
}

async function runReport(api: Pool, headers: Record<string, string>, ordersPid: number, window: object) {
  const before = await memoryOf(ordersPid);
  // VmHWM reset to the current RSS (Linux clear_refs 5), so the peak is this run's.
  await writeFile(`/proc/${ordersPid}/clear_refs`, '5').catch(() => undefined);
  const started = Date.now();
  const created = await api.request({
    method: 'POST',
    path: '/v0/reports',
    headers: { ...headers, 'idempotency-key': newId('evt', 'test') },
    body: JSON.stringify({ type: 'balance_transactions', ...window }),
  });
  const { report } = (await created.body.json()) as { report: Report };
  if (created.statusCode !== 202) throw new Error(`POST /v0/reports: ${created.statusCode}`);
  let peakMiB = before.peakMiB;
  const done = await eventually(
    async () => {
      peakMiB = Math.max(peakMiB, (await memoryOf(ordersPid)).peakMiB);
      const read = await api.request({ method: 'GET', path: `/v0/reports/${report.id}`, headers });
      const answer = (await read.body.json()) as { report?: Report; code?: string };
      // While the engine sorts the report's query, orders may answer a read 503: ask again.
      if (read.statusCode !== 200)
        process.stderr.write(`[bench] GET /v0/reports/:id ${read.statusCode} ${answer.code}\n`);
      // A probe that throws is polled again: a finished report is returned, and a failed one refused below.
      return answer.report?.status === 'pending' ? undefined : answer.report;
    },
    { deadlineMs: REPORT_DEADLINE_MS, intervalMs: 250, description: `report ${report.id} to finish` },
  );
  if (done.status !== 'succeeded') throw new Error(`report ${report.id} ${done.status}`);
  const runSeconds = (Date.now() - started) / 1000;
  peakMiB = Math.max(peakMiB, (await memoryOf(ordersPid)).peakMiB);
  const downloadStarted = Date.now();
  const file = await api.request({ method: 'GET', path: `/v0/reports/${report.id}/file`, headers });
  let bytes = 0;
  for await (const chunk of file.body) bytes += (chunk as Buffer).length;
  return {
    rows: done.rows ?? 0,
    runSeconds,
    rssBeforeMiB: before.rssMiB,
    rssGrowthMiB: peakMiB - before.rssMiB,
    downloadSeconds: (Date.now() - downloadStarted) / 1000,
    bytes,
  };
}

async function balanceLatency(api: Pool, headers: Record<string, string>, samples: number): Promise<number[] | null> {
  const times: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    const started = performance.now();
    const response = await api.request({ method: 'GET', path: '/v0/balance', headers });
    await response.body.dump();
    if (response.statusCode === 404) return null;
    if (response.statusCode !== 200) throw new Error(`GET /v0/balance: ${response.statusCode}`);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

function printFigures(figures: readonly ReportFigures[], balance: number[] | null, lines: number): void {
  const mib = (n: number) => `${n.toFixed(1)} MiB`;
  console.log('\nreports (D52): a balance transactions report through the API');
  console.log(
    `  ${'lines'.padStart(9)} ${'rows'.padStart(9)} ${'run'.padStart(8)} ${'RSS before'.padStart(11)} ` +
      `${'RSS growth'.padStart(11)} ${'download'.padStart(9)} ${'file'.padStart(9)}`,
  );
  for (const f of figures)
    console.log(
      `  ${String(f.lines).padStart(9)} ${String(f.rows).padStart(9)} ${`${f.runSeconds.toFixed(1)} s`.padStart(8)} ` +
        `${mib(f.rssBeforeMiB).padStart(11)} ${mib(f.rssGrowthMiB).padStart(11)} ` +
        `${`${f.downloadSeconds.toFixed(1)} s`.padStart(9)} ${mib(f.bytes / 1024 / 1024).padStart(9)}`,
    );
  console.log('\ntargets');
  const largest = figures.at(-1);
  if (largest)
    console.log(
      `  ${largest.rssGrowthMiB <= TARGET_RSS_GROWTH_MIB ? '✓' : '✗'} orders' RSS growth building a ${largest.lines}-line ` +
        `report ≤ ${TARGET_RSS_GROWTH_MIB} MiB: ${mib(largest.rssGrowthMiB)}`,
    );
  if (balance === null) {
    console.log(`  - GET /v0/balance at ${lines} lines: not served by these services (the balance is not built yet)`);
    return;
  }
  const [p50, p95, p99] = [50, 95, 99].map((p) => percentile(balance, p).toFixed(1));
  console.log(
    `  ${Number(p95) <= TARGET_BALANCE_P95_MS ? '✓' : '✗'} GET /v0/balance at ${lines} lines p95 ≤ ` +
      `${TARGET_BALANCE_P95_MS} ms: p50 ${p50} ms, p95 ${p95} ms, p99 ${p99} ms (${balance.length} requests)`,
  );
}

export async function runReportsBench(engines: Engines, options: { lines: number[]; samples: number }): Promise<void> {
  const stack = await startProcessStack({
    ...benchStackBasics(engines, 'bench_reports'),
    extraEnv: {
      gateway: UNLIMITED_GATEWAY,
      ...(process.env.ORDERS_NODE_OPTIONS && { orders: { NODE_OPTIONS: process.env.ORDERS_NODE_OPTIONS } }),
    },
  });
  const mongo = await MongoClient.connect(engines.mongoUrl);
  try {
    const guardPid = stack.processes.orders?.pid;
    if (guardPid === undefined) throw new Error('no orders process');
    const ordersPid = await serviceProcess(guardPid, 'orders.mjs');
    const admin = new AdminClient(stack.env.adminUrl, stack.env.adminToken);
    const org = await admin.createOrganizationWithKeys('Reports Bench Org');
    const api = new Pool(stack.env.gatewayUrl, { connections: 4 });
    const headers = { authorization: `Bearer ${org.testKey}`, 'content-type': 'application/json' };
    const db = mongo.db(stack.env.orders.MONGODB_DATABASE);
    const windowStart = Date.now() - (WINDOW_DAYS + 1) * DAY_MS;
    const window = {
      createdAfter: new Date(windowStart).toISOString(),
      createdBefore: new Date(windowStart + WINDOW_DAYS * DAY_MS).toISOString(),
    };
    const figures: ReportFigures[] = [];
    let seeded = 0;
    for (const lines of [...options.lines].sort((a, b) => a - b)) {
      const seedStarted = Date.now();
      await seed(db, org.organizationId, seeded, lines, windowStart);
      seeded = lines;
      process.stderr.write(`[bench] ${lines} lines seeded (${((Date.now() - seedStarted) / 1000).toFixed(0)} s)\n`);
      figures.push({ lines, ...(await runReport(api, headers, ordersPid, window)) });
      process.stderr.write(`[bench] report of ${lines} lines: ${JSON.stringify(figures.at(-1))}\n`);
    }
    printFigures(figures, await balanceLatency(api, headers, options.samples), seeded);
    await api.close();
  } finally {
    await mongo.close();
    await stack.stop();
  }
}
