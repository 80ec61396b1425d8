import type Koa from 'koa';
import { internalAuth, jsonBody, mountRouters } from '@checkout/http';
import type { SessionCommands } from '../domain/sessions.use-cases';
import type { CreateSessionDeps } from '../domain/create-session.flow';
import { sessionsRoutes } from './sessions.routes';
import { testHelpersRoutes } from './test-helpers.routes';
import { processorRoutes } from './processor.routes';
import { hostedPageRoutes } from './hosted-page.routes';

export interface RouteDeps {
  acceptedInternalTokens: readonly string[];
  processorSecret: string;
  csrfSecret: string;
  commands: SessionCommands;
  flowDeps: CreateSessionDeps;
  clock: () => Date;
  secureCookies: boolean;
}

/** Tenant-called internal paths: authenticated by the internal token, JSON bodies only. */
function isTenantInternalPath(path: string): boolean {
  return path.startsWith('/internal/') && !path.startsWith('/internal/processor/');
}

/**
 * Three audiences: the gateway's tenant calls under /internal (internal token + scope headers), the payment
 * processor at /internal/processor (HMAC signature over the raw body), and customers' browsers at /checkout
 * (public; CSRF-protected forms).
 */
export function mountRoutes(app: Koa, deps: RouteDeps): void {
  const auth = internalAuth(deps.acceptedInternalTokens);
  const json = jsonBody();
  app.use((ctx, next) => (isTenantInternalPath(ctx.path) ? auth(ctx, next) : next()));
  app.use((ctx, next) => (isTenantInternalPath(ctx.path) ? json(ctx, next) : next()));
  mountRouters(app, [
    sessionsRoutes(deps.commands, deps.flowDeps),
    testHelpersRoutes(deps.commands),
    processorRoutes(deps.commands, deps.processorSecret, deps.clock),
    hostedPageRoutes({ commands: deps.commands, csrfSecret: deps.csrfSecret, secureCookies: deps.secureCookies, orders: deps.flowDeps.orders }),
  ]);
}
