import type { IncomingHttpHeaders } from 'node:http';
import Router from '@koa/router';
import { PROCESSOR_SIGNATURE_HEADER } from '@checkout/contracts';
import type { Context } from 'koa';
import type { PassThrough } from '../domain/owners';

/**
 * The request headers a pass-through forwards: what a browser's page view or form post and a processor's signed
 * notification need, nothing else. The call carries the gateway's internal credential, so a client header the
 * owner reads on internal calls (an idempotency record, checkout settings, a session id, a scope) must never reach
 * it from outside; an allow-list keeps a header added to the internal contract later out as well.
 */
const PASSED_THROUGH_HEADERS: ReadonlySet<string> = new Set([
  'accept',
  'accept-language',
  'cache-control',
  'content-encoding',
  'content-type',
  'cookie',
  'if-modified-since',
  'if-none-match',
  'origin',
  'referer',
  'sec-fetch-dest',
  'sec-fetch-mode',
  'sec-fetch-site',
  'sec-fetch-user',
  'user-agent',
  PROCESSOR_SIGNATURE_HEADER,
]);

function passedThrough(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && PASSED_THROUGH_HEADERS.has(name)) kept[name] = value;
  return kept;
}

/**
 * D41: in this deployment the hosted page is served through the gateway; the sessions service renders it.
 * Requests pass through unchanged but for their headers (PASSED_THROUGH_HEADERS: forms, cookies, redirects), as do
 * the processor's signed notifications, whose HMAC covers the raw body: payments to sessions (D27), refunds to
 * orders, which owns them (D48).
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
        headers: passedThrough(ctx.req.headers),
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
