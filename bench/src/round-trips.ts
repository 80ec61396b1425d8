// The round-trip half of the bench: services run in this process, each started under a
// CommandCounter of its own (the driver's command monitoring) and all under one SendCounter (the Kafka sends of
// the producers they make); each operation is run a few times after a warm-up and its database commands and Kafka
// sends per run are printed with its budget. Counts are deterministic, so a few runs suffice; the component and
// e2e tests assert the same figures exactly.
// bench/src/orders-round-trips.ts adds rows: measureRoundTrips(...) per operation, then bench/src/orders.ts prints
// formatRoundTripTable(rows).
import { randomBytes } from 'node:crypto';
import { createLogger } from '@checkout/logger';
import { CommandCounter } from '@checkout/mongo/testing';
import { SendCounter } from '@checkout/kafka/testing';
import type { Engines } from '@checkout/engines';
import { AdminClient, stackEnvironment, type StackEnvironment } from '@checkout/testing';
import { AUTH_CACHE_MS_MAX } from '@checkout/gateway/config';
import { formatColumns } from './load';

export type CountedService = 'gateway' | 'orders' | 'sessions';

interface StartableApp {
  /** adminUrl: the gateway's operators' listener (admin API), apart from its public one. */
  start(): Promise<{ url: string; adminUrl?: string }>;
  stop(): Promise<void>;
}
type Builder = (env: StackEnvironment, urls: Partial<Record<CountedService, string>>) => Promise<StartableApp>;

const silent = (name: string) => createLogger(name, { level: 'silent' });

// In start order (a service's upstreams first). A service joins by adding its builder here.
const BUILDERS: Record<CountedService, Builder> = {
  orders: async (env) =>
    (await import('@checkout/orders')).buildApp(
      (await import('@checkout/orders/config')).parseConfig(env.orders),
      silent('orders'),
    ),
  sessions: async (env, urls) =>
    (await import('@checkout/sessions')).buildApp(
      (await import('@checkout/sessions/config')).parseConfig({
        ...env.sessions,
        ...(urls.orders && { ORDERS_URL: urls.orders }),
      }),
      silent('sessions'),
    ),
  gateway: async (env, urls) =>
    (await import('@checkout/gateway')).buildApp(
      (await import('@checkout/gateway/config')).parseConfig({
        ...env.gateway,
        ...(urls.orders && { ORDERS_URL: urls.orders }),
        ...(urls.sessions && { SESSIONS_URL: urls.sessions }),
      }),
      silent('gateway'),
    ),
};

export interface CountedStack {
  urls: Partial<Record<CountedService, string>>;
  commands: Partial<Record<CountedService, CommandCounter>>;
  kafka: SendCounter;
  env: StackEnvironment;
  admin(): AdminClient;
  stop(): Promise<void>;
}

/**
 * The given services in this process on the bench's engines, counted. Background sweeps are pushed out of
 * the measured windows (they run once at start) and API keys stay cached, as in a service that is warm.
 */
export async function startCountedStack(engines: Engines, services: readonly CountedService[]): Promise<CountedStack> {
  const env = stackEnvironment({
    ports: { gateway: 0, orders: 0, sessions: 0, dispatcher: 0 },
    mongoUrl: engines.mongoUrl,
    kafkaBrokers: engines.kafkaBrokers,
    namePrefix: `bench_rt_${randomBytes(4).toString('hex')}`,
    logLevel: 'silent',
    extraEnv: {
      // The longest key cache the gateway accepts (30 s): a measurement that outlasts it reads the key once more.
      gateway: {
        AUTH_CACHE_MS: String(AUTH_CACHE_MS_MAX),
        IDEMPOTENCY_SWEEP_INTERVAL_MS: '3600000',
        RATE_LIMIT_PER_WINDOW: '1000000',
        RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW: '1000000000',
      },
      // D52's ledger is off the payment path (its own consumer group and sweep): kept out of the counted windows,
      // as in services/orders/test/component/round-trips.test.ts, which counts the payment path alone.
      orders: { OUTBOX_SWEEP_INTERVAL_MS: '3600000', CONSUMERS_ENABLED: 'false', BALANCE_SWEEP_INTERVAL_MS: '3600000' },
    },
  });
  const kafka = new SendCounter();
  const commands: Partial<Record<CountedService, CommandCounter>> = {};
  const urls: Partial<Record<CountedService, string>> = {};
  let adminUrl = '';
  const started: StartableApp[] = [];
  const order = (Object.keys(BUILDERS) as CountedService[]).filter((s) => services.includes(s));
  try {
    for (const service of order) {
      const commandCounter = new CommandCounter();
      const app = await BUILDERS[service](env, urls);
      const listening = await commandCounter.watch(() => kafka.watch(() => app.start()));
      urls[service] = listening.url;
      if (listening.adminUrl) adminUrl = listening.adminUrl;
      commands[service] = commandCounter;
      started.push(app);
    }
  } catch (err) {
    for (const app of started.reverse()) await app.stop().catch(() => {});
    throw err;
  }
  return {
    urls,
    commands,
    kafka,
    env,
    admin: () => new AdminClient(adminUrl, env.adminToken),
    async stop() {
      for (const app of [...started].reverse()) await app.stop().catch(() => {});
    },
  };
}

