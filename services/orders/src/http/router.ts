import type Koa from 'koa';
import { internalRouteRules, mountRouters, tenantInternalCalls, type AcceptedInternalCaller } from '@checkout/http';
import type { OrderCommands } from '../domain/orders.use-cases';
import type { ReferenceData } from '../domain/reference-data';
import type { Books } from '../domain/books.use-cases';
import { balanceRoutes } from './balance.routes';
import { ordersRoutes } from './orders.routes';
import { refundsRoutes } from './refunds.routes';
import { reportsRoutes } from './reports.routes';
import type { ReportCommands } from '../domain/reports.use-cases';
import { processorRoutes } from './processor.routes';
import { referenceDataRoutes } from './reference-data.routes';

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
    reports: ReportCommands;
    referenceData: ReferenceData;
    books: Books;
    clock: () => Date;
  },
): void {
  app.use(tenantInternalCalls(deps.internalCallers, internalRouteRules('orders')));
  mountRouters(app, [
    ordersRoutes(deps.commands),
    refundsRoutes(deps.commands),
    reportsRoutes(deps.reports),
    processorRoutes(deps.commands, deps.processorSecret, deps.clock),
    referenceDataRoutes(deps.referenceData),
    balanceRoutes(deps.books),
  ]);
}
