// Database commands per session operation, counted with the driver's command monitoring on an in-process
// sessions + orders pair (the process stack's services cannot be instrumented from here). Background sweeps are kept
// out of the windows; the counts are deterministic (services/sessions/test/component/round-trips.test.ts asserts the
// same).
import { randomBytes } from 'node:crypto';
import { Pool } from 'undici';
import type { Engines } from '@checkout/engines';
import { createLogger } from '@checkout/logger';
import { CommandCounter } from '@checkout/mongo/testing';
import { buildApp as buildOrdersApp } from '@checkout/orders';
import { parseConfig as parseOrdersConfig } from '@checkout/orders/config';
import { buildApp as buildSessionsApp } from '@checkout/sessions';
import { parseConfig as parseSessionsConfig } from '@checkout/sessions/config';
import { INTERNAL_API_HEADERS } from '@checkout/contracts';
import { stackEnvironment } from '@checkout/testing';
import { SESSION } from './sessions-phases';

export interface RoundTrips {
  operation: string;
  sessions: Record<string, number>;
  orders: Record<string, number>;
  total: number;
}

/** Each operation's commands in sessions and in orders, after a warm-up of each. */
export async function countRoundTrips(engines: Engines): Promise<RoundTrips[]> {
  const id = `bench_trips_${randomBytes(4).toString('hex')}`;
  const pair = await startCountedPair(engines, id);
  const pool = new Pool(pair.sessionsUrl);
  const headers = {
    'content-type': 'application/json',
    [INTERNAL_API_HEADERS.token]: pair.token,
    [INTERNAL_API_HEADERS.organization]: `org_${id}`,
    [INTERNAL_API_HEADERS.mode]: 'test',
  };
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ session?: { id: string } }> => {
    const response = await pool.request({
      method,
      path,
      headers,
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return (await response.body.json()) as { session?: { id: string } };
  };
  const create = async () => (await call('POST', '/internal/sessions', JSON.parse(SESSION))).session?.id ?? '';
  const rows: RoundTrips[] = [];
  const measure = async (operation: string, fn: () => Promise<unknown>) => {
    let inOrders: Awaited<ReturnType<CommandCounter['during']>> | undefined;
    const inSessions = await pair.counters.sessions.during(async () => {
      inOrders = await pair.counters.orders.during(fn);
    });
    rows.push({
      operation,
      sessions: inSessions.commands,
      orders: inOrders?.commands ?? {},
      total: inSessions.total + (inOrders?.total ?? 0),
    });
  };
  try {
    const warm = await create();
    await call('GET', `/internal/sessions/${warm}`);
    await call('POST', `/internal/test-helpers/sessions/${warm}/pay`, {});
    await measure('POST /internal/sessions', create);
    const session = await create();
    await measure('GET /internal/sessions/:id', () => call('GET', `/internal/sessions/${session}`));
    await measure('test-helper pay (declined)', () =>
      call('POST', `/internal/test-helpers/sessions/${session}/pay`, { outcome: 'declined' }),
    );
    await measure('test-helper pay (partial)', () =>
      call('POST', `/internal/test-helpers/sessions/${session}/pay`, { method: 'stablecoin', amount: 100 }),
    );
    await measure('test-helper pay (full)', () => call('POST', `/internal/test-helpers/sessions/${session}/pay`, {}));
    return rows;
  } finally {
    await pool.close();
    await pair.stop();
  }
}

/** Orders, then sessions calling it, in this process, each started under a command counter of its own. */
async function startCountedPair(engines: Engines, id: string) {
  const quiet = '3600000';
  // Each service's own credentials and callers, as the stack gets them; this bench calls sessions as the gateway does.
  const stackEnv = stackEnvironment({
    ports: { gateway: 0, orders: 0, sessions: 0, dispatcher: 0 },
    mongoUrl: engines.mongoUrl,
    kafkaBrokers: engines.kafkaBrokers,
    namePrefix: id,
  });
  const token = stackEnv.internalTokens.gateway;
  const common = {
    MONGODB_URL: engines.mongoUrl,
    KAFKA_BROKERS: engines.kafkaBrokers.join(','),
    TOPIC_PREFIX: id,
    HTTP_HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    OUTBOX_SWEEP_INTERVAL_MS: quiet,
  };
  const logger = createLogger('bench', { level: 'silent' });
  const counters = { orders: new CommandCounter(), sessions: new CommandCounter() };
  // D52's ledger (its consumer group and sweep) and the report poll are off the request path: out of the windows,
  // as services/sessions/test/component/round-trips.test.ts keeps them, or their commands land in whichever window
  // is open when they run.
  const orders = buildOrdersApp(
    parseOrdersConfig({
      ...stackEnv.orders,
      ...common,
      MONGODB_DATABASE: `orders_${id}`,
      CONSUMERS_ENABLED: 'false',
      BALANCE_SWEEP_INTERVAL_MS: quiet,
      REPORT_POLL_INTERVAL_MS: quiet,
    }),
    logger,
  );
  const ordersUrl = (await counters.orders.watch(() => orders.start())).url;
  const sessions = buildSessionsApp(
    parseSessionsConfig({
      ...stackEnv.sessions,
      ...common,
      MONGODB_DATABASE: `sessions_${id}`,
      ORDERS_URL: ordersUrl,
      CHECKOUT_BASE_URL: 'http://127.0.0.1:8080/checkout',
      EXPIRY_SWEEP_INTERVAL_MS: quiet,
      // Its consumer of orders' events (the order copy, D46) reacts to the operation after it answered: not its path.
      CONSUMERS_ENABLED: 'false',
    }),
    logger,
  );
  const sessionsUrl = (await counters.sessions.watch(() => sessions.start())).url;
  return {
    token,
    counters,
    sessionsUrl,
    async stop() {
      await sessions.stop();
      await orders.stop();
    },
  };
}
