import type Koa from 'koa';
import { internalAuth, mountRouters, type AcceptedInternalCaller, type InternalRouteRule } from '@checkout/http';
import type { EventsStore } from '../store/events.store';
import type { DeliveriesStore } from '../store/deliveries.store';
import type { Recorder } from '../domain/record';
import type { Recovery } from '../domain/recovery';
import { eventsRoutes } from './events.routes';

/** Who may call what: the merchants' events API through the gateway; the operators' replay job redelivers. */
export const DISPATCHER_INTERNAL_ROUTES: readonly InternalRouteRule[] = [
  { methods: ['POST'], path: /^\/internal\/events\/[^/]+\/redeliver\/?$/, callers: ['gateway', 'dead-letter-replay'] },
  { path: /^\/internal\/events(\/.*)?$/, callers: ['gateway'] },
];

export function mountRoutes(
  app: Koa,
  deps: {
    internalCallers: readonly AcceptedInternalCaller[];
    events: EventsStore;
    deliveries: DeliveriesStore;
    record: Pick<Recorder, 'redeliver'>;
    recovery: Pick<Recovery, 'recover'>;
    clock: () => Date;
  },
): void {
  app.use(internalAuth(deps.internalCallers, DISPATCHER_INTERNAL_ROUTES));
  mountRouters(app, [eventsRoutes(deps)]);
}
