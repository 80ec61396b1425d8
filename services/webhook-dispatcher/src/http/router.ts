import type Koa from 'koa';
import { internalAuth, internalRouteRules, mountRouters, type AcceptedInternalCaller } from '@checkout/http';
import type { Recorder } from '../domain/record';
import type { Recovery } from '../domain/recovery';
import type { EventLog } from '../domain/event-log';
import type { WebhookEndpoints } from '../domain/webhook-endpoints';
import { eventsRoutes } from './events.routes';
import { eventTypesRoutes } from './event-types.routes';
import { webhookEndpointsRoutes } from './webhook-endpoints.routes';

export function mountRoutes(
  app: Koa,
  deps: {
    internalCallers: readonly AcceptedInternalCaller[];
    eventLog: EventLog;
    record: Pick<Recorder, 'redeliver'>;
    recovery: Pick<Recovery, 'recover'>;
    endpoints: WebhookEndpoints;
    clock: () => Date;
  },
): void {
  app.use(internalAuth(deps.internalCallers, internalRouteRules('webhook-dispatcher')));
  mountRouters(app, [eventsRoutes(deps), webhookEndpointsRoutes(deps), eventTypesRoutes()]);
}
