import type Koa from 'koa';
import { internalAuth, mountRouters } from '@checkout/http';
import type { EventsStore } from '../store/events.store';
import type { DeliveriesStore } from '../store/deliveries.store';
import type { Dispatcher } from '../domain/dispatcher';
import { eventsRoutes } from './events.routes';

export function mountRoutes(app: Koa, deps: { acceptedInternalTokens: readonly string[]; events: EventsStore; deliveries: DeliveriesStore; dispatcher: Dispatcher }): void {
  app.use(internalAuth(deps.acceptedInternalTokens));
  mountRouters(app, [eventsRoutes(deps)]);
}
