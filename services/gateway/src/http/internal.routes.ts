import Router from '@koa/router';
import { internalAuth, requireScope, type AcceptedInternalCaller, type InternalRouteRule } from '@checkout/http';
import type { Organizations } from '../domain/organizations';

/** Who may call what: only the dispatcher reads an organization's signing secret. */
const GATEWAY_INTERNAL_ROUTES: readonly InternalRouteRule[] = [
  { methods: ['GET'], path: /^\/internal\/checkout-settings\/?$/, callers: ['webhook-dispatcher'] },
];

/** Settings other services read: the dispatcher needs the signing secret (D35) at delivery time. */
export function internalRoutes(
  organizations: Organizations,
  internalCallers: readonly AcceptedInternalCaller[],
): Router {
  const router = new Router({ prefix: '/internal' });
  router.use(internalAuth(internalCallers, GATEWAY_INTERNAL_ROUTES));
  router.get('/checkout-settings', async (ctx) => {
    ctx.body = await organizations.dispatcherCheckoutSettings(requireScope(ctx.state));
  });
  return router;
}
