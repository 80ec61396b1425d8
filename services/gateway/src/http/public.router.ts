import Router from '@koa/router';
import type { Context } from 'koa';
import { DomainError } from '@checkout/errors';
import { answerOtherMethod, jsonBody, requireScope } from '@checkout/http';
import { INTERNAL_API_HEADERS, encodeCheckoutSettingsHeader, isIdOf, type Mode } from '@checkout/contracts';
import type { Middleware } from 'koa';
import { brandOf, type CheckoutSettings } from '../domain/checkout-settings';
import type { Forwarding } from '../domain/owners';
import { copyOrderToSession, type SessionOrderCopies } from '../domain/order-writes';
import type { MerchantBudgets } from '../domain/budgets';
import { PUBLIC_ROUTES, type PublicRoute, type Upstream } from './public-routes';

export interface PublicRouterDeps {
  authenticate: Middleware;
  /** D42, on every POST. */
  idempotency: Middleware;
  /** After it, on the routes marked `keylessRetry`: a keyless retry of an unanswered write is the same write. */
  keylessRetries: Middleware;
  /** The daily budgets of the writes that record events (the table's `recordsEvents`). */
  budgets: Pick<MerchantBudgets, 'check'>;
  bodyLimitBytes: number;
  /** The owner of each route (the table's `upstream`); sessions also takes D46's copies of an order. */
  upstreams: Record<Upstream, Forwarding> & { sessions: SessionOrderCopies };
  /** An organization's checkout settings for a mode, through the request-path cache (D43). */
  checkoutSettings: (organizationId: string, mode: Mode) => Promise<CheckoutSettings>;
}

/** A path as the router compares it: case-insensitive, trailing slashes ignored. */
const normalisedPath = (path: string): string => path.toLowerCase().replace(/\/+$/, '');

/** The paths of the routes without parameters, e.g. `/v0/events/recover`. */
const LITERAL_PATHS = new Set(
  PUBLIC_ROUTES.filter((route) => !route.path.includes(':')).map((route) => normalisedPath(route.path)),
);

/**
 * A parameter route never answers a literal route's path: `GET /v0/events/recover` is the recover route's path with
 * the wrong method (405, `Allow: POST, OPTIONS`), not event "recover" (the full fuzz run, Schemathesis
 * ST204, found `GET /v0/events/:eventId` answering it 400 INVALID_EVENT_ID). Runs before authentication, as the 405
 * of any other known path does.
 */
function notALiteralPath(router: Router): Middleware {
  return async (ctx, next) => {
    if (!LITERAL_PATHS.has(normalisedPath(ctx.path))) {
      await next();
      return;
    }
    if (!answerOtherMethod(ctx, [router])) throw new DomainError('NOT_FOUND', 'No such route.');
  };
}

/**
 * A write that records events, past its organization and mode's daily budget: 429 QUOTA_EXCEEDED. Before the
 * Idempotency-Key is taken, so a refusal is never kept as the key's answer: the same key is good after the reset.
 */
function withinBudget(route: PublicRoute, budgets: PublicRouterDeps['budgets']): Middleware[] {
  if (!route.recordsEvents) return [];
  return [
    async (ctx, next) => {
      const scope = requireScope(ctx.state);
      // A test helper asked with a live key is 404, as without budgets.
      if (!route.testModeOnly || scope.mode === 'test') await budgets.check(scope, String(ctx.state.requestId));
      await next();
    },
  ];
}

/**
 * Builds the /v0 router from the route table: authenticate → read the body → the budgets (writes that record
 * events) → Idempotency-Key (POST) → check ids → forward (the owner validates).
 */
export function publicRouter(deps: PublicRouterDeps): Router {
  const router = new Router();
  const body = jsonBody({ limitBytes: deps.bodyLimitBytes });
  for (const route of PUBLIC_ROUTES) {
    const upstream = route.upstream;
    if (upstream === 'gateway') continue;
    const method = route.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete';
    const handler = async (ctx: Context) => {
      await forward(ctx, { ...route, upstream }, deps);
    };
    const guard: Middleware[] = route.path.includes(':') ? [notALiteralPath(router)] : [];
    const keyless = route.keylessRetry ? [deps.keylessRetries] : [];
    const budget = withinBudget(route, deps.budgets);
    if (route.method === 'POST' && !route.noIdempotencyKey)
      router.post(route.path, ...guard, deps.authenticate, body, ...budget, deps.idempotency, ...keyless, handler);
    else router[method](route.path, ...guard, deps.authenticate, body, ...budget, handler);
  }
  return router;
}

