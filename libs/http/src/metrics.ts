import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Middleware } from 'koa';

export interface HttpMetrics {
  registry: Registry;
  middleware: Middleware;
}

/** One registry per app, so tests that start several services in one process don't share counters. */
/** The registry may come from the service, so its own metrics are served on the same /metrics. */
export function createMetrics(service: string, registry: Registry = new Registry()): HttpMetrics {
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const middleware: Middleware = async (ctx, next) => {
    const end = duration.startTimer();
    try {
      await next();
    } finally {
      // The matched route pattern, never the raw path: ids in paths would explode label cardinality.
      const route = String(ctx._matchedRoute ?? 'unmatched');
      const labels = { method: ctx.method, route, status: String(ctx.status) };
      end(labels);
      requests.inc(labels);
    }
  };
  return { registry, middleware };
}
