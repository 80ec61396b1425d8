// npm run bench -- orders|sessions|webhooks|events|dashboard|dashboard-overview|reports|tracing|capacity|engine|abuse
//   |broker-restart [--trace-slowest]|engine-start [--rounds=R: test brokers started with and without the class-data
//    archive]
//   |replacement [--base=<revision>] [--rounds=R: rolling steps of each service, head's and base's interleaved]
//   [compare <bench> --base=<revision> [--runs=N] [--tables=<regex>] [that bench's options]: bench/src/compare.ts]
//   [--concurrency=N] [--seconds=S]
//   [events --rounds=R: every cause of every event type R times]
//   [abuse --seconds=S --slices=K --control --deliveries=N --rate=R --live-rate=L --seed-seconds=T
//    --test-body-bytes=B: one test key at its rate limit with 16 endpoints beside a paying live merchant, in slices
//    interleaved with the merchant alone, then the delivery-filtered search at N stored deliveries: bench/src/abuse.ts]
//   [reports --lines=100000,1000000 --samples=N: D52's report runs and the balance read at those sizes]
//   [tracing --exporter=otlp|zipkin --sampler=always_on|always_off --control --traced-second]
//   [capacity --rate=R --seconds=S --op-seconds=S: CPU per operation and process, and the plan at 10× and 100×]
//   [--rounds=R (orders: interleaved slices)]
//   [orders|sessions --replicas N: N processes of each service behind HAProxy, the local cluster of
//    `npm start -- --replicas N`; webhooks --replicas N: N dispatcher processes in one consumer group]
//   [webhooks --mongo=memory]
// Starts its own engines (or uses KAFKA_BROKERS / MONGODB_URL) and prints a table; no assertions.
// webhooks --mongo=memory runs the webhook bench on mongo-java-server's in-memory backend instead of the default
// H2 file one: not an engine to run on (nothing survives its restart), but the dispatcher's hot path is inserts
// and updates by _id, so the difference between the two runs is what the default engine's writes cost: a figure
// that misses on H2 and meets on memory is the engine's, not the code's. Only for that bench: the memory backend
// lacks our H2 query planner, so the other services' sweeps (by status and time) scan whole collections there.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { provisionMongoJavaServer, startEngines, startLocalMongoJavaServer, type Engines } from '@checkout/engines';
import { runAbuseBench } from './abuse';
import { runBrokerRestartBench } from './broker-restart';
import { runCapacityBench } from './capacity';
import { compare } from './compare';
import { runDashboardBench } from './dashboard';
import { runDashboardOverviewBench } from './dashboard-overview';
import { runEngineBench } from './engine';
import { runEngineStartBench } from './engine-start';
import { runEventsBench } from './events';
import { runOrdersBench } from './orders';
import { runReplacementBench } from './replacement';
import { runReportsBench } from './reports';
import { runSessionsBench } from './sessions';
import { runTracingBench } from './tracing';
import { runWebhookBench } from './webhooks';
import { countFlag } from '../../scripts/lib/cluster-stack';

