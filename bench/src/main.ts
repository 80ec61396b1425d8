// npm run bench -- orders|sessions|webhooks|engine [--concurrency=N] [--seconds=S] [--rounds=R (orders: interleaved slices)]
// Starts its own engines (or uses KAFKA_BROKERS / MONGODB_URL) and prints a table; no assertions.
import { startEngines } from '@checkout/engines';
import { runEngineBench } from './engine';
import { runOrdersBench } from './orders';
import { runSessionsBench } from './sessions';
import { runWebhookBench } from './webhooks';

const [scenario = 'orders', ...rest] = process.argv.slice(2);
const option = (name: string, fallback: number) => Number(rest.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const benches: Record<string, (engines: Awaited<ReturnType<typeof startEngines>>) => Promise<void>> = {
  orders: (engines) => runOrdersBench(engines, { concurrency: option('concurrency', 32), durationMs: option('seconds', 10) * 1000, rounds: option('rounds', 4) }),
  sessions: (engines) => runSessionsBench(engines, { concurrency: option('concurrency', 32), durationMs: option('seconds', 10) * 1000, payments: option('payments', 500) }),
  webhooks: (engines) => runWebhookBench({ engines, burst: option('burst', 2_000), paceSeconds: option('seconds', 5), expiring: option('expiry', 10_000) }),
};

if (scenario === 'engine') {
  // Starts each candidate engine itself, one after another; needs no Kafka.
  const only = rest.find((a) => a.startsWith('--only='))?.split('=')[1];
  await runEngineBench({ concurrency: option('concurrency', 32), seconds: option('seconds', 3), large: option('large', 20_000), coldAll: rest.includes('--cold-all'), ...(only !== undefined && { only }) });
  process.exit(0);
}

const bench = benches[scenario];
if (!bench) {
  console.error(`unknown benchmark "${scenario}"; one of: ${[...Object.keys(benches), 'engine'].join(', ')}`);
  process.exit(64);
}
const engines = await startEngines({ log: (line) => process.stderr.write(`[engines] ${line}\n`) });
try {
  await bench(engines);
} finally {
  await engines.stop();
}
process.exit(0);