async function forward(
  ctx: Context,
  route: PublicRoute & { upstream: Upstream },
  deps: PublicRouterDeps,
): Promise<void> {
  const scope = requireScope(ctx.state);
  if (route.testModeOnly && scope.mode !== 'test') throw new DomainError('NOT_FOUND', 'No such route.');
  const params = ctx.params as Record<string, string>;
  if (route.idParam) {
    const value = params[route.idParam.name];
    if (!isIdOf(route.idParam.prefix, value))
      throw new DomainError(route.idParam.code, `"${value ?? ''}" is not a valid ${route.idParam.name}.`);
  }
  const querystring = ctx.querystring ? `?${ctx.querystring}` : '';
  const call = { path: `${route.upstreamPath(params)}${querystring}`, scope, requestId: String(ctx.state.requestId) };
  if (route.success.contentType) {
    await streamAnswer(ctx, deps.upstreams[route.upstream], { method: route.method, ...call });
    return;
  }
  // Bodies and queries are validated once, by the service that owns them (same zod schemas, same codes).
  const body = ctx.request.jsonBody;
  if (route.body && body === undefined && route.body.required)
    throw new DomainError('INVALID_REQUEST', 'This endpoint needs a JSON object body.');
  const headers: Record<string, string> = {};
  if (ctx.state.idempotencyRecord !== undefined)
    headers[INTERNAL_API_HEADERS.idempotencyRecord] = ctx.state.idempotencyRecord;
  if (ctx.state.idempotencySince !== undefined)
    headers[INTERNAL_API_HEADERS.idempotencySince] = ctx.state.idempotencySince.toISOString();
  if (route.forwardCheckoutSettings) {
    const settings = await deps.checkoutSettings(scope.organizationId, scope.mode);
    const organizationName = ctx.state.organization?.name ?? '';
    headers[INTERNAL_API_HEADERS.checkoutSettings] = encodeCheckoutSettingsHeader({
      organizationName,
      defaultCallbackUrl: settings.defaultCallbackUrl,
      enabledPaymentMethods: settings.enabledPaymentMethods,
      ...brandOf(settings),
    });
  }
  const response = await deps.upstreams[route.upstream].forward({
    method: route.method,
    ...call,
    body: route.body ? (body ?? {}) : undefined,
    headers,
  });
  if (route.copyOrderToSession && response.status < 300)
    await copyOrderToSession(deps.upstreams.sessions, scope, String(ctx.state.requestId), response);
  const retryAfter = response.headers['retry-after'];
  if (typeof retryAfter === 'string') ctx.set('Retry-After', retryAfter);
  ctx.status = response.status;
  ctx.body =
    route.answerOnly && response.status < 300
      ? { [route.answerOnly]: (response.body as Record<string, unknown> | null)?.[route.answerOnly] }
      : response.body;
}

/** The headers of a streamed answer the merchant gets: what the file is, and its name. */
const STREAMED_HEADERS = ['content-type', 'content-disposition'] as const;

/**
 * A route whose success is a file (D52's report CSV): the owner's answer is passed on as it comes, chunk by chunk,
 * so the gateway never holds a file whole; an error answer (JSON, small) is read and answered as any other.
 */
async function streamAnswer(ctx: Context, owner: Forwarding, call: Parameters<Forwarding['stream']>[0]): Promise<void> {
  const answer = await owner.stream(call);
  ctx.status = answer.status;
  if (answer.status >= 300) {
    const chunks: Buffer[] = [];
    for await (const chunk of answer.body) chunks.push(Buffer.from(chunk as Uint8Array));
    const text = Buffer.concat(chunks).toString('utf8');
    ctx.body = text === '' ? null : (JSON.parse(text) as unknown);
    return;
  }
  for (const name of STREAMED_HEADERS) {
    const value = answer.headers[name];
    if (typeof value === 'string') ctx.set(name, value);
  }
  ctx.body = answer.body;
}