const [scenario = 'orders', ...rest] = process.argv.slice(2);
const replicas = countFlag(rest, 'replicas', 1, 20);
const option = (name: string, fallback: number) =>
  Number(rest.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const benches: Record<string, (engines: Awaited<ReturnType<typeof startEngines>>) => Promise<void>> = {
  orders: (engines) =>
    runOrdersBench(engines, {
      concurrency: option('concurrency', 32),
      durationMs: option('seconds', 10) * 1000,
      rounds: option('rounds', 4),
      replicas,
    }),
  sessions: (engines) =>
    runSessionsBench(engines, {
      concurrency: option('concurrency', 32),
      durationMs: option('seconds', 10) * 1000,
      payments: option('payments', 500),
      replicas,
    }),
  tracing: (engines) =>
    runTracingBench(engines, {
      concurrency: option('concurrency', 16),
      durationMs: option('seconds', 24) * 1000,
      rounds: option('rounds', 6),
      exporter: rest.includes('--exporter=zipkin') ? 'zipkin' : 'otlp',
      traced: rest.includes('--control')
        ? 'control'
        : rest.includes('--sampler=always_off')
          ? 'always_off'
          : 'always_on',
      tracedSecond: rest.includes('--traced-second'),
    }),
  dashboard: (engines) =>
    runDashboardBench(engines, {
      orders: option('orders', 10_000),
      events: option('events', 10_000),
      samples: option('samples', 40),
    }),
  'dashboard-overview': (engines) =>
    runDashboardOverviewBench(engines, {
      records: option('records', 100_000),
      concurrency: option('concurrency', 8),
    }),
  capacity: (engines) =>
    runCapacityBench(engines, {
      rate: option('rate', 25),
      seconds: option('seconds', 30),
      opSeconds: option('op-seconds', 8),
    }),
  events: (engines) => runEventsBench(engines, { rounds: option('rounds', 30) }),
  reports: (engines) =>
    runReportsBench(engines, {
      lines: (rest.find((a) => a.startsWith('--lines='))?.slice('--lines='.length) ?? '100000,1000000')
        .split(',')
        .map(Number),
      samples: option('samples', 200),
    }),
  abuse: (engines) =>
    runAbuseBench(engines, {
      seconds: option('seconds', 60),
      deliveries: option('deliveries', 1_000_000),
      rate: option('rate', 100),
      liveRate: option('live-rate', 4),
      seedSeconds: option('seed-seconds', 0),
      slices: option('slices', 6),
      control: rest.includes('--control'),
      testBodyBytes: option('test-body-bytes', 0),
    }),
  replacement: (engines) =>
    runReplacementBench(engines, {
      rounds: option('rounds', 3),
      base: rest.find((a) => a.startsWith('--base='))?.split('=')[1],
    }),
  webhooks: (engines) =>
    runWebhookBench({
      engines,
      burst: option('burst', 2_000),
      paceSeconds: option('seconds', 5),
      expiring: option('expiry', 10_000),
      replicas,
    }),
};

if (scenario === 'compare') {
  // Runs the bench named next in two checkouts, each starting its own engines: nothing to start here.
  const [bench = 'orders', ...benchArgs] = rest.filter((a) => !/^--(base|runs|tables)=/.test(a));
  const base = rest.find((a) => a.startsWith('--base='))?.split('=')[1];
  if (!base) {
    console.error('compare: --base=<git revision> is required');
    process.exit(64);
  }
  const tables =
    rest.find((a) => a.startsWith('--tables='))?.slice('--tables='.length) ?? '^targets|^webhook dispatcher benchmark';
  await compare({ bench, base, runs: option('runs', 2), tables: new RegExp(tables), benchArgs });
  process.exit(0);
}

if (scenario === 'broker-restart') {
  // A three-broker cluster of its own, restarted a broker at a time; needs no database.
  await runBrokerRestartBench({
    rate: option('rate', 50),
    steadySeconds: option('seconds', 10),
    traceSlowest: rest.includes('--trace-slowest'),
  });
  process.exit(0);
}

if (scenario === 'engine-start') {
  // Brokers of its own, started and stopped in turn; needs no database.
  await runEngineStartBench({ rounds: option('rounds', 3) });
  process.exit(0);
}

if (scenario === 'engine') {
  // Starts each candidate engine itself, one after another (or measures the one MONGODB_URL names); needs no Kafka.
  const only = rest.find((a) => a.startsWith('--only='))?.split('=')[1];
  await runEngineBench({
    concurrency: option('concurrency', 32),
    seconds: option('seconds', 3),
    large: option('large', 20_000),
    coldAll: rest.includes('--cold-all'),
    ...(only !== undefined && { only }),
    ...(process.env.MONGODB_URL?.trim() && { mongoUrl: process.env.MONGODB_URL.trim() }),
  });
  process.exit(0);
}

const bench = benches[scenario];
if (replicas > 1 && !['orders', 'sessions', 'webhooks'].includes(scenario)) {
  console.error(`--replicas: for the orders, sessions and webhooks benches only`);
  process.exit(64);
}
if (!bench) {
  console.error(`unknown benchmark "${scenario}"; one of: ${[...Object.keys(benches), 'engine'].join(', ')}`);
  process.exit(64);
}
const log = (line: string) => process.stderr.write(`[engines] ${line}\n`);
const mongoOption = rest.find((a) => a.startsWith('--mongo='))?.split('=')[1];
if (mongoOption !== undefined && (mongoOption !== 'memory' || scenario !== 'webhooks')) {
  console.error(`--mongo=${mongoOption}: the one choice is --mongo=memory, for the webhooks bench only`);
  process.exit(64);
}
// The overview bench aggregates 10⁵ documents at once: on the emulator, only its memory backend with a larger
// heap does that in minutes (bench/src/dashboard-overview.ts); given MONGODB_URL, that server is used.
// The reports bench likewise: its reports read 10⁵ and 10⁶ lines in one sorted query, which the H2 backend scans and
// sorts in a 512 MiB heap (and seeding 10⁶ lines into it takes half an hour); what it measures is orders' memory.
const overviewEngine = ['dashboard-overview', 'reports'].includes(scenario) && !process.env.MONGODB_URL;
const memoryDir =
  mongoOption === 'memory' || overviewEngine ? await mkdtemp(join(tmpdir(), 'bench-mongo-memory-')) : undefined;
const memory =
  memoryDir === undefined
    ? undefined
    : await startLocalMongoJavaServer({
        dir: await provisionMongoJavaServer({ log }),
        runDir: memoryDir,
        deadlineMs: 90_000,
        backend: 'memory',
        ...(overviewEngine && { maxHeapMiB: 4_096 }),
      });
const started = await startEngines({ log, ...(memory && { env: { ...process.env, MONGODB_URL: memory.url } }) });
const engines: Engines = memory
  ? { ...started, description: `${started.description.split('; ')[0]}; ${memory.description}` }
  : started;
try {
  await bench(engines);
} finally {
  await engines.stop();
  await memory?.stop();
  if (memoryDir) await rm(memoryDir, { recursive: true, force: true });
}
process.exit(0);
