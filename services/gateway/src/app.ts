import { acceptedInternalTokens, httpTimeouts } from '@checkout/config';
import type { Logger } from '@checkout/logger';
import { InternalClient, createBaseApp, listen, type RunningServer } from '@checkout/http';
import { IDEMPOTENCY_KEY_RETENTION_MS } from '@checkout/contracts';
import { PeriodicTask, connectMongo, ensureIndexes, type CommandCounter, type MongoConnection } from '@checkout/mongo';
import type { Config } from './config';
import { GATEWAY_INDEXES } from './store/indexes';
import { OrganizationsStore } from './store/organizations.store';
import { RateLimiter } from './domain/rate-limit';
import { IdempotencyStore } from './store/idempotency.store';
import { mountRoutes } from './http/router';
import { createGatewayMetrics } from './metrics';

export interface GatewayApp {
  start(): Promise<{ url: string }>;
  stop(): Promise<void>;
}

/**
 * The gateway owns organizations, API keys and checkout settings; it authenticates merchants, validates
 * their requests and forwards them to the service that owns the data. It talks to Kafka through nobody:
 * its readiness is its database and the services behind it.
 */
export function buildApp(config: Config, logger: Logger, options: { clock?: () => Date; commandCounter?: CommandCounter } = {}): GatewayApp {
  const clock = options.clock ?? (() => new Date());
  let mongo: MongoConnection | undefined;
  let server: RunningServer | undefined;
  let shuttingDown = false;
  let idempotencyKeys: IdempotencyStore | undefined;
  // D42 records past their 24 hours are ignored by every read; this sweep only reclaims their space (one
  // deleteMany, harmless on several replicas at once).
  const idempotencySweep = new PeriodicTask(
    async () => idempotencyKeys?.deleteExpired(clock()),
    config.IDEMPOTENCY_SWEEP_INTERVAL_MS,
    (err) => logger.warn({ err }, 'idempotency key sweep failed; will retry'),
  );
  const upstreams = {
    orders: new InternalClient({ service: 'orders', baseUrl: config.ORDERS_URL, internalToken: config.INTERNAL_TOKEN, timeoutMs: config.UPSTREAM_TIMEOUT_MS, connections: 128 }),
    sessions: new InternalClient({ service: 'sessions', baseUrl: config.SESSIONS_URL, internalToken: config.INTERNAL_TOKEN, timeoutMs: config.UPSTREAM_TIMEOUT_MS, connections: 128 }),
    dispatcher: new InternalClient({ service: 'webhook-dispatcher', baseUrl: config.DISPATCHER_URL, internalToken: config.INTERNAL_TOKEN, timeoutMs: config.UPSTREAM_TIMEOUT_MS, connections: 128 }),
  };

  return {
    async start() {
      mongo = await connectMongo(config.MONGODB_URL, config.MONGODB_DATABASE, { appName: 'gateway', logger, ...(options.commandCounter && { commandCounter: options.commandCounter }) });
      await ensureIndexes(mongo.db, GATEWAY_INDEXES);
      const organizations = new OrganizationsStore(mongo.db);
      const rateLimiter = new RateLimiter({ limitPerWindow: config.RATE_LIMIT_PER_WINDOW, windowMs: config.RATE_LIMIT_WINDOW_MS, replicas: config.GATEWAY_REPLICAS });
      // A request still running after its upstream deadline (plus a margin) is taken to have died with its process.
      idempotencyKeys = new IdempotencyStore(mongo.db, { retentionMs: IDEMPOTENCY_KEY_RETENTION_MS, lockMs: config.UPSTREAM_TIMEOUT_MS + 5_000 });
      idempotencySweep.start();
      const db = mongo;
      const { app, registry } = createBaseApp({
        service: 'gateway',
        logger,
        isShuttingDown: () => shuttingDown,
        readiness: [{ name: 'mongodb', check: () => db.ping() }],
      });
      mountRoutes(app, {
        organizations,
        rateLimiter,
        idempotencyKeys,
        metrics: createGatewayMetrics(registry),
        upstreams,
        acceptedInternalTokens: acceptedInternalTokens(config),
        adminToken: config.ADMIN_TOKEN,
        authCacheMs: config.AUTH_CACHE_MS,
        bodyLimitBytes: config.BODY_LIMIT_BYTES,
        clock,
        logger,
      });
      server = await listen(app, { host: config.HTTP_HOST, port: config.PORT, ...httpTimeouts(config) });
      return { url: server.url };
    },

    async stop() {
      shuttingDown = true;
      await server?.close(config.SHUTDOWN_GRACE_MS);
      await idempotencySweep.stop();
      await Promise.all(Object.values(upstreams).map((u) => u.close().catch(() => {})));
      await mongo?.close();
    },
  };
}
