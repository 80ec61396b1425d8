import { existsSync } from 'node:fs';
import { startEngines, type Engines } from '@checkout/engines';
import { serveEngineControl } from '@checkout/testing';
import { run } from './run-command';

// What `npm test` and `npm run test:quick` prepare before their engine-backed tiers.

export interface SharedEngines {
  /** The environment that hands the engines down to vitest (KAFKA_BROKERS, MONGODB_URL, the control URL). */
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

/** This run's shared engines (or the ones KAFKA_BROKERS / MONGODB_URL name) and the env that hands them down. */
export async function sharedEngines(log: (line: string) => void): Promise<SharedEngines> {
  const env = { ...process.env };
  if (env.KAFKA_BROKERS && env.MONGODB_URL) {
    log(`engines: ${env.ENGINES_DESCRIPTION ?? `${env.KAFKA_BROKERS} / ${env.MONGODB_URL}`}`);
    return { env, stop: async () => {} };
  }
  const engines: Engines = await startEngines({ log: (line) => log(`engines: ${line}`) });
  const control = await serveEngineControl(engines);
  log(`engines: ${engines.description}`);
  return {
    env: {
      ...env,
      KAFKA_BROKERS: engines.kafkaBrokers.join(','),
      MONGODB_URL: engines.mongoUrl,
      ENGINES_DESCRIPTION: engines.description,
      ENGINES_CONTROL_URL: control.url,
    },
    stop: async () => {
      await control.close();
      await engines.stop();
    },
  };
}

/** Chromium for the hosted page's browser tests (installed from Debian once, a no-op after). */
export function ensureChromium(log: (line: string) => void): Promise<void> {
  if (!existsSync('scripts/ensure-chromium.sh')) return Promise.resolve();
  return run('bash', ['scripts/ensure-chromium.sh']).then((code) => {
    if (code !== 0) log('chromium is not available: the hosted-page browser tests will fail');
  });
}
