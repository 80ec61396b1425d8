import type Koa from 'koa';
import { internalAuth, internalRouteRules, mountRouters, type AcceptedInternalCaller } from '@checkout/http';
import type { Recorder } from '../domain/engine/record';
import type { Recovery } from '../domain/engine/recovery';
import type { EventLog } from '../domain/event-log';
import type { TenantBudgets } from '../domain/budgets';
import type { WebhookEndpoints } from '../domain/webhook-endpoints';
import { eventsRoutes } from './events.routes';
import { eventTypesRoutes } from './event-types.routes';
import { webhookEndpointsRoutes } from './webhook-endpoints.routes';
import { usageRoutes } from './usage.routes';

/** What the routes serve: the events API's use cases, the endpoints', and who may call. */
export interface RouteDeps {
  internalCallers: readonly AcceptedInternalCaller[];
  eventLog: EventLog;
  record: Pick<Recorder, 'redeliver'>;
  recovery: Pick<Recovery, 'recover'>;
  endpoints: WebhookEndpoints;
  budgets: Pick<TenantBudgets, 'usageOf'>;
  clock: () => Date;
}

export function mountRoutes(app: Koa, deps: RouteDeps): void {
  app.use(internalAuth(deps.internalCallers, internalRouteRules('webhook-dispatcher')));
  mountRouters(app, [eventsRoutes(deps), webhookEndpointsRoutes(deps), eventTypesRoutes(), usageRoutes(deps.budgets)]);
}
