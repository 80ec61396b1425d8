import Router from '@koa/router';
import { internalAuth, requireScope } from '@checkout/http';
import type { OrganizationsStore } from '../store/organizations.store';

/** Settings other services read: the dispatcher needs the signing secret (D35) at delivery time. */
export function internalRoutes(store: OrganizationsStore, acceptedInternalTokens: readonly string[]): Router {
  const router = new Router({ prefix: '/internal' });
  router.use(internalAuth(acceptedInternalTokens));
  router.get('/checkout-settings', async (ctx) => {
    const scope = requireScope(ctx.state);
    const [organization, settings] = await Promise.all([store.getOrganization(scope.organizationId), store.getCheckoutSettings(scope.organizationId, scope.mode)]);
    ctx.body = { organizationName: organization?.name ?? '', ...settings };
  });
  return router;
}
