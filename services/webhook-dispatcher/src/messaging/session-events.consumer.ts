import { SessionEventV1 } from '@checkout/contracts';
import type { ParseResult } from '@checkout/kafka';
import type { IncomingEvent } from '../domain/engine/ports';

/**
 * What the session-events consumer (events.consumer.ts) does with a received message's JSON: the envelope checked
 * with SessionEventV1, the webhook body kept as sessions wrote it. Exported for the message fixtures test.
 */
export function parseSessionEvent(raw: unknown): ParseResult<IncomingEvent> {
  const result = SessionEventV1.safeParse(raw);
  if (!result.success)
    return { ok: false, error: result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
  const rawBody = (raw as { body: Record<string, unknown> }).body;
  const { body, ...envelope } = result.data;
  return { ok: true, value: { envelope, createdAt: body.createdAt, rawBody } };
}
