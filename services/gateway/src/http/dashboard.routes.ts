import Router from '@koa/router';
import type { Middleware } from 'koa';
import { mountBalancePages } from './dashboard/balance.routes';
import { createLoginLink, mountLogin, mountLogout, requireSession } from './dashboard/access.routes';
import { mountEndpointPages } from './dashboard/endpoints.routes';
import { htmlErrors } from './dashboard/errors';
import { mountEventPages, mountRecoveryPages } from './dashboard/events.routes';
import { secure, type DashboardDeps } from './dashboard/kit';
import { mountOrderPages } from './dashboard/orders.routes';
import { mountOverviewPages } from './dashboard/overview.routes';
import { mountRefundPages } from './dashboard/refunds.routes';
import { mountSessionPages } from './dashboard/sessions.routes';
import { mountSettingsPages } from './dashboard/settings.routes';

/**
 * D47: the merchant dashboard on the gateway's public listener. `POST /v0/dashboard/login_links` (an API-key
 * route) makes a link; opening it makes a session (a cookie whose token is stored hashed, with the key's
 * organization, mode and key id); every page re-checks that key through the key cache and reads through the
 * owners' internal APIs with the session's scope. Forms that change something carry the session's CSRF token
 * and are reached through a confirm page. Each section's routes are in dashboard/<section>.routes.ts, its pages
 * in dashboard/<section>.render.ts (docs/dashboard.md, "Where the code is").
 */
export function dashboardRoutes(deps: DashboardDeps, api: { authenticate: Middleware; body: Middleware }): Router {
  const router = new Router();
  const secureCookie = deps.publicBaseUrl.startsWith('https:');
  router.post('/v0/dashboard/login_links', api.authenticate, api.body, createLoginLink(deps));

  const pages = new Router({ prefix: '/dashboard' });
  pages.use(async (ctx, next) => {
    secure(ctx);
    await next();
  });
  pages.use(htmlErrors(deps.logger));
  mountLogin(pages, deps, secureCookie);

  const session = requireSession(deps);
  for (const mount of [
    mountOverviewPages,
    mountBalancePages,
    mountOrderPages,
    mountRefundPages,
    mountSessionPages,
    mountEventPages,
    mountRecoveryPages,
    mountEndpointPages,
    mountSettingsPages,
  ])
    mount(pages, deps, session);
  mountLogout(pages, deps, session, secureCookie);

  router.use(pages.routes(), pages.allowedMethods());
  return router;
}
