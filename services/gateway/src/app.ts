import type { Logger } from '@checkout/logger';
import { IDEMPOTENCY_KEY_RETENTION_MS } from '@checkout/contracts';
import { PeriodicTask } from '@checkout/mongo';
import { ServiceRuntime } from '@checkout/service';
import type { Config } from './config';
import { GATEWAY_INDEXES } from './store/indexes';
import { OrganizationsStore } from './store/organizations.store';
import { parseNetworks } from './domain/client-address';
import { IdempotencyStore } from './store/idempotency.store';
import { DashboardStore } from './store/dashboard.store';
import { closeUpstreams, createUpstreams, type Upstreams } from './clients/upstreams';
import { Organizations } from './domain/organizations';
import { IdempotentRequests } from './domain/idempotent-requests';
import { KeylessWrites } from './domain/keyless-writes';
import { UnansweredWritesStore } from './store/unanswered-writes.store';
import { DashboardLogins } from './domain/dashboard-logins';
import { mountRoutes, type GatewayRouteDeps } from './http/router';
import { createGatewayMetrics, type GatewayMetrics } from './metrics';
import { MerchantBudgets } from './domain/budgets';

export interface GatewayApp {
  /** `url`: the public listener (merchants, customers); `adminUrl`: the operators' one (admin, internal, metrics). */
  start(): Promise<{ url: string; adminUrl: string }>;
  stop(): Promise<void>;
}

/**
 * The daily budgets of the merchants' writes that record events, read from the webhook dispatcher (fail open: a
 * write whose usage cannot be read goes on, counted in gateway_quota_unchecked_total).
 */
function merchantBudgets(
  config: Config,
  upstreams: Upstreams,
  metrics: GatewayMetrics,
  local: { clock: () => Date; logger: Logger },
): MerchantBudgets {
  return new MerchantBudgets(upstreams.dispatcher, {
    cacheMs: config.BUDGET_USAGE_CACHE_MS,
    timeoutMs: config.BUDGET_CHECK_TIMEOUT_MS,
    clock: local.clock,
    refused: (budget, mode) => metrics.quotaRefused.inc({ budget, mode }),
    unchecked: () => metrics.quotaUnchecked.inc(),
    // One line per failed read: the writes that go on unchecked meanwhile are counted, not each logged.
    unreadable: (err) =>
      local.logger.warn({ err }, 'budgets not checked: the usage could not be read; writes go on unchecked'),
  });
}

/**
 * The gateway owns organizations, API keys and checkout settings; it authenticates merchants, validates
 * their requests and forwards them to the service that owns the data. It talks to Kafka through nobody:
 * its readiness is its database and the services behind it. Two listeners: PORT for the public,
 * ADMIN_PORT for operators and other services, which no Ingress exposes.
 */
export function buildApp(config: Config, logger: Logger, options: { clock?: () => Date } = {}): GatewayApp {
  const clock = options.clock ?? (() => new Date());
  const runtime = new ServiceRuntime({ service: 'gateway', config, logger });
  const upstreams = createUpstreams({
    internalToken: config.INTERNAL_TOKEN,
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    ordersUrl: config.ORDERS_URL,
    sessionsUrl: config.SESSIONS_URL,
    dispatcherUrl: config.DISPATCHER_URL,
  });
  runtime.onStop('upstream clients', () => closeUpstreams(upstreams));

  return {
    async start() {
      const mongo = await runtime.connectMongo(GATEWAY_INDEXES);
      const organizations = new OrganizationsStore(mongo.db);
      // A request still running after its upstream deadline (plus a margin) is taken to have died with its process.
      const idempotencyKeys = new IdempotencyStore(mongo.db, {
        retentionMs: IDEMPOTENCY_KEY_RETENTION_MS,
        lockMs: config.UPSTREAM_TIMEOUT_MS + 5_000,
      });
      const dashboard = new DashboardStore(mongo.db);
      // D42 records past their 24 hours are ignored by every read; this sweep only reclaims their space (one
      // deleteMany, harmless on several replicas at once).
      const sweepExpired = async () => {
        await idempotencyKeys.deleteExpired(clock());
        // D47's login links and dashboard sessions past their expiry: ignored by every read already.
        await dashboard.deleteExpired(clock());
      };
      runtime.runInBackground(
        'idempotency key sweep',
        new PeriodicTask(sweepExpired, config.IDEMPOTENCY_SWEEP_INTERVAL_MS, (err) =>
          logger.warn({ err }, 'idempotency key sweep failed; will retry'),
        ),
      );
      const operator = runtime.httpApp({ exposure: 'full' });
      const publicSide = runtime.httpApp({ exposure: 'public', metrics: operator.metrics });
      const dashboardLifetimes = {
        linkTtlMs: config.DASHBOARD_LINK_TTL_MS,
        sessionTtlMs: config.DASHBOARD_SESSION_TTL_MS,
      };
      const metrics = createGatewayMetrics(operator.registry);
      mountRoutes(publicSide.app, operator.app, {
        organizations: new Organizations(organizations, clock),
        idempotentRequests: new IdempotentRequests(idempotencyKeys, clock),
        keylessWrites: new KeylessWrites(
          new UnansweredWritesStore(mongo.db, { retentionMs: IDEMPOTENCY_KEY_RETENTION_MS }),
          clock,
        ),
        budgets: merchantBudgets(config, upstreams, metrics, { clock, logger }),
        metrics,
        upstreams,
        internalCallers: config.INTERNAL_CALLERS,
        adminToken: config.ADMIN_TOKEN,
        limits: requestLimits(config),
        trustedProxies: parseNetworks(config.TRUSTED_PROXIES),
        adminAuthExempt: parseNetworks(config.ADMIN_AUTH_FAILURES_EXEMPT),
        authCacheMs: config.AUTH_CACHE_MS,
        unknownKeyCacheMs: config.UNKNOWN_KEY_CACHE_MS,
        bodyLimitBytes: config.BODY_LIMIT_BYTES,
        publicBaseUrl: config.PUBLIC_BASE_URL,
        clock,
        logger,
        dashboard: { logins: new DashboardLogins(dashboard, dashboardLifetimes, clock), ...dashboardLifetimes },
      });
      const publicServer = await runtime.listen(publicSide.app, config.PORT);
      const operatorServer = await runtime.listen(operator.app, config.ADMIN_PORT);
      return { url: publicServer.url, adminUrl: operatorServer.url };
    },

    stop: () => runtime.stop(),
  };
}

/** The rate limits of the routes (D43), from the settings. */
function requestLimits(config: Config): GatewayRouteDeps['limits'] {
  return {
    perKey: config.RATE_LIMIT_PER_WINDOW,
    testBodyBytesPerKey: config.RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW,
    perClient: config.CLIENT_RATE_LIMIT_PER_WINDOW,
    checkoutPerClient: config.CHECKOUT_RATE_LIMIT_PER_WINDOW,
    windowMs: config.RATE_LIMIT_WINDOW_MS,
    replicas: config.GATEWAY_REPLICAS,
    adminAuthFailuresPerMinute: config.ADMIN_AUTH_FAILURES_PER_MINUTE,
  };
}
