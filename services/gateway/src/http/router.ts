import type Koa from 'koa';
import type { BlockList } from 'node:net';
import type { Logger } from '@checkout/logger';
import Router from '@koa/router';
import { LRUCache } from 'lru-cache';
import { jsonBody, mountRouters } from '@checkout/http';
import { fetchLatest } from '@checkout/coalesce';
import type { AcceptedInternalCaller } from '@checkout/http';
import type { Mode } from '@checkout/contracts';
import { RateLimiter } from '../domain/rate-limit';
import { AdminTokenGuesses } from '../domain/admin-token-guesses';
import type { CheckoutSettings } from '../domain/checkout-settings';
import type { Organizations } from '../domain/organizations';
import type { IdempotentRequests } from '../domain/idempotent-requests';
import type { KeylessWrites } from '../domain/keyless-writes';
import type { MerchantBudgets } from '../domain/budgets';
import type { DashboardLogins } from '../domain/dashboard-logins';
import type { DashboardDispatcher, DashboardOrders, DashboardSessions } from '../domain/dashboard-reads';
import type { Forwarding, PassThrough } from '../domain/owners';
import { idempotency, keylessRetries } from './idempotency';
import type { GatewayMetrics } from '../metrics';
import { adminRoutes } from './admin.routes';
import { authenticate } from './authenticate';
import { passThroughRoutes } from './checkout-page.routes';
import { perClientLimits } from './client-limits';
import { peerAddress } from '../domain/client-address';
import { internalRoutes } from './internal.routes';
import { buildOpenApiDocument } from './openapi';
import { dashboardRoutes } from './dashboard.routes';
import { checkoutSettingsRoutes } from './checkout-settings.routes';
import { brandSettings } from '../domain/brand-settings';
import { publicRouter } from './public.router';

/** The services behind the gateway, as its routes call them (the clients of clients/upstreams.ts). */
interface GatewayUpstreams {
  orders: Forwarding & PassThrough & DashboardOrders;
  sessions: Forwarding & PassThrough & DashboardSessions;
  dispatcher: Forwarding & DashboardDispatcher;
}

/** What app.ts composes: the domain's use cases over the stores, and the clients of the upstream services. */
export interface GatewayRouteDeps {
  organizations: Organizations;
  idempotentRequests: IdempotentRequests;
  keylessWrites: KeylessWrites;
  /** The daily budgets of the merchant's writes that record events. */
  budgets: Pick<MerchantBudgets, 'check'>;
  metrics: GatewayMetrics;
  upstreams: GatewayUpstreams;
  internalCallers: readonly AcceptedInternalCaller[];
  adminToken: string;
  limits: {
    perKey: number;
    /** Request-body bytes per test-mode key and window (RATE_LIMIT_TEST_BODY_BYTES_PER_WINDOW). */
    testBodyBytesPerKey: number;
    perClient: number;
    checkoutPerClient: number;
    windowMs: number;
    replicas: number;
    adminAuthFailuresPerMinute: number;
  };
  trustedProxies: BlockList;
  /** Peers whose wrong operator tokens are not counted (ADMIN_AUTH_FAILURES_EXEMPT). */
  adminAuthExempt: BlockList;
  authCacheMs: number;
  unknownKeyCacheMs: number;
  bodyLimitBytes: number;
  publicBaseUrl: string;
  clock: () => Date;
  logger: Logger;
  /** D47: the dashboard's login links and sessions, and their lifetimes (its cookies say them too). */
  dashboard: { logins: DashboardLogins; linkTtlMs: number; sessionTtlMs: number };
}

/**
 * The gateway's two listeners: the public one, which a Service or Ingress exposes (the /v0 API, the
 * OpenAPI document, the hosted checkout page, the processor's notifications), and the operators' one, reached
 * only from inside the cluster (the admin API, the internal API other services call, /metrics and the detailed
 * /readyz, which createBaseApp serves there). What the two share lives here: the key cache, whose entries the
 * admin API invalidates when it revokes a key, and the settings cache, likewise.
 */
export function mountRoutes(publicApp: Koa, operatorApp: Koa, deps: GatewayRouteDeps): void {
  const settings = checkoutSettingsCache(deps);
  const perKey = rateLimiter(deps.limits.perKey, deps.limits);
  const { middleware: authenticated, keys } = authenticate(
    deps.organizations,
    { requests: perKey, testBodyBytes: rateLimiter(deps.limits.testBodyBytesPerKey, deps.limits) },
    { cacheMs: deps.authCacheMs, unknownKeyCacheMs: deps.unknownKeyCacheMs, bodyLimitBytes: deps.bodyLimitBytes },
    deps.metrics,
  );
  mountPublicRoutes(publicApp, deps, { settings, perKey, authenticated, keys });
  mountRouters(operatorApp, [
    adminRoutes({
      organizations: deps.organizations,
      adminToken: deps.adminToken,
      orders: deps.upstreams.orders,
      clock: deps.clock,
      checkoutSettingsChanged: settings.forget,
      keyRevoked: (lookupId) => keys.revoked(lookupId),
      guesses: new AdminTokenGuesses(deps.limits.adminAuthFailuresPerMinute, deps.adminAuthExempt),
      // The operators' listener has no ingress in front: the TCP peer is the client, whatever X-Forwarded-For says.
      clientOf: (ctx) => peerAddress(ctx.req.socket.remoteAddress),
    }),
    internalRoutes(deps.organizations, deps.internalCallers),
  ]);
}

