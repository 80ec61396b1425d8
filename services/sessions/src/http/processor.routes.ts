import Router from '@koa/router';
import { z } from 'zod';
import { parseOrThrow, readProcessorNotification } from '@checkout/http';
import { PaymentMethod, SessionId } from '@checkout/contracts';
import type { SessionCommands } from '../domain/sessions.use-cases';

const ProcessorNotification = z.strictObject({
  paymentId: z.string().min(1).max(100),
  sessionId: SessionId,
  amount: z.int().min(1),
  method: PaymentMethod,
  capturedAt: z.iso.datetime({ offset: true }),
});

/**
 * D27: live processors report captured payments here. Not tenant-called: no internal token or scope headers;
 * the HMAC signature authenticates the processor and the session id determines organization and mode. The
 * payment goes through the same pay flow as the test simulators.
 */
export function processorRoutes(commands: SessionCommands, secret: string, clock: () => Date): Router {
  const router = new Router({ prefix: '/internal/processor' });

  router.post('/notifications', async (ctx) => {
    const json = await readProcessorNotification(ctx, secret, clock());
    const note = parseOrThrow(ProcessorNotification, json, 'INVALID_REQUEST');
    const { view } = await commands.payCapture({ ...note, capturedAt: new Date(note.capturedAt) });
    ctx.body = { session: commands.present(view) };
  });

  return router;
}
