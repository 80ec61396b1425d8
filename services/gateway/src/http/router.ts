import type Koa from 'koa';
import type { Logger } from '@checkout/logger';
import Router from '@koa/router';
import { mountRouters } from '@checkout/http';
import type { InternalClient } from '@checkout/http';
import type { OrganizationsStore } from '../store/organizations.store';
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
  const docs = new Router();
  let openApi: Record<string, unknown> | undefined;
  docs.get('/v0/openapi.json', (ctx) => {
    openApi ??= buildOpenApiDocument(`${ctx.protocol}://${ctx.host}`);
    ctx.body = openApi;
  });
  mountRouters(app, [
    docs,
    publicRouter({ authenticate: authenticate(deps.organizations, deps.rateLimiter, deps.authCacheMs, deps.metrics), idempotency: idempotency(deps.idempotencyKeys, deps.clock, (err) => deps.logger.warn({ err }, 'could not keep an Idempotency-Key response; the key stays in use until its lock lapses')), upstreams: deps.upstreams, organizations: deps.organizations, bodyLimitBytes: deps.bodyLimitBytes }),
    passThroughRoutes(deps.upstreams.sessions),
    adminRoutes({ store: deps.organizations, adminToken: deps.adminToken, orders: deps.upstreams.orders, clock: deps.clock }),
    internalRoutes(deps.organizations, deps.acceptedInternalTokens),
  ]);
}
