import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import type { Engines } from '@checkout/engines';
import { AdminClient } from '@checkout/testing';
import { startProcessStack } from '../../scripts/lib/process-stack';
import { formatTable, runLoad, type LoadResult } from './load';

const BASELINE_SERVER = fileURLToPath(new URL('./baseline-server.ts', import.meta.url));
const ORDER = JSON.stringify({ items: [{ name: 'Espresso', quantity: 2, unitPrice: 350 }, { name: 'Croissant', quantity: 1, unitPrice: 425 }], taxes: [{ type: 'additive', amount: 90 }] });

export async function startBaseline(kind: 'mongo' | 'none', mongoUrl: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', BASELINE_SERVER], { env: { ...process.env, BASELINE: kind, MONGODB_URL: mongoUrl }, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout?.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
    child.once('exit', (code) => reject(new Error(`baseline exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

export async function rssMb(metricsUrl: string): Promise<number> {
  const pool = new Pool(metricsUrl);
  try {
    const text = await (await pool.request({ method: 'GET', path: '/metrics' })).body.text();
    const match = /^process_resident_memory_bytes(?:\{[^}]*\})? (\d+(?:\.\d+)?(?:e\+\d+)?)$/m.exec(text);
    return match?.[1] ? Number(match[1]) / 1024 / 1024 : Number.NaN;
  } finally {
    await pool.close();
  }
}

/** Loads POST and GET through one target at fixed concurrency. */
async function loadTarget(label: string, baseUrl: string, key: string | undefined, options: { concurrency: number; durationMs: number }): Promise<LoadResult[]> {
  const pool = new Pool(baseUrl, { connections: options.concurrency, pipelining: 1 });
  const headers = { 'content-type': 'application/json', ...(key && { authorization: `Bearer ${key}` }) };
  const ids: string[] = [];
  try {
    const create = await runLoad(`${label} POST /v0/orders`, options, async () => {
      const response = await pool.request({ method: 'POST', path: '/v0/orders', headers, body: ORDER });
      const body = (await response.body.json()) as { order?: { id?: string; _id?: string } };
      const id = body.order?.id ?? body.order?._id;
      if (id && ids.length < 5_000) ids.push(id);
      return response.statusCode === 201;
    });
    const read = await runLoad(`${label} GET /v0/orders/:id`, options, async (i) => {
      const response = await pool.request({ method: 'GET', path: `/v0/orders/${ids[i % ids.length] ?? 'none'}`, headers });
      await response.body.dump();
      return response.statusCode === 200;
    });
    return [create, read];
  } finally {
    await pool.close();
  }
}

export async function runOrdersBench(engines: Engines, options: { concurrency: number; durationMs: number }): Promise<void> {
  console.log(`orders benchmark: concurrency ${options.concurrency}, ${options.durationMs / 1000} s per scenario, engines: ${engines.description}`);
  const stack = await startProcessStack({ mongoUrl: engines.mongoUrl, kafkaBrokers: engines.kafkaBrokers, namePrefix: `bench_${Date.now()}`, logDir: join(tmpdir(), 'checkout-bench'), services: ['orders', 'gateway'], logLevel: 'warn', extraEnv: { gateway: { RATE_LIMIT_PER_WINDOW: '1000000' } } });
  const baselines = [await startBaseline('mongo', engines.mongoUrl), await startBaseline('none', engines.mongoUrl)];
  try {
    const admin = new AdminClient(stack.env.gatewayUrl, stack.env.adminToken);
    const org = await admin.createOrganizationWithKeys('Bench Org');
    const full = await loadTarget('gateway+orders', stack.env.gatewayUrl, org.testKey, options);
    const rss = { gateway: await rssMb(stack.urls.gateway), orders: await rssMb(stack.urls.orders) };
    const bareMongo = await loadTarget('bare koa + mongo', (baselines[0] as { url: string }).url, undefined, options);
    const bare = await loadTarget('bare koa, no db', (baselines[1] as { url: string }).url, undefined, options);
    const rows = [...full, ...bareMongo, ...bare];
    console.log(`\n${formatTable(rows, (row) => (row.label.startsWith('gateway') ? rows.find((r) => r.label === row.label.replace('gateway+orders', 'bare koa + mongo')) : undefined))}`);
    console.log('\nratios (gateway+orders vs each baseline, same run, same engines):');
    for (const [i, row] of full.entries()) {
      const m = bareMongo[i] as LoadResult;
      const n = bare[i] as LoadResult;
      console.log(
        `  ${row.label}: throughput ${(row.throughput / m.throughput).toFixed(2)}× of bare+mongo, ${(row.throughput / n.throughput).toFixed(2)}× of bare no-db; p99 ${(row.p99 / m.p99).toFixed(1)}× / ${(row.p99 / n.p99).toFixed(1)}×`,
      );
    }
    console.log(`\nRSS after load: gateway ${rss.gateway.toFixed(0)} MiB, orders ${rss.orders.toFixed(0)} MiB`);
  } finally {
    for (const b of baselines) b.child.kill('SIGTERM');
    await stack.stop();
  }
}
