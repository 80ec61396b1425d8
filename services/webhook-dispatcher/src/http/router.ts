import type Koa from 'koa';
import { internalAuth, mountRouters, type AcceptedInternalCaller, type InternalRouteRule } from '@checkout/http';
import type { Recorder } from '../domain/engine/record';
import type { Recovery } from '../domain/engine/recovery';
import type { EventLog } from '../domain/event-log';
import type { WebhookEndpoints } from '../domain/webhook-endpoints';
import { eventsRoutes } from './events.routes';
import { eventTypesRoutes } from './event-types.routes';
import { webhookEndpointsRoutes } from './webhook-endpoints.routes';

/**
 * Who may call what: the merchants' events, webhook endpoints and event catalog APIs through the gateway; the
 * operators' replay job redelivers.
 */
const DISPATCHER_INTERNAL_ROUTES: readonly InternalRouteRule[] = [
  { methods: ['POST'], path: /^\/internal\/events\/[^/]+\/redeliver\/?$/, callers: ['gateway', 'dead-letter-replay'] },
  { path: /^\/internal\/events(\/.*)?$/, callers: ['gateway'] },
  { path: /^\/internal\/webhook-endpoints(\/.*)?$/, callers: ['gateway'] },
  { path: /^\/internal\/event-types\/?$/, callers: ['gateway'] },
];

/** What the routes serve: the events API's use cases, the endpoints', and who may call. */
export interface RouteDeps {
  internalCallers: readonly AcceptedInternalCaller[];
  eventLog: EventLog;
  record: Pick<Recorder, 'redeliver'>;
  recovery: Pick<Recovery, 'recover'>;
  endpoints: WebhookEndpoints;
  clock: () => Date;
}

export function mountRoutes(app: Koa, deps: RouteDeps): void {
  app.use(internalAuth(deps.internalCallers, DISPATCHER_INTERNAL_ROUTES));
  mountRouters(app, [eventsRoutes(deps), webhookEndpointsRoutes(deps), eventTypesRoutes()]);
}
