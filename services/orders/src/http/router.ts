import type Koa from 'koa';
import { mountRouters, tenantInternalCalls, type AcceptedInternalCaller, type InternalRouteRule } from '@checkout/http';
import type { OrderCommands } from '../domain/orders.use-cases';
import type { ReferenceData } from '../domain/reference-data';
import { ordersRoutes } from './orders.routes';
import { refundsRoutes } from './refunds.routes';
import { processorRoutes } from './processor.routes';
import { referenceDataRoutes } from './reference-data.routes';

/** Who may call what: each caller only what its flows need. */
const ORDERS_INTERNAL_ROUTES: readonly InternalRouteRule[] = [
  // Only sessions applies a payment (flow 3) or closes an order to payments when its session expires (flow 4).
  { methods: ['POST'], path: /^\/internal\/orders\/[^/]+\/(payments|close-payments)\/?$/, callers: ['sessions'] },
  // D47: the dashboard (on the gateway) reads an order's payments and the payments-per-hour chart.
  { methods: ['GET'], path: /^\/internal\/orders\/([^/]+\/payments|payments-per-hour)\/?$/, callers: ['gateway'] },
  // Listing is the merchant's (through the gateway): sessions never lists orders.
  { methods: ['GET'], path: /^\/internal\/orders\/?$/, callers: ['gateway'] },
  // D48: merchants' refunds (API and dashboard) and their test helpers, through the gateway only.
  {
    methods: ['GET', 'POST'],
    path: /^\/internal\/(orders\/[^/]+\/refunds|refunds\/[^/]+)\/?$/,
    callers: ['gateway'],
  },
  {
    methods: ['POST'],
    path: /^\/internal\/test-helpers\/(orders\/[^/]+\/refunds|refunds\/[^/]+\/settle)\/?$/,
    callers: ['gateway'],
  },
  // Merchants' order API through the gateway; sessions creates, reads, edits and cancels its sessions' orders (only
  // those: OrderAccess in domain/orders.use-cases.ts).
  { path: /^\/internal\/orders(\/[^/]+(\/cancel)?)?\/?$/, callers: ['gateway', 'sessions'] },
  // Reference data: operators manage it through the gateway's admin API; the hosted page reads it.
  {
    methods: ['GET'],
    path: /^\/internal\/admin\/(locations|payment-destinations)\/?$/,
    callers: ['gateway', 'sessions'],
  },
  { path: /^\/internal\/admin\//, callers: ['gateway'] },
];

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
  app.use(tenantInternalCalls(deps.internalCallers, ORDERS_INTERNAL_ROUTES));
  mountRouters(app, [
    ordersRoutes(deps.commands),
    refundsRoutes(deps.commands),
    processorRoutes(deps.commands, deps.processorSecret, deps.clock),
    referenceDataRoutes(deps.referenceData),
  ]);
}
