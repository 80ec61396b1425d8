import type Koa from 'koa';
import {
  internalAuth,
  jsonBody,
  mountRouters,
  type AcceptedInternalCaller,
  type InternalRouteRule,
} from '@checkout/http';
import type { OrderCommands } from '../domain/orders.use-cases';
import type { ReferenceDataStore } from '../store/reference-data.store';
import { ordersRoutes } from './orders.routes';
import { referenceDataRoutes } from './reference-data.routes';

/** Who may call what: each caller only what its flows need. */
export const ORDERS_INTERNAL_ROUTES: readonly InternalRouteRule[] = [
  // Only sessions applies a payment (flow 3) or closes an order to payments when its session expires (flow 4).
  { methods: ['POST'], path: /^\/internal\/orders\/[^/]+\/(payments|close-payments)\/?$/, callers: ['sessions'] },
  // D47: the dashboard (on the gateway) reads an order's payments and the payments-per-hour chart.
  { methods: ['GET'], path: /^\/internal\/orders\/([^/]+\/payments|payments-per-hour)\/?$/, callers: ['gateway'] },
  // Merchants' order API through the gateway; sessions creates, reads, edits and cancels its sessions' orders.
  { path: /^\/internal\/orders(\/[^/]+(\/cancel)?)?\/?$/, callers: ['gateway', 'sessions'] },
  // Reference data: operators manage it through the gateway's admin API; the hosted page reads it.
  {
    methods: ['GET'],
    path: /^\/internal\/admin\/(locations|payment-destinations)\/?$/,
    callers: ['gateway', 'sessions'],
  },
  { path: /^\/internal\/admin\//, callers: ['gateway'] },
];

export function mountRoutes(
  app: Koa,
  deps: {
    internalCallers: readonly AcceptedInternalCaller[];
    commands: OrderCommands;
    referenceData: ReferenceDataStore;
    clock: () => Date;
  },
): void {
  app.use(internalAuth(deps.internalCallers, ORDERS_INTERNAL_ROUTES));
  app.use(jsonBody());
  mountRouters(app, [ordersRoutes(deps.commands), referenceDataRoutes(deps.referenceData, deps.clock)]);
}
