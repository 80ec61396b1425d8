// npm run bench -- orders|sessions|webhooks [--concurrency=N] [--seconds=S]
// Starts its own engines (or uses KAFKA_BROKERS / MONGODB_URL) and prints a table; no assertions.
import { startEngines } from '@checkout/engines';
import { runOrdersBench } from './orders';
import { runSessionsBench } from './sessions';
import { runWebhookBench } from './webhooks';

const [scenario = 'orders', ...rest] = process.argv.slice(2);
const option = (name: string, fallback: number) => Number(rest.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const benches: Record<string, (engines: Awaited<ReturnType<typeof startEngines>>) => Promise<void>> = {
  orders: (engines) => runOrdersBench(engines, { concurrency: option('concurrency', 32), durationMs: option('seconds', 10) * 1000 }),
  sessions: (engines) => runSessionsBench(engines, { concurrency: option('concurrency', 32), durationMs: option('seconds', 10) * 1000, payments: option('payments', 500) }),
  webhooks: (engines) => runWebhookBench({ engines, burst: option('burst', 1_000) }),
};

const bench = benches[scenario];
if (!bench) {
  console.error(`unknown benchmark "${scenario}"; one of: ${Object.keys(benches).join(', ')}`);
  process.exit(64);
}
const engines = await startEngines({ log: (line) => process.stderr.write(`[engines] ${line}\n`) });
try {
  await bench(engines);
} finally {
  await engines.stop();
}
process.exit(0);
