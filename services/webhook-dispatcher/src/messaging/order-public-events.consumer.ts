import { OrderPublicEventMessage, type EventType, type Mode } from '@checkout/contracts';
import type { z } from 'zod';
import type { ParseResult } from '@checkout/kafka';
import type { IncomingEvent } from '../domain/engine/ports';

/** What a public event's envelope must give the recorder: its id, tenant, type and the body's createdAt. */
type PublicEventSchema = z.ZodType<{
  eventId: string;
  organizationId: string;
  mode: Mode;
  type: EventType;
  body: { createdAt: string };
}>;

/**
 * A parser of one topic's public events: the message checked with its schema, the body kept as its producer wrote it.
 * They have no callback URL: a session's receives only its session's events (D49); the recording path delivers them
 * to the webhook endpoints subscribed to their type (D50).
 */
export function publicEventParser(schema: PublicEventSchema): (raw: unknown) => ParseResult<IncomingEvent> {
  return (raw) => {
    const result = schema.safeParse(raw);
    if (!result.success)
      return { ok: false, error: result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
    const { eventId, organizationId, mode, type, body } = result.data;
    const rawBody = (raw as { body: Record<string, unknown> }).body;
    return {
      ok: true,
      value: {
        envelope: { eventId, organizationId, mode, type, callbackUrl: null },
        createdAt: body.createdAt,
        rawBody,
      },
    };
  };
}

/**
 * What the order-public-events consumer (events.consumer.ts) does with a received message's JSON: orders' public
 * events (order.*, refund.*, D49), checked with OrderPublicEventMessage. Exported for the message fixtures test.
 */
export const parseOrderPublicEvent = publicEventParser(OrderPublicEventMessage);
