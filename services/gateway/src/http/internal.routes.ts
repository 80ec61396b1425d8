import Router from '@koa/router';
import { internalAuth, requireScope, type AcceptedInternalCaller, type InternalRouteRule } from '@checkout/http';
import type { OrganizationsStore } from '../store/organizations.store';

/** Who may call what: only the dispatcher reads an organization's signing secret. */
export const GATEWAY_INTERNAL_ROUTES: readonly InternalRouteRule[] = [
  { methods: ['GET'], path: /^\/internal\/checkout-settings\/?$/, callers: ['webhook-dispatcher'] },
];

/** Settings other services read: the dispatcher needs the signing secret (D35) at delivery time. */
export function internalRoutes(store: OrganizationsStore, internalCallers: readonly AcceptedInternalCaller[]): Router {
  const router = new Router({ prefix: '/internal' });
  router.use(internalAuth(internalCallers, GATEWAY_INTERNAL_ROUTES));
  router.get('/checkout-settings', async (ctx) => {
    const scope = requireScope(ctx.state);
    const [organization, settings] = await Promise.all([
      store.getOrganization(scope.organizationId),
      store.getCheckoutSettings(scope.organizationId, scope.mode),
    ]);
    const { previousWebhookSigningSecret: previous, ...rest } = settings;
    const stillSigning = previous && previous.until > new Date() ? [previous.secret] : [];
    ctx.body = {
      organizationName: organization?.name ?? '',
      ...rest,
      // Every secret deliveries are signed with now: the current one first, then, during a rotation's overlap, the
      // one it replaced. `webhookSigningSecret` stays for dispatchers that read only it (a rolling deploy).
      webhookSigningSecrets:
        settings.webhookSigningSecret === null ? [] : [settings.webhookSigningSecret, ...stillSigning],
    };
  });
  return router;
}
