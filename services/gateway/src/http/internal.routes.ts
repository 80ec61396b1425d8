import Router from '@koa/router';
import { internalAuth, internalRouteRules, requireScope, type AcceptedInternalCaller } from '@checkout/http';
import type { Organizations } from '../domain/organizations';

/** Settings other services read: the dispatcher needs the signing secret (D35) at delivery time. */
export function internalRoutes(
  organizations: Organizations,
  internalCallers: readonly AcceptedInternalCaller[],
): Router {
  const router = new Router({ prefix: '/internal' });
  router.use(internalAuth(internalCallers, internalRouteRules('gateway')));
  router.get('/checkout-settings', async (ctx) => {
    ctx.body = await organizations.dispatcherCheckoutSettings(requireScope(ctx.state));
  });
  return router;
}