/** What the public listener's routes share with the operators' one, made once by mountRoutes. */
interface SharedAuth {
  settings: CheckoutSettingsCache;
  perKey: RateLimiter;
  authenticated: Koa.Middleware;
  keys: ReturnType<typeof authenticate>['keys'];
}

function mountPublicRoutes(publicApp: Koa, deps: GatewayRouteDeps, shared: SharedAuth): void {
  // The document names the configured public URL only: a Host header is the caller's to choose.
  const openApi = buildOpenApiDocument(deps.publicBaseUrl);
  const docs = new Router();
  docs.get('/v0/openapi.json', (ctx) => {
    ctx.body = openApi;
  });
  publicApp.use(
    perClientLimits({
      all: rateLimiter(deps.limits.perClient, deps.limits),
      checkout: rateLimiter(deps.limits.checkoutPerClient, deps.limits),
      trusted: deps.trustedProxies,
      refused: () => deps.metrics.clientRateLimited.inc(),
    }),
  );
  const api = { authenticate: shared.authenticated, body: jsonBody({ limitBytes: deps.bodyLimitBytes }) };
  const brand = brandSettings(deps.organizations, shared.settings.forget);
  mountRouters(publicApp, [
    docs,
    publicRouter({
      authenticate: shared.authenticated,
      idempotency: idempotency(deps.idempotentRequests, (err) =>
        deps.logger.warn(
          { err },
          'could not keep an Idempotency-Key response; the key stays in use until its lock lapses',
        ),
      ),
      keylessRetries: keylessRetries(deps.keylessWrites, (err) =>
        deps.logger.warn({ err }, 'could not keep or forget an unanswered keyless write'),
      ),
      budgets: deps.budgets,
      upstreams: deps.upstreams,
      checkoutSettings: shared.settings.read,
      bodyLimitBytes: deps.bodyLimitBytes,
    }),
    passThroughRoutes(deps.upstreams),
    checkoutSettingsRoutes(brand, api),
    dashboardRoutes(
      {
        brand,
        logins: deps.dashboard.logins,
        upstreams: deps.upstreams,
        keys: shared.keys,
        perKey: shared.perKey,
        budgets: deps.budgets,
        unknownSessionCacheMs: deps.unknownKeyCacheMs,
        publicBaseUrl: deps.publicBaseUrl,
        linkTtlMs: deps.dashboard.linkTtlMs,
        sessionTtlMs: deps.dashboard.sessionTtlMs,
        clock: deps.clock,
        logger: deps.logger,
      },
      api,
    ),
  ]);
}

/** A limiter of `limitPerWindow` requests per window, shared out among the replicas. */
function rateLimiter(limitPerWindow: number, limits: GatewayRouteDeps['limits']): RateLimiter {
  return new RateLimiter({ limitPerWindow, windowMs: limits.windowMs, replicas: limits.replicas });
}

interface CheckoutSettingsCache {
  read: (organizationId: string, mode: Mode) => Promise<CheckoutSettings>;
  /** The admin API changed them: this replica reads them again on next use. */
  forget: (organizationId: string, mode: Mode) => void;
}

/**
 * Session routes forward the organization's checkout settings (D22, D26): read through the same short cache as
 * API keys, so a warm gateway reads no database per request (D43). A PATCH through this replica's admin API
 * takes effect here at once; on other replicas within AUTH_CACHE_MS.
 */
function checkoutSettingsCache(deps: Pick<GatewayRouteDeps, 'authCacheMs' | 'organizations'>): CheckoutSettingsCache {
  const cache = new LRUCache<string, CheckoutSettings>({
    max: 10_000,
    ttl: Math.max(deps.authCacheMs, 1),
    fetchMethod: async (key) => {
      const [organizationId = '', mode] = key.split(':');
      return deps.organizations.checkoutSettings(organizationId, mode as Mode);
    },
  });
  const keyOf = (organizationId: string, mode: Mode) => `${organizationId}:${mode}`;
  return {
    read: async (organizationId, mode) => {
      const settings = await fetchLatest(cache, keyOf(organizationId, mode));
      if (!settings) throw new Error(`no checkout settings for ${organizationId}/${mode}`);
      return settings;
    },
    forget: (organizationId, mode) => void cache.delete(keyOf(organizationId, mode)),
  };
}
