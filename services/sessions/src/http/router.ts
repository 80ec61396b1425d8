import type Koa from 'koa';
import { internalRouteRules, mountRouters, tenantInternalCalls, type AcceptedInternalCaller } from '@checkout/http';
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
 * Three audiences: the gateway's tenant calls under /internal (internal token + scope headers), the payment
 * processor at /internal/processor (HMAC signature over the raw body), and customers' browsers at /checkout
 * (public; CSRF-protected forms).
 */
export function mountRoutes(app: Koa, deps: RouteDeps): void {
  app.use(tenantInternalCalls(deps.internalCallers, internalRouteRules('sessions')));
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
