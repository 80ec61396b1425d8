import Koa from 'koa';
import type Router from '@koa/router';
import type { Registry } from 'prom-client';
import type { Logger } from '@checkout/logger';
import { buildInfo, type BuildInfo } from '@checkout/config';
import { DomainError } from '@checkout/errors';
import { requestId } from './request-id';
import { INTERNAL_API_HEADERS } from '@checkout/contracts';
import { errorHandler } from './error-handler';
import { createMetrics, type HttpMetrics } from './metrics';
import { operationalEndpoints, type OperationalExposure, type ReadinessCheck } from './health';
import { traceRequests } from './tracing';

export interface BaseAppOptions {
  service: string;
  logger: Logger;
  readiness: ReadinessCheck[];
  isShuttingDown?: () => boolean;
  /** A registry holding the service's own metrics, served on /metrics with the HTTP and process ones. */
  registry?: Registry;
  /** The HTTP metrics of another app of this service (a second listener), so both count into one registry. */
  metrics?: HttpMetrics;
  /** What /readyz and /metrics show on this listener (default `full`). */
  exposure?: OperationalExposure;
  /** The build reported on /readyz, /metrics and internal answers; default: this process's (libs/config buildInfo). */
  build?: BuildInfo;
}

/**
 * The middleware stack every service shares, in order: request id → server span → error mapping → access log and
 * metrics → /healthz /readyz /metrics. Each service then mounts its routers; an unmatched request ends as the
 * NOT_FOUND envelope, a known path with another method as METHOD_NOT_ALLOWED.
 */
export function createBaseApp(options: BaseAppOptions): { app: Koa; registry: Registry; metrics: HttpMetrics } {
  const app = new Koa({ proxy: false });
  const build = options.build ?? buildInfo();
  const metrics = options.metrics ?? createMetrics(options.service, options.registry, build);
  app.silent = true;
  app.use(requestId());
  app.use(answerWithVersion(build.version));
  // Outside the error mapping, so the span sees the status the client gets. The public listener (exposure
  // `public`: the gateway's /v0 API and hosted page) starts its own traces; every other one continues its caller's.
  app.use(traceRequests({ continueIncoming: (options.exposure ?? 'full') === 'full' }));
  if (options.isShuttingDown) app.use(closeWhileDraining(options.isShuttingDown));
  app.use(errorHandler(options.logger));
  // Runs after the routers unwind, so their allowedMethods can answer 405 first (D7).
  app.use(async (ctx, next) => {
    await next();
    if (ctx.status === 404 && ctx.body == null) throw new DomainError('NOT_FOUND', 'No such route.');
  });
  app.use(metrics.middleware);
  app.use(accessLog(options.logger));
  app.use(
    operationalEndpoints({
      checks: options.readiness,
      registry: metrics.registry,
      isShuttingDown: options.isShuttingDown,
      exposure: options.exposure ?? 'full',
      build,
    }),
  );
  return { app, registry: metrics.registry, metrics };
}

/**
 * An internal caller (a request with an internal token) learns the version that answered it, errors included,
 * as the callee learns the caller's from its request: old and new side by side can tell each other apart.
 */
function answerWithVersion(version: string): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      if (ctx.get(INTERNAL_API_HEADERS.token)) ctx.set(INTERNAL_API_HEADERS.version, version);
    }
  };
}

/**
 * While the service drains, every answer says Connection: close, so a keep-alive client (a load
 * balancer's pooled connection, undici) opens its next request elsewhere instead of reusing a socket that is
 * about to close under it: a reset on a reused connection is a failed request that nobody can safely retry.
 */
function closeWhileDraining(isShuttingDown: () => boolean): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      if (isShuttingDown()) ctx.set('Connection', 'close');
    }
  };
}

function accessLog(logger: Logger): Koa.Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      if (ctx.path !== '/healthz' && ctx.path !== '/readyz' && ctx.path !== '/metrics') {
        logger.debug(
          {
            method: ctx.method,
            route: ctx._matchedRoute,
            status: ctx.status,
            ms: Math.round(performance.now() - started),
          },
          'request',
        );
      }
    }
  };
}

/**
 * Mounts routers with their 405 answers (D7: known path, wrong method → METHOD_NOT_ALLOWED). The answer names
 * the methods the path does take in `Allow` (RFC 9110 §15.5.6), whatever the method asked for, including ones
 * no router implements (TRACE, PROPFIND…), which must not become a 501; OPTIONS is answered with `Allow` alone.
 */
export function mountRouters(app: Koa, routers: readonly Router[]): void {
  for (const router of routers) app.use(router.routes());
  app.use(async (ctx, next) => {
    await next();
    if (ctx.status !== 404 || ctx.body != null) return;
    answerOtherMethod(ctx, routers);
  });
}

/**
 * For a path the routers know but not with this method: sets `Allow`, then answers OPTIONS with 204 or throws
 * METHOD_NOT_ALLOWED (405). Returns false, answering nothing, when no route has this path. Also for a route that
 * must decline a path it matches (the gateway's parameter routes on a literal route's path).
 */
export function answerOtherMethod(ctx: Koa.Context, routers: readonly Router[]): boolean {
  const allowed = allowedMethods(routers, ctx.path);
  if (allowed.length === 0) return false;
  ctx.set('Allow', allowed.join(', '));
  if (ctx.method === 'OPTIONS') {
    ctx.status = 204;
    return true;
  }
  throw new DomainError('METHOD_NOT_ALLOWED', 'Method not allowed on this path.');
}

/**
 * The methods the routes matching this path answer (HEAD with GET, OPTIONS always), in a stable order. Of the
 * routes whose pattern matches, only those with the fewest parameters count: `/v0/events/recover` is the
 * recover route's path, not an event id for `/v0/events/:eventId` (whose GET would answer 400 for it), so its
 * `Allow` is `POST, OPTIONS` (the fuzzer found `GET` listed there). Only routes count, never
 * `router.use()` middleware: its layers match every path under the prefix with no parameters and no methods, and
 * as "the fewest parameters" they left nothing allowed (the admin API answered 404 for 405).
 */
export function allowedMethods(routers: readonly Router[], path: string): string[] {
  const layers = routers
    .flatMap((router) => router.match(path, 'GET').path)
    .filter((layer) => layer.methods.length > 0);
  const fewest = Math.min(...layers.map((layer) => layer.paramNames.length));
  const methods = new Set<string>();
  for (const layer of layers) {
    if (layer.paramNames.length === fewest) for (const method of layer.methods) methods.add(method);
  }
  if (methods.size === 0) return [];
  methods.add('OPTIONS');
  const order = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
  return [...methods].sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
}
