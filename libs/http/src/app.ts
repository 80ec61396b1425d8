import Koa from 'koa';
import type Router from '@koa/router';
import type { Registry } from 'prom-client';
import type { Logger } from '@checkout/logger';
import { DomainError } from '@checkout/errors';
import { requestId } from './request-id';
import { errorHandler } from './error-handler';
import { createMetrics } from './metrics';
import { operationalEndpoints, type ReadinessCheck } from './health';

export interface BaseAppOptions {
  service: string;
  logger: Logger;
  readiness: ReadinessCheck[];
  isShuttingDown?: () => boolean;
  /** A registry holding the service's own metrics, served on /metrics with the HTTP and process ones. */
  registry?: Registry;
}

/**
 * The middleware stack every service shares, in order: request id → error mapping → access log and
 * metrics → /healthz /readyz /metrics. Each service then mounts its routers; an unmatched request ends as the
 * NOT_FOUND envelope, a known path with another method as METHOD_NOT_ALLOWED.
 */
export function createBaseApp(options: BaseAppOptions): { app: Koa; registry: Registry } {
  const app = new Koa({ proxy: false });
  const metrics = createMetrics(options.service, options.registry);
  app.silent = true;
  app.use(requestId());
  app.use(errorHandler(options.logger));
  // Runs after the routers unwind, so their allowedMethods can answer 405 first (D7).
  app.use(async (ctx, next) => {
    await next();
    if (ctx.status === 404 && ctx.body == null) throw new DomainError('NOT_FOUND', 'No such route.');
  });
  app.use(metrics.middleware);
  app.use(accessLog(options.logger));
  app.use(operationalEndpoints({ checks: options.readiness, registry: metrics.registry, isShuttingDown: options.isShuttingDown }));
  return { app, registry: metrics.registry };
}

function accessLog(logger: Logger): Koa.Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      if (ctx.path !== '/healthz' && ctx.path !== '/readyz' && ctx.path !== '/metrics') {
        logger.debug({ method: ctx.method, route: ctx._matchedRoute, status: ctx.status, ms: Math.round(performance.now() - started) }, 'request');
      }
    }
  };
}

/** Mounts routers with their 405 answers (D7: known path, wrong method → METHOD_NOT_ALLOWED). */
export function mountRouters(app: Koa, routers: readonly Router[]): void {
  for (const router of routers) {
    app.use(router.routes());
    app.use(router.allowedMethods({ throw: true, methodNotAllowed: () => new DomainError('METHOD_NOT_ALLOWED', 'Method not allowed on this path.') }));
  }
}
