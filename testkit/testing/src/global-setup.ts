// vitest globalSetup for the integration and e2e projects: one pair of real engines per test run, shared by
// all workers. Workers are forked after setup() returns, so they inherit the env vars set here; inject('engines')
// gives the same values to code that prefers not to read process.env.
import type { TestProject } from 'vitest/node';
import { describeMongo, startEngines, type Engines } from '@checkout/engines';
import { serveEngineControl } from './engine-control';

import './provided-context';

export async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const brokers = process.env.KAFKA_BROKERS;
  const mongoUrl = process.env.MONGODB_URL;
  if (brokers && mongoUrl) {
    // Started by someone else (scripts/test.ts for a whole `npm test`, or CI); they own the lifecycle.
    // Named by what the engine says it is (never "MongoDB" for whatever answers), and by its host only: a URL may
    // carry credentials.
    const description =
      process.env.ENGINES_DESCRIPTION ??
      `Kafka (external) at ${brokers}; ${await describeMongo(mongoUrl).catch(() => 'MongoDB-compatible engine')} (external) at ${hostOf(mongoUrl)}`;
    project.provide('engines', { kafkaBrokers: brokers.split(',').map((b) => b.trim()), mongoUrl, description });
    process.stderr.write(`engines: ${description}\n`);
    return undefined;
  }

  const engines: Engines = await startEngines();
  // Workers cannot reach the Engines object; broker restart/outage tests go through this loopback endpoint.
  const control = await serveEngineControl(engines).catch(async (error: unknown) => {
    await engines.stop();
    throw error;
  });
  process.env.KAFKA_BROKERS = engines.kafkaBrokers.join(',');
  process.env.MONGODB_URL = engines.mongoUrl;
  process.env.ENGINES_DESCRIPTION = engines.description;
  process.env.ENGINES_CONTROL_URL = control.url;
  project.provide('engines', {
    kafkaBrokers: engines.kafkaBrokers,
    mongoUrl: engines.mongoUrl,
    description: engines.description,
  });
  process.stderr.write(`engines: ${engines.description}\n`);

  return async () => {
    await control.close();
    await engines.stop();
    // A later project in the same vitest process must not think these engines still exist.
    for (const name of ['KAFKA_BROKERS', 'MONGODB_URL', 'ENGINES_DESCRIPTION', 'ENGINES_CONTROL_URL']) {
      if (process.env[name] !== undefined) delete process.env[name];
    }
  };
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'an unparsable MONGODB_URL';
  }
}
