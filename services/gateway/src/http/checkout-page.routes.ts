import Router from '@koa/router';
import type { Context } from 'koa';
import type { SessionsClient } from '../clients/sessions.client';

/**
 * D41: in this deployment the hosted page is served through the gateway; the sessions service renders it.
 * Requests pass through unchanged (forms, cookies, redirects), as does the processor's signed notification,
 * whose HMAC covers the raw body.
 */
export function passThroughRoutes(sessions: SessionsClient): Router {
  const router = new Router();
  const pass = (upstreamPath: (ctx: Context) => string) => async (ctx: Context) => {
    const response = await sessions.passThrough({
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
  return router;
}
