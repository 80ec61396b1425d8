import { OrderPublicEventMessage } from '@checkout/contracts';
import type { ParseResult } from '@checkout/kafka';
import type { IncomingEvent } from '../domain/engine/ports';

/**
 * What the order-public-events consumer (events.consumer.ts) does with a received message's JSON: orders' public
 * events (order.*, refund.*, D49), checked with OrderPublicEventMessage, the body kept as orders wrote it. A
 * session's callback URL receives only its session's events (D49), so these are recorded and not delivered.
 * Exported for the message fixtures test.
 */
export function parseOrderPublicEvent(raw: unknown): ParseResult<IncomingEvent> {
  const result = OrderPublicEventMessage.safeParse(raw);
  if (!result.success)
    return { ok: false, error: result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
  const { eventId, organizationId, mode, type, body } = result.data;
  const rawBody = (raw as { body: Record<string, unknown> }).body;
  return {
    ok: true,
    value: { envelope: { eventId, organizationId, mode, type, callbackUrl: null }, createdAt: body.createdAt, rawBody },
  };
}
