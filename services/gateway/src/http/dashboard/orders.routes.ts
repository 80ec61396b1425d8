import { isDomainError } from '@checkout/errors';
import { orderView } from '../../domain/dashboard-reads';
import { idParam, one, pageCtx, requestId, respond, scopeOf, type MountSection } from './kit';
import { orderPage, ordersPage } from './orders.render';

/** Orders, newest first, with D47's filters; an order with its payments and refunds (the Refund form: refunds). */
export const mountOrderPages: MountSection = (pages, deps, session) => {
  pages.get('/orders', session, async (ctx) => {
    const filters = {
      status: one(ctx.query.status),
      paymentStatus: one(ctx.query.paymentStatus),
      locationId: one(ctx.query.locationId)?.trim(),
      externalId: one(ctx.query.externalId)?.trim(),
    };
    const page = one(ctx.query.page);
    try {
      const list = await deps.upstreams.orders.listOrders(scopeOf(ctx), requestId(ctx), {
        ...filters,
        page,
        limit: '25',
      });
      respond(ctx, ordersPage(pageCtx(ctx, 'orders'), list, filters));
    } catch (err) {
      // A filter orders refused (a malformed location id): the list page says so beside the filters.
      if (!isDomainError(err) || !['ORDERS_FETCH_FAILED', 'INVALID_LOCATION_ID'].includes(err.code)) throw err;
      const empty = { orders: [], pagination: { page: 1, limit: 25, hasMore: false } };
      respond(ctx, ordersPage(pageCtx(ctx, 'orders'), empty, filters, `Those filters are not valid: ${err.message}`));
    }
  });

  pages.get('/orders/:orderId', session, async (ctx) => {
    const id = idParam('ord', ctx.params.orderId);
    const { order, payments, refunds, refundable } = await orderView(deps.upstreams, scopeOf(ctx), requestId(ctx), id);
    const message = one(ctx.query.m) === 'refunded' ? 'The refund was made; it is listed below.' : undefined;
    respond(ctx, orderPage(pageCtx(ctx, 'orders'), order, payments, { refunds, refundable }, message));
  });
};
