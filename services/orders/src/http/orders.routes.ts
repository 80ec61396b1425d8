import Router from '@koa/router';
import { parseOrThrow, requireScope } from '@checkout/http';
import {
  ApplyPaymentRequest,
  CreateOrderRequest,
  INTERNAL_API_HEADERS,
  type OrderPaymentsResponse,
  type PaymentsPerHourResponse,
  LIST_ORDERS_FIELD_CODES,
  ListOrdersQuery,
  ORDER_FIELD_CODES,
  UpdateOrderRequest,
  type AppliedPaymentResponse,
} from '@checkout/contracts';
import type { Context } from 'koa';
import type { OrderAccess, OrderCommands } from '../domain/orders.use-cases';
import { presentOrder } from '../domain/order.presenter';
import { answer, orderIdParam } from './order-answer';

/** The sessions service reaches only the orders it created for its sessions (OrderAccess). */
const accessOf = (ctx: Context): OrderAccess => (ctx.state.internalCaller === 'sessions' ? 'session-orders' : 'any');

/** Internal orders API; the gateway has authenticated the caller and passes its scope in headers. */
export function ordersRoutes(commands: OrderCommands): Router {
  const router = new Router({ prefix: '/internal/orders' });

  router.post('/', async (ctx) => {
    const scope = requireScope(ctx.state);
    const input = parseOrThrow(CreateOrderRequest, ctx.request.jsonBody ?? {}, 'ORDER_CREATE_FAILED', {
      codeForField: ORDER_FIELD_CODES,
    });
    const idempotencyKey = ctx.get('idempotency-key') || undefined;
    const checkoutSessionId = ctx.get(INTERNAL_API_HEADERS.checkoutSessionId) || undefined;
    const { order, created } = await commands.create(scope, input, {
      ...(idempotencyKey !== undefined && { idempotencyKey }),
      ...(checkoutSessionId !== undefined && { checkoutSessionId }),
    });
    ctx.status = created ? 201 : 200;
    answer(ctx, order);
  });

  router.get('/', async (ctx) => {
    const scope = requireScope(ctx.state);
    const query = parseOrThrow(ListOrdersQuery, ctx.query, 'ORDERS_FETCH_FAILED', {
      codeForField: LIST_ORDERS_FIELD_CODES,
    });
    const { page, limit, ...filter } = query;
    if (ctx.get(INTERNAL_API_HEADERS.withoutTotal)) {
      const { orders, hasMore } = await commands.listPage(scope, filter, page, limit);
      // OrderPageResponse (libs/contracts): the list's shape without pagination.total.
      ctx.body = { orders: orders.map(presentOrder), pagination: { page, limit, hasMore } };
      return;
    }
    const { orders, total } = await commands.list(scope, filter, page, limit);
    ctx.body = { orders: orders.map(presentOrder), pagination: { page, limit, total, hasMore: page * limit < total } };
  });

  // D47 (the dashboard): registered before /:orderId, which would otherwise take the name for an id.
  mountDashboardReads(router, commands);

  router.get('/:orderId', async (ctx) => {
    answer(ctx, await commands.get(requireScope(ctx.state), orderIdParam(ctx.params.orderId), accessOf(ctx)));
  });

  router.patch('/:orderId', async (ctx) => {
    const scope = requireScope(ctx.state);
    const id = orderIdParam(ctx.params.orderId);
    const patch = parseOrThrow(UpdateOrderRequest, ctx.request.jsonBody ?? {}, 'ORDER_UPDATE_FAILED', {
      codeForField: ORDER_FIELD_CODES,
    });
    answer(ctx, await commands.update(scope, id, patch, accessOf(ctx)));
  });

  router.post('/:orderId/cancel', async (ctx) => {
    answer(ctx, await commands.cancel(requireScope(ctx.state), orderIdParam(ctx.params.orderId), accessOf(ctx)));
  });

  router.post('/:orderId/close-payments', async (ctx) => {
    answer(ctx, await commands.closePayments(requireScope(ctx.state), orderIdParam(ctx.params.orderId), accessOf(ctx)));
  });

  router.post('/:orderId/payments', async (ctx) => {
    const scope = requireScope(ctx.state);
    const id = orderIdParam(ctx.params.orderId);
    const payment = parseOrThrow(ApplyPaymentRequest, ctx.request.jsonBody ?? {}, 'INVALID_REQUEST');
    const { order, outcome } = await commands.applyPayment(scope, id, payment, accessOf(ctx));
    // AppliedPaymentResponse: the order and whether the payment was applied now or before.
    const applied: Pick<AppliedPaymentResponse, 'outcome'> = { outcome };
    answer(ctx, order, applied);
  });

  return router;
}

/** D47: what the dashboard reads of orders besides the orders themselves (the chart, an order's payments). */
function mountDashboardReads(router: Router, commands: OrderCommands): void {
  router.get('/payments-per-hour', async (ctx) => {
    const { from, hours } = await commands.paymentsPerHour(requireScope(ctx.state));
    const body: PaymentsPerHourResponse = {
      from: from.toISOString(),
      hours: hours.map((h) => ({ hour: h.hour.toISOString(), count: h.count, amount: h.amount })),
    };
    ctx.body = body;
  });

  router.get('/:orderId/payments', async (ctx) => {
    const order = await commands.get(requireScope(ctx.state), orderIdParam(ctx.params.orderId));
    const body: OrderPaymentsResponse = {
      payments: order.payments.map((p) => ({
        id: p.paymentId,
        amount: p.amount,
        method: p.method,
        appliedAt: p.appliedAt.toISOString(),
      })),
    };
    ctx.body = body;
  });
}
