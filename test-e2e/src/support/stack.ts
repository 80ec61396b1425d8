import { randomBytes } from 'node:crypto';
import { freePort, freePorts } from '@checkout/engines';
import { createLogger } from '@checkout/logger';
import { AdminClient, stackEnvironment, type StackEnvironmentOptions } from '@checkout/testing';
import type { Logger } from '@checkout/logger';

export type ServiceName = 'orders' | 'sessions' | 'webhook-dispatcher' | 'gateway';
interface StartableApp {
  start(): Promise<{ url: string }>;
  stop(): Promise<void>;
}

// Imported on demand so a suite can run with the services it needs (e.g. orders + gateway).
const builders: Record<ServiceName, (env: Record<string, string>, logger: Logger) => Promise<StartableApp>> = {
  orders: async (env, logger) =>
    (await import('@checkout/orders')).buildApp((await import('@checkout/orders/config')).parseConfig(env), logger),
  sessions: async (env, logger) =>
    (await import('@checkout/sessions')).buildApp((await import('@checkout/sessions/config')).parseConfig(env), logger),
  'webhook-dispatcher': async (env, logger) =>
    (await import('@checkout/webhook-dispatcher')).buildApp(
      (await import('@checkout/webhook-dispatcher/config')).parseConfig(env),
      logger,
    ),
  gateway: async (env, logger) =>
    (await import('@checkout/gateway')).buildApp((await import('@checkout/gateway/config')).parseConfig(env), logger),
};

export interface InProcessStack {
  gatewayUrl: string;
  /** The gateway's operators' listener: the admin API, /internal, /metrics. */
  adminUrl: string;
  /** Starts one more gateway replica on the same databases and services (e.g. shared rate limits). */
  addGatewayReplica(): Promise<string>;
  /** Starts a service that was left out at first, on its planned port (an outage that ends). */
  startService(name: ServiceName, extraEnv?: Record<string, string>): Promise<void>;
  checkoutBaseUrl: string;
  admin: AdminClient;
  env: ReturnType<typeof stackEnvironment>;
  stop(): Promise<void>;
}

/**
 * All four services in this process, on the real engines named by the global setup (KAFKA_BROKERS,
 * MONGODB_URL), each with databases and topics under a prefix of its own so test files don't meet.
 */
export interface StackOptions {
  /** Receives every log line of every service (JSON text), e.g. to scan a whole run's logs for secrets. */
  logSink?: (line: string) => void;
  /** Runs each service's start (e.g. inside a CommandLog's watch, to see the clients it opens). */
  startWith?: (name: ServiceName, start: () => Promise<unknown>) => Promise<unknown>;
}

export async function startStack(
  overrides: Partial<StackEnvironmentOptions> = {},
  services: readonly ServiceName[] = ['orders', 'sessions', 'webhook-dispatcher', 'gateway'],
  options: StackOptions = {},
): Promise<InProcessStack> {
  const mongoUrl = process.env.MONGODB_URL;
  const brokers = process.env.KAFKA_BROKERS;
  if (!mongoUrl || !brokers)
    throw new Error('KAFKA_BROKERS and MONGODB_URL must be set (the e2e global setup provides them)');
  const [gateway, gatewayAdmin, orders, sessions, dispatcher] = (await freePorts(5)) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const env = stackEnvironment({
    ports: { gateway, gatewayAdmin, orders, sessions, dispatcher },
    mongoUrl,
    kafkaBrokers: brokers.split(','),
    namePrefix: `e2e_${randomBytes(4).toString('hex')}`,
    logLevel: process.env.STACK_LOG_LEVEL ?? 'silent',
    webhookRetryDelaysMs: '200,400,800,1600',
    ...overrides,
  });
  const sink = options.logSink;
  const destination = sink && { write: (line: string) => sink(line) };
  const logger = (name: string) =>
    createLogger(name, { level: env.gateway.LOG_LEVEL, ...(destination && { destination }) });
  const envOf = {
    orders: env.orders,
    sessions: env.sessions,
    'webhook-dispatcher': env.dispatcher,
    gateway: env.gateway,
  };
  const apps = await Promise.all(services.map((name) => builders[name](envOf[name], logger(name))));
  const started: StartableApp[] = [];
  const startWith = options.startWith ?? ((_name, start) => start());
  try {
    for (const [i, app] of apps.entries()) {
      await startWith(services[i] as ServiceName, () => app.start());
      started.push(app);
    }
  } catch (err) {
    await Promise.allSettled(started.map((a) => a.stop()));
    throw err;
  }
  return {
    gatewayUrl: env.gatewayUrl,
    adminUrl: env.adminUrl,
    async startService(name, extraEnv = {}) {
      const app = await builders[name]({ ...envOf[name], ...extraEnv }, logger(name));
      await app.start();
      started.push(app);
    },
    async addGatewayReplica() {
      const port = await freePort();
      const replica = await builders.gateway(
        { ...env.gateway, PORT: String(port), ADMIN_PORT: '0' },
        logger('gateway'),
      );
      await replica.start();
      started.push(replica);
      return `http://127.0.0.1:${port}`;
    },
    checkoutBaseUrl: env.checkoutBaseUrl,
    admin: new AdminClient(env.adminUrl, env.adminToken),
    env,
    async stop() {
      for (const app of [...started].reverse()) await app.stop().catch(() => {});
    },
  };
}
