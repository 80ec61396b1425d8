import Router from '@koa/router';
import { parseOrThrow, readProcessorNotification } from '@checkout/http';
import { ProcessorRefundNotification, type RefundResponse } from '@checkout/contracts';
import type { OrderCommands } from '../domain/orders.use-cases';
import { presentRefund } from '../domain/order.presenter';

/**
 * D48, live mode: the processor settles refunds here. Not tenant-called: no internal token or scope headers; the
 * HMAC signature (the same scheme and secret as payment notifications, D27) authenticates the processor, and the
 * refund id determines organization and mode. Replay-safe: a settlement is applied at most once by refund id.
 */
export function processorRoutes(commands: OrderCommands, secret: string, clock: () => Date): Router {
  const router = new Router({ prefix: '/internal/processor' });

  router.post('/refund-notifications', async (ctx) => {
    const json = await readProcessorNotification(ctx, secret, clock());
    const note = parseOrThrow(ProcessorRefundNotification, json, 'INVALID_REQUEST');
    const written = await commands.settleRefundFromProcessor(note.refundId, note.outcome, note.failureReason);
    const body: RefundResponse = { refund: presentRefund(written.order, written.refund) };
    ctx.body = body;
  });

  return router;
}