export interface RoundTripBudget {
  /** Most database commands allowed, all services together (or `service`'s alone). */
  commands: number;
  /**
   * The one service the bound is for, when the others' commands are not the operation's request path (a consumer
   * reacting to its events meanwhile, whose share of a window varies from run to run).
   */
  service?: CountedService;
  /** Most Kafka sends allowed (default: no bound). */
  kafkaSends?: number;
  /** Where the budget comes from, e.g. "≤ 2 (storage rules)". */
  source: string;
}

export interface RoundTripRow {
  operation: string;
  /** Commands per run by service, e.g. { gateway: { insert: 1 }, orders: { find: 1 } }. */
  byService: Record<string, Record<string, number>>;
  /** Database commands per run, all services. */
  commands: number;
  kafkaSends: number;
  runs: number;
  budget?: RoundTripBudget;
  /** Figures of an earlier build to print beside (e.g. the "before"). */
  before?: string;
}

/**
 * Runs `operation` `runs` times (after `warmup` unmeasured runs) and returns its cost per run. `settle` runs
 * after each measured run and is counted with it: e.g. wait until the outbox relay has published what the
 * operation wrote, so the relay's work is part of the figure.
 */
export async function measureRoundTrips(
  stack: Pick<CountedStack, 'commands' | 'kafka'>,
  operation: string,
  run: (i: number) => Promise<unknown>,
  options: {
    runs?: number;
    warmup?: number;
    budget?: RoundTripBudget;
    before?: string;
    settle?: () => Promise<unknown>;
  } = {},
): Promise<RoundTripRow> {
  const runs = options.runs ?? 20;
  for (let i = 0; i < (options.warmup ?? 1); i++) await run(-1 - i);
  const counters = Object.entries(stack.commands).filter((e): e is [string, CommandCounter] => e[1] !== undefined);
  const before = counters.map(([, c]) => c.snapshot());
  const sendsBefore = stack.kafka.sends;
  for (let i = 0; i < runs; i++) {
    await run(i);
    await options.settle?.();
  }
  const byService: Record<string, Record<string, number>> = {};
  let commands = 0;
  counters.forEach(([service, counter], i) => {
    const earlier = before[i] ?? {};
    const delta: Record<string, number> = {};
    for (const [name, n] of Object.entries(counter.snapshot())) {
      const d = n - (earlier[name] ?? 0);
      if (d > 0) {
        delta[name] = d / runs;
        commands += d / runs;
      }
    }
    byService[service] = delta;
  });
  return {
    operation,
    byService,
    commands,
    kafkaSends: (stack.kafka.sends - sendsBefore) / runs,
    runs,
    ...(options.budget && { budget: options.budget }),
    ...(options.before !== undefined && { before: options.before }),
  };
}

const count = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(2));
const commandsText = (byName: Record<string, number>) =>
  Object.keys(byName).length === 0
    ? '0'
    : Object.entries(byName)
        .map(([name, n]) => `${count(n)} ${name}`)
        .join(' + ');

export const mark = (ok: boolean) => (ok ? '✓' : '✗');

/** The round-trip table: one row per operation, commands per service, total, Kafka sends, budget with ✓/✗. */
export function formatRoundTripTable(rows: readonly RoundTripRow[]): string {
  const services = [...new Set(rows.flatMap((r) => Object.keys(r.byService)))];
  const header = ['operation', ...services.map((s) => `${s} commands`), 'total', 'Kafka sends', 'budget', 'before'];
  const lines = rows.map((r) => {
    const bounded = (budget: RoundTripBudget) =>
      budget.service === undefined
        ? r.commands
        : Object.values(r.byService[budget.service] ?? {}).reduce((sum, n) => sum + n, 0);
    const within = r.budget
      ? bounded(r.budget) <= r.budget.commands &&
        (r.budget.kafkaSends === undefined || r.kafkaSends <= r.budget.kafkaSends)
      : undefined;
    return [
      r.operation,
      ...services.map((s) => commandsText(r.byService[s] ?? {})),
      count(r.commands),
      count(r.kafkaSends),
      r.budget ? `${r.budget.source} ${mark(within === true)}` : '',
      r.before ?? '',
    ];
  });
  return formatColumns(header, lines);
}
