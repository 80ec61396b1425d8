import type Koa from 'koa';
import { internalAuth, jsonBody, mountRouters } from '@checkout/http';
import type { OrderCommands } from '../domain/orders.use-cases';
import type { ReferenceDataStore } from '../store/reference-data.store';
import { ordersRoutes } from './orders.routes';
import { referenceDataRoutes } from './reference-data.routes';

export function mountRoutes(app: Koa, deps: { acceptedInternalTokens: readonly string[]; commands: OrderCommands; referenceData: ReferenceDataStore; clock: () => Date }): void {
  app.use(internalAuth(deps.acceptedInternalTokens));
  app.use(jsonBody());
  mountRouters(app, [ordersRoutes(deps.commands), referenceDataRoutes(deps.referenceData, deps.clock)]);
}
