import Router from '@koa/router';
import { DomainError } from '@checkout/errors';
import { parseOrThrow, readRawText } from '@checkout/http';
import {
  PROCESSOR_NOTIFICATION_MAX_BYTES,
  PROCESSOR_SIGNATURE_HEADER,
  ProcessorRefundNotification,
  verifyProcessorSignature,
  type RefundResponse,
} from '@checkout/contracts';
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
    const raw = await readRawText(ctx, PROCESSOR_NOTIFICATION_MAX_BYTES);
    const check = verifyProcessorSignature(secret, raw, ctx.get(PROCESSOR_SIGNATURE_HEADER) || undefined, clock());
    if (!check.ok) throw new DomainError('UNAUTHORIZED', `Processor signature ${check.reason}.`);
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      throw new DomainError('INVALID_REQUEST', 'Notification body is not valid JSON.');
    }
    const note = parseOrThrow(ProcessorRefundNotification, json, 'INVALID_REQUEST');
    const written = await commands.settleRefundFromProcessor(note.refundId, note.outcome, note.failureReason);
    const body: RefundResponse = { refund: presentRefund(written.order, written.refund) };
    ctx.body = body;
  });

  return router;
}
