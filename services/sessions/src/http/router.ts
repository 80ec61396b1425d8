import type Koa from 'koa';
import type { Middleware } from 'koa';
import {
  internalAuth,
  internalRouteRules,
  isInternalPath,
  jsonBody,
  mountRouters,
  type AcceptedInternalCaller,
} from '@checkout/http';
import type { SessionCommands } from '../domain/sessions.use-cases';
import type { CreateSessionDeps } from '../domain/create-session.flow';
import { sessionsRoutes } from './sessions.routes';
import { testHelpersRoutes } from './test-helpers.routes';
import { processorRoutes } from './processor.routes';
import { hostedPageRoutes } from './hosted-page.routes';

export interface RouteDeps {
  internalCallers: readonly AcceptedInternalCaller[];
  processorSecret: string;
  csrfSecret: string;
  commands: SessionCommands;
  flowDeps: CreateSessionDeps;
  clock: () => Date;
  secureCookies: boolean;
}

/**
 * Tenant-called internal paths: authenticated by a caller's credential, JSON bodies only. Case-insensitive, as
 * routing is: `/INTERNAL/sessions` must not slip past the check and still reach the route.
 */
function isTenantInternalPath(path: string): boolean {
  return isInternalPath(path) && !isInternalPath(path, '/internal/processor/');
}

/** `middleware` on the gateway's tenant calls only; the processor's and browsers' requests pass it by. */
function onTenantInternalPaths(middleware: Middleware): Middleware {
  return async (ctx, next) => {
    if (isTenantInternalPath(ctx.path)) await middleware(ctx, next);
    else await next();
  };
}

/**
 * Three audiences: the gateway's tenant calls under /internal (internal token + scope headers), the payment
 * processor at /internal/processor (HMAC signature over the raw body), and customers' browsers at /checkout
 * (public; CSRF-protected forms).
 */
export function mountRoutes(app: Koa, deps: RouteDeps): void {
  const auth = internalAuth(deps.internalCallers, internalRouteRules('sessions'));
  const json = jsonBody();
  app.use(onTenantInternalPaths(auth));
  app.use(onTenantInternalPaths(json));
  mountRouters(app, [
    sessionsRoutes(deps.commands, deps.flowDeps),
    testHelpersRoutes(deps.commands, deps.flowDeps.idSecret),
    processorRoutes(deps.commands, deps.processorSecret, deps.clock),
    hostedPageRoutes({
      page: deps.commands.hostedPage,
      csrfSecret: deps.csrfSecret,
      secureCookies: deps.secureCookies,
    }),
  ]);
}
