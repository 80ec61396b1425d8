import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Middleware } from 'koa';
import type { BuildInfo } from '@checkout/config';
import { INTERNAL_API_HEADERS } from '@checkout/contracts';

export interface HttpMetrics {
  registry: Registry;
  middleware: Middleware;
}

/** What an internal caller that sends no x-internal-version is counted as: a build older than versioned ones. */
export const UNVERSIONED_CALLER = 'none';

/**
 * One registry per app, so tests that start several services in one process don't share counters. The registry
 * may come from the service, so its own metrics are served on the same /metrics.
 */
export function createMetrics(service: string, registry: Registry = new Registry(), build?: BuildInfo): HttpMetrics {
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  if (build) {
    // The usual build_info gauge: always 1, its labels say what runs (joined onto other series by `service`).
    new Gauge({
      name: 'checkout_build_info',
      help: 'The build this process runs: its release version (or the latest release + commit) and commit',
      labelNames: ['version', 'commit'],
      registers: [registry],
    }).set({ version: build.version, commit: build.commit }, 1);
  }
  // Which versions of which callers still call which internal routes: a field or route may be removed only once
  // no caller that reads it remains (docs/engineering.md, "Contracts between services").
  const internalRequests = new Counter({
    name: 'internal_requests_total',
    help: 'Internal API requests by route, calling service and its version (x-internal-version; none: older)',
    labelNames: ['method', 'route', 'caller', 'caller_version'],
    registers: [registry],
  });
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
      const caller = ctx.state.internalCaller;
      if (caller !== undefined)
        internalRequests.inc({
          method: ctx.method,
          route,
          caller,
          caller_version: ctx.get(INTERNAL_API_HEADERS.version) || UNVERSIONED_CALLER,
        });
    }
  };
  return { registry, middleware };
}
