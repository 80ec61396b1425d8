import type { Middleware, ParameterizedContext } from 'koa';
import { startSpan, tracingEnabled, type SpanAttributes, type SpanHandle } from '@checkout/telemetry';
import { INTERNAL_API_HEADERS } from '@checkout/contracts';

/**
 * Route parameters that are ids an operator searches traces by (docs/operations.md, "Find a payment's trace").
 * Never `sessionId`: a session id opens its hosted page, so it is a capability, not a name, and everyone who can
 * read the trace store would hold every open checkout.
 */
const ID_PARAMS: Record<string, keyof SpanAttributes> = {
  orderId: 'checkout.order_id',
  eventId: 'checkout.event_id',
  organizationId: 'checkout.organization_id',
};

const UNTRACED = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * A server span per request, named by its route pattern (`POST /v0/orders/:orderId/cancel`), with the ids its
 * route parameters and internal headers name. `continueIncoming`: a traceparent that arrived is continued (an
 * internal call, an operator's tool); the public listener starts every trace anew instead (docs/decisions.md,
 * "Trace context from outside"), so that a caller can neither join our traces nor force them sampled.
 * No span for health checks and scrapes. With tracing off the middleware is one branch; a request the sampler
 * drops gets no span and no attributes, only its W3C context.
 */
export function traceRequests(options: { continueIncoming: boolean }): Middleware {
  return async (ctx, next) => {
    if (!tracingEnabled() || UNTRACED.has(ctx.path)) {
      await next();
      return;
    }
    const span = startSpan(ctx.method, {
      kind: 'server',
      parent: options.continueIncoming ? ctx.headers : 'none',
    });
    if (span.recording) {
      const organizationId = ctx.get(INTERNAL_API_HEADERS.organization);
      const mode = ctx.get(INTERNAL_API_HEADERS.mode);
      span.setAttributes({
        'http.request.method': ctx.method,
        'checkout.request_id': ctx.state.requestId as string | undefined,
        ...(organizationId && { 'checkout.organization_id': organizationId }),
        ...(mode && { 'checkout.mode': mode }),
      });
    }
    try {
      await span.run(next);
    } catch (err) {
      span.fail(err);
      throw err;
    } finally {
      if (span.recording) describeAnswer(ctx, span);
      span.end();
    }
  };
}

/** The route that answered, its status and the ids in its parameters, on a recorded server span. */
function describeAnswer(ctx: ParameterizedContext, span: SpanHandle): void {
  const route = ctx._matchedRoute === undefined ? undefined : String(ctx._matchedRoute);
  if (route) span.rename(`${ctx.method} ${route}`);
  const attributes: SpanAttributes = { 'http.route': route, 'http.response.status_code': ctx.status };
  const params = (ctx as { params?: Record<string, string> }).params ?? {};
  for (const [param, attribute] of Object.entries(ID_PARAMS))
    if (params[param] !== undefined) attributes[attribute] = params[param];
  span.setAttributes(attributes);
  if (ctx.status >= 500) span.fail();
}
