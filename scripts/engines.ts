// Local Kafka + MongoDB-compatible engines outside of tests.
//   npx tsx scripts/engines.ts provision   build/cache the local engines (idempotent) and print timings
//   npx tsx scripts/engines.ts start       start engines, print their addresses, stop them on Ctrl-C / SIGTERM
import { provisionLocalEngines, startEngines } from '@checkout/engines';

const log = (line: string) => process.stderr.write(`[engines] ${line}\n`);
const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

async function provision(): Promise<void> {
  const started = Date.now();
  const { kafkaLibs, mongoEngine, mongoBuild } = await provisionLocalEngines({ log });
  console.log(`Kafka jars: ${kafkaLibs}`);
  console.log(`${mongoEngine}: ${mongoBuild}`);
  console.log(`provisioned in ${seconds(started)}`);
}

async function start(): Promise<void> {
  const started = Date.now();
  const engines = await startEngines({ log });
  console.log(`engines: ${engines.description} (ready in ${seconds(started)})`);
  console.log(`KAFKA_BROKERS=${engines.kafkaBrokers.join(',')} MONGODB_URL=${engines.mongoUrl}`);

  await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  log('stopping engines');
  await engines.stop();
  log('stopped');
}

const command = process.argv[2];
const commands: Record<string, () => Promise<void>> = { provision, start };
const selected = command === undefined ? undefined : commands[command];
if (!selected) {
  console.error('usage: tsx scripts/engines.ts provision|start');
  process.exit(64);
}
selected().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
