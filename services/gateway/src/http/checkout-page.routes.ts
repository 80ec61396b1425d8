import Router from '@koa/router';
import type { Context } from 'koa';
import type { PassThrough } from '../domain/owners';

/**
 * D41: in this deployment the hosted page is served through the gateway; the sessions service renders it.
 * Requests pass through unchanged (forms, cookies, redirects), as do the processor's signed notifications, whose
 * HMAC covers the raw body: payments to sessions (D27), refunds to orders, which owns them (D48).
 */
export function passThroughRoutes(upstreams: Record<'sessions' | 'orders', PassThrough>): Router {
  const router = new Router();
  const pass =
    (upstreamPath: (ctx: Context) => string, owner: 'sessions' | 'orders' = 'sessions') =>
    async (ctx: Context) => {
      const response = await upstreams[owner].passThrough({
        method: ctx.method,
        path: upstreamPath(ctx),
        requestId: String(ctx.state.requestId),
        headers: ctx.req.headers,
        body: ctx.method === 'GET' || ctx.method === 'HEAD' ? undefined : ctx.req,
      });
      ctx.status = response.status;
      for (const [name, value] of Object.entries(response.headers)) if (name !== 'x-request-id') ctx.set(name, value);
      ctx.body = response.body;
    };
  router.get(
    '/checkout/*path',
    pass((ctx) => ctx.url),
  );
  router.post(
    '/checkout/*path',
    pass((ctx) => ctx.url),
  );
  router.post(
    '/v0/processor/notifications',
    pass(() => '/internal/processor/notifications'),
  );
  router.post(
    '/v0/processor/refund_notifications',
    pass(() => '/internal/processor/refund-notifications', 'orders'),
  );
  return router;
}
