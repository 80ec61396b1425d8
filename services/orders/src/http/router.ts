import type Koa from 'koa';
import {
  internalAuth,
  internalRouteRules,
  isInternalPath,
  jsonBody,
  mountRouters,
  type AcceptedInternalCaller,
} from '@checkout/http';
import type { OrderCommands } from '../domain/orders.use-cases';
import type { ReferenceData } from '../domain/reference-data';
import { ordersRoutes } from './orders.routes';
import { refundsRoutes } from './refunds.routes';
import { processorRoutes } from './processor.routes';
import { referenceDataRoutes } from './reference-data.routes';

/**
 * Tenant-called internal paths: authenticated by a caller's credential, JSON bodies only. Case-insensitive, as
 * routing is: `/INTERNAL/orders` must not slip past the check and still reach the route.
 */
function isTenantInternalPath(path: string): boolean {
  return isInternalPath(path) && !isInternalPath(path, '/internal/processor/');
}

/**
 * Two audiences: the tenant calls under /internal (a caller's internal token, scope headers), and the payment
 * processor at /internal/processor (HMAC signature over the raw body, D48), forwarded by the gateway.
 */
export function mountRoutes(
  app: Koa,
  deps: {
    internalCallers: readonly AcceptedInternalCaller[];
    processorSecret: string;
    commands: OrderCommands;
    referenceData: ReferenceData;
    clock: () => Date;
  },
): void {
  const auth = internalAuth(deps.internalCallers, internalRouteRules('orders'));
  const json = jsonBody();
  app.use(async (ctx, next) => {
    if (isTenantInternalPath(ctx.path)) await auth(ctx, next);
    else await next();
  });
  app.use(async (ctx, next) => {
    if (isTenantInternalPath(ctx.path)) await json(ctx, next);
    else await next();
  });
  mountRouters(app, [
    ordersRoutes(deps.commands),
    refundsRoutes(deps.commands),
    processorRoutes(deps.commands, deps.processorSecret, deps.clock),
    referenceDataRoutes(deps.referenceData),
  ]);
}
