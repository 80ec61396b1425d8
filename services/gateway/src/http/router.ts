import type Koa from 'koa';
import type { Logger } from '@checkout/logger';
import Router from '@koa/router';
import { mountRouters } from '@checkout/http';
import type { InternalClient } from '@checkout/http';
import type { CheckoutSettings, OrganizationsStore } from '../store/organizations.store';
import type { Mode } from '@checkout/contracts';
import { TtlCache } from '@checkout/coalesce';
import type { RateLimiter } from '../domain/rate-limit';
import type { IdempotencyStore } from '../store/idempotency.store';
import { idempotency } from './idempotency';
import type { GatewayMetrics } from '../metrics';
import { adminRoutes } from './admin.routes';
import { authenticate } from './authenticate';
import { passThroughRoutes } from './checkout-page.routes';
import { internalRoutes } from './internal.routes';
import { buildOpenApiDocument } from './openapi';
import { publicRouter } from './public.router';
import type { Upstream } from './public-routes';

export interface GatewayRouteDeps {
  organizations: OrganizationsStore;
  rateLimiter: RateLimiter;
  idempotencyKeys: IdempotencyStore;
  metrics: GatewayMetrics;
  upstreams: Record<Upstream, InternalClient>;
  acceptedInternalTokens: readonly string[];
  adminToken: string;
  authCacheMs: number;
  bodyLimitBytes: number;
  clock: () => Date;
  logger: Logger;
}

export function mountRoutes(app: Koa, deps: GatewayRouteDeps): void {
  // Session routes forward the organization's checkout settings (D22, D26): read through the same short cache as
  // API keys, so a warm gateway reads no database per request (D43). A PATCH through this replica's admin API
  // takes effect here at once; on other replicas within AUTH_CACHE_MS.
  const settingsCache = new TtlCache<CheckoutSettings>({ ttlMs: deps.authCacheMs, maxEntries: 10_000 });
  const settingsKey = (organizationId: string, mode: Mode) => `${organizationId}:${mode}`;
  const checkoutSettings = (organizationId: string, mode: Mode) => settingsCache.get(settingsKey(organizationId, mode), () => deps.organizations.getCheckoutSettings(organizationId, mode));
  const docs = new Router();
  let openApi: Record<string, unknown> | undefined;
  docs.get('/v0/openapi.json', (ctx) => {
    openApi ??= buildOpenApiDocument(`${ctx.protocol}://${ctx.host}`);
    ctx.body = openApi;
  });
  mountRouters(app, [
    docs,
    publicRouter({ authenticate: authenticate(deps.organizations, deps.rateLimiter, deps.authCacheMs, deps.metrics), idempotency: idempotency(deps.idempotencyKeys, deps.clock, (err) => deps.logger.warn({ err }, 'could not keep an Idempotency-Key response; the key stays in use until its lock lapses')), upstreams: deps.upstreams, checkoutSettings, bodyLimitBytes: deps.bodyLimitBytes }),
    passThroughRoutes(deps.upstreams.sessions),
    adminRoutes({ store: deps.organizations, adminToken: deps.adminToken, orders: deps.upstreams.orders, clock: deps.clock, checkoutSettingsChanged: (organizationId, mode) => settingsCache.forget(settingsKey(organizationId, mode)) }),
    internalRoutes(deps.organizations, deps.acceptedInternalTokens),
  ]);
}
