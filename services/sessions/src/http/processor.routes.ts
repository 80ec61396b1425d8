import Router from '@koa/router';
import { z } from 'zod';
import type { Context } from 'koa';
import { DomainError } from '@checkout/errors';
import { parseOrThrow } from '@checkout/http';
import { PaymentMethod, PROCESSOR_SIGNATURE_HEADER, SessionId, verifyProcessorSignature } from '@checkout/contracts';
import type { SessionCommands } from '../domain/sessions.use-cases';

const MAX_NOTIFICATION_BYTES = 64 * 1024;

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
    const raw = await readRawBody(ctx);
    const check = verifyProcessorSignature(secret, raw, ctx.get(PROCESSOR_SIGNATURE_HEADER) || undefined, clock());
    if (!check.ok) throw new DomainError('UNAUTHORIZED', `Processor signature ${check.reason}.`);
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      throw new DomainError('INVALID_REQUEST', 'Notification body is not valid JSON.');
    }
    const note = parseOrThrow(ProcessorNotification, json, 'INVALID_REQUEST');
    const { view } = await commands.payCapture({ ...note, capturedAt: new Date(note.capturedAt) });
    ctx.body = { session: commands.present(view) };
  });

  return router;
}

async function readRawBody(ctx: Context): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > MAX_NOTIFICATION_BYTES)
      throw new DomainError('PAYLOAD_TOO_LARGE', `Notification exceeds ${MAX_NOTIFICATION_BYTES} bytes.`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
